"""The back end an orbit-reduced LP tries first when no ``solver`` is named (measured choice)."""

from __future__ import annotations

from ..solvers.settings import LAYERED_MIN_VARIABLES, SMALL_LP_SIZE

__all__ = ["choose_backend"]


def choose_backend(reduction: str, m: int, variables: int) -> str:
    """The back end tried first when no ``solver`` is named: ``"block"`` for joint-type LPs with m ≥ 3 and
    more than :data:`~problems.solvers.settings.SMALL_LP_SIZE` variables, else ``"clarabel"``.

    Measured (``docs/orbit_reduction.md`` §10): for m ≥ 3 each y-type block is a product of m simplex lattices
    of dimension m − 1, which a sparse LDLᵀ fills almost completely, and the dense block method is 1.5–2.6×
    faster (m = 3, n = 8 and 10); for m = 2 the blocks are banded along their layers
    (:mod:`problems.ipm.layered`) and the block method is chosen above :data:`LAYERED_MIN_VARIABLES` variables
    (n ≥ 20): at n = 50 it certifies in seconds where Clarabel's multipliers leave a gap of 2e-6 (i.i.d.
    (0.3, 0.7), PD-DP at ε = 2.2: 4.6 s against 363 s and ``inaccurate``).  For ε ≥
    :data:`~problems.solvers.settings.SCALE_MIN_EPS` the m = 2 programs start with Clarabel on the scaled LP
    instead (the block method has no column scaling).
    """
    if reduction == "joint-type" and m >= 3 and variables > SMALL_LP_SIZE:
        return "block"
    if reduction == "joint-type" and m == 2 and variables > LAYERED_MIN_VARIABLES:
        return "block"
    return "clarabel"
