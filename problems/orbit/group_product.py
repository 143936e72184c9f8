r"""PD-DP over groups of rows: the subadditive upper bound, for n beyond the joint-type LP.

Let p_X be an exchangeable prior on Dⁿ with n = q·n₀, and W₀ an ε-DP mechanism on n₀ rows.  Applying W₀ to each of
the q consecutive groups of n₀ rows independently,

.. math::

    W(y \mid x) = \prod_{g=1}^{q} W_0(y_g \mid x_g),

is ε-DP: two neighbouring databases differ in one row, hence in one factor, whose ratio is at most e^ε.  Its
expected Hamming distortion is :math:`\sum_g E[d(X_g, Y_g)] = q\,D_0`, where D₀ is W₀'s distortion under the prior's
marginal on n₀ rows, the same for every group (for :math:`\sum_j w_j \pi_j^{\otimes n}` it is
:math:`\sum_j w_j \pi_j^{\otimes n_0}`).  Hence, for every ε,

.. math::

    \mathrm{PD\text{-}DP}_n(\epsilon) \le q \cdot \mathrm{PD\text{-}DP}_{n_0}(\epsilon),

and the certified upper bound of the n₀-row program (the distortion of an exactly verified mechanism) bounds the
n-row optimum from above.  The mixture sandwich's lower side :math:`n \sum_j w_j \mathrm{PD\text{-}DP}_1(\epsilon;
\pi_j)` (:mod:`problems.orbit.mixture_prior`, proved for every n) bounds it from below.  Between a mixture's
component levels the n₀-row optimum approaches that lower side geometrically in n₀ — README mixture, ε = 1: the
relative excess of the certified upper bound is 2.7e-2, 6.5e-4, 2.0e-5 and 7.0e-7 at n₀ = 20, 60, 100, 200 — so
the q-fold product of the n₀ = 200 answer encloses n = 400 (or 600, 1 000, …) to 7e-7: certified by one LP of
200 rows where the n-row LP has more joint types than the reduced path accepts.

:func:`group_product_theorem` is that answer, tried by :func:`~problems.orbit.mixture_prior.mixture_theorem`
when the sandwich does not close and the joint-type LP at n would be refused.  Its mechanism is one group's (the
n₀-row answer, at its own level), with ``extras["mechanism_level"] = "group"``, the number of groups and the
group's own extras (``extras["group_extras"]``; :func:`~problems.orbit.lift.sample` draws each group from them); its
status is decided by the toolkit's one rule on the two proved bounds, so an enclosure that is not tight enough
comes back ``inaccurate`` with both sides proved.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any

from ..certificate import theorem_certificate
from ..errors import PrivacyToolkitError
from ..lp import Bounds
from ..lp.status import decide_status
from ..progress import note
from ..resources import reduced_lp_variables
from ..result import SolveResult
from ..solvers.stats import SolverStats
from .types import MAX_JOINT_TYPES

__all__ = ["group_split", "group_product_theorem", "joint_types_fit", "GROUP_LEVEL", "GROUP_MAX_ROWS"]

#: ``extras["mechanism_level"]`` of an answer whose mechanism is one group's, applied to every group of rows.
GROUP_LEVEL = "group"

#: The largest group: the joint-type LP of 200 rows (m = 2) is the largest the block method is measured at (about
#: 11 minutes and 2.4 GB on two cores between the README mixture's levels); 250 rows would fit the joint-type limit
#: but need about twice the time and memory.
GROUP_MAX_ROWS = 200

_THEOREM = (
    "PD-DP over {q} groups of {n0} rows: the product of one group's ε-DP mechanism is ε-DP, so PD-DP_n ≤ "
    "{q}·PD-DP_{n0} (subadditivity); lower side: the mixture sandwich n·Σ_j w_j PD-DP_1(ε; π_j)"
)


def joint_types_fit(n: int, m: int, limit: int | None = None) -> bool:
    """True when the joint types of n rows over m values are within ``limit`` (the reduced path's,
    :data:`~problems.orbit.types.MAX_JOINT_TYPES`, by default)."""
    return reduced_lp_variables(n, m) <= (MAX_JOINT_TYPES if limit is None else limit)


def group_split(n: int, m: int, limit: int | None = None) -> tuple[int, int] | None:
    """(q, n₀) with n = q·n₀: the fewest groups q ≥ 2 whose n₀ ≥ 2 rows fit the joint-type ``limit`` and
    :data:`GROUP_MAX_ROWS`.  ``None`` when there is none (n prime, say: groups of one row give the mixture
    sandwich's own upper side)."""
    for q in range(2, n // 2 + 1):
        if n % q == 0 and n // q <= GROUP_MAX_ROWS and joint_types_fit(n // q, m, limit):
            return q, n // q
    return None


def group_product_theorem(
    program: Any, eps: float, lower: float, *, solver: str | None = None, limit: int | None = None
) -> SolveResult | None:
    """The n-row PD-DP answer of ``program`` (a :class:`~problems.orbit.programs.ReducedPDDP`) from its n₀-row
    program over q groups (module docstring), with ``lower`` a proved lower bound at n (the mixture sandwich's).

    ``None`` when n has no split into groups that fit ``limit``, or when the n₀-row program raises (then the
    caller's own path decides).  The n₀-row program is solved by its public path (theorems first, then the LP),
    so its upper bound is proved by an exactly verified mechanism."""
    n, m = int(program.n), int(program.m)
    split = group_split(n, m, limit)
    if split is None or program.program != "pd-dp":
        return None
    q, n0 = split
    t0 = time.perf_counter()
    note(step=f"{q} groups of {n0} rows (PD-DP is subadditive over groups): the {n0}-row program")
    piece = type(program)(replace(program.prior, n=n0), solver=solver or program.solver)
    try:
        res0 = piece.solve(eps, solver=solver)
    except PrivacyToolkitError:
        return None
    if not math.isfinite(res0.bounds.upper):
        return None
    # q·upper rounded up: the product rounded to nearest is within half an ulp, the next float above covers it
    upper = math.nextafter(q * res0.bounds.upper, math.inf)
    lower = min(float(lower), upper)
    value = min(max(q * float(res0.value), lower), upper)
    theorem = _THEOREM.format(q=q, n0=n0)
    seconds = time.perf_counter() - t0
    stats = SolverStats(
        "theorem",
        seconds,
        0.0,
        res0.stats.iterations,
        (("theorem", theorem), (f"group of {n0} rows", f"{res0.status}, {res0.stats.solver}")),
    )
    extras = {
        "path": "theorem",
        "theorem": theorem,
        "reduction": "group-product",
        "n": n,
        "m": m,
        "prior": program.prior.to_dict(),
        "mechanism_level": GROUP_LEVEL,
        "groups": q,
        "group_rows": n0,
        "group_bounds": res0.bounds,
        "group_extras": res0.extras,  # the group's own answer: its level, its joint-type masses u, …
    }
    return replace(
        res0,
        status=decide_status(lower, upper),
        value=value,
        distortion=value,
        bounds=Bounds(lower, upper),
        certificate=theorem_certificate(value, lower, upper, theorem),
        stats=stats,
        duals={},
        extras=extras,
    )
