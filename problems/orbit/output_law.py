r"""E_i of an exchangeable prior as a parametrised mechanism: its output law by type and one row of E_d.

Lemma 4's mechanism (Wang, Ying & Zhang 2016) at a level ε is the joint q(x, y) = p_Y(y) K(x|y) with
K = K₁^{⊗n}, K₁(a|b) = e^{−ε[a≠b]}/(1 + (m−1)e^{−ε}), and p_Y(y) depending on y only through its type s
(:mod:`problems.orbit.mixture_pd_i`).  Given ln p̂_Y per output type (floats), the mechanism returned by the
toolkit is the exact normalisation

.. math::

    W(y|x) = \frac{\hat p_Y(s(y))\,K(x|y)}{\sum_{y'} \hat p_Y(s(y'))\,K(x|y')},

a well-defined object for any n: nothing of size mⁿ or of the number of joint types is stored.  What the
answers need of it is computed per input type t, from the joint types T with row sums t (for m = 2 and
t = (k, n − k), (k + 1)(n − k + 1) of them):

.. math::

    P(T(x, Y) = T \mid x) \propto c(T|t)\,\hat p_Y(s(T)) \prod_{a,b} K_1(a|b)^{T_{ab}},

with c(T|t) = Π_a t_a!/Π_{a,b} T_ab! the number of outputs of joint type T with x.  :func:`type_sums` sums
these by output type (the channel P(s(Y) = s | t(X) = t)), :func:`lifted` builds the N × N matrix for small N,
and :func:`sample_output_law` draws outputs for one x.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from ..database import DatabaseSpace
from ..errors import ProblemTooLargeError
from ..mechanism import Mechanism
from .types import arrange, composition_keys, compositions

__all__ = [
    "joint_types_given",
    "log_joint_type_law",
    "type_sums",
    "TypeSums",
    "channel_mechanism",
    "lifted",
    "sample_output_law",
    "TYPE_CHANNEL_MAX_TERMS",
]

#: Largest number of joint types summed for the type sums (m = 2, n = 400: 10.8 million in 5 s; m = 3, n = 30: 49 million).
TYPE_CHANNEL_MAX_TERMS = 60_000_000


def joint_types_given(t: np.ndarray, m: int) -> np.ndarray:
    """All m × m non-negative integer matrices with row sums ``t`` (row a a composition of t_a into m parts),
    as an ``(L, m, m)`` array."""
    rows = [compositions(int(ta), m) for ta in t]
    sizes = [r.shape[0] for r in rows]
    idx = np.stack([g.ravel() for g in np.meshgrid(*[np.arange(s) for s in sizes], indexing="ij")], axis=1)
    return np.stack([rows[a][idx[:, a]] for a in range(m)], axis=1)


def _log_k1(level: float, m: int) -> np.ndarray:
    """ln K₁(a|b) at the level: 0 on the diagonal, −level off it, minus ln(1 + (m−1)e^{−level})."""
    return np.where(np.eye(m, dtype=bool), 0.0, -level) - math.log1p((m - 1) * math.exp(-level))


def _log_terms(
    t: np.ndarray, n: int, m: int, level: float, log_py: np.ndarray, keys: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(T, ℓ): the joint types with row sums t and ℓ_T = ln[c(T|t) p̂_Y(s(T)) Π_{a,b} K₁(a|b)^{T_ab}]."""
    T = joint_types_given(np.asarray(t), m)
    Tf = T.astype(float)
    log_c = float(gammaln(np.asarray(t, dtype=float) + 1.0).sum()) - gammaln(Tf + 1.0).sum(axis=(1, 2))
    s = T.sum(axis=1)  # column sums: the output type
    ell = log_c + log_py[np.searchsorted(keys, composition_keys(s, n))]
    return T, ell + Tf.reshape(len(T), -1) @ _log_k1(level, m).ravel()


def _lse(ell: np.ndarray) -> float:
    top = float(np.max(ell))
    return top + math.log(float(np.sum(np.exp(ell - top))))


def log_joint_type_law(
    t: np.ndarray, n: int, m: int, level: float, log_py: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(T, ln P(T|x)) for x of type ``t``: the joint types with row sums t and their normalised log-probabilities
    under W (module docstring); ``log_py`` is ln p̂_Y per type in ``compositions(n, m)`` order."""
    T, ell = _log_terms(t, n, m, level, log_py, composition_keys(compositions(n, m), n))
    return T, ell - _lse(ell)


@dataclass(frozen=True)
class TypeSums:
    """Per input type t (``compositions(n, m)`` order): ln ŝ(x) = ln Σ_y p̂_Y(s(y)) K(x|y) for x of type t, a bound
    ``error`` on the absolute error of each (rigorous, from the size of every logarithm summed and the number of
    terms), and the type channel P(s(Y) = s | t(X) = t) when asked for."""

    log_sums: np.ndarray
    error: float
    channel: np.ndarray | None


def type_sums(n: int, m: int, level: float, log_py: np.ndarray, *, channel: bool = False) -> TypeSums:
    """The normalising sums of W per input type (and its type channel), summing every joint type once.

    Error of ln ŝ: each term's logarithm adds ln c(T|t) (at most 2 ln n! in size), ln p̂_Y(s) (taken as exact: the
    mechanism is defined by these floats), Σ T_ab ln K₁(a|b) (n terms, |ln K₁| ≤ level + ln m) and ln K₁'s own
    rounding; each operation a unit of roundoff of the running size, 8 units each as margin; the log-sum-exp of
    L non-negative terms adds (L + 4) units.
    """
    from ..solvers.settings import UNIT_ROUNDOFF

    types = compositions(n, m)
    terms = math.comb(n + m * m - 1, m * m - 1)
    if terms > TYPE_CHANNEL_MAX_TERMS:
        raise ProblemTooLargeError(
            f"the output law's type sums at n = {n}, m = {m} take {terms} joint types, above {TYPE_CHANNEL_MAX_TERMS}"
        )
    keys = composition_keys(types, n)
    K = types.shape[0]
    log_sums = np.empty(K)
    C = np.zeros((K, K)) if channel else None
    longest = 0
    for i, t in enumerate(types):
        T, ell = _log_terms(t, n, m, level, log_py, keys)
        log_sums[i] = _lse(ell)
        longest = max(longest, len(T))
        if C is not None:
            col = np.searchsorted(keys, composition_keys(T.sum(axis=1), n))
            C[i] = np.bincount(col, weights=np.exp(ell - log_sums[i]), minlength=K)
    size = (
        2.0 * math.lgamma(n + 1.0)
        + float(np.max(np.abs(log_py)))
        + 2.0 * n * (abs(level) + math.log(m) + 1.0)
    )
    error = 8.0 * UNIT_ROUNDOFF * (size + 16.0) + (longest + 4.0) * UNIT_ROUNDOFF
    if C is not None:
        C /= C.sum(axis=1, keepdims=True)
    return TypeSums(log_sums, error, C)


def channel_mechanism(n: int, m: int, C: np.ndarray) -> Mechanism:
    """The type channel ``C`` as a :class:`~problems.mechanism.Mechanism` labelled by types."""
    labels = tuple("t=(" + ",".join(map(str, t)) + ")" for t in compositions(n, m))
    return Mechanism(C, labels, labels)


def lifted(n: int, m: int, level: float, log_py: np.ndarray) -> np.ndarray:
    """The N × N matrix W(y|x) (N = mⁿ, :func:`itertools.product` order), rows normalised."""
    space = DatabaseSpace(n, m)
    e = space.elements
    s = np.stack([(e == a).sum(axis=1) for a in range(m)], axis=1)
    log_py_y = log_py[np.searchsorted(composition_keys(compositions(n, m), n), composition_keys(s, n))]
    differ = (e[:, None, :] != e[None, :, :]).sum(axis=2)  # d(x, y)
    log_k1 = _log_k1(level, m)
    log_w = log_py_y[None, :] + n * log_k1[0, 0] + differ * (log_k1[0, 1] - log_k1[0, 0])
    log_w -= log_w.max(axis=1, keepdims=True)
    W = np.exp(log_w)
    return W / W.sum(axis=1, keepdims=True)


def sample_output_law(
    x: np.ndarray, n: int, m: int, level: float, log_py: np.ndarray, size: int, rng: np.random.Generator
) -> np.ndarray:
    """``size`` outputs y ~ W(·|x): a joint type T from P(T|x), then for each value a the rows with x_k = a receive
    the values b with counts T_ab in a uniformly random arrangement."""
    t = np.bincount(x, minlength=m)
    T, log_w = log_joint_type_law(t, n, m, level, log_py)
    p = np.exp(log_w)
    return arrange(x, T[rng.choice(len(T), size=size, p=p / p.sum())], rng)
