r"""PD-DP and PD-I (Wang, Ying & Zhang 2016) for an i.i.d. prior at any n: single-letterisation.

The programs, for a prior p_X on Dⁿ, the Hamming distortion d(x, y) = Σ_k 1[x_k ≠ y_k] and neighbours x ~ x'
(databases that differ in one row), are

.. math::

    \text{PD-DP}_n(\epsilon) = \min_W \sum_{x,y} p_X(x) W(y|x) d(x,y)\ \text{s.t.}\
    W(y|x) \le e^{\epsilon} W(y|x')\ (x \sim x'),\qquad
    \text{PD-I}_n(\epsilon):\ p_X(x) W(y|x) \le e^{\epsilon} p_X(x') W(y|x')\ (x \sim x'),

over row-stochastic W (PD-DP: (13)–(15) of the paper; PD-I: (8)–(12) as the LP in the joint).

**Theorem.**  For a product prior p_X = π_1 ⊗ … ⊗ π_n and every ε ≥ 0,

.. math::

    \text{PD-DP}_n(\epsilon) = \sum_{k=1}^n \text{PD-DP}_1(\epsilon; \pi_k),\qquad
    \text{PD-I}_n(\epsilon) = \sum_{k=1}^n \text{PD-I}_1(\epsilon; \pi_k),

where PD-·₁(ε; π) is the program on one row (m × m variables, every pair of distinct values neighbours).
PD-I is infeasible on both sides exactly when ε < ε_X = max_k max_{a,a'} ln π_k(a)/π_k(a') (Lemma 3: a
neighbour ratio p_X(x)/p_X(x') involves one row).  For an i.i.d. prior (all π_k = π) both sides are n times the
one-row optimum, so ε*(D) of n rows is ε*_1(D/n): the privacy–distortion curve per row does not depend on n.

*Proof.*  Upper bound: let W_k be feasible for row k and W = ⊗_k W_k.  For neighbours x, x' differing in row k,
W(y|x)/W(y|x') = W_k(y_k|x_k)/W_k(y_k|x'_k) and p_X(x)/p_X(x') = π_k(x_k)/π_k(x'_k), so every constraint of the
n-row program is a constraint of row k; E d(X, Y) = Σ_k P(Y_k ≠ X_k) = Σ_k D(W_k; π_k).  Lower bound: let W
be feasible for n rows; fix k and the other rows x_{−k}, and let V(b|a) = Σ_{y: y_k = b} W(y | x_{−k}, x_k = a).
Summing the n-row constraints of the neighbours (x_{−k}, a) ~ (x_{−k}, a') over the y with y_k = b gives
V(b|a) ≤ e^ε V(b|a') (PD-DP) and, after dividing by p_{X_{−k}}(x_{−k}) > 0 (the prior is a product),
π_k(a) V(b|a) ≤ e^ε π_k(a') V(b|a') (PD-I): V is feasible for row k.  As X_k is independent of X_{−k},
E[1{Y_k ≠ X_k} | X_{−k} = x_{−k}] = Σ_a π_k(a)(1 − V(a|a)) ≥ PD-·₁(ε; π_k); averaging over x_{−k} and
summing over k gives E d(X, Y) ≥ Σ_k PD-·₁(ε; π_k).  ∎

Lemma 4 of the paper (E_i = E_i^{(1)⊗n} for an i.i.d. prior at ε ≥ ε̃_X) is the special case in which the
one-row optimum is h(ε)/n, attained by the one-row E_i; here the one-row program answers at every ε.

**Computation** (:func:`product_theorem`).  The one-row program is the toolkit's dense program at n = 1
(:class:`~problems.programs.pd_dp.PDDP`, :class:`~problems.programs.pd_i.PDI` on π, m × m variables), which
returns rigorous bounds [L₁, U₁] and a mechanism W₁ whose exact row normalisation is feasible (its own
theorem path where one applies, else its certified LP).  The n-row answer has the value n·D(W₁), the bounds
[n·L₁, n·U₁] rounded outward by a relative :data:`ROUNDING_MARGIN` (the product n·L₁ is one rounding), the
status of :func:`problems.lp.status.decide_status` on them, and the mechanism W₁^{⊗n}: the lifted N × N matrix
for N = mⁿ up to the program's lift limit, checked exactly feasible in floating point like every lifted
answer (:mod:`problems.lp.matrix_check`), else the m × m row channel (``extras["mechanism_level"]`` says so).
The n-row prior is the exact product of its float row pmf (as in the joint-type reduction).  The slope
dD*/dε is n times the one-row slope (the envelope theorem on the one-row LP's multipliers, or h′ where the
one row is Lemma 4's E_i), in ``extras["slope"]`` for the root finders of ε*(D).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from ..closed_forms import kron_power
from ..errors import InfeasibleProgramError, InvalidInputError
from ..lp import Bounds, Status
from ..lp.status import decide_status
from ..result import SolveResult
from ..solvers.settings import UNIT_ROUNDOFF
from .symmetric_prior import iid_row_pmf

__all__ = [
    "product_theorem",
    "single_letter_program",
    "row_product_answer",
    "one_row_slope",
    "ROUNDING_MARGIN",
    "ROW_LEVEL",
]

#: Relative outward rounding of the n-row bounds n·L₁, n·U₁ (one rounding each: 4 units of roundoff suffice).
ROUNDING_MARGIN = 4.0 * UNIT_ROUNDOFF

#: ``extras["mechanism_level"]`` of an answer that carries the one-row channel instead of the N × N matrix.
ROW_LEVEL = "row (the mechanism is the n-fold product of this m×m channel)"

_THEOREM = (
    "single-letterisation for the i.i.d. prior π^⊗n: {name}_n(ε) = n·{name}_1(ε; π) (the product of one-row optimal "
    "mechanisms is feasible, the row marginals of a feasible mechanism are; docs/orbit_reduction.md §12); one row: "
    "{basis}"
)


def single_letter_program(program: Any) -> Any | None:
    """The one-row dense program (PDDP or PDI on the row pmf π) of a reduced program with an i.i.d. prior,
    built once and kept on ``program``; ``None`` for a prior with correlated rows."""
    got = program.__dict__.get("_single_letter", False)
    if got is not False:
        return got
    row = iid_row_pmf(program.prior)
    single = None
    if row is not None:
        from ..database import DatabaseSpace
        from ..priors import iid
        from ..programs.pd_dp import PDDP
        from ..programs.pd_i import PDI

        cls = {"pd-dp": PDDP, "pd-i": PDI}[program.program]
        single = cls(iid(DatabaseSpace(1, program.m), row), solver=program.solver)
    program.__dict__["_single_letter"] = single
    return single


def one_row_slope(single: Any, res: SolveResult, m: int) -> float:
    """dD₁*/dε of the one-row answer: the envelope theorem on its LP, h′ on Lemma 4's E_i, else NaN."""
    eps = float(res.eps or 0.0)
    if res.extras.get("path") == "dense":
        last = getattr(single.lp, "last", None)
        if last is not None and last.eps == eps:
            return float(single.lp.sensitivity(last))
        return math.nan
    if "Lemma 4" in str(res.extras.get("theorem", "")) or "Lemma 5" in str(res.extras.get("theorem", "")):
        a = math.exp(eps) / (m - 1)  # h(ε, 1, m) = 1/(1 + a)
        return -a / (1.0 + a) ** 2
    return math.nan


def product_theorem(program: Any, eps: float, *, solver: str | None = None) -> SolveResult | None:
    """The n-row answer of PD-DP or PD-I for an i.i.d. prior from the one-row program (module docstring).

    ``program`` is a :class:`~problems.orbit.programs.ReducedPDDP` or
    :class:`~problems.orbit.programs.ReducedPDI`; PD-I must already be known feasible at ε (ε ≥ ε_X).
    Returns ``None`` (the LP answers) for a prior with correlated rows, or when the one-row answer or the
    n-row bounds are not certified, or the lifted matrix is not verified exactly feasible.
    """
    from ..solvers.stats import SolverStats

    single = single_letter_program(program)
    if single is None:
        return None
    n, m = program.n, program.m
    try:
        res1 = single.solve(eps, solver=solver)
    except (InfeasibleProgramError, InvalidInputError):
        return None
    if res1.status != Status.OPTIMAL:
        return None
    lo1, up1 = float(res1.bounds.lower), float(res1.bounds.upper)
    value = n * float(res1.value)
    bounds = Bounds(n * lo1 * (1.0 - ROUNDING_MARGIN), n * up1 * (1.0 + ROUNDING_MARGIN))
    if decide_status(bounds.lower, bounds.upper) is not Status.OPTIMAL:
        return None
    basis = str(
        res1.extras.get("theorem") or f"the one-row LP ({res1.stats.solver}), certified by its bounds"
    )
    theorem = _THEOREM.format(name=program.program.upper(), basis=basis)
    W1 = np.asarray(res1.mechanism.matrix, dtype=float)
    row = np.asarray(single.prior.pmf, dtype=float)  # π: the one-row prior's pmf
    extras: dict[str, Any] = {
        "reduction": "single-letter",
        "n": n,
        "m": m,
        "prior": program.prior.to_dict(),
        "single_letter_value": float(res1.value),
        "single_letter_bounds": (lo1, up1),
        "single_letter_channel": W1,
        "single_letter_basis": basis,
        "slope": n * one_row_slope(single, res1, m),
    }
    stats = SolverStats(
        "theorem",
        float(res1.stats.solve_time),
        float(res1.stats.compile_time),
        res1.stats.iterations,
        (("theorem", theorem), ("one row", res1.stats.solver)),
    )
    return row_product_answer(program, eps, W1, row, value, bounds, theorem, extras, stats)


def row_product_answer(
    program: Any,
    eps: float,
    W1: np.ndarray,
    row: np.ndarray,
    value: float,
    bounds: Bounds,
    theorem: str,
    extras: dict[str, Any],
    stats: Any,
) -> SolveResult | None:
    """The n-row answer whose mechanism is W₁^{⊗n}: the lifted N × N matrix up to the program's lift limit
    (verified exactly feasible; ``None`` if it is not), else the m × m row channel with ``row`` as its input law
    (``extras["mechanism_level"]`` says which).  ``stats`` (a :class:`~problems.solvers.stats.SolverStats`)
    replaces the theorem result's."""
    from ..certificate import theorem_certificate
    from ..programs._lp_result import theorem_result

    n, m = program.n, program.m
    if program.space.size <= program.lift_limit:
        W = kron_power(W1, n)
        cert = theorem_certificate(value, bounds.lower, bounds.upper, theorem)
        claimed = decide_status(bounds.lower, bounds.upper)
        W, status, value, bounds, _ = program._exact_lift(W, eps, claimed, value, bounds, cert)
        if status is not Status.OPTIMAL:
            return None  # the lifted matrix is not proved feasible in floating point: the LP answers
        extras["mechanism_level"] = "database"
        res = theorem_result(
            program.program, eps, program.space, W, program._lifted_p_x(), value, bounds, theorem, extras
        )
    else:
        from ..database import DatabaseSpace

        extras["mechanism_level"] = ROW_LEVEL
        res = theorem_result(
            program.program, eps, DatabaseSpace(1, m), W1, row, value, bounds, theorem, extras
        )
    return replace(res, stats=stats)
