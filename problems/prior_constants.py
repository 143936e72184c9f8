r"""Constants of a prior: ε_X (paper 002, (16)) and ε̃_X (the definition before (17)).

ε_X
    :math:`\epsilon_X = \max_{x\sim x'} \ln p_X(x)/p_X(x')`, computed over the sparse neighbour pairs;
    infinite when some database has zero mass.

ε̃_X
    The smallest ε for which the posterior :math:`p_{X|Y}(x|y) = (K_\epsilon^{\otimes n})_{xy}` is *feasible*, i.e.
    :math:`p_Y = (K_\epsilon^{-1})^{\otimes n} p_X \ge 0`.  Write :math:`t = e^{-\epsilon}/(1+(m-1)e^{-\epsilon})
    \in (0, 1/m]`; then :math:`K_\epsilon = (1-mt)\,I + tJ` and, because :math:`p_X` sums to one,
    :math:`K_\epsilon^{-1} p = (I - tJ)p/(1-mt)` on every axis.  Hence every entry of
    :math:`(1-mt)^n p_Y` is a polynomial :math:`g_x(t)` of degree ≤ n whose coefficients are computed one axis
    at a time (no N×N matrix): applying :math:`I - tJ` along an axis maps coefficient k to
    coefficient k minus the axis-sum of coefficient k−1.  The feasible ε form the set where every
    :math:`g_x(t) \ge 0`; we return the ε of the largest t₀ such that all :math:`g_x \ge 0` on
    :math:`(0, t_0]` — i.e. the smallest ε from which on *every* larger ε is feasible, which is what Lemma 4 of
    the paper uses.  t₀ is found exactly among the real roots of the :math:`g_x` (batched companion-matrix
    eigenvalues), testing the sign between consecutive roots.

For an i.i.d. prior :math:`\pi^{\otimes n}` the condition reduces to one row, :math:`\min_a \pi(a) \ge t`, so
:math:`\tilde\epsilon_X = \ln\big((1-(m-1)\pi_{\min})/\pi_{\min}\big)` (:func:`eps_tilde_iid`); a test checks the
general routine against it and against a dense solve.
"""

from __future__ import annotations

import math

import numpy as np

from .priors import Prior, require_prior

__all__ = [
    "eps_X",
    "eps_X_iid",
    "eps_tilde",
    "eps_tilde_iid",
    "symmetric_constants",
    "t_of_eps",
    "eps_of_t",
    "feasibility_polynomials",
]


def eps_X(prior: Prior) -> float:
    """ε_X = max over neighbours x ~ x' of ln p_X(x)/p_X(x') (paper 002, (16)); ``inf`` without full support."""
    prior = require_prior(prior, "eps_X")
    if not prior.has_full_support:
        return math.inf
    i, j = prior.space.neighbour_pairs
    logp = np.log(prior.pmf)
    return float(max(0.0, np.max(logp[i] - logp[j])))


def t_of_eps(eps: float, m: int) -> float:
    """t = e^{−ε}/(1+(m−1)e^{−ε}), the off-diagonal entry of K_ε."""
    e = math.exp(-eps)
    return e / (1.0 + (m - 1) * e)


def eps_of_t(t: float, m: int) -> float:
    """Inverse of :func:`t_of_eps` on (0, 1/m]: ε = ln((1 − (m−1)t)/t)."""
    if t <= 0:
        return math.inf
    return max(0.0, math.log((1.0 - (m - 1) * t) / t))


def feasibility_polynomials(prior: Prior) -> np.ndarray:
    """Coefficients ``C[k, x]`` of g_x(t) = Σ_k C[k, x] t^k = ((I − tJ)^{⊗n} p_X)(x)."""
    prior = require_prior(prior, "feasibility_polynomials")
    n = prior.n
    coef = np.zeros((n + 1,) + prior.space.shape)
    coef[0] = prior.tensor()
    for axis in range(n):
        sums = coef.sum(axis=axis + 1, keepdims=True)  # axis-sum of every coefficient
        shifted = np.zeros_like(coef)
        shifted[1:] = np.broadcast_to(sums[:-1], coef[1:].shape)
        coef = coef - shifted
    return coef.reshape(n + 1, -1)


def eps_tilde_iid(row_pmf) -> float:
    """ε̃_X for an i.i.d. prior π^{⊗n}: ln((1 − (m−1)π_min)/π_min)."""
    row = np.asarray(row_pmf, dtype=float)
    return eps_of_t(float(row.min()), row.size)


def eps_tilde(prior: Prior, *, tol: float = 1e-14) -> float:
    """ε̃_X of a prior (see the module docstring); ``inf`` when no finite ε is feasible."""
    prior = require_prior(prior, "eps_tilde")
    m = prior.m
    if prior.kind in ("uniform", "iid"):
        return eps_tilde_iid(prior.row_pmfs[0])
    coef = feasibility_polynomials(prior)  # (n+1, N), ascending powers
    if not prior.has_full_support:
        # near t = 0 the sign of g_x is that of its lowest non-zero coefficient
        zero = np.flatnonzero(prior.pmf <= 0)
        c = coef[:, zero]
        first = np.argmax(np.abs(c) > 0, axis=0)
        lowest = c[first, np.arange(zero.size)]
        if np.any(lowest < 0):
            return math.inf  # infeasible for every ε: no finite ε̃_X
    tmax = 1.0 / m
    floor = tol * float(prior.pmf.max())

    def feasible(t: float) -> bool:
        return bool(np.min(_direct_g(prior, t)) >= -floor)

    # Candidate sign changes: real parts of the roots (clusters of multiple roots included).
    roots = _real_roots_in(coef, 0.0, tmax)
    points = np.concatenate([[0.0], roots, [tmax]])
    good, bad = 0.0, None
    for lo, hi in zip(points[:-1], points[1:]):
        if hi - lo <= 0:
            continue
        for t in (lo + 0.25 * (hi - lo), 0.5 * (lo + hi), lo + 0.75 * (hi - lo)):
            if feasible(t):
                good = t
            else:
                bad = t
                break
        if bad is not None:
            break
    if bad is None:
        return 0.0  # every ε > 0 is feasible (t up to 1/m)
    if good <= 0.0:
        return math.inf
    for _ in range(200):  # bisection on the direct evaluation: the boundary to ~1e-16 in t
        mid = 0.5 * (good + bad)
        if mid in (good, bad):
            break
        if feasible(mid):
            good = mid
        else:
            bad = mid
    return eps_of_t(good, m)


def _direct_g(prior: Prior, t: float) -> np.ndarray:
    """g_x(t) = ((I − tJ)^{⊗n} p_X)(x), evaluated axis by axis (stable; no polynomial coefficients)."""
    g = prior.tensor()
    for axis in range(prior.n):
        g = g - t * g.sum(axis=axis, keepdims=True)
    return g


def _real_roots_in(coef: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Real roots in (lo, hi) of the polynomials with ascending coefficients ``coef[:, x]`` (batched)."""
    deg_all = coef.shape[0] - 1
    found: list[np.ndarray] = []
    nz = np.abs(coef) > 1e-300
    # effective degree of each polynomial: highest k with a non-zero coefficient
    deg = np.where(nz.any(axis=0), deg_all - np.argmax(nz[::-1], axis=0), 0)
    for d in range(1, deg_all + 1):
        cols = np.flatnonzero(deg == d)
        if cols.size == 0:
            continue
        c = coef[: d + 1, cols]  # ascending
        lead = c[d]
        comp = np.zeros((cols.size, d, d))
        comp[:, 0, :] = -(c[d - 1 :: -1] / lead).T
        if d > 1:
            comp[:, np.arange(1, d), np.arange(d - 1)] = 1.0
        ev = np.linalg.eigvals(comp).ravel()
        # loose imaginary threshold: a multiple root splits into a complex cluster of radius ~ε^(1/k)
        real = ev.real[np.abs(ev.imag) <= 1e-3 * np.maximum(1.0, np.abs(ev.real))]
        found.append(real[(real > lo) & (real < hi)])
    if not found:
        return np.empty(0)
    return np.unique(np.concatenate(found))


def eps_X_iid(row_pmf) -> float:
    """ε_X of an i.i.d. prior π^{⊗n} (any n ≥ 1): ln(π_max/π_min), ``inf`` when some π(a) = 0.

    Changing one row from a to b multiplies p_X by π(b)/π(a), so the largest neighbour ratio is π_max/π_min;
    it is exactly 0 for the uniform prior.
    """
    row = np.asarray(row_pmf, dtype=float)
    lo, hi = float(row.min()), float(row.max())
    if lo <= 0:
        return math.inf
    return 0.0 if lo == hi else math.log(hi) - math.log(lo)


#: Bytes per x-type and letter held while ε_X of an exchangeable mixture is computed over the moves between
#: types (the types and one shifted copy, with NumPy temporaries); the log-masses add 24 bytes per component.
BYTES_PER_TYPE_ENTRY = 48


def symmetric_constants(prior) -> dict:  # noqa: ANN001 - SymmetricPrior (import cycle avoided)
    """ε_X and ε̃_X of a row-permutation-invariant prior without building its mⁿ pmf.

    Uniform and i.i.d. priors use the closed forms :func:`eps_X_iid` and :func:`eps_tilde_iid` (any n; both
    exactly 0 for the uniform prior).  For exchangeable mixtures ε_X is taken over the moves between x-types
    (the reduced programs' :func:`problems.orbit.programs._eps_X`; C(n+m−1, m−1) types, refused with
    :class:`~problems.errors.ProblemTooLargeError` when they would not fit the memory budget); ε̃_X comes from
    the dense pmf with N ≤ 4096, and is ``None`` (with a note) beyond.
    """
    from .database import DENSE_LIMIT

    out: dict = {}
    if prior.kind == "uniform":
        return {"eps_X": 0.0, "eps_tilde": 0.0}
    if prior.kind == "iid":
        return {"eps_X": eps_X_iid(prior.row_pmfs[0]), "eps_tilde": eps_tilde_iid(prior.row_pmfs[0])}
    from .resources import BASE_MEMORY, as_bytes, format_count, require_memory

    types = math.comb(prior.n + prior.m - 1, prior.m - 1)
    J = len(prior.row_pmfs)  # the log-masses hold a (types, J, m) array
    require_memory(
        BASE_MEMORY + as_bytes(types, prior.m, BYTES_PER_TYPE_ENTRY + 24 * J),
        f"ε_X of the exchangeable prior {prior.name!r} over {format_count(types)} x-types "
        f"(n = {prior.n}, m = {prior.m}, {J} i.i.d. components)",
        "Use a smaller n or m, or a uniform or iid prior (closed forms at any n).",
    )
    from .orbit.programs import _eps_X  # after the guard: this import loads the reduced programs

    out["eps_X"] = _eps_X(prior)
    if prior.m**prior.n <= DENSE_LIMIT:
        out["eps_tilde"] = eps_tilde(prior.to_prior())
    else:
        out["eps_tilde"] = None
        out["note"] = (
            f"ε̃_X of an exchangeable mixture is computed on the dense pmf (N ≤ {DENSE_LIMIT}); "
            f"here N = {prior.m}^{prior.n}"
        )
    return out
