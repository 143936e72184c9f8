"""The band factor's diagonal shift, side by side: relative to each diagonal entry against relative to the largest.

Run: ``python benchmarks/bench_shift.py [--n 60 100] [--eps 0.5 1 2] [--priors …]``.  Prints a markdown table
and writes ``benchmarks/results/band_shift.json`` (rewritten atomically after every point).

A block of the m = 2 layered normal equations that is not numerically positive definite is factorised again with
a diagonal shift (:func:`problems.ipm.layered._band_cholesky`).  For every point (m = 2, reduced PD-DP,
``prog.solve(eps, method="lp")``) two fresh subprocesses run the public call, interleaved: one with the shift as
it is (each diagonal entry times 1 + δ, δ = 1e-14, 1e-12, …: :mod:`problems.ipm.shift`), one with the former
shift (δ times the block's largest diagonal entry added to every diagonal entry).  Each records its wall seconds, status, certified bounds,
the attempt that answered, every attempt's outcome (``bench_reduced_scale.py``'s child) and how many
factorisations of the normal equations needed a shift.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import arguments, now_against_former  # noqa: E402 - the benchmarks' own helpers


def _former_band_cholesky(ab, owner, refill):  # noqa: ANN001, ANN202 - the shift as it was
    from problems.ipm import layered

    kernels = owner.kernels

    def factor(a):  # noqa: ANN001, ANN202
        if kernels is not None:
            return kernels.pbtrf(a)
        c, info = layered.dpbtrf(a, lower=1, overwrite_ab=1)
        if info == 0 and c is not a:
            a[...] = c
        return info

    if factor(ab) == 0:
        return ab
    refill()
    scale = float(layered.np.max(ab[0])) or 1.0  # the block's largest diagonal entry
    shift = 1e-14 * scale
    for attempt in range(6):
        if attempt > 0:
            refill()
        ab[0] += shift
        if factor(ab) == 0:
            owner.shifted += 1
            return ab
        shift *= 100.0
    raise layered.np.linalg.LinAlgError("a block of the banded normal equations is not positive definite")


def child(point: dict) -> dict:
    from bench_reduced_scale import child_toolkit

    from problems.ipm import layered

    if point["variant"] == "former":
        layered._band_cholesky = _former_band_cholesky
    counts = {"factorisations": 0, "shifted": 0}
    init = layered.LayeredFactor.__init__

    def counted(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
        init(self, *a, **k)
        counts["factorisations"] += 1
        counts["shifted"] += int(self.shifted > 0)

    layered.LayeredFactor.__init__ = counted
    return {**child_toolkit(point), **counts}


def _shifted(got: dict) -> str:
    return " / ".join(
        f"{got[v].get('shifted', '?')} of {got[v].get('factorisations', '?')}" for v in ("now", "former")
    )


def main() -> None:
    args = arguments(
        __doc__,
        [60, 100],
        [0.5, 1.0, 2.0],
        [
            "contagious:0.9:0.5,0.5",
            "contagious:0.2:0.3,0.7",
            "mixture:0.5,0.5/0.8,0.2/0.3,0.7",
            "iid:0.3,0.7",
        ],
        HERE / "results" / "band_shift.json",
    )
    now_against_former(__file__, args, child, [("shifted factorisations (now / former)", _shifted)])


if __name__ == "__main__":
    main()
