r"""Max-information privacy and differential privacy (Wu, Xia & He 2020, §2.1, Definitions 7–10, Theorem 1).

* Max-mutual information (Definition 7, eq. (3)): :math:`I_\infty(X_i;Y)=\max_{x_i,y}\log\frac{p(y|x_i)}{p(y)}`
  over :math:`x_i` with :math:`p(x_i)>0` and :math:`y` with :math:`p(y)>0`.
* Max-individual channel capacity w.r.t. the independent priors :math:`\mathbb P_{ind}` (Definition 8, eq. (4),
  and (6)): :math:`C_{1,\infty}^{\mathbb P_{ind}} = \sup_{i,\,X\in\mathbb P_{ind}} I_\infty(X_i;Y)`.
* Differential privacy level (Definition 10, eq. (7)): :math:`\epsilon_{DP}=\max\log\frac{p(y|x)}{p(y|x')}` over
  neighbours (Hamming distance 1).

Theorem 1: :math:`C_{1,\infty}^{\mathbb P_{ind}}\le\epsilon \iff \epsilon`-DP, i.e.
:math:`C_{1,\infty}^{\mathbb P_{ind}} = \epsilon_{DP}`.  The proof's chain (9)–(14) is tight along the sequence of
product priors with :math:`p(x_{(i)})` degenerate at the maximising :math:`x_{(i)}` and
:math:`p(x_i)=(1-\delta)\mathbb 1_{x_i'}+\delta\mathbb 1_{x_i}`, :math:`\delta\to0`: the supremum is approached but
(for :math:`\epsilon_{DP}>0`) not attained.  :func:`max_information_independent` returns the closed form, the
witness, and the values along that sequence; :func:`optimise_max_information_independent` searches product
priors numerically (multistart, softmax parametrisation) as an independent check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from ..measures import dp_level  # noqa: F401  (the one DP level, also for channels)
from .channel import PrivacyChannel, as_channel, joint_prior

__all__ = [
    "DPWitness",
    "dp_witness",
    "max_information",
    "MaxInformationResult",
    "max_information_independent",
    "optimise_max_information_independent",
    "product_prior",
]


@dataclass(frozen=True)
class DPWitness:
    """Where the DP level is attained: ``individual`` (0-based), databases ``x``, ``x_prime``, output ``y``."""

    eps: float
    individual: int
    x: tuple[int, ...]
    x_prime: tuple[int, ...]
    y: int

    def to_dict(self) -> dict:
        return {
            "eps": self.eps,
            "individual": self.individual + 1,
            "x": list(self.x),
            "x_prime": list(self.x_prime),
            "y": self.y,
            "unit": "nats",
        }


def dp_witness(channel: PrivacyChannel | np.ndarray) -> DPWitness:
    r"""The DP level :math:`\epsilon_{DP}` (Def. 10, eq. (7)) with a maximising neighbour pair (``inf`` if some
    :math:`p(y|x)>0=p(y|x')`).  Vectorised: for each axis :math:`i`, :math:`\log\max_{x_i}W - \log\min_{x_i}W`."""
    ch = as_channel(channel)
    W = ch.array
    best: tuple[float, int, tuple[int, ...], tuple[int, ...], int] = (-np.inf, 0, (), (), 0)
    for i in range(ch.n):
        mx = W.max(axis=i)
        mn = W.min(axis=i)
        with np.errstate(divide="ignore"):
            r = np.where(mx > 0, np.log(mx) - np.log(mn), 0.0)
        j = np.unravel_index(int(np.argmax(r)), r.shape)
        if r[j] > best[0]:
            rest, y = j[:-1], int(j[-1])
            fibre = W[rest[:i] + (slice(None),) + rest[i:] + (y,)]
            a, b = int(np.argmax(fibre)), int(np.argmin(fibre))
            x = rest[:i] + (a,) + rest[i:]
            xp = rest[:i] + (b,) + rest[i:]
            best = (float(r[j]), i, tuple(map(int, x)), tuple(map(int, xp)), y)
    eps = max(best[0], 0.0)
    return DPWitness(eps, best[1], best[2], best[3], best[4])


def max_information(channel: PrivacyChannel | np.ndarray, prior: np.ndarray) -> np.ndarray:
    r""":math:`I_\infty(X_i;Y)` (Definition 7, eq. (3)) for every individual ``i`` under the joint ``prior``.

    Returns an array of length ``n`` (nats).
    """
    ch = as_channel(channel)
    p = joint_prior(ch, prior)
    W = ch.array
    py = np.tensordot(p, W, axes=ch.n)  # p(y)
    out = np.empty(ch.n)
    for i in range(ch.n):
        axes = tuple(j for j in range(ch.n) if j != i)
        A = ch.record_sizes[i]
        pa = np.moveaxis(p, i, 0).reshape(A, -1)
        joint = np.einsum("ar,ary->ay", pa, ch.slices([i]))  # p(x_i, y)
        pxi = p.sum(axis=axes) if axes else p
        ok = (pxi[:, None] > 0) & (py[None, :] > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(ok, joint / (pxi[:, None] * py[None, :]), 0.0)
        out[i] = np.log(ratio[ok].max()) if np.any(ok & (ratio > 0)) else 0.0
    return out


def product_prior(marginals: list[np.ndarray]) -> np.ndarray:
    r"""The independent prior :math:`p(x)=\prod_i p(x_i)` of :math:`\mathbb P_{ind}` (eq. (6))."""
    out = np.array(1.0)
    for m in marginals:
        out = np.multiply.outer(out, np.asarray(m, dtype=float))
    return out


@dataclass(frozen=True)
class MaxInformationResult:
    r""":math:`C_{1,\infty}^{\mathbb P_{ind}}` and the DP level (nats).

    ``value`` is the closed-form supremum (= ``dp_level`` by Theorem 1); ``sequence`` lists
    ``(delta, I_inf)`` along the product priors of the proof, which increase to ``value``.
    """

    value: float
    dp_level: float
    witness: DPWitness
    sequence: tuple[tuple[float, float], ...]

    def to_dict(self) -> dict:
        return {
            "max_individual_capacity_ind": self.value,
            "dp_level": self.dp_level,
            "witness": self.witness.to_dict(),
            "sequence": [list(s) for s in self.sequence],
            "unit": "nats",
        }


def max_information_independent(
    channel: PrivacyChannel | np.ndarray, deltas: tuple[float, ...] = (1e-1, 1e-2, 1e-4, 1e-6, 1e-8)
) -> MaxInformationResult:
    r""":math:`C_{1,\infty}^{\mathbb P_{ind}}` (Definition 8 with (6)) via the tight chain of Theorem 1's proof."""
    ch = as_channel(channel)
    w = dp_witness(ch)
    i = w.individual
    seq = []
    if np.isfinite(w.eps) and w.eps > 0:
        for d in deltas:
            margs = []
            for j in range(ch.n):
                m = np.zeros(ch.record_sizes[j])
                if j == i:
                    m[w.x[i]] += d
                    m[w.x_prime[i]] += 1 - d
                else:
                    m[w.x[j]] = 1.0
                margs.append(m)
            seq.append((float(d), float(max_information(ch, product_prior(margs))[i])))
    return MaxInformationResult(value=w.eps, dp_level=w.eps, witness=w, sequence=tuple(seq))


def optimise_max_information_independent(
    channel: PrivacyChannel | np.ndarray, *, restarts: int = 4, seed: int = 0, scale: float = 12.0
) -> float:
    r"""Numerical :math:`\sup_{X\in\mathbb P_{ind}}\max_i I_\infty(X_i;Y)`, an independent check of Theorem 1.

    For every target ``(i, x_i, y)`` maximise the smooth :math:`\log p(y|x_i) - \log p(y)` over product priors
    :math:`\prod_j\mathrm{softmax}(z_j)` with logits boxed in ``[-scale, scale]`` (L-BFGS-B, ``restarts`` random
    starts).  The value never exceeds :func:`dp_level` and approaches it as ``scale`` grows (the supremum sits on
    the boundary of the simplex).
    """
    ch = as_channel(channel)
    sizes = ch.record_sizes
    splits = np.cumsum(sizes)[:-1]
    rng = np.random.default_rng(seed)

    def margs(z):
        out = []
        for part in np.split(z, splits):
            e = np.exp(part - part.max())
            out.append(e / e.sum())
        return out

    best = 0.0
    for i in range(ch.n):
        sl = ch.slices([i])  # (A, R, Y)
        for a in range(sizes[i]):
            for y in range(ch.n_outputs):

                def f(z, i=i, a=a, y=y, sl=sl):
                    m = margs(z)
                    rest = product_prior([m[j] for j in range(ch.n) if j != i]).reshape(-1)
                    cond = sl[:, :, y] @ rest  # p(y | x_i) for every x_i
                    py = float(m[i] @ cond)
                    return -(np.log(max(cond[a], 1e-300)) - np.log(max(py, 1e-300)))

                for _ in range(restarts):
                    z0 = rng.uniform(-scale, scale, size=int(sum(sizes)))
                    r = minimize(f, z0, method="L-BFGS-B", bounds=[(-scale, scale)] * len(z0))
                    best = max(best, -float(r.fun))
    return best
