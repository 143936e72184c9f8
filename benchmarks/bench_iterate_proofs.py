"""Proofs combined over an attempt's iterates, side by side with the library before the change.

Run: ``python benchmarks/bench_iterate_proofs.py [--former REV] [--n 100] [--eps 0.5 1 2] [--priors …] [--pd-i
OFFSET …]``.  Prints a markdown table and writes ``benchmarks/results/iterate_proofs.json`` (rewritten atomically
after every point).

The change: the chain's early-stop test keeps, over the iterates it looks at, the lowest proved upper bound (with
its exactly feasible point) and the highest lower bound (with its multipliers), and stops the back end as soon
as the two certify together, whichever iterates they came from (:mod:`problems.solvers.chain`); and the
interior-point iteration asks that test, once the gap is small, on the iterate a step leaves when refinement
could not make the step's Newton direction accurate (:data:`problems.ipm.iteration.REFINE_FAILED`) — the last
good iterate before the rounding floor.  The arithmetic of every iterate is unchanged.

For every point two fresh subprocesses run the public call ``prog.solve(eps, method="lp")``, interleaved: "now"
with the library of this tree, "former" with the package ``problems`` as it is at the git revision ``--former``
(default: the commit before the change), unpacked by ``git archive`` into a temporary directory on the child's
``PYTHONPATH``.  Points: m = 2 reduced PD-DP for each prior and ε, and PD-I at ε_X + OFFSET for each prior and
``--pd-i`` offset.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import arguments, now_against_former, paired_columns, points_of  # noqa: E402 - the benchmarks' own helpers

FORMER = "b3cbc1b"
PRIORS = [
    "iid:0.3,0.7",
    "mixture:0.5,0.5/0.8,0.2/0.3,0.7",
    "contagious:0.9:0.5,0.5",
    "contagious:0.9:0.3,0.7",
]


def child(point: dict) -> dict:
    """One public call in this process (the library on its ``PYTHONPATH``), ``bench_reduced_scale.py``'s child."""
    from bench_reduced_scale import child_toolkit

    import problems

    return {"library": str(Path(problems.__file__).parent), **child_toolkit(point)}


def main() -> None:
    args = arguments(
        __doc__,
        [100],
        [0.5, 1.0, 2.0],
        PRIORS,
        HERE / "results" / "iterate_proofs.json",
        more=lambda ap: (
            ap.add_argument("--former", default=FORMER, help="git revision of the former library"),
            ap.add_argument("--pd-i", type=float, nargs="*", default=[0.3], help="PD-I offsets from ε_X"),
        ),
    )
    now_against_former(
        __file__,
        args,
        child,
        paired_columns("former"),
        former=None if args.child is not None else args.former,
        points=points_of(args, args.pd_i),
    )


if __name__ == "__main__":
    main()
