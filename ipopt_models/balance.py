r"""The balance function of Wu, Xia & He (2020) (Definition 11): first curves, with honest two-sided bounds.

For a privacy channel :math:`p(y|x)` and :math:`b\in[0,\log|\mathcal X|]`,

.. math::

    C_1^b = \max_{i\in[n]}\ \max_{p\in\Delta(\mathcal X):\ H(p)\ge b} I(X_i;Y),\qquad
    \delta(b) = g(b) = C_1 - C_1^b \quad (16)\text{–}(17).

The paper calls evaluating :math:`g` an open problem (§2.2, §7).  We bracket it.

*Lower bound on* :math:`C_1^b` *(so an upper bound on δ)*: the multistart IPOPT value of
:class:`~ipopt_models.capacity.JointCapacityModel` with the entropy constraint, re-evaluated at a point
made exactly feasible (:func:`~ipopt_models._common.repair_entropy`).  Since
:math:`\Delta(\mathcal X)_{b'}\subseteq\Delta(\mathcal X)_b` for :math:`b\le b'`, a point found at
:math:`b'` also serves every smaller :math:`b`; the curve takes the running maximum from the right.

*Upper bound on* :math:`C_1^b` *(so a certified lower bound on δ)*: a simplicial branch and bound over
:math:`\Delta(\mathcal X)` (:func:`certified_c1b_upper`).  On a cell :math:`T` with vertices :math:`v_j` and
centroid :math:`c`, for every :math:`r\in\Delta(\mathcal Y)` and :math:`\mu\ge 0` and every feasible
:math:`p\in T`,

.. math::

    I_i(p) \le F_i(p; r) := -H(Y|X_i) - \sum_y q_p(y)\ln r(y)
    \le F_i(p;r) + \mu\big(\bar H_c(p) - b\big)
    \le \max_j \big[F_i(v_j; r) + \mu(\bar H_c(v_j) - b)\big],

using Gibbs' inequality (:math:`-\sum q\ln r \ge H(q)`), :math:`H(p)\ge b` with the tangent plane
:math:`\bar H_c(p) = -\sum_x p(x)\ln c(x) \ge H(p)` (concavity), and convexity of :math:`F_i(\cdot;r)`
(:math:`-H(Y|X_i)` is a sum of perspectives of :math:`-H`, and the rest is linear), whose maximum over a
simplex is at a vertex.  We take :math:`r = q_c` and the exact minimising :math:`\mu` (a one-dimensional
piecewise-linear problem); a cell with :math:`\max_j \bar H_c(v_j) < b` contains no feasible point.  The
bound is exact arithmetic except for floating-point rounding, its error is second order in the cell size, and
refinement stops when every remaining cell is within ``tol`` of the best feasible value or the cell budget is
spent (the bound is valid at any stopping point; it is just looser).  The trivial bound
:math:`C_1^b \le C_1` (δ ≥ 0) is always applied as well, and monotonicity (:math:`C_1^b` non-increasing in
b) lets the curve take a running minimum from the left.

*Exact zero region.*  A joint attaining :math:`C_1` has :math:`H(X)\ge H(X_i)\ge I(X_i;Y) = C_1`, so
:math:`\delta(b)=0` for :math:`b\le H(p^*)`; with Lemma 1 (:math:`\delta\le C_1`) this gives
:math:`\delta(b)\le\min\{b, C_1\}\le\min\{b,\max_i\log|\mathcal X_i|\}` for every b.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from problems.errors import InvalidInputError
from problems.units import to_unit

from ._common import DEFAULT_REACH_TOL, check_starts, entropy
from .capacity import JointCapacityModel, theorem2_value

__all__ = [
    "randomized_response_array",
    "exponential_array",
    "quantised_gaussian_array",
    "BENCHMARK_CHANNELS",
    "CertifiedBound",
    "certified_c1b_upper",
    "BalanceCurve",
    "balance_curve",
]


# -------------------------------------------------------------------------------------------- channels
def _sum_query(sizes: Sequence[int]) -> np.ndarray:
    grids = np.meshgrid(*[np.arange(s) for s in sizes], indexing="ij")
    return np.sum(grids, axis=0)


def randomized_response_array(record_sizes: Sequence[int] = (2, 2), flip: float = 0.2) -> np.ndarray:
    r"""Binary symmetric privacy channel (Wu, Xia & He 2020, eq. (49)) of the parity query :math:`f(x)=\sum_i x_i \bmod 2`.

    Array of shape ``record_sizes + (2,)``; every slice :math:`x_i = a` contains both answers, so
    :math:`C_1 = \log 2 - H(\text{flip})` (eq. (54)).
    """
    flip = float(flip)
    if not 0 <= flip <= 1:
        raise InvalidInputError(f"flip probability must lie in [0, 1], got {flip!r}")
    f = _sum_query(record_sizes) % 2
    K = np.array([[1 - flip, flip], [flip, 1 - flip]])
    return K[f]


def exponential_array(record_sizes: Sequence[int] = (2, 2), lam: float = 1.0) -> np.ndarray:
    r"""Discrete exponential privacy channel (Wu, Xia & He 2020, eq. (69)) of the sum query, :math:`\lambda = 1/N`.

    Outputs :math:`\{0,\dots,\sum_i(|\mathcal X_i|-1)\}`; :math:`p(y|x)\propto e^{-\lambda\phi_x(y)}` with
    :math:`\phi_x(y)` the rank of :math:`y` by :math:`|y-f(x)|` (ties broken by the output index).
    """
    f = _sum_query(record_sizes)
    k = int(f.max()) + 1
    noise = np.empty((k, k))
    for a in range(k):
        order = sorted(range(k), key=lambda y: (abs(y - a), y))
        phi = np.empty(k)
        phi[order] = np.arange(k)
        w = np.exp(-float(lam) * phi)
        noise[a] = w / w.sum()
    return noise[f]


def quantised_gaussian_array(
    record_sizes: Sequence[int] = (2, 2), sigma: float = 0.7, n_bins: int = 4
) -> np.ndarray:
    r"""Quantised Gaussian privacy channel (Wu, Xia & He 2020, Definition 16, discretised): :math:`Y = Q(f(x) + Z)`.

    :math:`f(x)=\sum_i x_i`, :math:`Z\sim\mathcal N(0,\sigma^2)`, and :math:`Q` bins the real line into
    ``n_bins`` cells with equally spaced edges on :math:`[\min f - \sigma, \max f + \sigma]` (outer cells
    unbounded).  Binning is post-processing, so this channel leaks no more than the continuous one.
    """
    if not (sigma > 0 and n_bins >= 2):
        raise InvalidInputError(f"need sigma > 0 and n_bins ≥ 2, got sigma={sigma!r}, n_bins={n_bins!r}")
    f = _sum_query(record_sizes).astype(float)
    edges = np.linspace(f.min() - sigma, f.max() + sigma, n_bins + 1)
    edges[0], edges[-1] = -np.inf, np.inf
    cdf = norm.cdf((edges - f[..., None]) / sigma)
    W = np.clip(np.diff(cdf, axis=-1), 0.0, None)
    return W / W.sum(axis=-1, keepdims=True)


#: The three channels of the balance-function figure (two binary records each: |X| = 4).
BENCHMARK_CHANNELS: dict[str, Callable[[], np.ndarray]] = {
    "randomized response (parity, flip 0.2)": lambda: randomized_response_array((2, 2), 0.2),
    "exponential (sum, λ = 1)": lambda: exponential_array((2, 2), 1.0),
    "quantised Gaussian (sum, σ = 0.7, 4 bins)": lambda: quantised_gaussian_array((2, 2), 0.7, 4),
}


# ------------------------------------------------------------------------------------ branch and bound
@dataclass(frozen=True)
class CertifiedBound:
    """Outcome of :func:`certified_c1b_upper` (nats): ``lower ≤ C₁ᵇ ≤ upper``."""

    upper: float
    lower: float
    cells_evaluated: int
    cells_left: int
    converged: bool
    tolerance: float


def _xlogx(v: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v > 0, v * np.log(np.where(v > 0, v, 1.0)), 0.0)


def _cell_bounds(model: JointCapacityModel, V: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """Upper bounds (−inf for cells without a feasible point) and centroids of the cells ``V`` (M, D, D)."""
    M, D, _ = V.shape
    c = V.mean(axis=1)
    r = c @ model.Q.T
    with np.errstate(divide="ignore"):
        logr = np.where(r > 0, np.log(np.where(r > 0, r, 1.0)), 0.0)
        logc = np.where(c > 0, np.log(np.where(c > 0, c, 1.0)), 0.0)
    P = V.reshape(M * D, D)
    qv = (P @ model.Q.T).reshape(M, D, -1)
    cross = -np.einsum("mjy,my->mj", qv, logr)  # −Σ_y q_v(y) ln r(y)
    alphas = []
    for Ai, Si in zip(model.A, model.S):
        neg_h = (_xlogx(P @ Ai.T).sum(axis=1) - _xlogx(P @ Si.T).sum(axis=1)).reshape(M, D)
        alphas.append(neg_h + cross)
    alpha = np.concatenate(alphas, axis=1)  # (M, n·D)
    beta1 = -np.einsum("mjx,mx->mj", V, logc) - b  # tangent-plane entropy minus b, (M, D)
    beta = np.tile(beta1, (1, len(model.A)))
    feasible = beta1.max(axis=1) >= 0
    # min over μ ≥ 0 of max_l (α_l + μ β_l): candidates μ = 0 and pairwise crossings
    L = alpha.shape[1]
    ii, jj = np.triu_indices(L, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = (alpha[:, jj] - alpha[:, ii]) / (beta[:, ii] - beta[:, jj])
    mu = np.where(np.isfinite(mu) & (mu > 0), mu, 0.0)
    mu = np.concatenate([np.zeros((M, 1)), mu], axis=1)  # (M, C)
    vals = (alpha[:, None, :] + mu[:, :, None] * beta[:, None, :]).max(axis=2)
    ub = vals.min(axis=1)
    ub = np.where(feasible, ub, -np.inf)
    return ub, c


def certified_c1b_upper(
    model: JointCapacityModel,
    b: float,
    *,
    lower: float = 0.0,
    tol: float = 1e-4,
    max_cells: int = 200_000,
    batch: int = 4096,
) -> CertifiedBound:
    r"""Certified upper bound on :math:`C_1^b` by simplicial branch and bound (see the module docstring).

    ``lower`` must be the value of a feasible joint (e.g. the multistart value); it only prunes.  The returned
    ``upper`` is valid whatever the budget; ``converged`` says whether ``upper − lower ≤ tol`` was reached.
    """
    D = model.n_databases
    V = np.eye(D)[None, :, :]
    ub, c = _cell_bounds(model, V, b)
    lb = float(lower)
    pruned_max = -np.inf
    evaluated = 1
    while True:
        hc = -np.sum(_xlogx(c), axis=1)
        ok = hc >= b
        if ok.any():
            lb = max(lb, float(model.infos(c[ok]).max(axis=1).max()))
        keep = ub > lb + tol
        if (~keep).any():
            pruned_max = max(pruned_max, float(ub[~keep].max()))
        V, ub = V[keep], ub[keep]
        if len(V) == 0 or evaluated >= max_cells:
            break
        order = np.argsort(-ub)
        split, rest = order[:batch], order[batch:]
        Vs = V[split]
        d2 = np.sum((Vs[:, :, None, :] - Vs[:, None, :, :]) ** 2, axis=3)
        flat = d2.reshape(len(Vs), -1).argmax(axis=1)
        j, k = np.divmod(flat, D)
        mid = 0.5 * (Vs[np.arange(len(Vs)), j] + Vs[np.arange(len(Vs)), k])
        A_ = Vs.copy()
        B_ = Vs.copy()
        A_[np.arange(len(Vs)), j] = mid
        B_[np.arange(len(Vs)), k] = mid
        children = np.concatenate([A_, B_])
        cub, cc = _cell_bounds(model, children, b)
        evaluated += len(children)
        V = np.concatenate([V[rest], children])
        ub = np.concatenate([ub[rest], cub])
        c = cc
    left_max = float(ub.max()) if len(ub) else -np.inf
    upper = max(pruned_max, left_max, lb)
    return CertifiedBound(
        upper=float(upper),
        lower=float(lb),
        cells_evaluated=int(evaluated),
        cells_left=int(len(V)),
        converged=bool(upper - lb <= tol),
        tolerance=tol,
    )


# ------------------------------------------------------------------------------------------------ curve
@dataclass(frozen=True, eq=False)
class BalanceCurve:
    r"""δ(b) = C₁ − C₁ᵇ bracketed on a grid of b (all in nats).

    Attributes
    ----------
    b:
        Grid in :math:`[0, \log|\mathcal X|]`.
    c1_lower, c1_upper:
        Certified Theorem 2 bracket of :math:`C_1`.
    c1b_lower:
        Multistart IPOPT value (feasible point, running max from the right): a lower bound on :math:`C_1^b`.
    c1b_upper:
        Certified upper bound on :math:`C_1^b` (branch and bound, or the trivial :math:`C_1`).
    delta_upper:
        ``c1_upper − c1b_lower`` — an **upper** bound on δ(b) (this is "the curve").
    delta_lower:
        ``max(0, c1_lower − c1b_upper)`` — a certified **lower** bound on δ(b).
    zero_below:
        :math:`H(p^*)` of the Theorem 2 adversary: δ(b) = 0 exactly for b ≤ zero_below.
    n_reached, n_starts:
        Per b, how many starts reached the best value, of how many run (1 at b = log|X|: only the uniform
        joint is feasible there and it is evaluated, not optimised).
    certified:
        Whether the branch and bound ran (``False``: ``c1b_upper`` is the trivial :math:`C_1`).
    """

    name: str
    record_sizes: tuple[int, ...]
    b: np.ndarray
    c1_lower: float
    c1_upper: float
    c1b_lower: np.ndarray
    c1b_upper: np.ndarray
    delta_upper: np.ndarray
    delta_lower: np.ndarray
    zero_below: float
    n_reached: np.ndarray
    n_starts: np.ndarray
    starts: int
    seed: int
    certified: bool
    bb_converged: np.ndarray
    solve_time: float

    def to_dict(self, unit: str = "nats") -> dict:
        cv = lambda v: np.asarray(to_unit(np.asarray(v, float), unit)).tolist()  # noqa: E731
        return {
            "name": self.name,
            "record_sizes": list(self.record_sizes),
            "unit": unit,
            "b": cv(self.b),
            "C1_lower": float(to_unit(self.c1_lower, unit)),
            "C1_upper": float(to_unit(self.c1_upper, unit)),
            "C1b_lower_multistart": cv(self.c1b_lower),
            "C1b_upper_certified": cv(self.c1b_upper),
            "delta_upper": cv(self.delta_upper),
            "delta_lower_certified": cv(self.delta_lower),
            "delta_zero_for_b_at_most": float(to_unit(self.zero_below, unit)),
            "n_reached": self.n_reached.tolist(),
            "n_starts": self.n_starts.tolist(),
            "starts": self.starts,
            "seed": self.seed,
            "certified": self.certified,
            "branch_and_bound_converged": self.bb_converged.tolist(),
            "solve_time": self.solve_time,
            "note": "delta_upper uses a multistart (local) value of C1^b, so it is an upper bound on delta; "
            "delta_lower is certified (branch and bound, up to floating-point rounding).",
        }


def balance_curve(
    channel,
    *,
    points: int = 20,
    b_values: Sequence[float] | None = None,
    starts: int = 10,
    seed: int = 0,
    certify: bool = True,
    cert_tol: float = 1e-4,
    max_cells: int = 100_000,
    name: str = "channel",
    tolerance: float = DEFAULT_REACH_TOL,
) -> BalanceCurve:
    r"""Bracket the balance function δ(b) of ``channel`` on ``points`` equally spaced b in :math:`[0,\log|\mathcal X|]`.

    ``certify`` runs :func:`certified_c1b_upper` at each b (practical for :math:`|\mathcal X|\le 8`).
    """
    t0 = time.perf_counter()
    starts, seed = check_starts(starts, seed)
    model = JointCapacityModel.build(channel)
    D = model.n_databases
    hmax = math.log(D)
    if b_values is None:
        if points < 2:
            raise InvalidInputError(f"points must be ≥ 2, got {points!r}")
        bs = np.linspace(0.0, hmax, points)
    else:
        bs = np.asarray(b_values, float)
        if bs.ndim != 1 or bs.size == 0 or np.any(bs < 0) or np.any(bs > hmax + 1e-12):
            raise InvalidInputError(f"b values must lie in [0, log|X|] = [0, {hmax:.6g}]")
        bs = np.sort(np.minimum(bs, hmax))
    c1_lo, c1_up, _ = theorem2_value(model.W)
    zero_below = _theorem2_adversary_entropy(model.W)
    lows, reached, n_run = [], [], []
    for b in bs:
        r = model.solve(b=float(b), starts=starts, seed=seed, tolerance=tolerance)
        v = r.value
        if b <= zero_below:
            v = max(v, c1_lo)  # the Theorem 2 adversary is feasible
        lows.append(v)
        reached.append(r.n_reached)
        n_run.append(r.n_starts)
    low = np.maximum.accumulate(np.asarray(lows)[::-1])[::-1]  # feasible at b' ⇒ feasible at b ≤ b'
    ups = np.full(bs.size, c1_up)
    conv = np.zeros(bs.size, bool)
    if certify:
        for k, b in enumerate(bs):
            if b >= hmax - 1e-9:  # only the uniform joint is feasible: C1^b is known exactly
                ups[k], conv[k] = low[k], True
                continue
            cb = certified_c1b_upper(model, float(b), lower=float(low[k]), tol=cert_tol, max_cells=max_cells)
            ups[k] = min(c1_up, cb.upper)
            conv[k] = cb.converged
        ups = np.minimum.accumulate(ups)  # C1^b non-increasing in b
    ups = np.maximum(ups, low)
    return BalanceCurve(
        name=name,
        record_sizes=tuple(int(s) for s in model.W.shape[:-1]),
        b=bs,
        c1_lower=c1_lo,
        c1_upper=c1_up,
        c1b_lower=low,
        c1b_upper=ups,
        delta_upper=np.maximum(c1_up - low, 0.0),
        delta_lower=np.maximum(c1_lo - ups, 0.0),
        zero_below=zero_below,
        n_reached=np.asarray(reached),
        n_starts=np.asarray(n_run),
        starts=starts,
        seed=seed,
        certified=certify,
        bb_converged=conv,
        solve_time=time.perf_counter() - t0,
    )


def _theorem2_adversary_entropy(W: np.ndarray) -> float:
    """H(p*) of the Theorem 2 adversary (0 if the sibling package is unavailable: no claim made)."""
    try:
        from problems.information.individual import individual_capacity
    except ImportError:  # pragma: no cover
        return 0.0
    return entropy(individual_capacity(W, tol=1e-10).adversary)
