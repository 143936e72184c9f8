"""Benchmark: optimal mechanism design under ε-information privacy (problems.design).

Cases (uniform prior, Hamming distortion, ε = 0.2 nats):

* count over n = 6 binary records, |Y| = 7, unfactored mechanism (64 × 7 variables, all C(64, 2) = 2016 vertex
  channels, one auxiliary q per vertex): target < 20 s;
* the same with constraint generation (C₁ routine finds the worst vertex channel each round);
* count over n = 12 binary records, factored through the query (13 × 13 variables, n(n+1)/2 = 78 vertex
  channels), including the independent C₁ recomputation on the full 4096 × 13 mechanism: target < 60 s;
* an ε sweep of 10 values on the n = 12 factored program (DPP: compiled once).

Each wall time includes building, solving, recomputing C₁ and the certificate.
Run: ``/work/venv/bin/python benchmarks/bench_design.py`` (writes ``benchmarks/results/design.json``).
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

import numpy as np

from problems.database import DatabaseSpace
from problems.design import IPDesign, design_problem

OUT = Path(__file__).resolve().parent / "results" / "design.json"
EPS = 0.2


def _case(name: str, n: int, *, factor: bool, method: str, limit: float) -> dict:
    P = design_problem(DatabaseSpace(n, 2), "count")
    t0 = time.perf_counter()
    d = IPDesign(P, factor=factor, method=method)
    r = d.solve(EPS)
    wall = time.perf_counter() - t0
    return {
        "case": name,
        "n": n,
        "factor": factor,
        "method": r.extras["method"],
        "variables_W": int(np.prod(r.extras["answer_channel"].shape)) if factor else int(r.matrix.size),
        "vertex_channels_in_program": r.extras["constraint_set_size"],
        "active_vertices": len(r.extras["active_vertices"]),
        "iterations": r.extras["iterations"],
        "value": r.value,
        "lower_bound": r.extras["lower_bound"],
        "C1": r.extras["C1"],
        "solver_status": r.status,
        "solver_seconds": r.stats.solve_time,
        "wall_seconds": wall,
        "limit_seconds": limit,
        "within_limit": wall < limit,
        "c1_ok": r.extras["C1"] <= EPS + 1e-7,
    }


def _sweep(n: int, points: int) -> dict:
    P = design_problem(DatabaseSpace(n, 2), "count")
    d = IPDesign(P, factor=True)
    grid = np.linspace(0.05, 0.65, points)
    t0 = time.perf_counter()
    res = [d.solve(float(e)) for e in grid]
    wall = time.perf_counter() - t0
    return {
        "case": f"count n={n} factored, sweep of {points} eps",
        "wall_seconds": wall,
        "per_point_seconds": wall / points,
        "compile_seconds_first": res[0].stats.compile_time,
        "compile_seconds_later": max(r.stats.compile_time for r in res[1:]),
        "max_C1_minus_eps": max(r.extras["C1"] - e for r, e in zip(res, grid)),
    }


def main() -> int:
    cases = [
        _case("count n=6, |Y|=7, unfactored, full", 6, factor=False, method="full", limit=20.0),
        _case(
            "count n=6, |Y|=7, unfactored, constraint generation", 6, factor=False, method="cg", limit=600.0
        ),
        _case("count n=6, |Y|=7, factored", 6, factor=True, method="full", limit=20.0),
        _case("count n=12, |Y|=13, factored", 12, factor=True, method="full", limit=60.0),
    ]
    sweep = _sweep(12, 10)
    meta = {"python": platform.python_version(), "machine": platform.machine(), "eps": EPS}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"meta": meta, "cases": cases, "sweep": sweep}, indent=2))
    print(
        "| case | vertex channels | active | iterations | E[d] | lower bound | C1 (nats) | solver (s) | wall (s) | limit |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c in cases:
        print(
            f"| {c['case']} | {c['vertex_channels_in_program']} | {c['active_vertices']} | {c['iterations']} "
            f"| {c['value']:.8f} | {c['lower_bound']:.8f} | {c['C1']:.9f} | {c['solver_seconds']:.2f} "
            f"| {c['wall_seconds']:.2f} | {'ok' if c['within_limit'] else 'OVER'} {c['limit_seconds']:g} s |"
        )
    s = sweep
    print(
        f"\n{s['case']}: {s['wall_seconds']:.2f} s total, {s['per_point_seconds']:.3f} s/point; compile "
        f"{s['compile_seconds_first']:.3f} s first, {s['compile_seconds_later']:.3f} s later; "
        f"max C1 - eps = {s['max_C1_minus_eps']:.2e}"
    )
    print(f"\nwrote {OUT}")
    return 0 if all(c["within_limit"] and c["c1_ok"] for c in cases) else 1


if __name__ == "__main__":
    raise SystemExit(main())
