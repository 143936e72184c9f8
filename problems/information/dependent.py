r"""Information privacy for dependent sources (Wu, Xia & He 2017: Wu, Xia, He, *Statistical disclosure control via
information theory*).

For a fixed, possibly correlated prior :math:`p(x)` and mechanism :math:`p(r|x)`, per individual :math:`i`:

* information-privacy level (Definition 3): :math:`\max_{x_i,r}\log\frac{\Pr[X_i=x_i,Y=r]}{\Pr[X_i=x_i]\Pr[Y=r]}`,
  the log of the ratio (8) = (9);
* relative-entropy level :math:`\max_r D((X_i|Y=r)\,\|\,X_i)` and mutual information :math:`I(X_i;Y)` (Theorem 1,
  eq. (10));
* inferential-privacy level: :math:`\max_{x_i,x_i',r}\log\frac{\Pr[Y=r|X_i=x_i]}{\Pr[Y=r|X_i=x_i']}`;
* :math:`I(X_i;Y|X_{(i)})` (Proposition 2: :math:`\le\epsilon` under :math:`\epsilon`-DP whatever the dependence).

Proposition 1: inferential :math:`\ge` information :math:`\ge` relative-entropy :math:`\ge` mutual-information level.

Example 2 (contagious disease): perfectly correlated individuals and an :math:`\epsilon`-DP noisy count; the ratio
(9) at :math:`r=n`, :math:`x_1=\text{infected}` tends to :math:`e^{n\epsilon}` (:math:`e^{2\epsilon}` for the paper's
two individuals) as :math:`\Pr[\text{infected}]\to0`.  Proposition 5: if each source is independent of at least
:math:`n-k` others and the mechanism is :math:`\epsilon/k`-DP, the information-privacy level is :math:`\le\epsilon`.
Theorem 2 / Lemma 6: with :math:`\eta=\max 1-\sum_{x_{(i)}}\min\{p(x_{(i)}|x_i),p(x_{(i)}|x_i')\}=e^{-b}` and
:math:`b\le\epsilon(1-1/k)`, an :math:`\epsilon/k`-DP mechanism is :math:`(\epsilon-b+\log2)`-information private.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidInputError, ShapeMismatchError
from .basic_channels import _check_eps
from .channel import PrivacyChannel, as_channel, joint_prior

__all__ = [
    "DependentPrivacyReport",
    "dependent_privacy_report",
    "information_privacy_ratios",
    "clamped_geometric_count_channel",
    "ContagiousExample",
    "contagious_example",
    "blocks_prior",
    "Theorem2Bound",
    "theorem2_bound",
]


def _joint_i(ch: PrivacyChannel, p: np.ndarray, i: int) -> np.ndarray:
    A = ch.record_sizes[i]
    return np.einsum("ar,ary->ay", np.moveaxis(p, i, 0).reshape(A, -1), ch.slices([i]))


def information_privacy_ratios(channel: PrivacyChannel | np.ndarray, prior: np.ndarray) -> list[np.ndarray]:
    r"""For each individual, the matrix :math:`\log\frac{\Pr[X_i=x_i,Y=r]}{\Pr[X_i=x_i]\Pr[Y=r]}` (Wu, Xia & He 2017 (9));
    ``-inf`` where the joint is 0, ``nan`` where :math:`\Pr[X_i=x_i]` or :math:`\Pr[Y=r]` is 0."""
    ch = as_channel(channel)
    p = joint_prior(ch, prior)
    out = []
    for i in range(ch.n):
        j = _joint_i(ch, p, i)
        pxi, py = j.sum(axis=1), j.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.log(j) - np.log(pxi)[:, None] - np.log(py)[None, :]
        r[(pxi[:, None] == 0) | (py[None, :] == 0)] = np.nan
        out.append(r)
    return out


@dataclass(frozen=True, eq=False)
class DependentPrivacyReport:
    """Per-individual privacy levels of a mechanism under a fixed prior (arrays of length n, nats)."""

    information_privacy: np.ndarray
    relative_entropy: np.ndarray
    mutual_information: np.ndarray
    inferential_privacy: np.ndarray
    conditional_mutual_information: np.ndarray

    @property
    def hierarchy_holds(self) -> bool:
        """Proposition 1 of Wu, Xia & He (2017) (up to 1e-12)."""
        t = 1e-12
        return bool(
            np.all(self.inferential_privacy >= self.information_privacy - t)
            and np.all(self.information_privacy >= self.relative_entropy - t)
            and np.all(self.relative_entropy >= self.mutual_information - t)
        )

    def to_dict(self) -> dict:
        return {
            "information_privacy": self.information_privacy.tolist(),
            "relative_entropy": self.relative_entropy.tolist(),
            "mutual_information": self.mutual_information.tolist(),
            "inferential_privacy": self.inferential_privacy.tolist(),
            "conditional_mutual_information": self.conditional_mutual_information.tolist(),
            "hierarchy_holds": self.hierarchy_holds,
            "unit": "nats",
            "indexing": "list position k is individual k+1",
        }


def dependent_privacy_report(
    channel: PrivacyChannel | np.ndarray, prior: np.ndarray
) -> DependentPrivacyReport:
    """All privacy levels of Wu, Xia & He (2017) §III for ``channel`` under the joint ``prior`` (shape ``record_sizes``)."""
    ch = as_channel(channel)
    p = joint_prior(ch, prior)
    W = ch.array
    n = ch.n
    info, rel, mi, inf, cmi = (np.zeros(n) for _ in range(5))
    for i in range(n):
        j = _joint_i(ch, p, i)
        pxi, py = j.sum(axis=1), j.sum(axis=0)
        ok = (pxi[:, None] > 0) & (py[None, :] > 0) & (j > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            lr = np.where(
                ok, np.log(np.where(ok, j, 1)) - np.log(np.where(ok, pxi[:, None] * py[None, :], 1)), 0
            )
        info[i] = lr[ok].max() if np.any(ok) else 0.0
        mi[i] = float(np.sum(np.where(ok, j * lr, 0.0)))
        # D((X_i | Y=r) || X_i) = sum_x p(x|r) log p(x|r)/p(x) = sum_x p(x|r) lr
        with np.errstate(divide="ignore", invalid="ignore"):
            post = np.where(py[None, :] > 0, j / np.where(py > 0, py, 1)[None, :], 0.0)
        rel[i] = float(np.max(np.sum(np.where(ok, post * lr, 0.0), axis=0)))
        sup = pxi > 0
        cond = j[sup] / pxi[sup][:, None]  # p(r | x_i)
        with np.errstate(divide="ignore", invalid="ignore"):
            lc = np.log(cond)
        diff = lc[:, None, :] - lc[None, :, :]
        diff = np.where(np.isnan(diff), -np.inf, diff)
        inf[i] = max(float(np.max(diff)), 0.0)
        # I(X_i; Y | X_(i)) = sum_x p(x) sum_y W log W / p(y | x_(i))
        pm = np.moveaxis(p, i, 0)
        Wm = np.moveaxis(W, i, 0)
        prest = pm.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            py_rest = np.einsum("a...,a...y->...y", pm, Wm) / prest[..., None]
            term = np.where((Wm > 0) & (pm[..., None] > 0), Wm * (np.log(Wm) - np.log(py_rest[None])), 0.0)
        cmi[i] = float(np.sum(pm[..., None] * term))
    return DependentPrivacyReport(info, rel, mi, inf, cmi)


def clamped_geometric_count_channel(n: int, eps: float) -> PrivacyChannel:
    r"""Counting query on ``n`` binary records with clamped two-sided geometric noise, outputs ``0..n``.

    :math:`P(r|c) = \frac{1-\alpha}{1+\alpha}\alpha^{|r-c|}` for :math:`0<r<n`, :math:`P(0|c)=\frac{\alpha^{c}}{1+\alpha}`,
    :math:`P(n|c)=\frac{\alpha^{n-c}}{1+\alpha}`, :math:`\alpha=e^{-\epsilon}`; this is :math:`\epsilon`-DP (the
    clamped discrete Laplace mechanism), the discrete stand-in for the Laplace noise of Wu, Xia & He (2017) Example 1/2.
    """
    e = _check_eps(eps)
    if int(n) < 1:
        raise InvalidInputError(f"n must be >= 1, got {n!r}")
    n = int(n)
    a = math.exp(-e)
    r = np.arange(n + 1)
    K = np.empty((n + 1, n + 1))
    for c in range(n + 1):
        K[c] = (1 - a) / (1 + a) * a ** np.abs(r - c)
        K[c, 0] = a**c / (1 + a)
        K[c, n] = a ** (n - c) / (1 + a)
    return PrivacyChannel.from_query([2] * n, lambda x: int(sum(x)), K)


@dataclass(frozen=True, eq=False)
class ContagiousExample:
    """Example 2 of Wu, Xia & He (2017) (generalised to ``n`` family members; record 1 = infected)."""

    eps: float
    p_infected: float
    n: int
    channel: PrivacyChannel
    prior: np.ndarray
    log_ratio: float  # log of (9) at x_1 = infected, r = n
    limit: float  # n * eps, the p_infected -> 0 limit
    dp_level: float

    def to_dict(self) -> dict:
        return {
            "eps": self.eps,
            "p_infected": self.p_infected,
            "n": self.n,
            "log_ratio": self.log_ratio,
            "ratio": math.exp(self.log_ratio),
            "limit_log_ratio": self.limit,
            "dp_level": self.dp_level,
            "unit": "nats",
        }


def contagious_example(eps: float, p_infected: float, n: int = 2) -> ContagiousExample:
    r"""Perfectly correlated family (all infected w.p. ``p_infected``, else none) and an ``eps``-DP noisy count.

    The ratio (9) at :math:`x_1=` infected, :math:`r=n` equals
    :math:`\frac{P(n|n)}{p\,P(n|n)+(1-p)P(n|0)}\to\alpha^{-n}=e^{n\epsilon}` as :math:`p\to0`.
    """
    from ..measures import dp_level

    e = _check_eps(eps)
    if not (0 < p_infected < 1):
        raise InvalidInputError(f"p_infected must lie in (0, 1), got {p_infected!r}")
    ch = clamped_geometric_count_channel(n, e)
    prior = np.zeros([2] * n)
    prior[(1,) * n] = p_infected
    prior[(0,) * n] = 1 - p_infected
    ratios = information_privacy_ratios(ch, prior)
    return ContagiousExample(e, float(p_infected), n, ch, prior, float(ratios[0][1, n]), n * e, dp_level(ch))


def blocks_prior(
    record_sizes: Sequence[int], blocks: Sequence[Sequence[int]], block_priors: Sequence[np.ndarray]
) -> np.ndarray:
    r"""Joint prior in which the groups ``blocks`` (0-based, a partition of the individuals) are mutually
    independent, block :math:`B` having joint pmf ``block_priors[b]`` (axes in the order listed in the block).
    Each source is then independent of at least :math:`n-k` others, :math:`k=\max|B|` (Proposition 5 setting)."""
    sizes = list(record_sizes)
    flat = [j for b in blocks for j in b]
    if sorted(flat) != list(range(len(sizes))):
        raise InvalidInputError(f"blocks {blocks!r} must partition the individuals 0..{len(sizes) - 1}")
    out = np.array(1.0)
    for b, bp in zip(blocks, block_priors):
        bp = np.asarray(bp, dtype=float)
        if bp.shape != tuple(sizes[j] for j in b):
            raise ShapeMismatchError(
                f"block prior for {list(b)} has shape {bp.shape}, need {[sizes[j] for j in b]}"
            )
        out = np.multiply.outer(out, bp)
    return np.transpose(out, np.argsort(flat))


@dataclass(frozen=True)
class Theorem2Bound:
    r"""Wu, Xia & He (2017) Theorem 2: :math:`\eta`, :math:`b=-\log\eta`, the :math:`b` used (:math:`\le\epsilon(1-1/k)`) and the
    information-privacy level :math:`\epsilon-b+\log2` guaranteed for :math:`\epsilon/k`-DP mechanisms."""

    eps: float
    k: int
    eta: float
    b: float
    b_used: float
    bound: float

    def to_dict(self) -> dict:
        return {**self.__dict__, "unit": "nats"}


def theorem2_bound(prior: np.ndarray, eps: float, k: int) -> Theorem2Bound:
    r""":math:`\eta=\max_{i,x_i,x_i'}\bigl(1-\sum_{x_{(i)}}\min\{p(x_{(i)}|x_i),p(x_{(i)}|x_i')\}\bigr)` (the largest
    total-variation distance between conditionals), :math:`b=-\log\eta`, :math:`b' = \min(b,\epsilon(1-1/k))`
    (the hypothesis :math:`\epsilon(1-1/k)\ge b` of Lemma 6 holds for :math:`b'` since :math:`\eta\le e^{-b'}`),
    bound :math:`\epsilon-b'+\log 2`."""
    e = _check_eps(eps, positive=True)
    if int(k) < 1:
        raise InvalidInputError(f"k must be >= 1, got {k!r}")
    p = np.asarray(prior, dtype=float)
    eta = 0.0
    for i in range(p.ndim):
        pm = np.moveaxis(p, i, 0).reshape(p.shape[i], -1)
        pxi = pm.sum(axis=1)
        sup = pxi > 0
        cond = pm[sup] / pxi[sup][:, None]
        tv = 1 - np.minimum(cond[:, None, :], cond[None, :, :]).sum(axis=2)
        eta = max(eta, float(tv.max()))
    b = math.inf if eta <= 0 else -math.log(eta)
    b_used = min(b, e * (1 - 1 / int(k)))
    return Theorem2Bound(e, int(k), eta, b, b_used, e - b_used + math.log(2))
