r"""Basic privacy channels and their calibration to :math:`\epsilon`-information privacy (Wu, Xia & He 2020, §4–5,
Wu (2019b), §4).

* Randomized response / binary symmetric privacy channel (49): :math:`p(y|x)=(1-p)^{1-|y-f(x)|}p^{|y-f(x)|}`,
  :math:`C_1 = \log 2 - H(p)` when every :math:`|\mathcal X_i| = 2` (eqs. (50)–(54), equality for
  :math:`n\ge1` binary records as soon as some slice contains both answers) and :math:`C_1\le\log2-H(p)` always.
  Calibration (57): :math:`p^*\in(0,\tfrac12]` solves :math:`H(p^*)=\log 2-\epsilon` (natural logs); every
  :math:`p\in[p^*,1-p^*]` gives :math:`C_1\le\epsilon` (Corollary 3 states the open interval).  The papers
  write :math:`\epsilon\in(0,1)`; a solution exists only for :math:`\epsilon<\log 2` — for
  :math:`\epsilon\ge\log2` every :math:`p` works and we return :math:`p^*=0`.
* Data-independent channels (Definition 12): :math:`C_1\le\log|\mathcal Y|-H(Z)` (63)/(64), with equality when
  the channel is weakly symmetric(-reachable) (Definition 13, eq. (65)).
* Discrete exponential privacy channel (69): :math:`p(y|x)=e^{-\phi_x(y)/N}/\alpha`, :math:`\phi_x(y)` the rank
  of :math:`y` by distortion :math:`d(y,f(x))` (67)–(68).  :math:`H(Z)` is given in closed form by (82);
  calibration (83): the largest :math:`\lambda=1/N` with :math:`H(Z)\ge\log k-\epsilon`.
* Gaussian privacy channel (Definition 16): :math:`C_1=\tfrac12\log(1+T^2/N)` (115) and calibration
  :math:`N\ge T^2/(e^{2\epsilon}-1)` (117); §5.2 compares the noise scale with the Laplace (:math:`\Delta f/\epsilon`)
  and Gaussian (:math:`\sqrt{2\ln(1.25/\delta)}\Delta f/\epsilon`) DP mechanisms.  Note: with the amplitude
  constraint :math:`\mathcal Y\subseteq[-T,T]` the value (115) is the power-constrained capacity, which is an
  *upper bound* on :math:`C_1` (the amplitude-constrained Gaussian capacity is strictly smaller, Smith 1971); the
  calibration (117) is therefore safe but not tight.  :func:`gaussian_amplitude_capacity` computes the
  discretised amplitude-constrained value for comparison.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

from ..errors import InvalidInputError, InvalidPrivacyLevelError
from .capacity import blahut_arimoto
from .channel import PrivacyChannel

__all__ = [
    "Calibration",
    "binary_entropy",
    "randomized_response_channel",
    "calibrate_randomized_response",
    "DataIndependentReport",
    "data_independent_bound",
    "exponential_channel",
    "exponential_entropy",
    "calibrate_exponential",
    "gaussian_capacity_bound",
    "calibrate_gaussian",
    "gaussian_amplitude_capacity",
    "NoiseComparison",
    "gaussian_noise_comparison",
]


def _check_eps(eps: float, *, positive: bool = False) -> float:
    from ..closed_forms import as_real

    e = as_real(eps, "privacy level eps must be a number", InvalidPrivacyLevelError)
    if not math.isfinite(e) or e < 0 or (positive and e == 0):
        need = "> 0" if positive else ">= 0"
        raise InvalidPrivacyLevelError(f"privacy level eps must be finite and {need} (nats), got {eps!r}")
    return e


@dataclass(frozen=True)
class Calibration:
    """A calibrated channel parameter (values in nats).

    Attributes
    ----------
    mechanism:
        ``"randomized-response"``, ``"exponential"`` or ``"gaussian"``.
    eps:
        Target privacy level.
    parameter, value:
        Name and value of the calibrated parameter (``p*``, ``lambda`` (= 1/N) or ``N``).
    capacity_bound:
        The paper's bound on :math:`C_1` at that parameter (equals ``eps`` unless the target is unreachable).
    equation:
        The paper equation solved.
    extra:
        Further values (e.g. ``N``, ``k``, ``T``, interval of admissible parameters).
    """

    mechanism: str
    eps: float
    parameter: str
    value: float
    capacity_bound: float
    equation: str
    extra: dict

    def to_dict(self) -> dict:
        """JSON-safe dict; an infinite parameter (every value works) is reported as ``None``."""
        d = {
            "mechanism": self.mechanism,
            "eps": self.eps,
            "parameter": self.parameter,
            "value": self.value,
            "capacity_bound": self.capacity_bound,
            "unit": "nats",
            "equation": self.equation,
            **{k: v for k, v in self.extra.items()},
        }
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}


# --- randomized response ------------------------------------------------------------------------------------
def binary_entropy(p: float | np.ndarray) -> float | np.ndarray:
    r""":math:`H(p) = -p\log p-(1-p)\log(1-p)` in nats (Wu, Xia & He 2020 eq. (55))."""
    pa = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(pa > 0, pa * np.log(np.where(pa > 0, pa, 1)), 0.0) - np.where(
            pa < 1, (1 - pa) * np.log(np.where(pa < 1, 1 - pa, 1)), 0.0
        )
    return float(h) if np.ndim(h) == 0 else h


def randomized_response_channel(
    record_sizes: Sequence[int], query: Callable[[tuple[int, ...]], int], p: float
) -> PrivacyChannel:
    r"""Binary symmetric privacy channel (49) of a binary query :math:`f:\mathcal X\to\{0,1\}` with flip prob. ``p``."""
    p = float(p)
    if not (0 <= p <= 1):
        raise InvalidInputError(f"flip probability p must lie in [0, 1], got {p!r}")
    return PrivacyChannel.from_query(record_sizes, query, np.array([[1 - p, p], [p, 1 - p]]))


def calibrate_randomized_response(eps: float) -> Calibration:
    r"""Solve :math:`H(p^*) = \log 2 - \epsilon` for :math:`p^*\in[0,\tfrac12]` (Wu, Xia & He 2020 eq. (57), Cor. 3).

    Any flip probability in :math:`[p^*, 1-p^*]` gives :math:`C_1 = \log2 - H(p) \le \epsilon`.
    """
    e = _check_eps(eps)
    if e >= math.log(2):
        p_star = 0.0
    elif e == 0:
        p_star = 0.5
    else:
        p_star = float(
            brentq(lambda p: binary_entropy(p) - (math.log(2) - e), 1e-300, 0.5, xtol=1e-15, rtol=1e-15)
        )
    return Calibration(
        mechanism="randomized-response",
        eps=e,
        parameter="p_star",
        value=p_star,
        capacity_bound=float(math.log(2) - binary_entropy(p_star)),
        equation="H(p*) = log 2 - eps  (Wu, Xia & He 2020 eq. (57))",
        extra={"admissible_interval": [p_star, 1 - p_star]},
    )


# --- data-independent channels --------------------------------------------------------------------------------
@dataclass(frozen=True)
class DataIndependentReport:
    r"""Definition 12/13 check and the bound :math:`\log|\mathcal Y| - H(Z)` (nats)."""

    data_independent: bool
    weakly_symmetric: bool
    bound: float
    entropy_z: float
    witness_individual: int | None
    witness_vertex: tuple[int, ...] | None

    def to_dict(self) -> dict:
        return {
            "data_independent": self.data_independent,
            "weakly_symmetric": self.weakly_symmetric,
            "bound": self.bound,
            "entropy_Z": self.entropy_z,
            "witness_individual": None if self.witness_individual is None else self.witness_individual + 1,
            "witness_vertex": None if self.witness_vertex is None else list(self.witness_vertex),
            "unit": "nats",
        }


def data_independent_bound(
    channel: PrivacyChannel, *, atol: float = 1e-12, max_vertices: int = 1_000_000
) -> DataIndependentReport:
    r"""Check Definition 12 (rows are permutations of each other) and Definition 13 (weak symmetry).

    Returns the bound :math:`\log|\mathcal Y|-H(Z)` of (63)/(64) with :math:`Z\sim p(\cdot|x)`; when the channel is
    weakly symmetric(-reachable) — some individual :math:`i'` and vertex channel :math:`B\in\mathbb S_{i'}` have
    constant column sums :math:`\sum_{x_{i'}}B(y|x_{i'})` — the bound is attained, :math:`C_1=\log|\mathcal Y|-H(Z)`
    (65).  The weak-symmetry search enumerates vertex channels (after column deduplication).
    """
    m = channel.matrix
    srt = np.sort(m, axis=1)
    di = bool(np.all(np.abs(srt - srt[0]) <= atol))
    z = m[0]
    hz = float(-np.sum(np.where(z > 0, z * np.log(np.where(z > 0, z, 1)), 0.0)))
    bound = math.log(channel.n_outputs) - hz
    witness_i, witness_v = None, None
    if di:
        for i in range(channel.n):
            sl = channel.slices([i])  # (A, R, k)
            A = sl.shape[0]
            uniq = [np.unique(np.round(sl[a], 13), axis=0, return_index=True)[1] for a in range(A)]
            count = int(np.prod([len(u) for u in uniq]))
            if count > max_vertices:
                continue
            choice = np.indices([len(u) for u in uniq]).reshape(A, -1).T
            pos = np.stack([uniq[a][choice[:, a]] for a in range(A)], axis=1)  # (V, A)
            sums = sum(sl[a][pos[:, a]] for a in range(A))  # (V, k)
            ok = np.all(np.abs(sums - sums[:, :1]) <= 1e-9, axis=1)
            if np.any(ok):
                witness_i, witness_v = i, tuple(int(v) for v in pos[int(np.argmax(ok))])
                break
    return DataIndependentReport(
        data_independent=di,
        weakly_symmetric=witness_i is not None,
        bound=bound,
        entropy_z=hz,
        witness_individual=witness_i,
        witness_vertex=witness_v,
    )


# --- exponential channel --------------------------------------------------------------------------------------
def exponential_channel(
    record_sizes: Sequence[int],
    query: Callable[[tuple[int, ...]], int],
    n_outputs: int,
    lam: float,
    distortion: Callable[[int, int], float] | None = None,
) -> PrivacyChannel:
    r"""Discrete exponential privacy channel (69) with :math:`\lambda = 1/N`.

    :math:`\phi_x(y)` is the rank (0-based, ties broken by the output index) of :math:`y` when the outputs are
    sorted by :math:`d(y, f(x))` (67)–(68); the default distortion is :math:`|y-f(x)|`.
    """
    k = int(n_outputs)
    if k < 1:
        raise InvalidInputError(f"n_outputs must be >= 1, got {n_outputs!r}")
    lam = float(lam)
    if not (math.isfinite(lam) and lam >= 0):
        raise InvalidInputError(f"lambda = 1/N must be finite and >= 0, got {lam!r}")
    d = distortion or (lambda y, a: abs(y - a))
    noise = np.empty((k, k))
    for a in range(k):
        order = sorted(range(k), key=lambda y: (d(y, a), y))
        phi = np.empty(k)
        phi[order] = np.arange(k)
        w = np.exp(-lam * phi)
        noise[a] = w / w.sum()
    return PrivacyChannel.from_query(record_sizes, query, noise)


def exponential_entropy(lam: float, k: int) -> float:
    r""":math:`H(Z)` of the exponential channel, closed form (82):
    :math:`\log\frac{1-e^{-k\lambda}}{1-e^{-\lambda}}+\frac{\lambda}{e^\lambda-1}-\frac{k\lambda}{e^{k\lambda}-1}`."""
    if lam == 0:
        return math.log(k)
    return float(
        math.log(-math.expm1(-k * lam) / -math.expm1(-lam)) + _x_over_expm1(lam) - _x_over_expm1(k * lam)
    )


def _x_over_expm1(x: float) -> float:
    """x/(e^x − 1) for x > 0 without overflow: x e^{−x}/(1 − e^{−x}) (→ 0 as x → ∞, where e^x overflows)."""
    return x * math.exp(-x) / -math.expm1(-x)


def calibrate_exponential(eps: float, k: int) -> Calibration:
    r"""Largest :math:`\lambda=1/N` with :math:`H(Z)\ge\log k-\epsilon` (Wu, Xia & He 2020 eq. (83), Corollary 5).

    :math:`H(Z)` decreases from :math:`\log k` (:math:`\lambda=0`) to 0 (:math:`\lambda\to\infty`), so the solution of
    :math:`H(Z)=\log k-\epsilon` is unique; for :math:`\epsilon\ge\log k` every :math:`\lambda` works
    (returned as ``inf``).  The paper also remarks :math:`\lambda\le1`; we do not impose it.
    """
    e = _check_eps(eps)
    k = int(k)
    if k < 2:
        raise InvalidInputError(f"k = |Y| must be >= 2 for the exponential channel, got {k!r}")
    target = math.log(k) - e
    if target <= 0:
        lam = math.inf
    elif e == 0:
        lam = 0.0
    else:
        # a bracket [hi/2, hi] by doubling or halving (λ* ≈ 1/k for large k: an absolute xtol would return 0)
        hi = 1.0
        while exponential_entropy(hi, k) > target:
            hi *= 2
        while hi > 1e-300 and exponential_entropy(hi / 2, k) <= target:
            hi /= 2
        lo = hi / 2
        lam = float(brentq(lambda t: exponential_entropy(t, k) - target, lo, hi, xtol=1e-15 * lo, rtol=1e-14))
    bound = math.log(k) - (exponential_entropy(lam, k) if math.isfinite(lam) else 0.0)
    return Calibration(
        mechanism="exponential",
        eps=e,
        parameter="lambda",
        value=lam,
        capacity_bound=bound,
        equation="H(Z) = log k - eps with H(Z) from (82)  (Wu, Xia & He 2020 eq. (83))",
        extra={"k": k, "N": (1 / lam if lam > 0 else math.inf)},
    )


# --- Gaussian channel -----------------------------------------------------------------------------------------
def gaussian_capacity_bound(N: float, T: float) -> float:
    r""":math:`\tfrac12\log(1+T^2/N)` (Wu, Xia & He 2020 eq. (115)); an upper bound on :math:`C_1` (see module notes)."""
    if not (N > 0 and T > 0):
        raise InvalidInputError(f"need N > 0 and T > 0, got N = {N!r}, T = {T!r}")
    return 0.5 * math.log1p(T * T / N)


def calibrate_gaussian(eps: float, T: float) -> Calibration:
    r""":math:`N = T^2/(e^{2\epsilon}-1)` (Wu, Xia & He 2020 eq. (117)): the smallest noise variance with (115) :math:`\le\epsilon`."""
    e = _check_eps(eps, positive=True)
    if not (math.isfinite(T) and T > 0):
        raise InvalidInputError(f"T (the output range is [-T, T]) must be finite and > 0, got {T!r}")
    N = T * T / math.expm1(2 * e)
    return Calibration(
        mechanism="gaussian",
        eps=e,
        parameter="N",
        value=N,
        capacity_bound=gaussian_capacity_bound(N, T),
        equation="N = T^2 / (exp(2 eps) - 1)  (Wu, Xia & He 2020 eq. (117))",
        extra={"T": T, "std": math.sqrt(N)},
    )


def gaussian_amplitude_capacity(
    N: float, T: float, *, n_inputs: int = 41, n_outputs: int = 801, tol: float = 1e-9
) -> float:
    r"""Capacity (nats) of :math:`Y=X+Z`, :math:`Z\sim\mathcal N(0,N)`, :math:`|X|\le T`, discretised.

    Inputs on an ``n_inputs`` grid of :math:`[-T,T]`, outputs binned on :math:`[-T-8\sqrt N, T+8\sqrt N]` (data
    processing: binning lowers the value, so this is a lower bound on the continuous amplitude-constrained
    capacity, itself :math:`\le` (115)).
    """
    s = math.sqrt(N)
    x = np.linspace(-T, T, n_inputs)
    edges = np.linspace(-T - 8 * s, T + 8 * s, n_outputs + 1)
    edges[0], edges[-1] = -np.inf, np.inf
    cdf = norm.cdf((edges[None, :] - x[:, None]) / s)
    W = np.diff(cdf, axis=1)
    W = np.clip(W, 0, None)
    W /= W.sum(axis=1, keepdims=True)
    return blahut_arimoto(W, tol=tol, max_iter=200_000).lower_bound


@dataclass(frozen=True)
class NoiseComparison:
    r"""Noise scales of §5.2 of Wu, Xia & He (2020) for the same :math:`\epsilon`.

    ``*_scale`` are the quantities the paper compares (it calls them "variances"): Laplace :math:`\Delta f/\epsilon`,
    Gaussian DP mechanism :math:`\sqrt{2\ln(1.25/\delta)}\Delta f/\epsilon` (119), Gaussian privacy channel
    :math:`\sqrt N` (120).  ``*_std`` are the actual standard deviations (Laplace std is :math:`\sqrt2` × scale).
    """

    eps: float
    T: float
    sensitivity: float
    delta: float
    laplace_scale: float
    gaussian_dp_scale: float
    gaussian_channel_scale: float
    laplace_std: float
    gaussian_dp_std: float
    gaussian_channel_std: float

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def gaussian_noise_comparison(
    eps: float, T: float, sensitivity: float, delta: float = 1e-5
) -> NoiseComparison:
    """§5.2 comparison of the Laplace / Gaussian DP mechanisms with the Gaussian privacy channel (b = 0)."""
    e = _check_eps(eps, positive=True)
    if not (0 < delta < 1):
        raise InvalidInputError(f"delta must lie in (0, 1), got {delta!r}")
    if not (sensitivity > 0 and T > 0):
        raise InvalidInputError(f"need sensitivity > 0 and T > 0, got {sensitivity!r}, {T!r}")
    lap = sensitivity / e
    gdp = math.sqrt(2 * math.log(1.25 / delta)) * sensitivity / e
    gch = math.sqrt(calibrate_gaussian(e, T).value)
    return NoiseComparison(e, T, sensitivity, delta, lap, gdp, gch, math.sqrt(2) * lap, gdp, gch)
