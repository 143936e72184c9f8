"""PD-DP and PD-I for exchangeable mixtures: the mixture theorems against the joint-type LP, side by side.

Run: ``python benchmarks/bench_mixture_prior.py [--no-lp] [--lp-max-n N]``.  Prints a markdown table and writes
``benchmarks/results/mixture_prior.json``.

For each case the program is built and solved with ``method="auto"`` (PD-DP: where the sandwich of
:mod:`problems.orbit.mixture_prior` closes, it answers, n·Σ_j w_j PD-DP₁(ε; π_j) ≤ PD-DP_n ≤ n·PD-DP₁(ε; π̄); PD-I:
where the output law of Lemma 4's E_i is non-negative, :mod:`problems.orbit.mixture_pd_i` answers h(ε); below the
sandwich's level, where every component's one-row optimum is a constant, :mod:`problems.orbit.constant_output`
may answer) and,
up to ``--lp-max-n``, with ``method="lp"`` (the joint-type LP through the chain) in the same run.  Times are
CPU seconds (``time.process_time``, build + solve; the LP's block method runs two threads, so its CPU time can
exceed its wall time) and wall seconds; peak RSS is the process's (``ru_maxrss``), measured in a fresh child
process per solve.  The closed form h(ε) = n(m−1)e^{−ε}/(1 + (m−1)e^{−ε}) is printed where randomised response is
optimal for every component (the sandwich's value must equal it).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import platform
import resource
import time
from pathlib import Path

#: (program, prior spec, m, n, ε (PD-I: offset above ε_X), run the LP too)
CASES = [
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 30, 2.0, True),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 60, 2.0, True),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 100, 2.0, True),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 100, 1.4, True),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 200, 2.0, True),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 400, 2.0, False),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 10_000, 2.0, False),
    ("pd-dp", "mixture:0.3,0.3,0.4/0.9,0.1/0.5,0.5/0.15,0.85", 2, 200, 2.5, False),
    ("pd-dp", "mixture:0.5,0.5/0.999,0.001/0.3,0.7", 2, 200, 8.0, False),
    ("pd-dp", "mixture:0.5,0.5/0.5,0.3,0.2/0.2,0.3,0.5", 3, 8, 2.5, True),
    ("pd-dp", "mixture:0.5,0.5/0.5,0.3,0.2/0.2,0.3,0.5", 3, 16, 2.5, False),
    ("pd-dp", "mixture:0.5,0.5/0.5,0.3,0.2/0.2,0.3,0.5", 3, 200, 2.5, False),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 100, 0.8, True),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 200, 0.5, True),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 100, 0.05, True),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 100, 0.5, True),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 200, 0.1, False),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 200, 0.2, False),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 400, 0.3, False),
    ("pd-dp", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 1000, 0.5, False),
    ("pd-dp", "mixture:0.5,0.5/0.9,0.05,0.05/0.05,0.05,0.9", 3, 40, 2.0, False),
    ("pd-dp", "mixture:0.5,0.5/0.9,0.05,0.05/0.05,0.05,0.9", 3, 100, 1.0, False),
    ("pd-i", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 30, 0.3, True),
    ("pd-i", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 60, 0.3, True),
    ("pd-i", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 100, 0.3, True),
    ("pd-i", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 100, 0.01, True),
    ("pd-i", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 200, 0.3, False),
    ("pd-i", "mixture:0.3,0.3,0.4/0.9,0.1/0.5,0.5/0.15,0.85", 2, 200, 0.3, False),
    ("pd-i", "mixture:0.5,0.5/0.5,0.3,0.2/0.2,0.3,0.5", 3, 16, 0.3, False),
    ("pd-i", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 400, 0.3, False),
    ("pd-i", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", 2, 400, 0.01, False),
    ("pd-i", "contagious:0.2", 2, 100, 2.0, True),
    ("pd-i", "contagious:0.2", 2, 200, 1e-9, False),
    ("pd-i", "mixture:0.5,0.5/0.5,0.3,0.2/0.2,0.3,0.5", 3, 30, 0.3, False),
]


def _via(res) -> str:  # noqa: ANN001
    if res.stats.solver != "theorem":
        hinted = "hinted blocks" in " ".join(str(a) for a in res.stats.attempts)
        return f"{res.stats.solver} (constant-output blocks first)" if hinted else str(res.stats.solver)
    if res.extras.get("reduction") == "mixture-sandwich":
        return "mixture sandwich"
    if res.extras.get("lp_skipped"):
        return "band bounds (LP not run)"
    if res.extras.get("reduction") == "constant-output":
        return "constant outputs"
    return "Lemma 4" if "Lemma 4 for the exchangeable prior" in res.extras.get("theorem", "") else "theorem"


def _h(eps: float, n: int, m: int) -> float:
    t = (m - 1) * math.exp(-eps)
    return n * t / (1.0 + t)


def _solve(program: str, spec: str, m: int, n: int, eps: float, method: str, queue) -> None:  # noqa: ANN001
    from problems.orbit import ReducedPDDP, ReducedPDI, parse_symmetric_prior

    w0, c0 = time.perf_counter(), time.process_time()
    prog = (ReducedPDI if program == "pd-i" else ReducedPDDP)(parse_symmetric_prior(spec, n, m))
    if program == "pd-i":
        eps = prog.eps_X + eps
    res = prog.solve(eps, method=method)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    b = res.bounds
    queue.put(
        {
            "program": program,
            "prior": spec,
            "m": m,
            "n": n,
            "eps": eps,
            "method": method,
            "via": _via(res),
            "status": str(res.status),
            "value": res.value,
            "lower": b.lower,
            "upper": b.upper,
            "relative_width": (b.upper - b.lower) / b.upper if b.upper > 0 else 0.0,
            "cpu_s": cpu,
            "wall_s": wall,
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        }
    )


def run(program: str, spec: str, m: int, n: int, eps: float, method: str) -> dict:
    """One solve in a fresh process (its own peak RSS)."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_solve, args=(program, spec, m, n, eps, method, queue))
    proc.start()
    row = queue.get()
    proc.join()
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-lp", action="store_true", help="the theorems only")
    ap.add_argument("--lp-max-n", type=int, default=100, help="largest n for the method='lp' column")
    ap.add_argument(
        "--only",
        default="",
        help="run only the cases whose 'program prior n ε' contains this (updates the JSON)",
    )
    ap.add_argument("--out", default=str(Path(__file__).with_name("results") / "mixture_prior.json"))
    args = ap.parse_args()
    rows = []
    print(
        "| program | prior | m | n | ε | method | via | status | value | h(ε) | rel. width | CPU s | wall s | "
        "peak MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for program, spec, m, n, eps, with_lp in CASES:
        if args.only and args.only not in f"{program} {spec} {n} {eps:g}":
            continue
        methods = ("auto", "lp") if (with_lp and not args.no_lp and n <= args.lp_max_n) else ("auto",)
        for method in methods:
            r = run(program, spec, m, n, eps, method)
            r["h"] = _h(r["eps"], n, m)
            rows.append(r)
            print(
                f"| {program} | {spec} | {m} | {n} | {r['eps']:.6g} | {method} | {r['via']} | {r['status']} | "
                f"{r['value']:.10g} | {r['h']:.10g} | {r['relative_width']:.1e} | {r['cpu_s']:.3f} | "
                f"{r['wall_s']:.3f} | {r['peak_rss_mib']:.0f} |",
                flush=True,
            )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {"machine": platform.platform(), "cpus": os.cpu_count(), "load": os.getloadavg()[0]}
    if args.only and out.exists():  # a partial run updates its rows and keeps the others
        key = ("program", "prior", "m", "n", "eps", "method")
        fresh = {tuple(r[k] for k in key) for r in rows}
        kept = [r for r in json.loads(out.read_text())["rows"] if tuple(r.get(k) for k in key) not in fresh]
        rows = kept + rows
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    os.replace(tmp, out)  # atomically
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
