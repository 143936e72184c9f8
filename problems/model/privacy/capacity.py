r"""ε-information privacy: individual channel capacity :math:`C_1 \le \epsilon` (Wu, Xia & He 2020)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import cvxpy as cp
import numpy as np
from scipy.special import rel_entr

from ...database import DatabaseSpace
from ...errors import InvalidInputError, ShapeMismatchError
from .base import Built, LagTerm, PrivacyConstraint, _check_level

__all__ = ["IndividualCapacity"]


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
        from ...design import design_problem, enumerate_vertices

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
        from ...information import individual_capacity

        return individual_capacity(np.asarray(W, dtype=float).reshape(self.shape + (W.shape[1],)), tol=1e-10)

    def violation(self, W, ctx):
        return float(self.c1(W).upper_bound) - self.at_most

    def holds(self, W, ctx, eta):
        return float(self.c1(W).upper_bound) * (1 + eta) + eta <= self.at_most

    def to_dict(self, ctx):
        return {"kind": self.kind, "at_most": self.at_most, "shape": list(self.shape), "unit": "nats"}

    def describe(self):
        return f"C₁ ≤ {self.at_most:g} nats (records {self.shape})"
