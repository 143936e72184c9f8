r"""The protocol every constraint of a mechanism-design model follows, and the pieces the families share.

:class:`PrivacyConstraint` (``build``, ``ratio_rows``, ``violation``, ``holds``, ``to_dict``; see
:mod:`problems.model.privacy`), the model data :class:`ModelContext`, what a constraint adds to the CVXPY
problem (:class:`Built`) and its term of the Lagrangian (:class:`LagTerm`), and the sparse ratio rows
:math:`W[i_p, y] - e^{a_p} W[j_p, y]` of the constraints of the ratio form.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ...errors import InvalidInputError, InvalidPrivacyLevelError

__all__ = ["ModelContext", "Built", "LagTerm", "Lagrangian", "PrivacyConstraint"]


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


def _pairs(i: np.ndarray, j: np.ndarray) -> list[list[int]]:
    return np.stack([i, j], axis=1).tolist()
