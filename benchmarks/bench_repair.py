"""The exact repair's choice of local repair, side by side: the cheapest one against the first one that needs no mixing.

Run: ``python benchmarks/bench_repair.py [--n 60 100] [--eps 0.5 1 2] [--priors …]``.  Prints a markdown table
and writes ``benchmarks/results/repair_choice.json`` (rewritten atomically after every point).

For every point (m = 2, reduced PD-DP, ``prog.solve(eps, method="lp")``) two fresh subprocesses run the public
call, interleaved: one with :func:`problems.lp.bounds.repair` as it is (a local repair that costs more than
:data:`~problems.lp.bounds.REPAIR_LOSS` above the back end's point does not end the search; the closure
renormalises in up to :data:`~problems.lp.bounds.CLOSURE_ROUNDS` rounds), one as it was (the first local repair
that needs no mixing is kept, whatever it costs; one round of the closure).  Each records its wall seconds,
status, certified bounds, the attempt that answered and every attempt's outcome (``bench_reduced_scale.py``'s
child).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import arguments, now_against_former  # noqa: E402 - the benchmarks' own helpers


def child(point: dict) -> dict:
    from bench_reduced_scale import child_toolkit

    if point["variant"] == "former":
        from problems.lp import bounds

        bounds.REPAIR_LOSS = math.inf  # the first repair without mixing ends the search
        bounds.CLOSURE_ROUNDS = 1
    return child_toolkit(point)


def main() -> None:
    args = arguments(
        __doc__,
        [60, 100],
        [0.5, 1.0, 2.0],
        ["contagious:0.9:0.5,0.5", "contagious:0.2:0.3,0.7", "mixture:0.5,0.5/0.8,0.2/0.3,0.7"],
        HERE / "results" / "repair_choice.json",
    )
    now_against_former(__file__, args, child)


if __name__ == "__main__":
    main()
