"""Benchmark of the orbit-reduced PD-DP against the dense path.

Run: ``/work/venv/bin/python benchmarks/bench_orbit.py [--quick] [--skip-n200]``.  Prints a markdown table and
writes ``benchmarks/results/orbit.json``.  Prior: i.i.d. (0.3, 0.7) for m = 2, (0.2, 0.3, 0.5) for m = 3;
ε = 1.  Times are wall-clock seconds of build (enumeration + sparse matrices) and solve (Clarabel), plus the
process CPU seconds of the solve (more stable than wall time on a shared machine); the load average is
recorded with the results.  ``program`` is PD-DP unless the path is ``reduced-pdi``.  Paths ``reduced-clarabel`` /
``reduced-block`` name the back end tried first (``solver=``); ``reduced`` uses the program's own choice; the
solver actually used is shown in brackets.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from problems.database import DatabaseSpace
from problems.orbit import ReducedPDDP, ReducedPDI, symmetric_iid
from problems.priors import iid
from problems.programs import PDDP

ROWS = {2: [0.3, 0.7], 3: [0.2, 0.3, 0.5]}


def run_reduced(
    n: int, m: int, eps: float, cls=ReducedPDDP, path: str = "reduced", backend: str = "auto"
) -> dict:
    t0 = time.perf_counter()
    prog = cls(symmetric_iid(n, ROWS[m]), solver=None if backend == "auto" else backend)
    build = time.perf_counter() - t0
    t1 = time.perf_counter()
    c1 = time.process_time()
    res = prog.solve(eps, method="lp")  # the LP (an i.i.d. prior's default is the theorem)
    solve = time.perf_counter() - t1
    cpu = time.process_time() - c1
    return {
        "path": f"{path} ({res.stats.solver})",
        "program": res.program,
        "n": n,
        "m": m,
        "eps": eps,
        "variables": res.extras["variables"],
        "ratio_constraints": res.extras["ratio_constraints"],
        "build_s": build,
        "solve_s": solve,
        "solve_cpu_s": cpu,
        "iterations": res.stats.iterations,
        "status": str(res.status),
        "value": res.value,
        "certificate_max_residual": (res.bounds.upper - res.bounds.lower) / res.bounds.upper,
    }


def run_dense(n: int, m: int, eps: float) -> dict:
    t0 = time.perf_counter()
    prog = PDDP(iid(DatabaseSpace(n, m), ROWS[m]))
    build = time.perf_counter() - t0
    t1 = time.perf_counter()
    c1 = time.process_time()
    res = prog.solve(eps, method="lp")
    solve = time.perf_counter() - t1
    cpu = time.process_time() - c1
    N = m**n
    return {
        "path": "dense",
        "program": res.program,
        "n": n,
        "m": m,
        "eps": eps,
        "variables": N * N,
        "ratio_constraints": int(N * n * (m - 1) * N),
        "build_s": build,
        "solve_s": solve,
        "solve_cpu_s": cpu,
        "iterations": res.stats.iterations,
        "status": str(res.status),
        "value": res.value,
        "certificate_max_residual": (res.bounds.upper - res.bounds.lower) / res.bounds.upper,
        "load_average": os.getloadavg(),
    }


def _write(path: str, rows: list[dict]) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"machine": platform.platform(), "cpus": os.cpu_count(), "prior_rows": ROWS}
    out.write_text(json.dumps({**meta, "results": rows}, indent=2))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="only the small cases")
    ap.add_argument("--skip-n200", action="store_true", help="skip m=2, n=200 (minutes)")
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "orbit.json"))
    args = ap.parse_args()
    eps = 1.0
    cases = [
        ("dense", 6, 2),
        ("reduced", 6, 2),
        ("dense", 7, 2),
        ("reduced", 7, 2),
        ("dense", 4, 3),
        ("reduced", 4, 3),
    ]
    if not args.quick:
        cases += [
            ("reduced", 50, 2),
            ("reduced-pdi", 50, 2),
            ("reduced", 100, 2),
            ("reduced-clarabel", 8, 3),
            ("reduced-block", 8, 3),
            ("reduced-clarabel", 10, 3),
            ("reduced-block", 10, 3),
        ]
        if not args.skip_n200:
            cases += [("reduced", 200, 2)]
    rows = []
    for path, n, m in cases:
        if path == "dense":
            row = run_dense(n, m, eps)
        elif path.startswith("reduced-pdi"):
            backend = "block" if path.endswith("block") else "auto"
            row = run_reduced(n, m, eps, ReducedPDI, path, backend)
        else:
            backend = path.split("-", 1)[1] if "-" in path else "auto"
            row = run_reduced(n, m, eps, ReducedPDDP, path, backend)
        row["load_average"] = os.getloadavg()
        rows.append(row)
        _write(args.out, rows)  # after every case, so a long run leaves partial results
        print(
            f"| {row['path']} | {n} | {m} | {row['variables']} | {row['build_s']:.2f} | {row['solve_s']:.2f} | "
            f"{row['iterations']} | {row['status']} | {row['value']:.10f} | {row['certificate_max_residual']:.1e} |",
            flush=True,
        )
    out = _write(args.out, rows)
    print(
        "\n| path | n | m | variables | build s | solve s (cpu) | iters | status | D*(1) | max KKT residual |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['path']} | {r['n']} | {r['m']} | {r['variables']} | {r['build_s']:.2f} | {r['solve_s']:.2f} "
            f"({r['solve_cpu_s']:.2f}) | {r['iterations']} | {r['status']} | {r['value']:.10f} | "
            f"{r['certificate_max_residual']:.1e} |"
        )
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
