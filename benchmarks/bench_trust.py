"""The LP core's speed and trust, side by side in one run.

1. Speed targets, re-measured through the chain (every answer repaired and bounded):
   dense PD-DP at N = 256 (n = 8, m = 2, Dirichlet priors, seeds 0/1/2, ε = 1; structured method first) and
   the orbit-reduced PD-DP at m = 3, n = 10 (i.i.d. row (0.2, 0.3, 0.5), ε = 1; block method first).
2. The hard corner: ε ∈ {20, 30, 40, 50}, uniform and skewed priors, dense and reduced, LP path forced:
   status, relative width of the bounds, which back end answered, seconds.

Usage: ``python benchmarks/bench_trust.py [--skip-speed] [--skip-corner]``; results in
``benchmarks/results/trust.json`` and a markdown table on stdout (copied into docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from problems import DatabaseSpace, priors
from problems.orbit import ReducedPDDP, ReducedPDI, symmetric_iid
from problems.programs import PDDP, PDI


def _row(label: str, res, seconds: float) -> dict:  # noqa: ANN001
    b = res.bounds
    return {
        "case": label,
        "status": str(res.status),
        "value": res.value,
        "lower": b.lower,
        "upper": b.upper,
        "rel_width": (b.upper - b.lower) / b.upper if b.upper > 0 else float("nan"),
        "solver": res.stats.solver,
        "attempts": [list(a) for a in res.stats.attempts],
        "seconds": seconds,
        "load": os.getloadavg()[0],
    }


def speed() -> list[dict]:
    rows = []
    for seed in (0, 1, 2):
        space = DatabaseSpace(8, 2)
        prior = priors.from_pmf(space, np.random.default_rng(seed).dirichlet(np.ones(space.size)))
        prog = PDDP(prior)
        t0 = time.perf_counter()
        res = prog.solve(1.0)
        rows.append(_row(f"PD-DP N=256 seed {seed}", res, time.perf_counter() - t0))
        print(
            rows[-1]["case"],
            f"{rows[-1]['seconds']:.1f} s",
            rows[-1]["status"],
            rows[-1]["solver"],
            flush=True,
        )
    t0 = time.perf_counter()
    prog = ReducedPDDP(symmetric_iid(10, [0.2, 0.3, 0.5]))
    res = prog.solve(1.0, method="lp")
    rows.append(_row("reduced PD-DP m=3 n=10", res, time.perf_counter() - t0))
    print(
        rows[-1]["case"], f"{rows[-1]['seconds']:.1f} s", rows[-1]["status"], rows[-1]["solver"], flush=True
    )
    return rows


def corner() -> list[dict]:
    rows = []
    rng = np.random.default_rng(0)
    for n, m in ((3, 2), (2, 3), (3, 3)):
        space = DatabaseSpace(n, m)
        skew = rng.dirichlet(np.ones(space.size))
        skew[: max(1, space.size // 4)] = 1e-9
        skew /= skew.sum()
        cases = [
            ("uniform", priors.uniform(space)),
            ("iid", priors.iid(space, rng.dirichlet(np.ones(m)))),
            ("skewed 1e-9", priors.from_pmf(space, skew)),
        ]
        for name, prior in cases:
            for cls in (PDDP, PDI):
                prog = cls(prior)
                for eps in (20.0, 30.0, 40.0, 50.0):
                    if cls is PDI and eps < prog.eps_X:
                        continue
                    t0 = time.perf_counter()
                    res = prog.solve(eps, method="lp")
                    rows.append(
                        _row(
                            f"dense {prog.program} n={n} m={m} {name} ε={eps:g}",
                            res,
                            time.perf_counter() - t0,
                        )
                    )
    for m, row in ((2, [0.3, 0.7]), (3, [0.2, 0.3, 0.5])):
        for cls in (ReducedPDDP, ReducedPDI):
            prog = cls(symmetric_iid(6, row))
            for eps in (20.0, 30.0, 40.0, 50.0):
                t0 = time.perf_counter()
                res = prog.solve(eps, method="lp")
                rows.append(
                    _row(f"reduced {res.program} n=6 m={m} iid ε={eps:g}", res, time.perf_counter() - t0)
                )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--skip-corner", action="store_true")
    args = ap.parse_args()
    out: dict = {"cpus": os.cpu_count(), "load_at_start": os.getloadavg()}
    if not args.skip_speed:
        out["speed"] = speed()
    if not args.skip_corner:
        out["corner"] = corner()
    path = Path(__file__).parent / "results" / "trust.json"
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(out, indent=1, default=str))
    os.replace(tmp, path)
    for key in ("speed", "corner"):
        if key not in out:
            continue
        print("\n| case | status | value | bounds width (rel.) | back end | s |\n|---|---|---|---|---|---|")
        for r in out[key]:
            print(
                f"| {r['case']} | {r['status']} | {r['value']:.6e} | {r['rel_width']:.1e} | {r['solver']} | {r['seconds']:.2f} |"
            )


if __name__ == "__main__":
    main()
