r"""Two sharper lower bounds of the model's conic path, tried beside the plain Lagrangian bound.

Both are functions of the :class:`~problems.model.MechanismModel` (the first argument, ``self``) and are
bound to it as its methods ``_capacity_bound`` and ``_refine``:

* :func:`capacity_bound` — one individual-capacity constraint and otherwise linear constraints: the
  Lagrangian bound of the design program with the linear terms folded into its cost matrix;
* :func:`refine_points` — extra evaluation points (Blahut iterates) when the only non-linear terms of the
  Lagrangian are mutual informations.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, cast

import numpy as np

from ..solvers.settings import UNIT_ROUNDOFF as _U
from .certify import blahut_points
from .privacy import IndividualCapacity

if TYPE_CHECKING:
    from .model import MechanismModel

__all__ = ["capacity_bound", "refine_points"]


def capacity_bound(self: MechanismModel, W, aux, lags, mults, builts) -> float:
    """With one capacity constraint and otherwise linear constraints without slacks: the Lagrangian bound
    of the design program (:func:`problems.design.program._lagrangian_bound`, which also descends the
    Lagrangian by closed-form block steps), with the linear terms folded into its cost matrix."""
    from ..design.program import _lagrangian_bound

    cap = [k for k, c in enumerate(self.constraints) if c.kind == "individual_capacity"]
    others = [k for k in range(len(self.constraints)) if k not in cap]
    if (
        len(cap) != 1
        or self.objective != "expected_loss"
        or any(not self.constraints[k].linear or builts[k].aux for k in others)
        or not builts[cap[0]].aux
    ):
        return -math.inf
    Wc = np.clip(np.nan_to_num(W), 0.0, None)
    Wc = Wc / Wc.sum(axis=1, keepdims=True)
    C = self.prior[:, None] * self.loss
    const, size = 0.0, 0.0
    for k in others:
        lam = [np.clip(np.nan_to_num(np.atleast_1d(m)), 0.0, None) for m in mults[k]]
        term = lags[k](Wc, [], lam)
        C, const = C + term.gW, const + term.value - float(np.sum(term.gW * Wc))
        size += term.size + float(np.sum(term.gW_abs))
    k = cap[0]
    lam = np.clip(np.nan_to_num(np.atleast_1d(mults[k][0])), 0.0, None)
    c = cast(IndividualCapacity, self.constraints[k])
    const -= c.at_most * float(lam.sum())
    bound, _ = _lagrangian_bound(Wc, np.asarray(aux[k][0], float), c.vertices(), lam, C, const)
    scale = 1.0 + abs(bound) + abs(const) + float(np.abs(C).sum()) + size + c.at_most * float(lam.sum())
    return float(bound) - 64.0 * (W.size + lam.size) * _U * scale if math.isfinite(bound) else -math.inf


def refine_points(self: MechanismModel, W, aux, lags, mults) -> list[np.ndarray]:
    """Extra evaluation points of the lower bound: Blahut iterates when the only non-linear terms of the
    Lagrangian are mutual informations (the objective or I ≤ I_max constraints)."""
    if any(c.kind == "individual_capacity" for c in self.constraints):
        return []
    mi = [k for k, c in enumerate(self.constraints) if c.kind == "mutual_information"]
    mu = 1.0 if self.objective == "mutual_information" else 0.0
    mu += sum(float(np.clip(np.sum(mults[k][0]), 0.0, None)) for k in mi)
    if mu <= 0 or not np.all(np.isfinite(W)):
        return []
    G = (
        np.zeros((self.N, self.K))
        if self.objective == "mutual_information"
        else self.prior[:, None] * self.loss
    )
    Wc = np.clip(W, 0.0, None) + 1e-300
    for k, (lag, c) in enumerate(zip(lags, self.constraints)):
        if c.linear:
            clipped = [np.clip(np.nan_to_num(np.atleast_1d(m)), 0.0, None) for m in mults[k]]
            G = G + lag(Wc, [np.clip(np.nan_to_num(a), 0, 1) for a in aux[k]], clipped).gW
    return blahut_points(self.prior, G, mu, W)
