r"""Privacy (and loss) constraints of a mechanism-design model, one small dataclass each.

Every constraint acts on the mechanism :math:`W[x, y] = p(y\mid x)` (rows: inputs, columns: outputs) of a
:class:`~problems.model.MechanismModel` with prior p and loss L, and provides

* ``build(W, ctx)`` — its CVXPY constraints (vectorised: sparse index arrays, no loop over pairs), the
  auxiliary variables it needs and its part of the Lagrangian used by the model's lower bound;
* ``ratio_rows(ctx)`` — for the constraints of the ratio form :math:`W[i,y] \le e^{a_p} W[j,y]` (ε-DP,
  local, metric, identifiability, (ε, 0)-DP), the pairs and log-factors :math:`a_p`, which lets the model
  route a program to the LP core (:mod:`problems.lp`);
* ``violation(W, ctx)`` — the largest violation on a given mechanism, by plain NumPy (≤ 0 when satisfied);
* ``holds(W, ctx, eta)`` — the same test with a relative safety margin ``eta`` (used to prove a returned
  mechanism feasible);
* ``to_dict(ctx)`` — the constraint with its resolved data, for JSON export and :func:`from_dict`.

The mathematics (``docs/model.md``):

=====================  ==========================================================================================
constructor            constraint on W
=====================  ==========================================================================================
``differential``       :math:`W[x,y] \le e^\epsilon W[x',y]` for neighbours x ~ x' (Dwork et al. 2006)
``approximate``        :math:`\sum_y \max(0, W[x,y] - e^\epsilon W[x',y]) \le \delta` for x ~ x' (hockey stick;
                       equivalent to :math:`P(Y\in S\mid x) \le e^\epsilon P(Y\in S\mid x') + \delta` for all S)
``local``              ε-DP with every pair of inputs neighbours (Kairouz, Oh & Viswanath 2014)
``metric``             :math:`W[x,y] \le e^{\epsilon D_X[x,x']} W[x',y]` (Chatzikokolakis et al. 2013)
``identifiability``    :math:`p(x)W[x,y] \le e^\epsilon p(x')W[x',y]`, i.e. :math:`p(x\mid y) \le e^\epsilon
                       p(x'\mid y)` (Wang, Ying & Zhang 2016, (8); PD-I)
``mutual_information`` :math:`I(X;Y) = \sum_{x,y} p(x)W[x,y]\ln(W[x,y]/q(y)) \le I_{\max}`, q = pᵀW (nats)
``individual_capacity`` :math:`C(B) \le \epsilon` for every vertex channel B of every individual
                       (Wu, Xia & He 2020, Theorem 2), via :math:`\exists q_B: D(B_a\|q_B) \le \epsilon\ \forall a`
``expected_loss``      :math:`\sum_{x,y} p(x)W[x,y]L[x,y] \le D`
=====================  ==========================================================================================
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
import scipy.sparse as sp
from scipy.special import rel_entr

from ..database import DatabaseSpace
from ..errors import InvalidInputError, InvalidPrivacyLevelError, ShapeMismatchError
from .neighbours import UnboundedSpace, describe, resolve_pairs

__all__ = [
    "ModelContext",
    "Built",
    "LagTerm",
    "PrivacyConstraint",
    "Differential",
    "Approximate",
    "Local",
    "Metric",
    "Identifiability",
    "MutualInformation",
    "IndividualCapacity",
    "ExpectedLoss",
    "differential",
    "approximate",
    "local",
    "metric",
    "identifiability",
    "mutual_information",
    "individual_capacity",
    "expected_loss",
    "from_dict",
]


# ----------------------------------------------------------------------------------------------- helpers
def _check_level(value, name: str = "eps") -> float:
    try:
        e = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidPrivacyLevelError(f"{name} must be a number ≥ 0 (nats), got {value!r}") from exc
    if not math.isfinite(e) or e < 0:
        raise InvalidPrivacyLevelError(f"{name} must be finite and ≥ 0 (nats), got {value!r}")
    return e


def _check_delta(value) -> float:
    try:
        d = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"delta must be a number in [0, 1], got {value!r}") from exc
    if not (0.0 <= d <= 1.0):
        raise InvalidInputError(f"delta must lie in [0, 1], got {value!r}")
    return d


@dataclass(frozen=True)
class ModelContext:
    """The data every constraint may use: prior p (length N) and loss L (N × K)."""

    prior: np.ndarray
    loss: np.ndarray

    @property
    def N(self) -> int:
        return int(self.loss.shape[0])

    @property
    def K(self) -> int:
        return int(self.loss.shape[1])


@dataclass(frozen=True)
class LagTerm:
    """A constraint's term Σ λ·g(W, aux) of the Lagrangian (multipliers clipped to ≥ 0 by the caller).

    ``value`` and its gradients ``gW`` (in W) and ``gaux`` (in each auxiliary variable); ``size``,
    ``gW_abs`` and ``gaux_abs`` bound the sums of absolute values of the terms that make them up, so the
    caller can bound their rounding error (cancellation included).
    """

    value: float
    gW: np.ndarray
    gaux: list[np.ndarray]
    size: float
    gW_abs: np.ndarray
    gaux_abs: list[np.ndarray]


#: ``lagrangian(W, aux, mults) -> LagTerm``.
Lagrangian = Callable[[np.ndarray, list[np.ndarray], list[np.ndarray]], LagTerm]


@dataclass
class Built:
    """What a constraint adds to the CVXPY problem.

    ``constraints`` all go into the problem; ``dual`` are those whose multipliers enter the Lagrangian lower
    bound (the others, e.g. ``Σ q_B = 1``, describe the domain of an auxiliary variable); ``aux`` lists the
    auxiliary variables with their domain, ``"box"`` (entries in [0, 1]) or ``"simplex"`` (rows sum to 1).
    """

    constraints: list[cp.Constraint]
    dual: list[cp.Constraint]
    aux: list[tuple[cp.Variable, str]]
    lagrangian: Lagrangian


def _ratio_matrix(i: np.ndarray, j: np.ndarray, logf: np.ndarray, N: int, K: int) -> sp.csr_matrix:
    """Rows ``W[i_p, y] − e^{logf_p} W[j_p, y]`` (row p·K + y) on vec(W) in row-major order."""
    P = i.size
    y = np.arange(K)
    rows = (np.arange(P)[:, None] * K + y).ravel()
    src = (i[:, None] * K + y).ravel()
    dst = (j[:, None] * K + y).ravel()
    coef = np.repeat(np.exp(logf), K)
    return sp.csr_matrix(
        (np.concatenate([np.ones(P * K), -coef]), (np.concatenate([rows, rows]), np.concatenate([src, dst]))),
        shape=(P * K, N * K),
    )


def _linear_lagrangian(G: sp.csr_matrix, h: np.ndarray, shape: tuple[int, int]) -> Lagrangian:
    Gabs = abs(G)

    def lag(W, aux, mults):
        lam = mults[0]
        w = W.ravel()
        val = float(lam @ (G @ w - h))
        size = float(lam @ (Gabs @ np.abs(w) + np.abs(h)))
        return LagTerm(val, (G.T @ lam).reshape(shape), [], size, (Gabs.T @ lam).reshape(shape), [])

    return lag


# ----------------------------------------------------------------------------------------------- base class
class PrivacyConstraint:
    """Base class; see the module docstring for the protocol."""

    kind: ClassVar[str] = "constraint"
    linear: ClassVar[bool] = True

    def ratio_rows(self, ctx: ModelContext) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        return None

    def validate(self, ctx: ModelContext) -> None:
        """Raise a typed error if the constraint does not fit the model."""

    def infeasibility(self, ctx: ModelContext) -> str | None:
        """Why no mechanism satisfies the constraint, when the toolkit can prove it; else ``None``."""
        return None

    def build(self, W: cp.Variable, ctx: ModelContext) -> Built:  # pragma: no cover - abstract
        raise NotImplementedError

    def violation(self, W: np.ndarray, ctx: ModelContext) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def holds(self, W: np.ndarray, ctx: ModelContext, eta: float) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def to_dict(self, ctx: ModelContext) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:
        return self.kind


class _Ratio(PrivacyConstraint):
    """Constraints ``lhs[p, y] ≤ rhs[p, y]`` equivalent to ``W[i_p, y] ≤ e^{a_p} W[j_p, y]``."""

    def pairs(self, ctx: ModelContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
        raise NotImplementedError

    def ratio_rows(self, ctx):
        return self.pairs(ctx)

    def _sides(self, W: np.ndarray, ctx: ModelContext) -> tuple[np.ndarray, np.ndarray]:
        i, j, a = self.pairs(ctx)
        return W[i], np.exp(a)[:, None] * W[j]

    def build(self, W, ctx):
        i, j, a = self.pairs(ctx)
        G = _ratio_matrix(i, j, a, ctx.N, ctx.K)
        con = G @ cp.vec(W, order="C") <= 0
        return Built([con], [con], [], _linear_lagrangian(G, np.zeros(G.shape[0]), (ctx.N, ctx.K)))

    def violation(self, W, ctx):
        lhs, rhs = self._sides(W, ctx)
        return float(np.max(lhs - rhs, initial=-np.inf)) if lhs.size else 0.0

    def holds(self, W, ctx, eta):
        lhs, rhs = self._sides(W, ctx)
        return bool(np.all(lhs * (1 + eta) <= rhs * (1 - eta)))


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


# ----------------------------------------------------------------------------------------------- information
def mutual_information_value(W: np.ndarray, p: np.ndarray) -> float:
    """I(X;Y) in nats of prior p and mechanism W (NumPy, no solver); exactly 0 when the rows are identical."""
    rows = W[p > 0]
    if rows.shape[0] == 0 or np.all(rows == rows[:1]):
        return 0.0
    J = p[:, None] * W
    q = J.sum(axis=0)
    return max(float(np.sum(rel_entr(J, p[:, None] * q[None, :]))), 0.0)


def mutual_information_size(W: np.ndarray, p: np.ndarray) -> float:
    """Σ |p(x)W[x,y] ln(W[x,y]/q(y))|: the scale of the rounding error of :func:`mutual_information_value`."""
    J = p[:, None] * W
    q = J.sum(axis=0)
    return float(np.sum(np.abs(rel_entr(J, p[:, None] * q[None, :]))))


def mutual_information_grad(W: np.ndarray, p: np.ndarray) -> np.ndarray:
    r""":math:`\partial I/\partial W[x,y] = p(x)\ln(W[x,y]/q(y))` (W > 0 where p > 0)."""
    q = p @ W
    with np.errstate(divide="ignore", invalid="ignore"):
        g = p[:, None] * np.log(W / q[None, :])
    return np.where(p[:, None] > 0, g, 0.0)


def mutual_information_expr(W: cp.Variable, p: np.ndarray) -> cp.Expression:
    """I(X;Y) as a CVXPY expression: Σ rel_entr(diag(p)W, p qᵀ), both arguments affine in W (exp. cone)."""
    N, K = W.shape
    J = cp.multiply(p[:, None], W)
    q = p @ W
    outer = p[:, None] @ cp.reshape(q, (1, K), order="C")
    return cp.sum(cp.rel_entr(J, outer))


@dataclass(frozen=True)
class MutualInformation(PrivacyConstraint):
    r"""Mutual-information privacy: :math:`I(X;Y) \le I_{\max}` (nats; Wang, Ying & Zhang 2016, Definition 4).

    Convex in W for a fixed prior.  ``mutual_information()`` without ``at_most`` is the objective
    :math:`\min I(X;Y)` of :meth:`MechanismModel.minimise` (PD-MIP).
    """

    at_most: float | None = None
    kind: ClassVar[str] = "mutual_information"
    linear: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if self.at_most is not None:
            object.__setattr__(self, "at_most", _check_level(self.at_most, "mutual_information at_most"))

    def _need(self):
        if self.at_most is None:
            raise InvalidInputError(
                "mutual_information() without at_most is an objective: use model.minimise(...), "
                "or give at_most=I (nats) for a constraint"
            )

    def validate(self, ctx):
        self._need()

    def build(self, W, ctx):
        self._need()
        p = ctx.prior
        con = mutual_information_expr(W, p) <= self.at_most
        bound = float(self.at_most)

        def lag(Wv, aux, mults):
            mu = float(np.sum(mults[0]))
            g = mu * mutual_information_grad(Wv, p)
            size = mu * (mutual_information_size(Wv, p) + bound)
            value = mu * (mutual_information_value(Wv, p) - bound)
            return LagTerm(value, g, [], size, np.abs(g) + mu * p[:, None], [])

        return Built([con], [con], [], lag)

    def violation(self, W, ctx):
        return mutual_information_value(W, ctx.prior) - float(self.at_most)

    def holds(self, W, ctx, eta):
        value = mutual_information_value(W, ctx.prior)
        return value == 0.0 or value + eta * (mutual_information_size(W, ctx.prior) + 1.0) <= float(
            self.at_most
        )

    def to_dict(self, ctx):
        return {"kind": self.kind, "at_most": self.at_most, "unit": "nats"}

    def describe(self):
        return f"I(X;Y) ≤ {self.at_most:g} nats" if self.at_most is not None else "I(X;Y)"


@dataclass(frozen=True)
class IndividualCapacity(PrivacyConstraint):
    r"""ε-information privacy: individual channel capacity :math:`C_1 \le \epsilon` (Wu, Xia & He 2020, Def. 5).

    Inputs are databases of ``shape = (m,)*n`` records (itertools.product order).  By Theorem 2 of Wu, Xia & He (2020),
    :math:`C_1 = \max_i \max_{B\in\mathbb S_i} C(B)`, and with the Csiszár–Gallager min–max form
    :math:`C(B)\le\epsilon \iff \exists q_B: D(B_a\|q_B)\le\epsilon\ \forall a` (jointly convex).  The vertex
    channels are those of :func:`problems.design.enumerate_vertices` (the same reductions as the design
    program); feasibility of a returned mechanism is checked by recomputing :math:`C_1` with
    :func:`problems.information.individual_capacity` (a certified bracket).
    """

    at_most: float
    shape: tuple[int, ...] = ()
    kind: ClassVar[str] = "individual_capacity"
    linear: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "at_most", _check_level(self.at_most, "individual_capacity at_most"))
        shape = tuple(int(s) for s in np.atleast_1d(np.asarray(self.shape, dtype=int)))
        if len(shape) < 1 or len(set(shape)) != 1 or shape[0] < 2:
            raise InvalidInputError(
                f"individual_capacity needs shape = (m,)*n with n ≥ 1 records of m ≥ 2 values, got {self.shape!r}"
            )
        object.__setattr__(self, "shape", shape)

    def validate(self, ctx):
        if int(np.prod(self.shape)) != ctx.N:
            raise ShapeMismatchError(
                f"individual_capacity shape {self.shape} has {int(np.prod(self.shape))} databases; "
                f"the model has {ctx.N} inputs"
            )

    def vertices(self):
        from ..design import design_problem, enumerate_vertices

        space = DatabaseSpace(len(self.shape), self.shape[0])
        return enumerate_vertices(design_problem(space, "identity"), factor=False)

    def build(self, W, ctx):
        self.validate(ctx)
        vs = self.vertices()
        K = ctx.K
        if vs.count == 0:
            zero = lambda Wv, aux, mults: LagTerm(0.0, np.zeros_like(Wv), [], 0.0, np.zeros_like(Wv), [])  # noqa: E731
            return Built([], [], [], zero)
        q = cp.Variable((vs.count, K), nonneg=True, name="q_vertex")
        div = cp.sum(cp.rel_entr(W[vs.rows, :], q[vs.vertex, :]), axis=1) <= self.at_most
        qsum = cp.sum(q, axis=1) == 1
        rows, vert, eps = vs.rows, vs.vertex, self.at_most

        def lag(Wv, aux, mults):
            lam = mults[0]
            qv = aux[0]
            Wk, Qk = Wv[rows], qv[vert]
            val = float(lam @ (rel_entr(Wk, Qk).sum(axis=1) - eps))
            with np.errstate(divide="ignore", invalid="ignore"):
                gw_rows = lam[:, None] * (np.log(Wk / Qk) + 1.0)
                gq_rows = -lam[:, None] * Wk / Qk
            gW = np.zeros_like(Wv)
            np.add.at(gW, rows, gw_rows)
            gq = np.zeros_like(qv)
            np.add.at(gq, vert, gq_rows)
            gWa = np.zeros_like(Wv)
            np.add.at(gWa, rows, np.abs(gw_rows) + lam[:, None])
            gqa = np.zeros_like(qv)
            np.add.at(gqa, vert, np.abs(gq_rows))
            size = float(lam @ (np.abs(rel_entr(Wk, Qk)).sum(axis=1) + eps))
            return LagTerm(val, gW, [gq], size, gWa, [gqa])

        return Built([div, qsum], [div], [(q, "simplex")], lag)

    def c1(self, W):
        from ..information import individual_capacity

        return individual_capacity(np.asarray(W, dtype=float).reshape(self.shape + (W.shape[1],)), tol=1e-10)

    def violation(self, W, ctx):
        return float(self.c1(W).upper_bound) - self.at_most

    def holds(self, W, ctx, eta):
        return float(self.c1(W).upper_bound) * (1 + eta) + eta <= self.at_most

    def to_dict(self, ctx):
        return {"kind": self.kind, "at_most": self.at_most, "shape": list(self.shape), "unit": "nats"}

    def describe(self):
        return f"C₁ ≤ {self.at_most:g} nats (records {self.shape})"


@dataclass(frozen=True)
class ExpectedLoss(PrivacyConstraint):
    r"""Utility constraint :math:`\sum_{x,y} p(x)W[x,y]L[x,y] \le D`."""

    at_most: float
    kind: ClassVar[str] = "expected_loss"

    def __post_init__(self) -> None:
        try:
            D = float(self.at_most)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"expected_loss at_most must be a number, got {self.at_most!r}") from exc
        if not math.isfinite(D):
            raise InvalidInputError(f"expected_loss at_most must be finite, got {self.at_most!r}")
        object.__setattr__(self, "at_most", D)

    def _c(self, ctx):
        return (ctx.prior[:, None] * ctx.loss).ravel()

    def build(self, W, ctx):
        c = self._c(ctx)
        G = sp.csr_matrix(c[None, :])
        con = G @ cp.vec(W, order="C") <= self.at_most
        return Built([con], [con], [], _linear_lagrangian(G, np.array([self.at_most]), (ctx.N, ctx.K)))

    def violation(self, W, ctx):
        return float(self._c(ctx) @ W.ravel()) - self.at_most

    def holds(self, W, ctx, eta):
        terms = self._c(ctx) * W.ravel()
        return float(terms.sum()) + eta * (float(np.abs(terms).sum()) + 1.0) <= self.at_most

    def to_dict(self, ctx):
        return {"kind": self.kind, "at_most": self.at_most}

    def describe(self):
        return f"E L ≤ {self.at_most:g}"


def _pairs(i: np.ndarray, j: np.ndarray) -> list[list[int]]:
    return np.stack([i, j], axis=1).tolist()


# ----------------------------------------------------------------------------------------------- constructors
def differential(eps: float, *, neighbours="all") -> Differential:
    """ε-DP on ``neighbours`` (a (k, 2) array, a DatabaseSpace, an UnboundedSpace or ``"all"``)."""
    return Differential(eps, neighbours)


def approximate(eps: float, delta: float, *, neighbours="all") -> Approximate:
    """(ε, δ)-DP, exact over all output sets (hockey-stick form)."""
    return Approximate(eps, delta, neighbours)


def local(eps: float) -> Local:
    """ε-local DP (every pair of inputs)."""
    return Local(eps)


def metric(eps: float, *, distance) -> Metric:
    """Metric privacy W[x,y] ≤ e^{ε·D[x,x']} W[x',y]."""
    return Metric(eps, distance)


def identifiability(eps: float, *, neighbours="all") -> Identifiability:
    """ε-identifiability on the posterior (Wang, Ying & Zhang 2016)."""
    return Identifiability(eps, neighbours)


def mutual_information(at_most: float | None = None) -> MutualInformation:
    """I(X;Y) ≤ at_most (nats); without at_most, the objective for :meth:`MechanismModel.minimise`."""
    return MutualInformation(at_most)


def individual_capacity(*, at_most: float, shape) -> IndividualCapacity:
    """C₁ ≤ at_most (nats) over the vertex channels of databases of ``shape = (m,)*n``."""
    return IndividualCapacity(at_most, tuple(shape))


def expected_loss(*, at_most: float) -> ExpectedLoss:
    """E L(X, Y) ≤ at_most."""
    return ExpectedLoss(at_most)


_KINDS = {
    "differential": lambda d: Differential(d["eps"], np.asarray(d["pairs"], dtype=np.int64).reshape(-1, 2)),
    "local": lambda d: Local(d["eps"]),
    "approximate": lambda d: Approximate(
        d["eps"], d["delta"], np.asarray(d["pairs"], dtype=np.int64).reshape(-1, 2)
    ),
    "metric": lambda d: Metric(
        d["eps"],
        np.where(np.asarray(d["distance"], dtype=float) < 0, np.inf, np.asarray(d["distance"], float)),
    ),
    "identifiability": lambda d: Identifiability(
        d["eps"], np.asarray(d["pairs"], dtype=np.int64).reshape(-1, 2)
    ),
    "mutual_information": lambda d: MutualInformation(d["at_most"]),
    "individual_capacity": lambda d: IndividualCapacity(d["at_most"], tuple(d["shape"])),
    "expected_loss": lambda d: ExpectedLoss(d["at_most"]),
}


def from_dict(d: dict) -> PrivacyConstraint:
    """The constraint written by ``to_dict`` (pairs resolved), for :func:`problems.model.export.is_feasible`."""
    kind = d.get("kind") if isinstance(d, dict) else None
    if kind not in _KINDS:
        raise InvalidInputError(f"constraint kind must be one of {sorted(_KINDS)}, got {kind!r}")
    try:
        return _KINDS[kind](d)
    except KeyError as exc:
        raise InvalidInputError(f"constraint {kind!r} is missing the field {exc.args[0]!r}") from exc


_ = UnboundedSpace  # re-exported through problems.model
