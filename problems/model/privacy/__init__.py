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

import numpy as np

from ...errors import InvalidInputError
from ..neighbours import UnboundedSpace
from .base import Built, LagTerm, ModelContext, PrivacyConstraint
from .capacity import IndividualCapacity
from .dp import Approximate, Differential, Identifiability, Local, Metric
from .information import (
    MutualInformation,
    mutual_information_expr,
    mutual_information_grad,
    mutual_information_size,
    mutual_information_value,
)
from .loss import ExpectedLoss

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


_ = (
    UnboundedSpace,
    mutual_information_expr,
    mutual_information_grad,
    mutual_information_size,
    mutual_information_value,
)  # re-exported
