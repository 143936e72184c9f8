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
from bench_against_former import main as against_former  # noqa: E402 - the benchmarks' own helpers

FORMER = "b3cbc1b"
PRIORS = [
    "iid:0.3,0.7",
    "mixture:0.5,0.5/0.8,0.2/0.3,0.7",
    "contagious:0.9:0.5,0.5",
    "contagious:0.9:0.3,0.7",
]


def main() -> None:
    against_former(
        __doc__ or "",
        __file__,
        ([100], [0.5, 1.0, 2.0], PRIORS),
        HERE / "results" / "iterate_proofs.json",
        former=FORMER,
        pd_i=[0.3],
    )


if __name__ == "__main__":
    main()
