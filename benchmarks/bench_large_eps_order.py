"""The back ends after the mass-floored columns at large ε: the chain's order against the former one, side by side.

Run: ``python benchmarks/bench_large_eps_order.py [--n 60 100] [--eps 8 12 18 20 22] [--priors …]``.  Prints a
markdown table and writes ``benchmarks/results/large_eps_order.json`` (rewritten atomically after every point).

For every point (m = 2, reduced PD-DP, ``prog.solve(eps, method="lp")``) two fresh subprocesses run the public call,
interleaved: one with the chain as it is (:func:`problems.orbit.backend_choice.first_backends` with the floored
columns: ``HIGHS-MASS``, then the block method, ``HIGHS-SCALED`` and plain HiGHS), one with the former
order (``HIGHS-MASS``, plain HiGHS, the block method, then the default chain).  Each records its wall seconds,
status, certified bounds, the attempt that answered and every attempt's outcome (``bench_reduced_scale.py``'s
child).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import answered_as_child, arguments, bounds, cell, compare  # noqa: E402 - the benchmarks' own helpers

FORMER = ("highs-mass", "highs", "block")


def child(point: dict) -> dict:
    from bench_reduced_scale import child_toolkit

    if point["order"] == "former":
        from problems.orbit import programs

        programs.first_backends = lambda *a, **k: FORMER  # noqa: ARG005 - the former choice at every ε ≥ 8
    return child_toolkit(point)


def main() -> None:
    args = arguments(
        __doc__,
        [60, 100],
        [8.0, 12.0, 18.0, 20.0, 22.0],
        ["contagious:0.2:0.3,0.7", "contagious:0.9:0.5,0.5"],
        HERE / "results" / "large_eps_order.json",
    )
    if answered_as_child(args, child):
        return
    print("| n | prior | ε | chain: s, answered by | former: s, answered by | bounds (chain) |")
    print("|---|---|---|---|---|---|")
    for p, got in compare(__file__, args, "order", ("chain", "former")):
        print(
            f"| {p['n']} | {p['prior']} | {p['eps_arg']:g} | {cell(got['chain'])} | {cell(got['former'])} "
            f"| {bounds(got['chain'])} |",
            flush=True,
        )
    print(f"(written {args.out}, {time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
