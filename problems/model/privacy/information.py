r"""Mutual-information privacy :math:`I(X;Y) \le I_{\max}` (nats; Wang, Ying & Zhang 2016, Definition 4).

The value, its rounding scale, its gradient and its CVXPY (exponential-cone) expression, and the constraint;
the value is :func:`problems.measures.mutual_information`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import cvxpy as cp
import numpy as np
from scipy.special import rel_entr

from ...errors import InvalidInputError
from ...measures import mutual_information
from .base import Built, LagTerm, PrivacyConstraint, _check_level

__all__ = [
    "MutualInformation",
    "mutual_information_value",
    "mutual_information_size",
    "mutual_information_grad",
    "mutual_information_expr",
]


def mutual_information_value(W: np.ndarray, p: np.ndarray) -> float:
    """I(X;Y) in nats of prior p and mechanism W (NumPy, no solver); exactly 0 when the rows are identical."""
    rows = W[p > 0]
    if rows.shape[0] == 0 or np.all(rows == rows[:1]):
        return 0.0
    return mutual_information(W, p)


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
