"""Scale benchmark of the reduced PD-DP / PD-I: the toolkit against one plain HiGHS call on the same LP.

Run: ``python benchmarks/bench_reduced_scale.py [--quick] [--n 30 50 …] [--priors …] [--with-400] [--m3]
[--settings pd-dp:1.0 …] [--highs-time-limit 600] [--toolkit-only] [--compare-active]``.  Prints a markdown table and writes ``benchmarks/results/reduced_scale.json``
(rewritten atomically after every point, so an interrupted run leaves the points done so far).

Points: m = 2, priors ``iid:0.3,0.7`` and ``mixture:0.5,0.5/0.8,0.2/0.3,0.7``, n ∈ {30, 50, 100, 200} (``--quick``:
n = 30; ``--n`` overrides), PD-DP at ε = 0.5 and 2, PD-I at ε = ε_X + 0.3.  ``--with-400`` adds n = 400 for the
toolkit only; ``--m3`` adds m = 3, n = 16, i.i.d. (0.2, 0.3, 0.5), PD-DP at ε = 1 (toolkit only).

Every point runs in a fresh subprocess per side, so the peak resident set size (``ru_maxrss`` of the child) is
that side's own:

* toolkit — ``ReducedPDDP/ReducedPDI(prior).solve(eps, method="lp")``: wall seconds of the ``solve`` call (back
  ends, exact repair, bounds and result; the LP's build is reported apart, as on the HiGHS side), status, the
  certified bounds and the solver used;
* HiGHS — the *same* reduced LP, ``prog.lp.spec`` (:class:`problems.lp.spec.RatioLPSpec`): minimise c·z subject
  to A z = b, z[src] − e^{ε + log κ} z[dst] ≤ 0, z ≥ 0, by one ``scipy.optimize.linprog(method="highs")`` call
  with default tolerances and ``time_limit`` = ``--highs-time-limit``; seconds of that call (the spec build is
  reported apart), its status and objective.  HiGHS's objective is not certified; |Δ value| is the difference
  of the two values, and "right to 1e-6" says whether HiGHS's value lies inside the toolkit's certified bounds
  widened by 1e-6 of the upper bound (the accuracy the toolkit proves).

Each side also records its CPU seconds (``time.process_time`` of the call, all threads), the comparison to use on a
shared machine; the machine's load average is recorded with every point.  HiGHS's ``time_limit`` counts wall
seconds, so under load it stops HiGHS after fewer CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PRIORS_M2 = ("iid:0.3,0.7", "mixture:0.5,0.5/0.8,0.2/0.3,0.7")
DEFAULT_NS = (30, 50, 100, 200)
#: (program, ε or ε_X offset): PD-DP at ε, PD-I at ε_X + offset
SETTINGS = (("pd-dp", 0.5), ("pd-dp", 2.0), ("pd-i", 0.3))
M3_POINT = {"program": "pd-dp", "prior": "iid:0.2,0.3,0.5", "n": 16, "m": 3, "eps_arg": 1.0}


# ---------------------------------------------------------------------------------------------- children
def _peak_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # kilobytes on Linux


def _program(point: dict):
    from problems.orbit import ReducedPDDP, ReducedPDI
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    sym = parse_symmetric_prior(point["prior"], point["n"], point["m"])
    prog = (ReducedPDI if point["program"] == "pd-i" else ReducedPDDP)(sym)
    eps = prog.eps_X + point["eps_arg"] if point["program"] == "pd-i" else point["eps_arg"]
    return prog, float(eps)


def child_toolkit(point: dict) -> dict:
    import problems.orbit  # noqa: F401 - imported before the clock starts, as on the HiGHS side
    from problems.solvers import settings

    # --compare-active: the block method without the active-block probe
    settings.ACTIVE_BLOCKS = point.get("active_blocks", True)

    t0 = time.perf_counter()
    prog, eps = _program(point)
    build = time.perf_counter() - t0
    t1, c1 = time.perf_counter(), time.process_time()
    res = prog.solve(eps, method="lp")
    solve, cpu = time.perf_counter() - t1, time.process_time() - c1
    return {
        "eps": eps,
        "variables": int(prog.lp.K),
        "ratio_rows": int(prog.lp.P),
        "build_s": build,
        "solve_s": solve,
        "time_s": solve,
        "cpu_s": cpu,
        **answer_fields(res),
        "peak_rss_mib": _peak_rss_mib(),
    }


def answer_fields(res) -> dict:  # noqa: ANN001 - a SolveResult
    """What a child reports of an answer: status, value, certified bounds, the back end that answered, its
    iterations and every attempt."""
    return {
        "status": str(res.status),
        "value": float(res.value),
        "lower": float(res.bounds.lower),
        "upper": float(res.bounds.upper),
        "solver": res.stats.solver,
        "iterations": res.stats.iterations,
        "attempts": [list(a) for a in res.stats.attempts],
    }


def child_highs(point: dict, time_limit: float) -> dict:
    import numpy as np
    import scipy.sparse as sp
    from scipy.optimize import linprog

    t0 = time.perf_counter()
    prog, eps = _program(point)
    spec = prog.lp.spec
    P = spec.P
    rows = np.concatenate([np.arange(P), np.arange(P)])
    cols = np.concatenate([spec.src, spec.dst])
    vals = np.concatenate([np.ones(P), -np.exp(eps + spec.log_kappa)])
    G = sp.csr_matrix((vals, (rows, cols)), shape=(P, spec.K))
    build = time.perf_counter() - t0
    t1, c1 = time.perf_counter(), time.process_time()
    res = linprog(
        spec.c,
        A_ub=G,
        b_ub=np.zeros(P),
        A_eq=spec.A,
        b_eq=spec.b,
        bounds=(0, None),
        method="highs",
        options={"time_limit": float(time_limit)},
    )
    solve, cpu = time.perf_counter() - t1, time.process_time() - c1
    status = {0: "optimal", 1: "time/iteration limit", 2: "infeasible", 3: "unbounded"}.get(
        res.status, "numerical difficulties"
    )  # scipy's status 4 also covers HiGHS model statuses it does not name (the message keeps the code)
    return {
        "eps": eps,
        "variables": int(spec.K),
        "ratio_rows": int(P),
        "build_s": build,
        "time_s": solve,
        "cpu_s": cpu,
        "status": status,
        "scipy_status": int(res.status),
        "message": str(res.message),
        "value": float(res.fun) if res.fun is not None and res.x is not None else None,
        "peak_rss_mib": _peak_rss_mib(),
    }


# ---------------------------------------------------------------------------------------------- parent
def run_child(side: str, point: dict, time_limit: float, timeout: float | None) -> dict:
    """One point on one side in a fresh interpreter; the child prints its result as the last line (JSON)."""
    payload = json.dumps({"side": side, "point": point, "time_limit": time_limit})
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", payload],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"status": "killed (timeout)", "time_s": time.perf_counter() - t0}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {
            "status": f"error (exit {proc.returncode})",
            "time_s": time.perf_counter() - t0,
            "stderr": proc.stderr[-2000:],
        }
    return json.loads(lines[-1])


def _write(path: Path, meta: dict, rows: list[dict]) -> None:
    """Write the results atomically: a temporary file in the same directory, then os.replace."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump({**meta, "results": rows}, fh, indent=2)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def points(ns, with_400: bool, m3: bool, priors=PRIORS_M2, settings=SETTINGS) -> list[dict]:
    out = []
    for n in ns:
        for prior in priors:
            for program, eps_arg in settings:
                out.append(
                    {"program": program, "prior": prior, "n": n, "m": 2, "eps_arg": eps_arg, "highs": True}
                )
    if with_400:
        for prior in PRIORS_M2:
            for program, eps_arg in SETTINGS:
                out.append(
                    {"program": program, "prior": prior, "n": 400, "m": 2, "eps_arg": eps_arg, "highs": False}
                )
    if m3:
        out.append({**M3_POINT, "highs": False})
    return out


def _fmt(x, spec: str, missing: str = "—") -> str:
    return missing if x is None else format(x, spec)


def table_row(r: dict) -> str:
    tk, hs = r["toolkit"], r.get("highs")
    eps = tk.get("eps", hs.get("eps") if hs else None)
    left = (
        f"| {r['program']} | {r['prior']} | {r['n']} | {r['m']} | {_fmt(eps, '.4g')} | {_fmt(tk.get('time_s'), '.1f')} "
        f"| {_fmt(tk.get('cpu_s'), '.2f')} | {tk['status']} | {tk.get('solver', '—')} | {_fmt(tk.get('peak_rss_mib'), '.0f')} "
    )
    if hs is None:
        return left + "| — | — | not run | — | — |"
    diff = (
        abs(tk["value"] - hs["value"])
        if tk.get("value") is not None and hs.get("value") is not None
        else None
    )
    right = plain_call_right(tk, hs)
    return (
        left
        + f"| {_fmt(hs.get('time_s'), '.1f')} | {_fmt(hs.get('cpu_s'), '.2f')} | {hs['status']} | {_fmt(hs.get('peak_rss_mib'), '.0f')} "
        f"| {_fmt(diff, '.1e')} | {'—' if right is None else ('yes' if right else 'no')} |"
    )


def plain_call_right(tk: dict, hs: dict | None) -> bool | None:
    """Whether the plain call's value is right to the certificate's accuracy: inside the toolkit's certified
    bounds widened by 1e-6 of the upper bound (None where either side has no value or the toolkit no proof)."""
    if hs is None or hs.get("value") is None or tk.get("lower") is None or tk.get("upper") is None:
        return None
    if not str(tk.get("status")) == "optimal":
        return None
    lo, up, v = float(tk["lower"]), float(tk["upper"]), float(hs["value"])
    return lo - 1e-6 * abs(up) <= v <= up + 1e-6 * abs(up)


HEADER = (
    "| program | prior | n | m | ε | toolkit wall s | CPU s | status | solver | RSS MiB | HiGHS wall s | CPU s "
    "| HiGHS status | RSS MiB | abs value diff | HiGHS right to 1e-6 |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="n = 30 only")
    ap.add_argument("--n", type=int, nargs="+", help="override the list of n (m = 2)")
    ap.add_argument("--with-400", action="store_true", help="add n = 400 (toolkit only)")
    ap.add_argument(
        "--m3", action="store_true", help="add m = 3, n = 16, iid (0.2,0.3,0.5), PD-DP ε = 1 (toolkit)"
    )
    ap.add_argument("--priors", nargs="+", default=list(PRIORS_M2), help="the m = 2 priors (default: both)")
    ap.add_argument(
        "--settings",
        nargs="+",
        help="override the (program, ε) settings, as PROGRAM:EPS (PD-I: the offset above ε_X), e.g. pd-dp:1.0",
    )
    ap.add_argument("--highs-time-limit", type=float, default=600.0, help="HiGHS time_limit in seconds")
    ap.add_argument("--toolkit-only", action="store_true", help="run the toolkit side only (no HiGHS call)")
    ap.add_argument(
        "--compare-active",
        action="store_true",
        help="also run the toolkit with the active-block probe off, just before (side by side)",
    )
    ap.add_argument(
        "--child-timeout",
        type=float,
        default=None,
        help="kill a child after this many seconds (default: never)",
    )
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "reduced_scale.json"))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        job = json.loads(args.child)
        if job["side"] == "toolkit":
            result = child_toolkit(job["point"])
        else:
            result = child_highs(job["point"], job["time_limit"])
        print(json.dumps(result), flush=True)
        return

    ns = args.n if args.n else ((30,) if args.quick else DEFAULT_NS)
    settings = (
        tuple((item.split(":")[0], float(item.split(":")[1])) for item in args.settings)
        if args.settings
        else SETTINGS
    )
    out = Path(args.out)
    meta = {
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "highs_time_limit_s": args.highs_time_limit,
        "settings": {"priors_m2": list(args.priors), "program_eps": [list(x) for x in settings]},
    }
    rows: list[dict] = []
    print(HEADER, flush=True)
    for pt in points(ns, args.with_400, args.m3, args.priors, settings):
        point = {k: pt[k] for k in ("program", "prior", "n", "m", "eps_arg")}
        row = {**point, "load_average_before": os.getloadavg()}
        if args.compare_active:
            off = {**point, "active_blocks": False}
            row["toolkit_without_active_blocks"] = run_child(
                "toolkit", off, args.highs_time_limit, args.child_timeout
            )
        row["toolkit"] = run_child("toolkit", point, args.highs_time_limit, args.child_timeout)
        row["highs"] = (
            run_child("highs", point, args.highs_time_limit, args.child_timeout)
            if pt["highs"] and not args.toolkit_only
            else None
        )
        row["load_average_after"] = os.getloadavg()
        tk_value, hs_value = row["toolkit"].get("value"), (row["highs"] or {}).get("value")
        if tk_value is not None and hs_value is not None:
            row["value_diff_abs"] = abs(tk_value - hs_value)
            row["value_diff_rel"] = abs(tk_value - hs_value) / max(abs(tk_value), 1e-300)
        row["highs_right_to_1e-6"] = plain_call_right(row["toolkit"], row["highs"])
        rows.append(row)
        _write(out, meta, rows)
        print(table_row(row), flush=True)
        if args.compare_active:
            before, after = row["toolkit_without_active_blocks"], row["toolkit"]
            print(
                f"  without active blocks: {before.get('time_s', float('nan')):.1f} s {before.get('status')}; "
                f"with: {after.get('time_s', float('nan')):.1f} s {after.get('status')} "
                f"({(after.get('attempts') or [['', '']])[0][1][:60]})",
                flush=True,
            )
    print("\n" + HEADER)
    for row in rows:
        print(table_row(row))
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
