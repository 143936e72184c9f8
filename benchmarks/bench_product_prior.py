"""PD-DP and PD-I for i.i.d. priors: the single-letterisation theorem against the reduced LP, side by side.

Run: ``python benchmarks/bench_product_prior.py [--no-lp]``.  Prints a markdown table and writes
``benchmarks/results/product_prior.json``.

For each case the program is built and solved twice where the LP is feasible: ``method="auto"`` (the theorem
path of :mod:`problems.orbit.product_prior`: n × the certified one-row program) and ``method="lp"`` (the
joint-type LP through the chain).  Times are CPU seconds (``time.process_time``, build + solve) so that other
jobs on the machine do not inflate them; wall seconds are recorded as well.  Priors: i.i.d. (0.3, 0.7) for
m = 2, (0.2, 0.3, 0.5) for m = 3; PD-I is solved at ε ≥ ε_X.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from problems.orbit import ReducedPDDP, ReducedPDI, symmetric_iid

ROWS = {2: [0.3, 0.7], 3: [0.2, 0.3, 0.5]}
#: (m, n, ε, run the LP too)
CASES = [
    (2, 30, 1.5, True),
    (2, 50, 1.5, True),
    (2, 200, 1.5, False),
    (2, 400, 1.5, False),
    (2, 10_000, 1.5, False),
    (3, 8, 1.0, True),
    (3, 16, 1.0, False),
    (3, 200, 1.0, False),
]


def run(cls, m: int, n: int, eps: float, method: str) -> dict:  # noqa: ANN001
    w0, c0 = time.perf_counter(), time.process_time()
    res = cls(symmetric_iid(n, ROWS[m])).solve(eps, method=method)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    b = res.bounds
    return {
        "program": res.program,
        "m": m,
        "n": n,
        "eps": eps,
        "method": method,
        "via": res.stats.solver,
        "status": str(res.status),
        "value": res.value,
        "lower": b.lower,
        "upper": b.upper,
        "relative_width": (b.upper - b.lower) / b.upper if b.upper > 0 else 0.0,
        "cpu_s": cpu,
        "wall_s": wall,
        "mechanism_level": res.extras.get("mechanism_level"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-lp", action="store_true", help="the theorem path only")
    ap.add_argument("--out", default=str(Path(__file__).with_name("results") / "product_prior.json"))
    args = ap.parse_args()
    rows = []
    print("| program | m | n | ε | method | via | status | value | rel. width | CPU s | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for m, n, eps, with_lp in CASES:
        for cls in (ReducedPDDP, ReducedPDI):
            for method in ("auto", "lp") if (with_lp and not args.no_lp) else ("auto",):
                r = run(cls, m, n, eps, method)
                rows.append(r)
                print(
                    f"| {r['program']} | {m} | {n} | {eps:g} | {method} | {r['via']} | {r['status']} | "
                    f"{r['value']:.10g} | {r['relative_width']:.1e} | {r['cpu_s']:.3f} | {r['wall_s']:.3f} |",
                    flush=True,
                )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"machine": platform.platform(), "cpus": os.cpu_count(), "load": os.getloadavg()[0]}
    out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
