"""PD-I far above ε_X: the block method or HiGHS in E_d-scaled columns after HiGHS, side by side.

Run: ``python benchmarks/bench_pdi_order.py [--n 60 100] [--offsets 6 8 10 12 15 20 30] [--priors …]``.  Prints a
markdown table and writes ``benchmarks/results/pdi_order.json`` (rewritten atomically after every point).

For every point (m = 2, reduced PD-I at ε = ε_X + offset, the public call ``prog.solve(eps, method="lp")``) two
fresh subprocesses, interleaved, run the chain with the back ends that :func:`problems.orbit.backend_choice.
first_backends` puts first from ε_X + ``PDI_HIGHS_SLACK`` replaced by one of two orders: ``block`` — plain HiGHS,
the block method, then HiGHS in E_d-scaled columns; ``scaled`` — plain HiGHS, HiGHS in E_d-scaled columns, then the
block method.  Each records its wall seconds, status, certified bounds, the attempt that answered and every
attempt's outcome (``bench_reduced_scale.py``'s child).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import answered_as_child, arguments, bounds, cell, compare, points_of  # noqa: E402 - the benchmarks' own helpers

ORDERS = {"block": ("highs", "block", "highs-scaled"), "scaled": ("highs", "highs-scaled", "block")}


def child(point: dict) -> dict:
    from bench_reduced_scale import child_toolkit

    from problems.orbit import programs

    first = programs.first_backends
    order = ORDERS[point["order"]]

    def chosen(*a, **k):  # noqa: ANN002, ANN003, ANN202
        got = first(*a, **k)
        return order if isinstance(got, tuple) and got[0] == "highs" and "highs-scaled" in got else got

    programs.first_backends = chosen
    return child_toolkit(point)


def main() -> None:
    args = arguments(
        __doc__,
        [60, 100],
        [0.0],
        ["iid:0.3,0.7", "mixture:0.5,0.5/0.8,0.2/0.3,0.7"],
        HERE / "results" / "pdi_order.json",
        more=lambda ap: ap.add_argument(
            "--offsets", type=float, nargs="+", default=[6, 8, 10, 12, 15, 20, 30]
        ),
    )
    if answered_as_child(args, child):
        return
    points = [p for p in points_of(args, pd_i=args.offsets) if p["program"] == "pd-i"]
    print(
        "| n | prior | ε − ε_X | block method second: s, answered by | E_d-scaled HiGHS second | bounds (block) |"
    )
    print("|---|---|---|---|---|---|")
    for p, got in compare(__file__, args, "order", tuple(ORDERS), points=points):
        print(
            f"| {p['n']} | {p['prior']} | {p['eps_arg']:g} | {cell(got['block'])} | {cell(got['scaled'])} "
            f"| {bounds(got['block'])} |",
            flush=True,
        )
    print(f"(written {args.out}, {time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
