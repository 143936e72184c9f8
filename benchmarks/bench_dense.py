"""Dense PD-DP / PD-I linear programs: four ways of solving them side by side.

Run: ``python benchmarks/bench_dense.py [--skip-plain-at-256] [--plain-timeout S] [--quick]
[--largest]``.  Prints a markdown table and writes ``benchmarks/results/dense.json``.

``--compare-256 [--eps 0.5 1 2] [--priors uniform dirichlet0]`` runs PD-DP at N = 256 (n = 8, m = 2) only: the
toolkit's ``PDDP(prior).solve(ε, method="lp")`` against the plain model, each in its own forked process, with
wall and CPU seconds (all threads, ``time.process_time``) that include building the model, and the ratio of the
two (``benchmarks/results/dense_256_<priors>.json``); ``--plain-timeout`` is then a limit on CPU seconds.

Prior: Dirichlet(1, …, 1) pmf, seed 0 (an *arbitrary* prior: no symmetry to exploit).  ε = 1 for PD-DP,
ε = ε_X + 0.5 for PD-I.  Paths:

* ``plain``      — a straightforward user-written CVXPY model (``cp.Variable((N, N))``, one vector constraint per
  neighbour pair built in a Python loop), solved by Clarabel with the toolkit's tolerances;
* ``highs``      — ``scipy.optimize.linprog(method="highs")`` on the same sparse matrices;
* ``cvxpy``      — the toolkit's vectorised, DPP-compiled CVXPY + Clarabel path (``RatioLP.solve(method="cvxpy")``);
* ``structured`` — the block-angular interior-point method (``RatioLP.solve(method="structured")``).

Every path is bounded by the toolkit's rigorous bounds (:func:`problems.lp.bounds.certify`; the column
``max_kkt`` now reports their relative width, certified below 1e-6).  Also
timed: a 30-point ε_d*(D) curve at N = 64.  Machine load (``os.getloadavg``) is recorded with each row.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import resource
import signal
import time
from pathlib import Path

import numpy as np

from problems.database import DatabaseSpace
from problems.lp.bounds import certify as certify_point
from problems.priors import from_pmf
from problems.programs import PDDP, PDI
from problems.solvers import backends as backends_module


def make_prior(n: int, m: int, seed: int = 0):
    space = DatabaseSpace(n, m)
    return from_pmf(space, np.random.default_rng(seed).dirichlet(np.ones(space.size)))


SEED = 0


def make_program(kind: str, n: int, m: int):
    prior = make_prior(n, m, SEED)
    prog = PDDP(prior) if kind == "pd-dp" else PDI(prior)
    eps = 1.0 if kind == "pd-dp" else float(prog.eps_X) + 0.5
    return prog, eps


def certify(lp, eps: float, z, nu, lam) -> float:
    """Relative width of the toolkit's rigorous bounds from a point and multipliers (problems.lp.bounds)."""
    proof = certify_point(lp.spec, eps, z, nu, lam)
    return (proof.bounds.upper - proof.bounds.lower) / proof.bounds.upper


def _plain_worker(kind: str, n: int, m: int, queue) -> None:
    import cvxpy as cp

    prog, eps = make_program(kind, n, m)
    lp = prog.lp
    N = lp.N
    lay = lp.spec.dense
    t0 = time.perf_counter()
    Z = cp.Variable((N, N))
    r = float(np.exp(eps))
    pi, pj = lp.pairs
    cons = []
    for p in range(pi.size):  # one vector constraint per neighbour pair, as a user would write it
        cons.append(Z[pi[p], :] <= r * float(lay.kappa[p]) * Z[pj[p], :])
    cons += [cp.sum(Z, axis=1) == lp.spec.b, Z >= 0]
    problem = cp.Problem(cp.Minimize(cp.sum(cp.multiply(lp.spec.c.reshape(N, N), Z))), cons)
    build = time.perf_counter() - t0
    t1 = time.perf_counter()
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, tol_ktratio=1e-8)
    total = time.perf_counter() - t1
    queue.put(
        {
            "value": float(problem.value),
            "status": problem.status,
            "build_s": build,
            "solve_s": float(problem.solver_stats.solve_time or total),
            "total_s": build + total,
            "iterations": problem.solver_stats.num_iters,
        }
    )


def run_plain(kind: str, n: int, m: int, timeout: float) -> dict:
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_plain_worker, args=(kind, n, m, queue))
    t0 = time.perf_counter()
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return {"status": f"timed out after {timeout:.0f} s", "total_s": time.perf_counter() - t0}
    return queue.get() if not queue.empty() else {"status": "crashed", "total_s": time.perf_counter() - t0}


def run_highs(lp, eps: float, time_limit: float) -> dict:
    from scipy.optimize import linprog

    spec = lp.spec
    G = spec.ratio_matrix(eps)
    t0 = time.perf_counter()
    res = linprog(
        spec.c,
        A_ub=G,
        b_ub=np.zeros(G.shape[0]),
        A_eq=spec.A,
        b_eq=spec.b,
        bounds=(0, None),
        method="highs",
        options={"time_limit": time_limit},
    )
    total = time.perf_counter() - t0
    out = {"status": res.message[:60], "total_s": total, "iterations": int(getattr(res, "nit", -1))}
    if res.status == 0:
        # SciPy marginals are ∂(optimum)/∂(rhs): ν = −eq marginals, λ = −ub marginals, s = lower marginals
        out["value"] = float(res.fun)
        out["max_kkt"] = certify(lp, eps, res.x, -res.eqlin.marginals, -res.ineqlin.marginals)
    return out


def run_lp_method(lp, eps: float, method: str) -> dict:
    t0 = time.perf_counter()
    sol = lp.solve(eps, method=method)
    total = time.perf_counter() - t0
    return {
        "value": sol.value,
        "status": str(sol.status),
        "bounds": [sol.bounds.lower, sol.bounds.upper],
        "solver": sol.stats.solver,
        "attempts": [list(a) for a in sol.stats.attempts],
        "total_s": total,
        "solve_s": sol.stats.solve_time,
        "compile_s": sol.stats.compile_time,
        "iterations": sol.stats.iterations,
        "max_kkt": (sol.bounds.upper - sol.bounds.lower) / sol.bounds.upper,
    }


def curve_timing(points: int = 30) -> dict:
    from problems.curves import privacy_distortion_curve

    prior = make_prior(6, 2)
    out = {}
    for label, threshold in (("structured", 64), ("cvxpy", 10**9)):
        saved = backends_module.STRUCTURED_MIN_N
        backends_module.STRUCTURED_MIN_N = threshold
        try:
            t0 = time.perf_counter()
            curve = privacy_distortion_curve(prior, "d", points=points)
            out[label] = {
                "seconds": time.perf_counter() - t0,
                "solves": int(curve.solves.sum()),
                "max_kkt": float(np.max(curve.max_residual)),
                "eps": curve.eps.tolist(),
            }
        finally:
            backends_module.STRUCTURED_MIN_N = saved
    out["max_eps_difference"] = float(
        np.max(np.abs(np.array(out["structured"]["eps"]) - np.array(out["cvxpy"]["eps"])))
    )
    return out


# ------------------------------------------------------------------ PD-DP at N = 256: toolkit against plain
COMPARE_PRIORS = ("uniform", "dirichlet0")


def compare_prior(name: str, n: int, m: int):
    """``uniform`` or ``dirichlet<seed>`` (Dirichlet(1, …, 1) pmf with that seed) on Dⁿ."""
    from problems.priors import uniform

    if name == "uniform":
        return uniform(DatabaseSpace(n, m))
    return make_prior(n, m, int(name.removeprefix("dirichlet")))


def _compare_worker(side: str, prior_name: str, n: int, m: int, eps: float, cpu_limit: float, queue) -> None:
    """One side of one point in a forked child; wall and CPU seconds (all threads) include building the model.

    ``cpu_limit`` (CPU seconds, ``RLIMIT_CPU``) ends the child on a shared machine, where a wall-clock limit would
    depend on the other processes' load."""
    used = time.process_time()
    resource.setrlimit(resource.RLIMIT_CPU, (int(used + cpu_limit) + 1, int(used + cpu_limit) + 2))
    w0, c0 = time.perf_counter(), time.process_time()
    prior = compare_prior(prior_name, n, m)
    if side == "toolkit":  # the LP forced (method="auto" answers a uniform prior by the theorem)
        sol = PDDP(prior).solve(eps, method="lp")
        out = {
            "value": float(sol.value),
            "status": str(sol.status),
            "bounds": [sol.bounds.lower, sol.bounds.upper],
            "solver": sol.stats.solver,
            "iterations": sol.stats.iterations,
        }
    else:
        import cvxpy as cp

        prog = PDDP(prior)
        lp = prog.lp
        N, lay = lp.N, lp.spec.dense
        Z = cp.Variable((N, N))
        r = float(np.exp(eps))
        pi, pj = lp.pairs
        cons = [Z[pi[p], :] <= r * float(lay.kappa[p]) * Z[pj[p], :] for p in range(pi.size)]
        cons += [cp.sum(Z, axis=1) == lp.spec.b, Z >= 0]
        problem = cp.Problem(cp.Minimize(cp.sum(cp.multiply(lp.spec.c.reshape(N, N), Z))), cons)
        problem.solve(
            solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10, tol_ktratio=1e-8
        )
        out = {
            "value": float(problem.value),
            "status": problem.status,
            "iterations": problem.solver_stats.num_iters,
            "clarabel_s": float(problem.solver_stats.solve_time or 0.0),
        }
    out["wall_s"] = time.perf_counter() - w0
    out["cpu_s"] = time.process_time() - c0
    out["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    queue.put(out)


def run_compare(side: str, prior_name: str, n: int, m: int, eps: float, cpu_limit: float) -> dict:
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_compare_worker, args=(side, prior_name, n, m, eps, cpu_limit, queue))
    t0 = time.perf_counter()
    proc.start()
    proc.join()
    if proc.exitcode == -signal.SIGXCPU:
        return {"status": f"CPU limit of {cpu_limit:.0f} s", "wall_s": time.perf_counter() - t0}
    if queue.empty():
        return {"status": f"crashed (exit {proc.exitcode})", "wall_s": time.perf_counter() - t0}
    return queue.get()


def compare_256(eps_list: list[float], priors: list[str], cpu_limit: float) -> list[dict]:
    """PD-DP at N = 256 (n = 8, m = 2): ``PDDP(prior).solve(ε, method="lp")`` against the plain CVXPY model."""
    rows: list[dict] = []
    for prior_name in priors:
        for eps in eps_list:
            row: dict = {"prior": prior_name, "eps": eps, "load_before": os.getloadavg()[0]}
            for side in ("toolkit", "plain"):
                row[side] = run_compare(side, prior_name, 8, 2, eps, cpu_limit)
            row["load_after"] = os.getloadavg()[0]
            tk, pl = row["toolkit"], row["plain"]
            if "value" in tk and "value" in pl:
                row["cpu_ratio"] = pl["cpu_s"] / tk["cpu_s"]
                row["wall_ratio"] = pl["wall_s"] / tk["wall_s"]
                row["value_diff_abs"] = abs(tk["value"] - pl["value"])
            rows.append(row)
            out = Path(__file__).parent / "results" / f"dense_256_{'_'.join(priors)}.json"
            out.write_text(json.dumps({"machine": {"cpus": os.cpu_count()}, "rows": rows}, indent=2))
            print(_compare_line(row), flush=True)
    return rows


def _compare_line(row: dict) -> str:
    tk, pl = row["toolkit"], row["plain"]

    def side(d: dict) -> str:
        if "value" not in d:
            return f"{d['status']} | — | — "
        return f"{d['cpu_s']:.1f} | {d['wall_s']:.1f} | {d['status']} "

    ratio = f"{row['cpu_ratio']:.1f}× / {row['wall_ratio']:.1f}×" if "cpu_ratio" in row else "—"
    diff = f"{row['value_diff_abs']:.1e}" if "value_diff_abs" in row else "—"
    return (
        f"| {row['prior']} | {row['eps']:g} | {side(tk)}| {side(pl)}| {ratio} | {diff} "
        f"| {row['load_before']:.1f}–{row['load_after']:.1f} |"
    )


def _write(result: dict) -> None:
    out = Path(__file__).parent / "results" / "dense.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=str))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--skip-plain-at-256", action="store_true", help="do not run the plain CVXPY model at N = 256"
    )
    ap.add_argument("--plain-timeout", type=float, default=400.0, help="time limit of the plain model (s)")
    ap.add_argument("--highs-timeout", type=float, default=300.0, help="HiGHS time limit (s)")
    ap.add_argument("--no-curve", action="store_true", help="skip the 30-point curve")
    ap.add_argument("--quick", action="store_true", help="N = 81 only, no curve")
    ap.add_argument(
        "--largest", action="store_true", help="also try N = 512 (n=9, m=2) with the structured path"
    )
    ap.add_argument(
        "--compare-256",
        action="store_true",
        help="only PD-DP at N = 256: the toolkit's LP against the plain model, CPU and wall, per prior and ε",
    )
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 2.0], help="ε of --compare-256")
    ap.add_argument("--priors", nargs="+", default=list(COMPARE_PRIORS), help="priors of --compare-256")
    args = ap.parse_args()
    if args.compare_256:
        print(
            "| prior | ε | toolkit CPU s | wall s | status | plain CPU s | wall s | status | plain/toolkit (CPU / wall) "
            "| \\|Δ value\\| | load |\n|---|---|---|---|---|---|---|---|---|---|---|",
            flush=True,
        )
        compare_256(args.eps, args.priors, args.plain_timeout)
        return
    sizes = [(4, 3)] if args.quick else [(4, 3), (8, 2)]
    rows = []
    for n, m in sizes:
        for kind in ("pd-dp", "pd-i"):
            prog, eps = make_program(kind, n, m)
            lp = prog.lp
            N = lp.N
            row: dict = {"program": kind, "n": n, "m": m, "N": N, "eps": eps}
            print(f"[{kind} n={n} m={m} N={N}] load {os.getloadavg()[0]:.2f}", flush=True)
            row["structured"] = run_lp_method(lp, eps, "structured")
            row["structured"]["load"] = os.getloadavg()[0]
            row["cvxpy"] = run_lp_method(lp, eps, "cvxpy")
            row["cvxpy"]["load"] = os.getloadavg()[0]
            row["highs"] = run_highs(lp, eps, args.highs_timeout)
            row["highs"]["load"] = os.getloadavg()[0]
            if N >= 256 and args.skip_plain_at_256:
                row["plain"] = {"status": "skipped (--skip-plain-at-256)"}
            else:
                row["plain"] = run_plain(kind, n, m, args.plain_timeout)
                row["plain"]["load"] = os.getloadavg()[0]
            rows.append(row)
            _write({"machine": {"cpus": os.cpu_count()}, "rows": rows, "partial": True})
            for path in ("plain", "highs", "cvxpy", "structured"):
                d = row[path]
                print(
                    f"   {path:10s} {d.get('total_s', float('nan')):8.2f} s  value {d.get('value', float('nan')):.10f}"
                    f"  kkt {d.get('max_kkt', float('nan')):.1e}  {d.get('status', '')}",
                    flush=True,
                )
    result: dict = {
        "machine": {
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_at_start": os.getloadavg(),
        },
        "rows": rows,
    }
    if not (args.quick or args.no_curve):
        print("[curve] 30-point ε_d*(D) at N = 64", flush=True)
        result["curve_n6_m2"] = curve_timing(30)
    if args.largest:
        prog, eps = make_program("pd-dp", 9, 2)
        print(f"[largest] PD-DP N=512 load {os.getloadavg()[0]:.2f}", flush=True)
        result["largest"] = {"N": 512, "program": "pd-dp", **run_lp_method(prog.lp, eps, "structured")}
        # peak resident memory of this process so far (Linux: KiB) — an upper bound for the N = 512 solve
        result["largest"]["peak_rss_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        result["largest"]["load"] = os.getloadavg()[0]
    _write(result)

    print(
        "\n| program | N | plain CVXPY+Clarabel (s) | SciPy HiGHS (s) | vectorised CVXPY+Clarabel (s) "
        "| structured IPM (s) | structured KKT | load |"
    )
    print("|---|---|---|---|---|---|---|---|")

    def fmt(d: dict) -> str:
        if "value" not in d:
            return d.get("status", "–")
        return f"{d['total_s']:.2f}"

    for row in rows:
        print(
            f"| {row['program']} | {row['N']} | {fmt(row['plain'])} | {fmt(row['highs'])} | {fmt(row['cvxpy'])} "
            f"| {fmt(row['structured'])} ({row['structured']['solver']}) | {row['structured']['max_kkt']:.1e} "
            f"| {row['structured']['load']:.1f} |"
        )
    if "curve_n6_m2" in result:
        c = result["curve_n6_m2"]
        print(
            f"\n30-point ε_d*(D) curve, N = 64: structured {c['structured']['seconds']:.1f} s "
            f"({c['structured']['solves']} solves), CVXPY {c['cvxpy']['seconds']:.1f} s "
            f"({c['cvxpy']['solves']} solves); max |Δε| = {c['max_eps_difference']:.1e}"
        )
    if "largest" in result:
        g = result["largest"]
        print(
            f"\nN = 512 PD-DP structured: {g['total_s']:.1f} s, KKT {g['max_kkt']:.1e} ({g['solver']}), "
            f"peak RSS {g['peak_rss_gb']:.1f} GB"
        )


if __name__ == "__main__":
    main()
