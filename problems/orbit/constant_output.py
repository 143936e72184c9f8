r"""PD-DP for an exchangeable mixture at small ε and large n: constant outputs against the sandwich's lower side.

A *constant-output* mechanism releases only the m constant databases (a, …, a); by symmetry it is given by
:math:`w_a(t) = W((a,\dots,a) \mid x)` for x of type t.  PD-DP's rows (Wang, Ying & Zhang 2016, (13)–(15))
hold for W exactly when

.. math::

    w_a(t) \le e^{\epsilon} w_a(t')\quad\text{for all } a \text{ and all types } t, t' \text{ one row apart}
    \ (t' = t - e_c + e_d),\qquad \sum_a w_a(t) = 1,\ w \ge 0

(the rows of every other output read 0 ≤ 0), and its distortion is :math:`\sum_t P(t(X) = t) \sum_a w_a(t)(n -
t_a)`.  The best such W is an LP with m·C(n+m−1, m−1) variables (402 at m = 2, n = 200): its value U bounds
PD-DP_n(ε) from above.  The mixture sandwich (:mod:`problems.orbit.mixture_prior`) bounds it from below by
L = n Σ_j w_j PD-DP₁(ε; π_j).

**Why they meet.**  Where every component's one-row optimum is a constant (for m = 2: π_j(a)(1 + e^ε) ≥ 1 for
the component's smaller value, e.g. ε ≤ 0.847 for ``mixture:0.5,0.5/0.8,0.2/0.3,0.7``), L is what a mechanism
would pay if it knew the component and released that component's best constant; the components' types
separate as n grows, and a constant-output mechanism that moves between the constants over the O(1/ε) types
where they meet pays the difference only on mass exponentially small in n.  Measured U/L − 1 for that prior at
ε = 0.5: 2.7e-2 (n = 30), 2.3e-5 (n = 100), 2.6e-9 (n = 200); at n = 100 the constant-output LP is the optimum
of the whole joint-type LP, but only the whole LP's multipliers prove it.

**Computation** (:func:`constant_output_theorem`).  The LP is solved by the toolkit's chain
(:class:`~problems.orbit.reduced_lp.ReducedLP`: tightened levels, exact repair, with the uniform W as reference
and the best constant as a candidate), which returns a point exactly feasible at ε with a rigorous upper bound
on its distortion; the answer is returned, ``[L, U]``, only when the two agree to 1e-6 relative
(:func:`problems.lp.status.refined`); U is widened by a bound on the rounding of the type law P(t) in the
LP's objective (``type_law_margin``: 4e-12 relative at n = 200), so that it bounds the distortion under the
exact prior.  The mechanism is the lifted N × N matrix up to the program's lift limit
(checked exactly feasible in floating point like every lifted answer), else the type channel: one row per type
t, one column per constant output.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..errors import InvalidInputError, PrivacyToolkitError
from ..lp import Bounds
from ..lp.status import refined
from ..mechanism import Mechanism
from ..result import SolveResult
from .theorem_answer import reduced_theorem_answer
from .types import compositions

__all__ = [
    "constant_output_lp",
    "constant_output_theorem",
    "constant_output_index",
    "constant_output_blocks",
    "constant_output_extras",
    "lifted_constant_output",
    "type_channel",
    "type_law_margin",
    "CONSTANT_OUTPUT_MAX_VARIABLES",
    "CONSTANT_REGIME_TOLERANCE",
]

#: Largest constant-output LP tried (m·C(n+m−1, m−1) variables): m = 2 up to n ≈ 100 000, m = 3 up to n ≈ 500.
CONSTANT_OUTPUT_MAX_VARIABLES = 400_000

#: A component is in its constant regime when its one-row upper bound is within this relative distance of its
#: best constant's distortion 1 − max_a π_j(a); only then can constant outputs meet the lower side (a gate for
#: the attempt, not part of the proof).
CONSTANT_REGIME_TOLERANCE = 1e-7

_THEOREM = (
    "mixture sandwich's lower side n·Σ_j w_j PD-DP_1(ε; π_j) for the exchangeable prior Σ_j w_j π_j^⊗n ({k} "
    "components) met by the best constant-output mechanism (releases only (a,…,a); an LP over {types} input "
    "types, exactly feasible point from the toolkit's certified chain; docs/orbit_reduction.md §16)"
)


def constant_output_index(n: int, m: int) -> np.ndarray:
    """Index of (a, …, a) in :func:`itertools.product` order, a = 0..m−1: a·(mⁿ − 1)/(m − 1)."""
    return np.array([a * sum(m**k for k in range(n)) for a in range(m)], dtype=object)


def constant_output_lp(prior: Any, *, program: str = "pd-dp (constant outputs)") -> tuple[Any, np.ndarray]:
    """The constant-output LP of ``prior`` (a :class:`~problems.orbit.symmetric_prior.SymmetricPrior`) as a
    :class:`~problems.orbit.reduced_lp.ReducedLP`, variable ``i·m + a`` = w_a(t_i); and the types t_i (rows of
    ``compositions(n, m)``)."""
    from .reduced_lp import ReducedLP

    n, m = prior.n, prior.m
    types = compositions(n, m)
    K = types.shape[0]
    if K * m > CONSTANT_OUTPUT_MAX_VARIABLES:
        raise InvalidInputError(
            f"the constant-output LP at n = {n}, m = {m} has {K * m} variables, above "
            f"{CONSTANT_OUTPUT_MAX_VARIABLES}"
        )
    from .types import composition_keys

    keys = composition_keys(types, n)
    src_l, dst_l = [], []
    for c in range(m):  # move one row from value c to value d: t → t − e_c + e_d
        for d in range(m):
            if c == d:
                continue
            i = np.flatnonzero(types[:, c] >= 1)
            moved = types[i].copy()
            moved[:, c] -= 1
            moved[:, d] += 1
            j = np.searchsorted(keys, composition_keys(moved, n))
            src_l.append(i)
            dst_l.append(j)
    ti, tj = np.concatenate(src_l), np.concatenate(dst_l)
    a = np.arange(m)
    src = (ti[:, None] * m + a[None, :]).ravel()
    dst = (tj[:, None] * m + a[None, :]).ravel()
    p_type = np.exp(prior.log_type_probability(types))
    c = (p_type[:, None] * (n - types)).ravel()  # P(t)·(n − t_a): the distortion of releasing (a, …, a)
    group = np.repeat(np.arange(K), m)
    A = sp.csr_matrix((np.ones(K * m), (group, np.arange(K * m))), shape=(K, K * m))
    row_law = (p_type @ types) / n
    constant = np.zeros((K, m))
    constant[:, int(np.argmax(row_law))] = 1.0  # the best constant: feasible at every ε
    uniform = np.full(K * m, -math.log(m))

    def log_profile(_eps: float) -> np.ndarray:  # the reference: uniform over the constant outputs
        return uniform

    lp = ReducedLP(
        c,
        A,
        np.ones(K),
        src,
        dst,
        np.zeros(src.size),
        program=program,
        log_profile=log_profile,
        scale_from=math.inf,
        constant=constant.ravel(),
    )
    return lp, types


def type_law_margin(prior: Any, comps: list[tuple[float, np.ndarray]]) -> float:
    """A bound on the relative error of the computed type law P(t(X) = t) = exp(ln n! − Σ_a ln t_a! + ln p_X(x)):
    every logarithm summed there is at most ln n! or n·max|ln π_j(a)| + |ln w_j| in size, each with a few units
    of roundoff, and exp adds one more; the LP's objective coefficients carry it, the exact prior does not."""
    from ..solvers.settings import UNIT_ROUNDOFF

    with np.errstate(divide="ignore"):
        logs = [abs(math.log(w)) + prior.n * float(np.max(np.abs(np.log(r[r > 0])))) for w, r in comps]
    size = 2.0 * math.lgamma(prior.n + 1.0) + max(logs) + 8.0
    return 32.0 * UNIT_ROUNDOFF * size


def _in_constant_regime(
    comps: list[tuple[float, np.ndarray]], bounds: tuple[tuple[float, float], ...]
) -> bool:
    for (_, r), (_, up) in zip(comps, bounds):
        best_constant = float(np.sort(r)[:-1].sum())  # Σ_{b≠a*} π(b): no cancellation near a point mass
        if up < best_constant * (1.0 - CONSTANT_REGIME_TOLERANCE):
            return False
    return True


def constant_output_theorem(
    program: Any,
    eps: float,
    enc: Any,
    comps: list[tuple[float, np.ndarray]],
    *,
    solver: str | None = None,
) -> SolveResult | None:
    """PD-DP of an exchangeable mixture at ε from the constant-output LP and the sandwich's lower side (module
    docstring); ``enc`` is the :class:`~problems.orbit.mixture_prior.MixtureEnclosure` at ε and ``comps`` the
    prior's components (w_j, π_j) in the order of its ``component_bounds``.  ``None`` (the LP
    answers) when a component is not in its constant regime, the LP is too large, or the sides do not agree to
    1e-6 relative."""
    from ..solvers.stats import SolverStats

    program.__dict__.pop("_constant_hint", None)
    if program.program != "pd-dp" or not eps > 0.0:
        return None
    prior = program.prior
    if not _in_constant_regime(comps, enc.component_bounds):
        return None
    start = time.perf_counter()
    try:
        lp, types = constant_output_lp(prior)
        sol = lp.solve(eps, prefer="clarabel", solver=solver)
    except (PrivacyToolkitError, ArithmeticError, ValueError, np.linalg.LinAlgError):
        return None
    if not math.isfinite(sol.bounds.upper):
        return None
    lower, upper = float(enc.lower), float(sol.bounds.upper) * (1.0 + type_law_margin(prior, comps))
    if not (upper >= lower and refined(lower, upper)):
        program.__dict__["_constant_hint"] = True  # the LP answers, trying the constant-output blocks first
        return None
    n, m = program.n, program.m
    w = np.asarray(sol.u, dtype=float).reshape(-1, m)  # exactly feasible after exact row normalisation
    value = min(max(float(sol.value), lower), upper)
    bounds = Bounds(lower, upper)
    theorem = _THEOREM.format(k=len(comps), types=types.shape[0])
    p_type = np.exp(prior.log_type_probability(types))
    extras = constant_output_extras(program, theorem, types, w, p_type)
    extras.update(
        {
            "component_bounds": enc.component_bounds,
            "restricted_bounds": (float(sol.bounds.lower), float(sol.bounds.upper)),
        }
    )
    stats = SolverStats(
        "theorem",
        time.perf_counter() - start + enc.solve_time,
        0.0,
        sol.stats.iterations,
        (("theorem", theorem), ("constant-output LP", sol.stats.solver)),
    )
    return reduced_theorem_answer(
        program,
        eps,
        value,
        bounds,
        theorem,
        extras,
        stats,
        lambda: lifted_constant_output(n, m, types, w),
        lambda: (type_channel(n, m, types, w), p_type),
    )


def constant_output_extras(
    program: Any, theorem: str, types: np.ndarray, w: np.ndarray, p_type: np.ndarray
) -> dict[str, Any]:
    """The ``extras`` of a constant-output answer: the weights w_a(t) per input type and the type law, which
    :func:`~problems.orbit.lift.lift_mechanism` and :func:`~problems.orbit.lift.sample` read."""
    return {
        "path": "theorem",
        "theorem": theorem,
        "reduction": "constant-output",
        "n": program.n,
        "m": program.m,
        "prior": program.prior.to_dict(),
        "x_types": types,
        "constant_output_weights": w,
        "x_type_probability": p_type,
    }


def type_channel(n: int, m: int, types: np.ndarray, w: np.ndarray) -> Mechanism:
    """The constant-output mechanism on types: row t, column (a, …, a)."""
    rows = tuple("t=(" + ",".join(map(str, t)) + ")" for t in types)
    cols = tuple(f"y=({a},…,{a})" for a in range(m))
    return Mechanism(w, rows, cols)


def lifted_constant_output(n: int, m: int, types: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The N × N matrix W((a,…,a) | x) = w_a(t(x)), zero on every other output."""
    from ..database import DatabaseSpace
    from .types import composition_keys

    space = DatabaseSpace(n, m)
    e = space.elements
    t = np.stack([(e == a).sum(axis=1) for a in range(m)], axis=1)
    row = np.searchsorted(composition_keys(types, n), composition_keys(t, n))
    W = np.zeros((space.size, space.size))
    cols = constant_output_index(n, m).astype(np.int64)
    W[:, cols] = w[row]
    return W


def constant_output_blocks(program: Any) -> np.ndarray:
    """The blocks (:func:`problems.lp.active_blocks.blocks_of`) of the joint-type LP of ``program`` that hold the
    constant outputs (a, …, a): the joint types T = t ⊗ e_a."""
    from ..lp.active_blocks import blocks_of

    J = program.types
    T = J.T.reshape(J.size, program.m, program.m)
    t = J.x_types[J.x_index]
    mask = np.zeros(J.size, dtype=bool)
    for a in range(program.m):
        mask |= np.all(T[:, :, a] == t, axis=1)
    return np.unique(blocks_of(program.lp.spec)[1][mask])
