"""The back end an orbit-reduced LP tries first when no ``solver`` is named (measured choice)."""

from __future__ import annotations

from ..solvers.settings import (
    LAYERED_MIN_VARIABLES,
    PDI_BLOCK_BEFORE_SCALED_FROM,
    PDI_BLOCK_MARGIN,
    PDI_CLARABEL_EPS_X,
    PDI_HIGHS_SLACK,
    SCALE_MIN_EPS,
    SMALL_LP_SIZE,
)

__all__ = ["choose_backend", "first_backends"]


def choose_backend(reduction: str, m: int, variables: int) -> str:
    """The back end tried first when no ``solver`` is named: ``"block"`` for joint-type LPs with m ≥ 3 and
    more than :data:`~problems.solvers.settings.SMALL_LP_SIZE` variables, else ``"clarabel"``.

    Measured (``docs/orbit_reduction.md`` §10): for m ≥ 3 each y-type block is a product of m simplex lattices
    of dimension m − 1, which a sparse LDLᵀ fills almost completely, and the dense block method is 1.5–2.6×
    faster (m = 3, n = 8 and 10); for m = 2 the blocks are banded along their layers
    (:mod:`problems.ipm.layered`) and the block method is chosen above :data:`LAYERED_MIN_VARIABLES` variables
    (n ≥ 20): at n = 50 it certifies in seconds where Clarabel's multipliers leave a gap of 2e-6 (i.i.d.
    (0.3, 0.7), PD-DP at ε = 2.2: 4.6 s against 363 s and ``inaccurate``).  For ε ≥
    :data:`~problems.solvers.settings.SCALE_MIN_EPS` the m = 2 programs start otherwise (:func:`first_backends`).
    """
    if reduction == "joint-type" and m >= 3 and variables > SMALL_LP_SIZE:
        return "block"
    if reduction == "joint-type" and m == 2 and variables > LAYERED_MIN_VARIABLES:
        return "block"
    return "clarabel"


def first_backends(
    backend: str,
    m: int,
    eps: float,
    *,
    eps_X: float | None = None,
    at_boundary: bool = False,
    floored: bool = False,
    variables: int = 0,
) -> str | tuple[str, ...]:
    """The back ends the reduced LP at ε tries first, given the program's choice ``backend``
    (:func:`choose_backend`); ``eps_X`` is PD-I's ε_X (None for PD-DP and R-PD), ``at_boundary`` whether ε is
    so close to it that the feasible set has no interior, ``floored`` whether the LP has the prior masses of
    its rows (the joint-type PD-DP: ``HIGHS-MASS`` applies), and ``variables`` the LP's size.  Measured
    (``docs/benchmarks.md``, large ε):

    * PD-I at and just above ε_X (and for m ≥ 3 below ε_X + :data:`PDI_BLOCK_MARGIN`): Clarabel — the block method
      would stall and fall back anyway (``docs/orbit_reduction.md`` §10);
    * m = 2 PD-I whose ε_X is at least :data:`~problems.solvers.settings.PDI_CLARABEL_EPS_X` (contagious priors:
      coefficients spanning e^{±ε_X}): Clarabel, then its joint scaling (CLARABEL-ALT, next in the chain); below it
      (mixtures with components near 0 and 1: ε_X = 6.9 to 27.6) the block method certifies first;
    * m = 2 PD-I from ε_X + :data:`PDI_HIGHS_SLACK`: HiGHS (n = 100, ε_X + 5: i.i.d. (0.3, 0.7) 9.8 s against
      17.4 s with the block method first, the README mixture 7.3 against 13.7 s), then HiGHS in E_d-scaled columns
      and the block method, the block method first above
      :data:`~problems.solvers.settings.PDI_BLOCK_BEFORE_SCALED_FROM` variables: at n = 100 (176 851) the scaled
      simplex took 33–125 s for i.i.d. (0.3, 0.7) at ε_X + 6 to + 12, where the block method certifies in
      18–23 s, and the chain's 14 points (i.i.d. and the README mixture, ε_X + 6 to + 30) took 284 s against 459 s
      with it second, the longest 27 s against 125 s; at n = 80 (91 881) 75 against 124 s; at n = 60 (39 711) the
      scaled simplex second is faster (i.i.d. and mixture, 28.5 + 10.5 s against 31.1 + 18.4 s);
    * m = 2 from ε = :data:`SCALE_MIN_EPS`: HiGHS in columns floored by the prior mass (``HIGHS-MASS``, where the
      LP has its rows' masses: the joint-type PD-DP), the block method, HiGHS in E_d-scaled columns, plain HiGHS;
      without the masses HiGHS, then the block method (a back end that does not apply is left out of the chain
      anyway).  The optimum is near the identity and HiGHS's simplex answers in about a second where its
      tolerances suffice (n = 60: i.i.d. and mixture PD-DP at ε = 10 in 0.7 s); in the floored columns
      (:func:`problems.solvers.scaled_lp.mass_floor`) it proves the small values of large ε in one solve (n = 100,
      ε = 20: 3–4 s for the i.i.d. and mixture priors, where the plain LP's multipliers leave a gap of 1e-6), and
      from ε = 6 on it certifies alone where plain HiGHS first left a gap (n = 100, ε = 6 and 7, i.i.d., mixture
      and contagious priors: 100.5 s for the ten points against 175.7 s with plain HiGHS first); without HiGHS's
      own scaling of the simplex first it also proves the contagious priors at ε = 18–22 (n = 100: 2.9–4.7 s, where
      the block method answered in 10.9–40.0 s after HiGHS's scaled simplex missed); where it does not, the block
      method's multipliers certify.  Where the floored columns apply, the block method comes next at every ε, then HiGHS
      in E_d-scaled columns, and plain HiGHS (which certified none of the points they missed) last: side by side
      on the contagious priors at n = 60, 80 and 100, ε = 18, 20 and 22, where ``HIGHS-MASS`` misses, the block
      method second certifies in 225 s for the nine points at n = 100 where ``HIGHS-SCALED`` second took 336 s
      (e.g. (0.9; 0.5, 0.5) at ε = 18: 12.3 against 34.7 s).
    """
    if backend != "block":
        return backend
    if eps_X is not None:
        if at_boundary or (m >= 3 and eps - eps_X < PDI_BLOCK_MARGIN):
            return "clarabel"
        if m == 2 and eps_X >= PDI_CLARABEL_EPS_X:
            return "clarabel"
        if m == 2 and eps - eps_X >= PDI_HIGHS_SLACK:
            if variables > PDI_BLOCK_BEFORE_SCALED_FROM:
                return ("highs", "block", "highs-scaled")
            return ("highs", "highs-scaled", "block")
        return backend  # PD-I's slack ε − ε_X decides, not ε (the rules below are PD-DP's at large ε)
    if m == 2 and eps >= SCALE_MIN_EPS and floored:
        return ("highs-mass", "block", "highs-scaled", "highs")
    if m == 2 and eps >= SCALE_MIN_EPS:
        return ("highs", "block")
    return backend
