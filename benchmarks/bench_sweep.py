"""The sweep's speed-up from 1 to 2 local Dask workers, side by side in one run.

Study: dense PD-DP at n = 7, m = 2 (N = 128, the structured IPM first), Dirichlet(1) priors seeds 0–3,
ε ∈ {0.5, 1, 2, 3} — 16 points of 3–5 s each, each a certified LP through the chain.  Dask's nanny starts
workers with one BLAS thread, so both runs compute single-threaded per point.
Both runs start from an empty results directory and include starting the LocalCluster; the values of the two
runs are compared point by point.  The machine's load average is printed before and after.

Usage: ``python benchmarks/bench_sweep.py [--seeds 4]``; results in ``benchmarks/results/sweep.json`` and a
markdown table on stdout (copied into docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from problems.sweep import Point, run_sweep


def study(seeds: int) -> list[Point]:
    pts = []
    for s in range(seeds):
        prior = f"dirichlet:1:{s}"
        pts += [Point("pd-dp", 7, 2, prior, eps=e, formulation="dense") for e in (0.5, 1.0, 2.0, 3.0)]
    return pts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=4)
    args = ap.parse_args()
    pts = study(args.seeds)
    out: dict = {"points": len(pts), "cpus": os.cpu_count(), "load_before": os.getloadavg(), "runs": []}
    values = {}
    for k in (1, 2):
        with tempfile.TemporaryDirectory() as d:
            t0 = time.perf_counter()
            s = run_sweep(pts, d, workers=k, progress=False, figures=False)
            wall = time.perf_counter() - t0
        values[k] = [r["value"] for r in s.rows]
        out["runs"].append(
            {
                "workers": k,
                "wall_s": wall,
                "sum_point_s": sum(r["solve_time"] or 0.0 for r in s.rows),
                "certified": sum(bool(r["certified"]) for r in s.rows),
                "statuses": sorted({r["status"] for r in s.rows}),
            }
        )
    out["load_after"] = os.getloadavg()
    out["max_abs_diff"] = max(
        abs(a - b) for a, b in zip(values[1], values[2]) if a is not None and b is not None
    )
    t1 = out["runs"][0]["wall_s"]
    print(
        f"{len(pts)} points; load average before {out['load_before'][0]:.2f}, after {out['load_after'][0]:.2f}"
    )
    print("| workers | wall (s) | Σ point time (s) | certified | speed-up |")
    print("|---|---|---|---|---|")
    for r in out["runs"]:
        print(
            f"| {r['workers']} | {r['wall_s']:.1f} | {r['sum_point_s']:.1f} | {r['certified']}/{len(pts)} | "
            f"{t1 / r['wall_s']:.2f}× |"
        )
    print(f"largest difference between the two runs' values: {out['max_abs_diff']:.1e}")
    res = Path(__file__).with_name("results")
    res.mkdir(exist_ok=True)
    (res / "sweep.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
