r"""The utility constraint :math:`\sum_{x,y} p(x)W[x,y]L[x,y] \le D` of a mechanism-design model."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from ...errors import InvalidInputError
from .base import Built, PrivacyConstraint, _linear_lagrangian

__all__ = ["ExpectedLoss"]


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
