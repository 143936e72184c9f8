"""The mirror fold, side by side: the block method on the folded LP against the whole LP, mirror-symmetric priors.

Run: ``python benchmarks/bench_mirror_fold.py [--n 60 100] [--eps 0.5 1 2] [--priors …] [--pd-i 0.3]``.  Prints
a markdown table and writes ``benchmarks/results/mirror_fold.json`` (rewritten atomically after every point).

For a prior invariant under the mirror x ↦ 1 − x (m = 2: P(|X| = k) = P(|X| = n − k)) the block method solves
the joint-type LP folded onto the orbit sums of the mirror (:mod:`problems.lp.fold`: about half the variables,
rows and band factors).  For every point two fresh subprocesses run the public call
``prog.solve(eps, method="lp")``, interleaved: one as the library is ("now": folded), one with
``problems.solvers.settings.FOLD_MIRROR`` off ("former": the whole LP).  Both answers are certified on the whole
LP by the same certificate; each records its wall and CPU seconds, peak RSS, status, bounds, the attempt that
answered and its iterations (``bench_reduced_scale.py``'s child).  ``--pd-i OFFSET`` adds PD-I at ε_X + OFFSET
for every n and prior.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import arguments, now_against_former, paired_columns, points_of  # noqa: E402 - the benchmarks' own helpers


def child(point: dict) -> dict:
    from bench_reduced_scale import child_toolkit

    from problems.solvers import settings

    settings.FOLD_MIRROR = point["variant"] == "now"
    return child_toolkit(point)


def main() -> None:
    args = arguments(
        __doc__,
        [60, 100],
        [0.5, 1.0, 2.0],
        ["contagious:0.9:0.5,0.5", "mixture:0.5,0.5/0.8,0.2/0.2,0.8"],
        HERE / "results" / "mirror_fold.json",
        more=lambda ap: ap.add_argument(
            "--pd-i", type=float, nargs="*", default=[], help="PD-I offsets from ε_X"
        ),
    )
    now_against_former(
        __file__,
        args,
        child,
        paired_columns("whole"),
        points=points_of(args, args.pd_i),
    )


if __name__ == "__main__":
    main()
