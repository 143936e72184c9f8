"""The library against a former revision of itself, side by side, at chosen points.

Run: ``python benchmarks/bench_against_former.py --former REV [--n 200] [--eps 1] [--priors …] [--pd-i OFFSET …]
--out benchmarks/results/NAME.json``.  Prints a markdown table and writes the JSON file (rewritten atomically
after every point).

For every point two fresh subprocesses run the public call ``prog.solve(eps, method="lp")``, interleaved: "now"
with the library of this tree, "former" with the package ``problems`` as it is at the git revision ``--former``,
unpacked by ``git archive`` into a temporary directory on the child's ``PYTHONPATH``.  Points: m = 2 reduced
PD-DP for each prior and ε, and PD-I at ε_X + OFFSET for each prior and ``--pd-i`` offset.  The change a run
measures is the one between the two revisions; ``docs/benchmarks.md`` names it beside the table.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import arguments, now_against_former, paired_columns, points_of  # noqa: E402 - the benchmarks' own helpers


def child(point: dict) -> dict:
    """One public call in this process (the library on its ``PYTHONPATH``), ``bench_reduced_scale.py``'s child."""
    from bench_reduced_scale import child_toolkit

    import problems

    return {"library": str(Path(problems.__file__).parent), **child_toolkit(point)}


def main(
    doc: str = __doc__ or "",
    script: str = __file__,
    grid: tuple[list[int], list[float], list[str]] = ([200], [1.0], ["mixture:0.5,0.5/0.8,0.2/0.3,0.7"]),
    out: Path = HERE / "results" / "against_former.json",
    former: str | None = None,
    pd_i: list[float] | None = None,
) -> None:
    """The side-by-side run of ``script`` (``--former`` required unless ``former`` is its default); ``grid``: the
    default n, ε and priors of the points, ``pd_i`` the default PD-I offsets."""
    args = arguments(
        doc,
        *grid,
        out,
        more=lambda ap: (
            ap.add_argument(
                "--former",
                default=former,
                required=former is None and "--child" not in sys.argv,
                help="git revision of the former library",
            ),
            ap.add_argument(
                "--pd-i", type=float, nargs="*", default=pd_i or [], help="PD-I offsets from ε_X"
            ),
        ),
    )
    now_against_former(
        script,
        args,
        child,
        paired_columns("former"),
        former=None if args.child is not None else args.former,
        points=points_of(args, args.pd_i),
    )


if __name__ == "__main__":
    main()
