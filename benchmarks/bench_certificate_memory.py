"""The certificate's working set over the ratio rows: traced peak of ``certify`` and of ``lower_bound``.

Run: ``python benchmarks/bench_certificate_memory.py [--n 100] [--prior contagious:0.9:0.3,0.7] [--eps 1]
[--slice-rows 65536] [--out F]``; for a former revision, put its ``problems`` first on ``PYTHONPATH``.

Solves one m = 2 reduced PD-DP point through the public call (``method="lp"``), records the arguments of every
certificate the chain asked for, and then computes each again under ``tracemalloc`` (NumPy's arrays are traced):
the peak above the memory before the call, in MiB and in vectors over the ratio rows (8·P bytes), with the bounds
(which must not change between versions that claim the same arithmetic).  ``--slice-rows`` sets the row slices
(``problems.lp.ratio_rows.ROW_SLICE`` and ``exact_feasibility.VERIFY_ROWS``, where the version has them) so that a
smaller n has as many slices as n = 200 has with the library's 2^19 (n = 100: 65 536).  One JSON line.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import time
import tracemalloc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--prior", default="contagious:0.9:0.3,0.7")
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--slice-rows", type=int, default=65536)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    import numpy as np

    import problems
    from problems.export import atomic_write_text
    from problems.lp import bounds, exact_feasibility
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.solvers import chain

    try:
        from problems.lp import dual_bound, ratio_rows

        ratio_rows.ROW_SLICE = args.slice_rows
        lower_bound = dual_bound.lower_bound
    except ImportError:  # a version before the lower bound's own module
        lower_bound = bounds.lower_bound
    if hasattr(exact_feasibility, "VERIFY_ROWS"):
        exact_feasibility.VERIFY_ROWS = args.slice_rows

    certify = bounds.certify
    asked = []

    def record(spec, eps, z, nu, lam, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
        asked.append((spec, eps, np.array(z), np.array(nu), np.array(lam), kw))
        return certify(spec, eps, z, nu, lam, **kw)

    chain.certify = record
    t = time.perf_counter()
    res = ReducedPDDP(parse_symmetric_prior(args.prior, args.n, 2)).solve(args.eps, method="lp")
    wall = time.perf_counter() - t
    chain.certify = certify

    def traced(call):  # noqa: ANN001, ANN202
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        out = call()
        peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        return out, peak

    rows = []
    for spec, eps, z, nu, lam, kw in asked:
        row = 8.0 * spec.P
        cert, peak_c = traced(lambda: certify(spec, eps, z, nu, lam, **kw))  # noqa: B023
        (low, _), peak_l = traced(lambda: lower_bound(spec, eps, nu, lam, cert.bounds.upper))  # noqa: B023
        rows.append(
            {
                "lower": cert.bounds.lower,
                "upper": cert.bounds.upper,
                "lower_bound_alone": low,
                "certify_peak_mib": round(peak_c / 2**20, 1),
                "certify_peak_rows": round(peak_c / row, 2),
                "lower_bound_peak_mib": round(peak_l / 2**20, 1),
                "lower_bound_peak_rows": round(peak_l / row, 2),
            }
        )
    line = json.dumps(
        {
            "library": os.path.dirname(problems.__file__),
            "n": args.n,
            "prior": args.prior,
            "eps": args.eps,
            "slice_rows": args.slice_rows,
            "status": str(res.status),
            "value": res.value,
            "wall_s": round(wall, 1),
            "certificates": rows,
        }
    )
    print(line)
    if args.out:
        atomic_write_text(args.out, line + "\n")


if __name__ == "__main__":
    main()
