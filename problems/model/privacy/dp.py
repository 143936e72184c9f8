r"""The constraints of the ratio form :math:`W[x,y] \le e^{a} W[x',y]` and (ε, δ)-DP.

ε-differential privacy (Dwork et al. 2006), local DP (Kairouz, Oh & Viswanath 2014), metric privacy
(Chatzikokolakis et al. 2013), ε-identifiability (Wang, Ying & Zhang 2016) and (ε, δ)-DP in its exact
hockey-stick form; the table of :mod:`problems.model.privacy` states each one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np

from ...errors import InvalidInputError, ShapeMismatchError
from ..neighbours import describe, resolve_pairs
from .base import (
    Built,
    LagTerm,
    PrivacyConstraint,
    _check_delta,
    _check_level,
    _pairs,
    _Ratio,
    _ratio_matrix,
)

__all__ = ["Differential", "Local", "Approximate", "Metric", "Identifiability"]


# ----------------------------------------------------------------------------------------------- DP family
@dataclass(frozen=True)
class Differential(_Ratio):
    r"""ε-differential privacy on a neighbour relation: :math:`W[x,y] \le e^\epsilon W[x',y]`, x ~ x'."""

    eps: float
    neighbours: Any = "all"
    kind: ClassVar[str] = "differential"

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", _check_level(self.eps))

    def pairs(self, ctx):
        i, j = resolve_pairs(self.neighbours, ctx.N)
        return i, j, np.full(i.size, self.eps)

    def validate(self, ctx):
        resolve_pairs(self.neighbours, ctx.N)

    def to_dict(self, ctx):
        i, j = resolve_pairs(self.neighbours, ctx.N)
        return {
            "kind": self.kind,
            "eps": self.eps,
            "relation": describe(self.neighbours),
            "pairs": _pairs(i, j),
        }

    def describe(self):
        return f"{self.eps:g}-DP ({describe(self.neighbours)})"


@dataclass(frozen=True)
class Local(Differential):
    r"""ε-local differential privacy: ε-DP with every pair of inputs neighbours."""

    eps: float
    neighbours: Any = field(default="all", init=False)
    kind: ClassVar[str] = "local"

    def to_dict(self, ctx):
        return {"kind": self.kind, "eps": self.eps}

    def describe(self):
        return f"{self.eps:g}-local DP"


@dataclass(frozen=True)
class Approximate(PrivacyConstraint):
    r"""(ε, δ)-differential privacy, exact over all output sets.

    For each ordered pair x ~ x' the condition :math:`P(Y\in S|x) \le e^\epsilon P(Y\in S|x') + \delta` for every
    S is equivalent to the hockey-stick divergence bound
    :math:`\sum_y \max(0, W[x,y] - e^\epsilon W[x',y]) \le \delta` (the worst S is {y : W[x,y] > e^ε W[x',y]}).
    As an LP: :math:`t_{x,x',y} \ge W[x,y] - e^\epsilon W[x',y]`, :math:`t \ge 0`, :math:`\sum_y t_{x,x',y} \le \delta`.
    With δ = 0 it is ε-DP and takes the ratio form (so the LP core can solve it).
    """

    eps: float
    delta: float
    neighbours: Any = "all"
    kind: ClassVar[str] = "approximate"

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", _check_level(self.eps))
        object.__setattr__(self, "delta", _check_delta(self.delta))

    def ratio_rows(self, ctx):
        if self.delta > 0:
            return None
        i, j = resolve_pairs(self.neighbours, ctx.N)
        return i, j, np.full(i.size, self.eps)

    def validate(self, ctx):
        resolve_pairs(self.neighbours, ctx.N)

    def build(self, W, ctx):
        i, j = resolve_pairs(self.neighbours, ctx.N)
        N, K, P = ctx.N, ctx.K, i.size
        G = _ratio_matrix(i, j, np.full(P, self.eps), N, K)
        t = cp.Variable((P, K), nonneg=True, name=f"t_{self.kind}")
        c1 = G @ cp.vec(W, order="C") - cp.vec(t, order="C") <= 0
        c2 = cp.sum(t, axis=1) <= self.delta
        delta = self.delta

        Gabs = abs(G)

        def lag(Wv, aux, mults):
            lam1, lam2 = mults
            tv = aux[0]
            r1 = G @ Wv.ravel() - tv.ravel()
            r2 = tv.sum(axis=1) - delta
            val = float(lam1 @ r1 + lam2 @ r2)
            size = float(
                lam1 @ (Gabs @ np.abs(Wv.ravel()) + np.abs(tv.ravel())) + lam2 @ (np.abs(tv).sum(1) + delta)
            )
            gW = (G.T @ lam1).reshape(N, K)
            gt = -lam1.reshape(P, K) + lam2[:, None]
            gabs = lam1.reshape(P, K) + lam2[:, None]
            return LagTerm(val, gW, [gt], size, (Gabs.T @ lam1).reshape(N, K), [gabs])

        return Built([c1, c2], [c1, c2], [(t, "box")], lag)

    def _excess(self, W, ctx, eta=0.0):
        i, j = resolve_pairs(self.neighbours, ctx.N)
        return np.maximum(W[i] * (1 + eta) - math.exp(self.eps) * (1 - eta) * W[j], 0.0).sum(axis=1)

    def violation(self, W, ctx):
        ex = self._excess(W, ctx)
        return float(np.max(ex, initial=0.0) - self.delta)

    def holds(self, W, ctx, eta):
        ex = self._excess(W, ctx, eta)
        return bool(np.all(ex * (1 + eta) <= self.delta * (1 - eta)))

    def to_dict(self, ctx):
        i, j = resolve_pairs(self.neighbours, ctx.N)
        return {
            "kind": self.kind,
            "eps": self.eps,
            "delta": self.delta,
            "relation": describe(self.neighbours),
            "pairs": _pairs(i, j),
        }

    def describe(self):
        return f"({self.eps:g}, {self.delta:g})-DP ({describe(self.neighbours)})"


@dataclass(frozen=True)
class Metric(_Ratio):
    r"""Metric privacy (:math:`d_X`-privacy): :math:`W[x,y] \le e^{\epsilon D_X[x,x']} W[x',y]` for all x ≠ x'.

    Entries of ``distance`` equal to ``inf`` leave the pair unconstrained.
    """

    eps: float
    distance: Any = None
    kind: ClassVar[str] = "metric"

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", _check_level(self.eps))
        D = np.asarray(self.distance, dtype=float)
        if D.ndim != 2 or D.shape[0] != D.shape[1]:
            raise ShapeMismatchError(f"distance must be a square (N, N) matrix, got shape {D.shape}")
        if np.any(np.isnan(D)) or np.any(D < 0):
            raise InvalidInputError(
                "distance entries must be ≥ 0 (inf: no constraint), got a negative or NaN"
            )
        object.__setattr__(self, "distance", D)

    def validate(self, ctx):
        if self.distance.shape != (ctx.N, ctx.N):
            raise ShapeMismatchError(f"distance must be ({ctx.N}, {ctx.N}), got {self.distance.shape}")

    def pairs(self, ctx):
        self.validate(ctx)
        D = self.distance
        i, j = np.nonzero(np.isfinite(D) & ~np.eye(ctx.N, dtype=bool))
        return i.astype(np.int64), j.astype(np.int64), self.eps * D[i, j]

    def to_dict(self, ctx):
        D = np.where(np.isfinite(self.distance), self.distance, -1.0)
        return {"kind": self.kind, "eps": self.eps, "distance": D.tolist(), "note": "-1 means no constraint"}

    def describe(self):
        return f"{self.eps:g}·d_X metric privacy"


@dataclass(frozen=True)
class Identifiability(_Ratio):
    r"""ε-identifiability (Wang, Ying & Zhang 2016, Definition 2): :math:`p(x|y) \le e^\epsilon p(x'|y)` for x ~ x'.

    In the mechanism: :math:`p(x)W[x,y] \le e^\epsilon p(x')W[x',y]` (multiply by p(y) ≥ 0; exact as in PD-I),
    solved in the form :math:`W[x,y] \le e^{\epsilon + \ln p(x') - \ln p(x)} W[x',y]`.  Summing over y gives
    :math:`p(x) \le e^\epsilon p(x')`, so the program is infeasible below
    :math:`\epsilon_X = \max_{x\sim x'} \ln(p(x)/p(x'))` (Wang, Ying & Zhang 2016, Lemma 3).
    """

    eps: float
    neighbours: Any = "all"
    kind: ClassVar[str] = "identifiability"

    def __post_init__(self) -> None:
        object.__setattr__(self, "eps", _check_level(self.eps))

    def eps_x(self, ctx) -> float:
        i, j = resolve_pairs(self.neighbours, ctx.N)
        p = ctx.prior
        if i.size == 0:
            return 0.0
        with np.errstate(divide="ignore"):
            r = np.log(p[i]) - np.log(p[j])
        r = np.where(p[i] == 0, -np.inf, r)
        return float(np.max(r))

    def validate(self, ctx):
        resolve_pairs(self.neighbours, ctx.N)

    def infeasibility(self, ctx):
        e_x = self.eps_x(ctx)
        if e_x == math.inf:
            return (
                "the prior gives zero mass to an input with a neighbour of positive mass, so no finite "
                f"identifiability level (ε = {self.eps:g}) is achievable"
            )
        if self.eps < e_x - 1e-12:
            return (
                f"ε = {self.eps:.6g} < ε_X = {e_x:.6g}: summing p(x)W[x,y] ≤ e^ε p(x')W[x',y] over y forces "
                "p(x) ≤ e^ε p(x') for all neighbours, which this prior violates (Wang, Ying & Zhang 2016, Lemma 3)"
            )
        return None

    def pairs(self, ctx):
        i, j = resolve_pairs(self.neighbours, ctx.N)
        p = ctx.prior
        keep = p[i] > 0  # rows with p(x) = 0 hold trivially
        i, j = i[keep], j[keep]
        return i, j, self.eps + np.log(p[j]) - np.log(p[i])

    def _sides(self, W, ctx):  # the posterior (joint) form, exactly the definition
        i, j = resolve_pairs(self.neighbours, ctx.N)
        p = ctx.prior
        return p[i][:, None] * W[i], math.exp(self.eps) * p[j][:, None] * W[j]

    def to_dict(self, ctx):
        i, j = resolve_pairs(self.neighbours, ctx.N)
        return {
            "kind": self.kind,
            "eps": self.eps,
            "relation": describe(self.neighbours),
            "pairs": _pairs(i, j),
        }

    def describe(self):
        return f"{self.eps:g}-identifiability ({describe(self.neighbours)})"
