r"""Every tolerance, solver order and time limit of the solve path, defined once.

The numbers here decide how hard the solvers work and in which order they run, never whether an answer is
right: that is the certificate's (:func:`problems.lp.bounds.certify`, with its own
:data:`~problems.lp.bounds.RELATIVE_GAP` and :data:`~problems.lp.bounds.ABSOLUTE_GAP`).  Changing a value here
can make a solve slower, faster or uncertified, never wrongly certified.

Sections: floating point; time limits and budgets; solver orders; the LP chain; the LP back ends; the conic
programs.  The modules that use a value import it from here (and some re-export it under their own name for
compatibility, e.g. :data:`problems.solvers.backends.SCALE_MIN_EPS`).  Nothing here imports anything heavier
than :mod:`math`.
"""

from __future__ import annotations

import math
from typing import Any, Final

__all__ = [
    "UNIT_ROUNDOFF",
    "DEFAULT_TIME_LIMIT",
    "EXPECTED_TIME_MARGIN",
    "POINT_BUDGET_FACTOR",
    "NEAR_MISS",
    "NEAR_MISS_SECONDS",
    "NEAR_MISS_FACTOR",
    "NEAR_MISS_FIRST_ORDER",
    "NEAR_MISS_LARGE_SKIP",
    "NEAR_MISS_LARGE_VARIABLES",
    "SETTLED_SECONDS",
    "SETTLED_FACTOR",
    "SETTLED_SKIP",
    "SETTLED_LOOSE_GAP",
    "UNSCALED_RESOLUTION",
    "SCS_MAX_ITERS",
    "SCS_TIME_LIMIT",
    "LP_ORDER",
    "HIGHS_AFTER_BLOCK_FROM",
    "STRUCTURED_MIN_N",
    "CONIC_ORDER",
    "LP_ONLY_SOLVERS",
    "SMALL_LP_SIZE",
    "LAYERED_MIN_VARIABLES",
    "PDI_BLOCK_MARGIN",
    "PDI_HIGHS_SLACK",
    "PDI_CLARABEL_EPS_X",
    "PDI_BLOCK_BEFORE_SCALED_FROM",
    "INTERIOR_MARGIN",
    "ANNOUNCE_SIZE",
    "TIGHTEN_COST",
    "TIGHTEN_MIN",
    "TIGHTEN_MAX",
    "TIGHTEN_TRIES",
    "TIGHTEN_STEP",
    "TIGHTEN_WELL_MIXED",
    "SCALE_MIN_EPS",
    "SCALE_FLOOR_LOG",
    "LOOSE_ROW_LOG",
    "IMPLIED_NONNEG_MIN_EPS",
    "RECIPROCAL_KAPPA_TOL",
    "CLARABEL_LP_TIGHT",
    "CLARABEL_LP_LOOSE",
    "CLARABEL_LP_OPTIONS",
    "SCS_LP_OPTIONS",
    "HIGHS_LP_OPTIONS",
    "HIGHS_MASS_OPTIONS",
    "CVXPY_CLARABEL_LP_OPTIONS",
    "ACTIVE_BLOCKS",
    "BLOCK_LP_TOL",
    "CONIC_OPTIONS",
    "DESIGN_CONIC_OPTIONS",
]

# ------------------------------------------------------------------------------------------ floating point
#: The unit roundoff of IEEE double precision, u = 2⁻⁵³: every basic operation is exact up to a factor
#: (1 ± u).  Every rounding-error margin of the toolkit's bounds is a multiple of it.
UNIT_ROUNDOFF: Final = 2.0**-53

# ------------------------------------------------------------------------------- time limits and budgets
#: Seconds one LP back end may run before the chain moves to the next (``time_limit=`` of the programs).
DEFAULT_TIME_LIMIT: Final = 600.0
#: Without an explicit ``time_limit``, an attempt may run at least this many times its back end's expected wall
#: time (``expected_seconds``; the layered block method at m = 2, n = 200: 473 s on an idle 2-core machine, 1 816 s
#: at a load average of 8–10), so that a large LP is not cut at :data:`DEFAULT_TIME_LIMIT` while it is on course.
EXPECTED_TIME_MARGIN: Final = 4.0
#: The whole point (every attempt of the LP chain) gets at most this many times the per-attempt limit.
POINT_BUDGET_FACTOR: Final = 3.0
#: After an attempt whose bounds agree to NEAR_MISS relative (but not to the certification tolerance), each
#: later attempt gets max(NEAR_MISS_SECONDS, NEAR_MISS_FACTOR × that attempt's time) at most.
NEAR_MISS: Final = 1e-3
NEAR_MISS_SECONDS: Final = 60.0
NEAR_MISS_FACTOR: Final = 20.0
#: Once the best bounds agree to NEAR_MISS_FIRST_ORDER relative, the first-order back ends (:data:`SETTLED_SKIP`:
#: SCS, stopped by its time limit or :data:`SCS_MAX_ITERS` far short of the interior-point methods' accuracy) are
#: not run: they cannot sharpen such a gap.
#: Measured, m = 2, n = 200, contagious (0.9; 0.3, 0.7) PD-DP at ε = 2, bounds 1.4e-6 apart after the block method
#: and Clarabel: SCS ran about 500 s (its setup, a sparse factorisation, is not bounded by its 120 s time limit)
#: at a 12.4 GB peak and proved nothing better.
NEAR_MISS_FIRST_ORDER: Final = 1e-5
#: On an LP of at least NEAR_MISS_LARGE_VARIABLES variables, the general back ends NEAR_MISS_LARGE_SKIP are not run
#: either once the best bounds agree to NEAR_MISS_FIRST_ORDER: after the block method's near misses (bounds
#: 1.2–1.6e-6 apart, m = 2) they never proved more.  Measured: n = 150, contagious (0.9; 0.3, 0.7) PD-DP ε = 2
#: (585 276 variables), Clarabel ran 195 s ("Solved"; its point repaired only to the reference, its lower bound
#: 2e-5 below the block method's) and HiGHS its whole 600 s, and the point ended `inaccurate` with the block
#: method's bounds after 922 s at a 3.45 GB peak (the block method took 124 s); n = 200, the same point, twice:
#: Clarabel about 700 s at a 4.9 GB peak, nothing better; n = 150, PD-I (README mixture): Clarabel's 600 s ran out.
#: Below n = 150 no point has been seen where the block method near-misses, so smaller LPs keep these attempts.
NEAR_MISS_LARGE_VARIABLES: Final = 500_000
NEAR_MISS_LARGE_SKIP: Final = frozenset({"CLARABEL", "HIGHS"})
#: After the status rule certifies a point by its absolute tolerance alone (an optimum near zero, bounds within
#: :data:`~problems.lp.status.ABSOLUTE_GAP` but not within the relative one), the chain still tries to prove the
#: value to the relative tolerance, but the later attempts together get at most max(SETTLED_SECONDS,
#: SETTLED_FACTOR × the point's time until it was settled), and SCS (first-order, accurate to about its ``eps_abs`` = 1e-10 only, above the
#: gap already proved) is not run.  Measured, contagious PD-DP, n = 30, ε = 30: SCS ran 14 s there to improve
#: nothing; CLARABEL-ALT still refines PD-I at ε = 40 (n = 30) from 1e-13 absolute to 1e-6 relative in 0.06 s.
SETTLED_SECONDS: Final = 2.0
SETTLED_FACTOR: Final = 5.0
#: The back ends not run once a point is settled so (see above).
SETTLED_SKIP: Final = frozenset({"SCS"})
#: ... unless the value is above the absolute tolerance and its bounds are more than this apart relative: then
#: the later attempts keep their full limit (m = 2, n = 60, contagious PD-DP at ε = 30: HiGHS settled at 5.6146e-12
#: with the lower bound 5.2777e-12; the block method then proves 5.2777e-12 to 8e-6).
SETTLED_LOOSE_GAP: Final = 1e-3
#: Once settled, a back end that solves in unscaled columns (``unscaled = True``: the block method) is not run when
#: the value is below this fraction of the largest cost: its absolute accuracy, about 1e-16 of the costs, cannot
#: sharpen a relative gap there.  Measured, contagious (0.9; 0.3, 0.7) PD-I at ε_X + 0.3, n = 100: settled by
#: CLARABEL-ALT at 3.3e-51 (relative gap 1.7e-6) in under 10 s, then the block method ran 25 s to prove 1.7e-17.
UNSCALED_RESOLUTION: Final = 1e-18
#: SCS is the last resort of the LP chain: at most this many iterations and seconds.
SCS_MAX_ITERS: Final = 20_000
SCS_TIME_LIMIT: Final = 120.0

# ------------------------------------------------------------------------------------------ solver orders
#: The LP chain when no solver is named: Clarabel, HiGHS, the block method (reduced LPs only; a back end that
#: does not support the LP is skipped), SCS (:func:`problems.solvers.backends.default_order` puts CLARABEL-ALT
#: second where the program has its own scaling, HIGHS-SCALED and HIGHS-MASS after the block method for reduced
#: LPs, and STRUCTURED first for large dense LPs; a program may put its own choices first, as the m = 2 reduced
#: programs do at large ε: :meth:`problems.orbit.programs.ReducedPDDP._lp_backend`).
LP_ORDER: Final = ("CLARABEL", "HIGHS", "BLOCK", "SCS")
#: Reduced LPs with more variables than this try the block method before HiGHS (measured: contagious (0.2) PD-DP
#: at n = 100, ε = 10, 176 851 variables: HiGHS's re-solve ran 10 minutes without a certificate, the block method
#: then certified in 40 s; HiGHS's interior point already stops with numerical difficulties at n = 60).
HIGHS_AFTER_BLOCK_FROM: Final = 100_000
#: Dense LPs from this many databases on start with the structured interior-point method.
STRUCTURED_MIN_N: Final = 128
#: The conic fallback (:func:`problems.solvers.conic.solve_with_fallback`), in order of preference:
#: Clarabel (interior point, exact to ~1e-9 on these programs), HiGHS (LPs only), SCS (first-order, looser).
CONIC_ORDER: Final = ("CLARABEL", "HIGHS", "SCS")
#: CVXPY solvers that solve linear programs only (left out of the conic order of a non-linear program).
LP_ONLY_SOLVERS: Final = frozenset({"HIGHS", "GLPK", "GLOP", "CBC", "SCIPY"})
#: LPs with at most this many variables are solved by Clarabel to the tight tolerances
#: (:data:`CLARABEL_LP_TIGHT`); the orbit-reduced programs with m ≥ 3 above it start with the block
#: interior-point method (:func:`problems.orbit.programs.choose_backend`).
SMALL_LP_SIZE: Final = 20_000
#: m = 2 joint-type LPs with more variables than this start with the layered block method (n ≥ 20).
LAYERED_MIN_VARIABLES: Final = 1500
#: m = 2 reduced PD-I with ε_X at least this starts with Clarabel, then its joint scaling (contagious priors: ratio
#: coefficients spanning e^{±ε_X}, optima of 1e-18 and below, which the block method in unscaled columns cannot
#: sharpen to 1e-6 relative; ε_X = 43, n = 60: 3.4 s against 6.0 s with the block method first).  Below it the block
#: method goes first as for any prior (measured: mixtures with components near 0 and 1, ε_X = 6.9, 18.4 and 27.6,
#: n = 60: 1.1–9.1 s against 5.7–26.7 s with Clarabel first; n = 100, ε_X = 6.9, ε_X + 0.3: 23.5 s against 115.9 s).
PDI_CLARABEL_EPS_X: Final = 30.0
#: m = 2 reduced PD-I from ε_X + PDI_HIGHS_SLACK on LPs with more variables than this tries the block method before
#: HiGHS in E_d-scaled columns (after plain HiGHS).  Measured (``benchmarks/bench_pdi_order.py``, i.i.d. (0.3, 0.7)
#: and the README mixture): n = 60 (39 711 variables), ε_X + 6 to + 30, 49.5 s in all with the block method second
#: against 39.0 s; n = 80 (91 881), ε_X + 6 to + 12, 75.0 against 124.0 s (i.i.d. at ε_X + 6: 12.4 against 37.3 s);
#: n = 100 (176 851), ε_X + 6 to + 30, 284 against 459 s.  The threshold lies between n = 60 and n = 80.
PDI_BLOCK_BEFORE_SCALED_FROM: Final = 60_000
#: PD-I with ε − ε_X below this is solved by Clarabel even when the block back end is chosen (m ≥ 3).
PDI_BLOCK_MARGIN: Final = 0.25
#: m = 2 reduced PD-I with ε − ε_X at least this (and ε_X below PDI_CLARABEL_EPS_X) tries HiGHS first, then HiGHS in
#: E_d-scaled columns and the block method, the block method first above :data:`PDI_BLOCK_BEFORE_SCALED_FROM` variables
#: (measured, i.i.d. (0.3, 0.7), n = 100, ε_X + 5: HiGHS certifies in 9.6 s, the block method then needed 141 s;
#: at ε_X + 3 and + 4, n = 60, HiGHS does not certify and the block method does in 6–7 s; the order after HiGHS:
#: :func:`problems.orbit.backend_choice.first_backends`).
PDI_HIGHS_SLACK: Final = 5.0

# ------------------------------------------------------------------------------------------- the LP chain
#: ε is taken as the boundary ε_min of the feasible levels (no interior: one back end answers, nothing can be
#: repaired) when ``ε − ε_min ≤ INTERIOR_MARGIN·(1 + abs(ε))``.
INTERIOR_MARGIN: Final = 1e-9
#: LPs from this many variables on announce their back ends and budget on the ticker's stream.
ANNOUNCE_SIZE: Final = 20_000
#: The tightened re-solve (:func:`problems.solvers.chain.tightened_level`) aims to pay at most this fraction
#: of the value for its margin δ (``abs(dV/dε)·δ ≤ TIGHTEN_COST·V``), and keeps δ within
#: [TIGHTEN_MIN, TIGHTEN_MAX].
TIGHTEN_COST: Final = 1e-7
TIGHTEN_MIN: Final = 1e-9
TIGHTEN_MAX: Final = 1e-5
#: At most this many tightened re-solves per back end; each next δ is TIGHTEN_STEP times larger or smaller.
TIGHTEN_TRIES: Final = 2
TIGHTEN_STEP: Final = 30.0
#: A tightened point whose exact repair mixed in less than this weight of the reference point had slack to
#: spare: the next re-solve tightens less (else more).
TIGHTEN_WELL_MIXED: Final = 1e-6

# ------------------------------------------------------------------------------------------- LP back ends
#: From this ε on, the sparse back ends solve the LP scaled by the exponential mechanism, and a reduced PD-DP with
#: m = 2 tries HiGHS in the mass-floored columns first, then the block method
#: (:func:`problems.orbit.backend_choice.first_backends`).
SCALE_MIN_EPS: Final = 6.0
#: Column scales are floored at e^SCALE_FLOOR_LOG (normalisation rows keep coefficients a solver resolves).
SCALE_FLOOR_LOG: Final = -600.0
#: In the scaled LP, ratio rows v_s ≤ f·v_d with ln f above this are left out (f = 1e12).
LOOSE_ROW_LOG: Final = math.log(1e12)
#: The rows z ≥ 0 are left out when implied (:func:`problems.solvers.scaled_lp.nonneg_implied`) from this ε on.
IMPLIED_NONNEG_MIN_EPS: Final = 0.05
#: Two ratio rows are each other's reverse when ``abs(ln κ_p + ln κ_p')`` is at most this.
RECIPROCAL_KAPPA_TOL: Final = 1e-9
#: Clarabel on LPs of at most :data:`SMALL_LP_SIZE` variables.
CLARABEL_LP_TIGHT: Final[dict[str, Any]] = {
    "tol_gap_abs": 1e-10,
    "tol_gap_rel": 1e-10,
    "tol_feas": 1e-10,
    "tol_ktratio": 1e-8,
}
#: Clarabel on larger LPs.
CLARABEL_LP_LOOSE: Final[dict[str, Any]] = {
    "tol_gap_abs": 1e-8,
    "tol_gap_rel": 1e-8,
    "tol_feas": 1e-8,
    "tol_ktratio": 1e-6,
}
#: Clarabel on every LP (with one of the two above and the attempt's time limit).  QDLDL, not "auto": in this
#: Clarabel build "auto" picks faer, 3–4× slower on these sparse LPs.
CLARABEL_LP_OPTIONS: Final[dict[str, Any]] = {
    "max_iter": 400,
    "direct_solve_method": "qdldl",
    "presolve_enable": False,
    "verbose": False,
}
#: SCS on the LPs (with :data:`SCS_MAX_ITERS` and :data:`SCS_TIME_LIMIT`).
SCS_LP_OPTIONS: Final[dict[str, Any]] = {"eps_abs": 1e-10, "eps_rel": 1e-10}
#: HiGHS (through :func:`scipy.optimize.linprog`) on the LPs, with the attempt's time limit.
HIGHS_LP_OPTIONS: Final[dict[str, Any]] = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
    "presolve": True,
}
#: ``HIGHS-MASS``: HiGHS's simplex first without its own scaling (the floored columns are scaled already), then,
#: where the chain's certificate does not prove that point, with it (each a label for the attempt's status and
#: the options).  Measured alone, m = 2, n = 100, five priors, ε from 6 to 40 (``docs/benchmarks.md``): HiGHS's
#: scaling left nine contagious points at ε = 18–22 unproved (status 4 after 17 s at (0.2; 0.3, 0.7), ε = 22),
#: which the unscaled simplex proves in 3–5 s; where the unscaled simplex misses (ε ≥ 30 and two points at
#: n = 30, ε = 20) it does so in under 5 s and the scaled one proves the point.
HIGHS_MASS_OPTIONS: Final[tuple[tuple[str, dict[str, Any]], ...]] = (
    ("simplex unscaled by HiGHS", {"simplex_scale_strategy": 0}),
    ("simplex scaled by HiGHS", {}),
)
#: Clarabel through CVXPY on the LPs (the ``CVXPY`` back end), with the attempt's time limit.
CVXPY_CLARABEL_LP_OPTIONS: Final[dict[str, Any]] = {
    "tol_gap_abs": 1e-10,
    "tol_gap_rel": 1e-10,
    "tol_feas": 1e-10,
}
#: The block interior-point method's own stopping tolerance (KKT measure) when the chain runs it: below the
#: method's default of 1e-9, since the chain's certificate (``enough``) ends the iteration as soon as the value is
#: proved and the method's stall test ends it at its rounding floor.  Measured, contagious (0.2; 0.3, 0.7) PD-DP:
#: at n = 30, ε = 10 the default stopped 2.1e-6 relative above the optimum (not certified), 1e-10 certifies
#: (3.3e-7); at n = 20, ε = 15 the default left 4.5e-4, 1e-12 certifies (3.3e-7), 1e-14 reaches 6e-10, 0.5 s.
BLOCK_LP_TOL: Final = 1e-14
#: The block method offers its iterates to the active-block probe (:mod:`problems.lp.active_blocks`): an answer
#: from the heaviest y-type blocks, with the other blocks priced out, that the certificate accepts.
ACTIVE_BLOCKS = True  # read when the block method starts (a benchmark may switch it off)
#: The block method solves an LP with a mirror symmetry folded, on about half its variables
#: (:mod:`problems.lp.fold`; a benchmark may switch it off to compare).
FOLD_MIRROR = True

# ---------------------------------------------------------------------------------------- conic programs
#: Per CVXPY solver, the options of the conic fallback: tight, so that certificates reach ~1e-9 where the
#: solver can.  QDLDL for Clarabel, as above.
CONIC_OPTIONS: Final[dict[str, dict[str, Any]]] = {
    "CLARABEL": {
        "tol_gap_abs": 1e-10,
        "tol_gap_rel": 1e-10,
        "tol_feas": 1e-10,
        "tol_ktratio": 1e-8,
        "direct_solve_method": "qdldl",
    },
    "SCS": {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200_000},
}
#: The mechanism design program (:mod:`problems.design.program`).  Clarabel stalls at ~1e-8 relative accuracy
#: on the larger unfactored programs (many degenerate vertex constraints); its "almost solved" answer is
#: accepted, because feasibility and optimality are certified independently afterwards (recomputed C1 +
#: repair, Lagrangian lower bound).
DESIGN_CONIC_OPTIONS: Final[dict[str, dict[str, Any]]] = {
    "CLARABEL": {
        "tol_gap_abs": 1e-10,
        "tol_gap_rel": 1e-10,
        "tol_feas": 1e-10,
        "tol_ktratio": 1e-8,
        "max_iter": 150,
    }
}
