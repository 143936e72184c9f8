"""The back ends after the mass-floored columns at large ε: the chain's order against the former one, side by side.

Run: ``python benchmarks/bench_large_eps_order.py [--n 60 100] [--eps 8 12 18 20 22] [--priors …]``.  Prints a
markdown table and writes ``benchmarks/results/large_eps_order.json`` (rewritten atomically after every point).

For every point (m = 2, reduced PD-DP, ``prog.solve(eps, method="lp")``) two fresh subprocesses run the public call,
interleaved: one with the chain as it is (:func:`problems.orbit.backend_choice.first_backends` with the floored
columns: ``HIGHS-MASS``, then the block method and ``HIGHS-SCALED`` — from
:data:`~problems.solvers.settings.SCALED_SECOND_EPS` in the other order — then plain HiGHS), one with the former
order (``HIGHS-MASS``, plain HiGHS, the block method, then the default chain).  Each records its wall seconds,
status, certified bounds, the attempt that answered and every attempt's outcome (``bench_reduced_scale.py``'s
child).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import cell, run, write  # noqa: E402 - the benchmarks' own helpers

FORMER = ("highs-mass", "highs", "block")


def child(point: dict) -> dict:
    from bench_reduced_scale import child_toolkit

    if point["order"] == "former":
        from problems.orbit import programs

        programs.first_backends = lambda *a, **k: FORMER  # noqa: ARG005 - the former choice at every ε ≥ 8
    return child_toolkit(point)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, nargs="+", default=[60, 100])
    ap.add_argument("--eps", type=float, nargs="+", default=[8.0, 12.0, 18.0, 20.0, 22.0])
    ap.add_argument("--priors", nargs="+", default=["contagious:0.2:0.3,0.7", "contagious:0.9:0.5,0.5"])
    ap.add_argument("--out", default=str(HERE / "results" / "large_eps_order.json"))
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child(json.loads(args.child))))
        return
    rows: list[dict] = []
    print("| n | prior | ε | chain: s, answered by | former: s, answered by | bounds (chain) |")
    print("|---|---|---|---|---|---|")
    for n in args.n:
        for prior in args.priors:
            for eps in args.eps:
                base = {"program": "pd-dp", "prior": prior, "n": n, "m": 2, "eps_arg": eps}
                got = {}
                for order in ("chain", "former"):
                    got[order] = run(__file__, {**base, "order": order})
                    rows.append({**base, "order": order, "load": os.getloadavg()[0], **got[order]})
                    write(Path(args.out), rows)

                c = got["chain"]
                bounds = f"[{c['lower']:.9e}, {c['upper']:.9e}]" if "lower" in c else "—"
                print(
                    f"| {n} | {prior} | {eps:g} | {cell(c)} | {cell(got['former'])} | {bounds} |", flush=True
                )
    print(f"(written {args.out}, {time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
