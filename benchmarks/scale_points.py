"""One certified LP per curve point of the scale figure, for n where each solve costs ~10–20 minutes (n = 200).

Run: ``python benchmarks/scale_points.py OUT.csv --n 200 --program dp --levels 0.2 0.28``.

For each level δ the reduced LP (PD-DP or PD-I, i.i.d. row (0.3, 0.7)) is solved once, at the start point of
:func:`problems.orbit.scale.eps_star_curve`, x = h⁻¹(δn); f = D*(x) − δn and the envelope slope
g = dD*/dε give ε* ≈ x − f/g (one Newton step; |f/g| is reported).  A row is appended to OUT.csv as soon as
its LP finishes (fields of ``problems.orbit.scale.FIELDS`` plus ``f`` and ``newton_step``).  The full safeguarded
iteration (``python -m problems.reproduce.scale OUT --ns 200``) would spend further 15-minute solves only to move
ε* by |f/g| ~ 1e-7.
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

from problems.closed_forms import h_inv
from problems.orbit import ReducedPDDP, ReducedPDI, symmetric_iid
from problems.orbit.scale import FIELDS, _value_and_slope


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--program", choices=["dp", "i"], required=True)
    ap.add_argument("--levels", type=float, nargs="+", required=True)
    args = ap.parse_args()
    n = args.n
    prog = (ReducedPDDP if args.program == "dp" else ReducedPDI)(symmetric_iid(n, [0.3, 0.7]))
    out = Path(args.out)
    fields = [*FIELDS, "f", "newton_step", "seconds"]
    if not out.exists():
        with out.open("w", newline="") as fh:
            csv.DictWriter(fh, fieldnames=fields).writeheader()
    for delta in args.levels:
        target = delta * n
        x = float(h_inv(target, n, 2))
        log: list[dict] = []
        t0 = time.perf_counter()
        value, slope = _value_and_slope(prog, x, log, lambda s: print(s, flush=True), method="lp")
        f = value - target
        step = -f / slope if (math.isfinite(slope) and slope < 0) else math.nan
        row = {
            "n": n,
            "program": f"pd-{args.program}",
            "D_over_n": delta,
            "eps_star": x + (step if math.isfinite(step) else 0.0),
            "eps_over_n": (x + (step if math.isfinite(step) else 0.0)) / n,
            "h_inv_over_n": x / n,
            "lp_solves": 1,
            "max_kkt": log[-1]["max_kkt"],
            "f": f,
            "newton_step": step,
            "seconds": time.perf_counter() - t0,
        }
        with out.open("a", newline="") as fh:
            csv.DictWriter(fh, fieldnames=fields).writerow(row)
        print(f"δ = {delta}: x = h⁻¹ = {x:.9g}, f = {f:.2e}, Newton step {step:.2e}", flush=True)


if __name__ == "__main__":
    main()
