r"""PD-DP (Wang, Ying & Zhang 2016) for an exchangeable mixture of i.i.d. priors at any n: the mixture sandwich.

For the prior :math:`p_X = \sum_j w_j \pi_j^{\otimes n}` (``mixture:`` and ``contagious:`` priors: a point
mass on (a, …, a) is :math:`e_a^{\otimes n}`), with :math:`\bar\pi = \sum_j w_j \pi_j` the law of one row,

**Theorem.**  For every ε ≥ 0,

.. math::

    n \sum_j w_j\, \text{PD-DP}_1(\epsilon; \pi_j) \;\le\; \text{PD-DP}_n(\epsilon; p_X) \;\le\;
    n\, \text{PD-DP}_1(\epsilon; \bar\pi),

where PD-DP₁(ε; π) is the program on one row (m × m variables).  The upper bound is attained by
:math:`W_1^{\otimes n}`, W₁ optimal on one row for :math:`\bar\pi`.

*Proof.*  The constraints of PD-DP, W(y|x) ≤ e^ε W(y|x') for neighbours x ~ x', do not involve the prior, and
the objective :math:`D(W; p) = \sum_{x,y} p(x) W(y|x) d(x, y)` is linear in p.  Lower bound: for every
feasible W, :math:`D(W; p_X) = \sum_j w_j D(W; \pi_j^{\otimes n}) \ge \sum_j w_j \text{PD-DP}_n(\epsilon;
\pi_j^{\otimes n}) = n \sum_j w_j \text{PD-DP}_1(\epsilon; \pi_j)`, by single-letterisation for each i.i.d.
component (:mod:`problems.orbit.product_prior`).  Upper bound: W₁^{⊗n} is feasible (a neighbour ratio of a
product mechanism is a ratio of one row's), and :math:`D(W_1^{\otimes n}; \pi_j^{\otimes n}) = n D(W_1;
\pi_j)`, so :math:`D(W_1^{\otimes n}; p_X) = n \sum_j w_j D(W_1; \pi_j) = n D(W_1; \bar\pi)`.  ∎

The two sides meet when one row mechanism is optimal for :math:`\bar\pi` and for every component.  For m = 2
the one-row optimum is :math:`\min(\pi(0), \pi(1), 1/(1 + e^\epsilon))` (the better constant, or randomised
response), so for components bounded away from 0 and 1 the sandwich closes for
:math:`e^\epsilon \ge 1/\min_{j,a} \pi_j(a) - 1`: there PD-DP_n = h(ε) = n/(1 + e^ε), attained by randomised
response on every row, for every n.  Below that the two sides differ and the joint-type LP answers.  PD-I has
no such sandwich: its constraints involve the prior.

**Computation** (:func:`mixture_theorem`).  Each one-row program is the toolkit's dense program at n = 1
(:class:`~problems.programs.pd_dp.PDDP`), with rigorous bounds [L, U] and a mechanism W₁ (for
:math:`\bar\pi`) whose exact row normalisation is feasible.  The proved upper bound is evaluated on W₁ against
every component, :math:`n \sum_j w_j \sum_a \pi_j(a) \sum_{b \ne a} W_1(b|a)` (non-negative terms, so one
relative error bound covers the sum), and both sides are rounded outward by :data:`MIXTURE_MARGIN`.  The
answer is returned only when :func:`problems.lp.status.decide_status` certifies the two sides; the enclosure
itself is :func:`mixture_enclosure`, a check for the LP answers at any n.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InfeasibleProgramError, InvalidInputError
from ..lp import Bounds, Status
from ..lp.status import decide_status, refined
from ..priors import Prior
from ..result import SolveResult
from ..solvers.settings import UNIT_ROUNDOFF
from .group_product import group_product_theorem, joint_types_fit
from .product_prior import one_row_slope, row_product_answer
from .symmetric_prior import SymmetricPrior, as_symmetric

__all__ = [
    "MixtureEnclosure",
    "components",
    "mixture_enclosure",
    "mixture_theorem",
    "MIXTURE_MARGIN",
    "MIXTURE_MAX_M",
]

#: Largest domain size m for which the sandwich is tried (its one-row programs have m² variables and
#: m²(m − 1) ratio rows: milliseconds at m ≤ 10, a minute at m = 40).
MIXTURE_MAX_M = 10

#: Relative outward rounding of both sides of the sandwich: far above the rounding of the sums (at most
#: m² + J + 4 non-negative terms, J components, each within a unit roundoff) and of the rows' normalisation.
MIXTURE_MARGIN = 64.0 * UNIT_ROUNDOFF

_THEOREM = (
    "mixture sandwich for the exchangeable prior Σ_j w_j π_j^⊗n ({k} components): n·Σ_j w_j PD-DP_1(ε; π_j) ≤ "
    "PD-DP_n(ε) ≤ n·PD-DP_1(ε; Σ_j w_j π_j) (the objective is linear in the prior and the constraints do not "
    "involve it; single-letterisation per component; docs/orbit_reduction.md §14), attained by the product of "
    "one row's optimal mechanism for the row law Σ_j w_j π_j"
)


@dataclass(frozen=True)
class MixtureEnclosure:
    """The mixture sandwich at one ε (module docstring).

    Attributes
    ----------
    lower, upper:
        Proved bounds on PD-DP_n(ε), rounded outward.
    value:
        The distortion of :attr:`channel`'s n-fold product under the prior (the upper bound before rounding).
    channel:
        W₁, the one-row mechanism optimal for the row law (m × m, row-stochastic).
    row_law:
        :math:`\\bar\\pi = \\sum_j w_j \\pi_j`.
    component_bounds:
        The one-row bounds [L_j, U_j] of each component (in the prior's order, zero weights left out).
    slope:
        n times the one-row slope dD₁*/dε for the row law (NaN when unknown).
    solve_time:
        Seconds spent in the one-row programs.
    """

    lower: float
    upper: float
    value: float
    channel: np.ndarray
    row_law: np.ndarray
    component_bounds: tuple[tuple[float, float], ...]
    slope: float
    solve_time: float

    @property
    def certified(self) -> bool:
        """Whether the sandwich proves the optimum (the toolkit's status rule on [lower, upper])."""
        return decide_status(self.lower, self.upper) is Status.OPTIMAL


def components(prior: SymmetricPrior) -> list[tuple[float, np.ndarray]]:
    """(w_j, π_j) with w_j > 0, identical components merged (their one-row programs are the same)."""
    out: list[tuple[float, np.ndarray]] = []
    for w, r in zip(prior.weights, prior.row_pmfs):
        if w <= 0.0:
            continue
        for i, (w0, r0) in enumerate(out):
            if np.array_equal(r, r0):
                out[i] = (w0 + float(w), r0)
                break
        else:
            out.append((float(w), np.asarray(r, dtype=float)))
    return out


def _one_row(prior_row: np.ndarray, m: int, solver: str | None) -> Any:
    from ..database import DatabaseSpace
    from ..priors import iid
    from ..programs.pd_dp import PDDP

    return PDDP(iid(DatabaseSpace(1, m), prior_row), solver=solver)


def mixture_enclosure(
    prior: SymmetricPrior | Prior, eps: float, *, solver: str | None = None
) -> MixtureEnclosure | None:
    """The mixture sandwich of PD-DP_n(ε) for ``prior`` (module docstring); ``None`` if a one-row program is not
    certified (its bounds would not be proved).

    Raises :class:`~problems.errors.InvalidPrivacyLevelError` for ε < 0, NaN or ∞, and
    :class:`~problems.errors.InvalidPriorError` for a prior that is not row-exchangeable."""
    import time

    from ..closed_forms import check_eps

    eps = check_eps(eps)
    prior = as_symmetric(prior)
    n, m = prior.n, prior.m
    comps = components(prior)
    start = time.perf_counter()
    row_law = np.zeros(m)
    for w, r in comps:
        row_law += w * r
    row_law = row_law / row_law.sum()
    try:
        bar_program = _one_row(row_law, m, solver)
        bar = bar_program.solve(eps, solver=solver)
        parts = [_one_row(r, m, solver).solve(eps, solver=solver) for _, r in comps]
    except (InfeasibleProgramError, InvalidInputError):
        return None
    if bar.status != Status.OPTIMAL or any(p.status != Status.OPTIMAL for p in parts):
        return None
    W1 = np.asarray(bar.mechanism.matrix, dtype=float)
    # Σ_{b≠a} W₁(b|a) summed from the off-diagonal entries (1 − W₁(a|a) loses them below 1e-16)
    off = np.where(np.eye(m, dtype=bool), 0.0, np.maximum(W1, 0.0)).sum(axis=1)
    value = n * sum(w * float(r @ off) for w, r in comps)
    lower = n * sum(w * float(p.bounds.lower) for (w, _), p in zip(comps, parts))
    slope = n * one_row_slope(bar_program, bar, m)
    return MixtureEnclosure(
        lower=max(0.0, lower * (1.0 - MIXTURE_MARGIN)),
        upper=value * (1.0 + MIXTURE_MARGIN),
        value=value,
        channel=W1,
        row_law=row_law,
        component_bounds=tuple((float(p.bounds.lower), float(p.bounds.upper)) for p in parts),
        slope=slope,
        solve_time=time.perf_counter() - start,
    )


def mixture_theorem(program: Any, eps: float, *, solver: str | None = None) -> SolveResult | None:
    """The n-row answer of PD-DP for an exchangeable mixture prior by the mixture sandwich (module docstring).

    ``program`` is a :class:`~problems.orbit.programs.ReducedPDDP` whose prior has at least two distinct
    components.  Returns ``None`` (the LP answers) for PD-I, for an i.i.d. prior (single-letterisation answers
    it), when the sandwich does not certify at ε, or when the lifted matrix is not verified exactly feasible.
    Where the sandwich does not close and the joint-type LP at n would be refused (more joint types than the
    reduced path accepts), the answer comes from groups of rows (:mod:`problems.orbit.group_product`).
    """
    from ..solvers.stats import SolverStats

    if program.program != "pd-dp":
        return None
    prior = program.prior
    comps = components(prior)
    if len(comps) < 2 or prior.m > MIXTURE_MAX_M:
        return None
    enc = mixture_enclosure(prior, eps, solver=solver)
    if enc is None:
        return None
    if not refined(enc.lower, enc.upper):
        # not proved to 1e-6 relative (the absolute tolerance alone: the LP path refines those); where every
        # component's one-row optimum is a constant, constant outputs may meet the lower side
        # (problems.orbit.constant_output); a contagious prior's point masses (one-row optimum 0) are constant
        from .constant_output import constant_output_theorem

        # the lower side, for the joint-type LP at this ε (ReducedPDDP.solve: its known_lower)
        program.__dict__["_sandwich_lower"] = (eps, enc.lower)
        res = constant_output_theorem(program, eps, enc, comps, solver=solver)
        if res is None and not joint_types_fit(program.n, program.m):
            # beyond the joint-type LP: the sandwich's lower side and PD-DP's subadditivity over groups of rows
            res = group_product_theorem(program, eps, enc.lower, solver=solver)
        return res
    theorem = _THEOREM.format(k=len(comps))
    extras: dict[str, Any] = {
        "reduction": "mixture-sandwich",
        "n": program.n,
        "m": program.m,
        "prior": prior.to_dict(),
        "row_law": enc.row_law,
        "single_letter_channel": enc.channel,
        "component_bounds": enc.component_bounds,
        "slope": enc.slope,
    }
    stats = SolverStats("theorem", enc.solve_time, 0.0, 0, (("theorem", theorem), ("one row", "PDDP")))
    bounds = Bounds(enc.lower, enc.upper)
    return row_product_answer(
        program, eps, enc.channel, enc.row_law, enc.value, bounds, theorem, extras, stats
    )
