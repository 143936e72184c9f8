"""The block method's live arrays at its traced peak inside the Newton solves' refinement, by allocation site.

Run: ``python benchmarks/bench_live_set.py [--n 200] [--prior contagious:0.9:0.3,0.7] [--eps 1] [--top 40]
[--out F]``; for a former revision, put its ``problems`` first on ``PYTHONPATH``.

Solves one m = 2 reduced PD-DP point through the public call (``method="lp"``) under ``tracemalloc`` (one frame
per trace: every NumPy array is counted at the line that allocated it).  Each time the flexible GMRES refinement
(``problems.ipm.krylov``) computes a residual with more traced memory than the last snapshot (by 4 MiB), it takes a
snapshot; the last one is the refinement's traced peak.  One JSON line: wall seconds (slowed by the tracing),
status, the traced peak of the whole call and of the refinement, the solve it was in (the library's frames up to
the iteration, as ``bench_public_peak.py`` names them), and the ``--top`` allocation sites of the live set then,
in MiB with their number of blocks.
The resident peak (``bench_public_peak.py``) is higher by the heap's free pages; this is the live set under it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--prior", default="contagious:0.9:0.3,0.7")
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    tracemalloc.start(1)
    from problems.export import atomic_write_text
    from problems.ipm import krylov
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    seen: dict = {"max": 0, "snapshot": None, "where": None}
    residual = krylov.residual

    def traced(newton, d, r_p, r_s):  # noqa: ANN001, ANN202 - krylov.residual, watched
        out = residual(newton, d, r_p, r_s)
        now = tracemalloc.get_traced_memory()[0]
        if now > seen["max"] + 4 * 2**20:
            seen.update(max=now, snapshot=tracemalloc.take_snapshot(), where=_where(sys._getframe(1)))
        return out

    krylov.residual = traced
    t = time.perf_counter()
    res = ReducedPDDP(parse_symmetric_prior(args.prior, args.n, 2)).solve(args.eps, method="lp")
    wall = time.perf_counter() - t
    krylov.residual = residual
    sites = []
    if seen["snapshot"] is not None:
        for st in seen["snapshot"].statistics("lineno")[: args.top]:
            frame = st.traceback[0]
            name = frame.filename.split("site-packages/")[-1]
            name = name[name.index("problems/") :] if "problems/" in name else name
            sites.append(
                {"site": f"{name}:{frame.lineno}", "mib": round(st.size / 2**20, 1), "blocks": st.count}
            )
    line = json.dumps(
        {
            "n": args.n,
            "prior": args.prior,
            "eps": args.eps,
            "wall_s_traced": round(wall, 1),
            "status": str(res.status),
            "traced_peak_mib": round(tracemalloc.get_traced_memory()[1] / 2**20, 1),
            "refinement_peak_mib": round(seen["max"] / 2**20, 1),
            "refinement_peak_at": seen["where"],
            "sites": sites,
        }
    )
    print(line)
    if args.out:
        atomic_write_text(args.out, line + "\n")


def _where(frame) -> str:  # noqa: ANN001 - the caller's frames, innermost first, up to the iteration
    names = []
    while frame is not None and len(names) < 6:
        names.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
        if frame.f_code.co_name == "solve_block_angular":
            break
        frame = frame.f_back
    return " < ".join(names)


if __name__ == "__main__":
    main()
