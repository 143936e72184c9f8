"""``HIGHS-MASS`` alone, with and without HiGHS's own scaling of the simplex, side by side.

Run: ``python benchmarks/bench_highs_mass_scaling.py [--n 100] [--eps 6 15 18 20 22 30 40] [--priors …]``.  Prints
a markdown table and writes ``benchmarks/results/highs_mass_scaling.json`` (rewritten atomically after every
point).

For every point (m = 2, reduced PD-DP) two fresh subprocesses, interleaved, build the reduced LP and call the
``HIGHS-MASS`` back end (:class:`problems.solvers.backends.HighsMassBackend`) once, with one set of HiGHS options
only: ``off`` — ``simplex_scale_strategy = 0`` (no scaling by HiGHS: the columns floored by the prior mass are
scaled already); ``on`` — HiGHS's default scaling.  Each records the seconds of that solve, its status, and the
toolkit's certificate on its point (:func:`problems.lp.bounds.certify`, as the chain computes it on an answer):
whether it is certified and refined (relative gap ≤ 1e-6), and the bounds.  The library's ``HIGHS-MASS`` runs
``off``, then ``on`` where ``off``'s point is not proved (:data:`problems.solvers.settings.HIGHS_MASS_OPTIONS`);
the table's last column is what that order costs.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import answered_as_child, arguments, compare  # noqa: E402 - the benchmarks' own helpers

SCALINGS = {"off": {"simplex_scale_strategy": 0}, "on": {}}
PRIORS = [
    "contagious:0.2:0.3,0.7",
    "contagious:0.9:0.3,0.7",
    "contagious:0.9:0.5,0.5",
    "mixture:0.5,0.5/0.8,0.2/0.3,0.7",
    "iid:0.3,0.7",
]


def child(point: dict) -> dict:
    from bench_reduced_scale import _program

    from problems.lp.bounds import certify
    from problems.lp.status import refined
    from problems.solvers import backends

    prog, eps = _program(point)
    spec = prog.lp.spec
    be = backends.HighsMassBackend()
    be.options = (("", SCALINGS[point["scaling"]]),)
    t0 = time.perf_counter()
    try:
        raw = be.solve(spec, eps, time_limit=600.0)
    except backends.BackendError as exc:
        return {"eps": eps, "seconds": time.perf_counter() - t0, "status": str(exc), "proved": False}
    seconds = time.perf_counter() - t0
    cert = certify(spec, eps, raw.z, raw.nu, raw.lam)
    lo, up = float(cert.bounds.lower), float(cert.bounds.upper)
    return {
        "eps": eps,
        "seconds": seconds,
        "status": raw.status,
        "certified": bool(cert.certified),
        "proved": bool(refined(lo, up)),
        "lower": lo,
        "upper": up,
    }


def _cell(r: dict) -> str:
    if "error" in r:
        return f"error: {r['error']}"
    mark = "✓" if r["proved"] else ("certified, gap > 1e-6" if r.get("certified") else "✗")
    if not r["status"].startswith("optimal"):
        mark += f" ({r['status'][:24]})"
    return f"{r['seconds']:.1f} {mark}"


def main() -> None:
    args = arguments(
        __doc__,
        [100],
        [6.0, 15.0, 18.0, 20.0, 22.0, 30.0, 40.0],
        PRIORS,
        HERE / "results" / "highs_mass_scaling.json",
    )
    if answered_as_child(args, child):
        return
    print("| n | prior | ε | without HiGHS's scaling: s | with it: s | the library's order: s, proved |")
    print("|---|---|---|---|---|---|")
    for p, got in compare(__file__, args, "scaling", tuple(SCALINGS)):
        off, on = got["off"], got["on"]
        if "error" in off or "error" in on:
            order = "—"
        elif off["proved"]:
            order = f"{off['seconds']:.1f} ✓"
        else:
            order = f"{off['seconds'] + on['seconds']:.1f} {'✓' if on['proved'] else '✗'}"
        print(
            f"| {p['n']} | {p['prior']} | {p['eps_arg']:g} | {_cell(off)} | {_cell(on)} | {order} |",
            flush=True,
        )
    print(f"(written {args.out}, {time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
