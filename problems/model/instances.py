r"""The papers' programs written as :class:`~problems.model.MechanismModel` instances (one line each).

=============  ===============================================================================  =============
function       model                                                                            path
=============  ===============================================================================  =============
:func:`pd_dp`  min E d(X,Y), ε-DP on Hamming neighbours (Wang, Ying & Zhang 2016, (13)–(15))                  lp-core
:func:`pd_i`   min E d(X,Y), ε-identifiability on Hamming neighbours (Wang, Ying & Zhang 2016, (8)–(12))      lp-core
:func:`r_pd`   R-PD (Wang, Ying & Zhang 2016, (20)–(24)) posed at the uniform prior (see its docstring)       lp-core
:func:`pd_mip` min I(X;Y) s.t. E d(X,Y) ≤ D (Wang, Ying & Zhang 2016, (28)–(30))                            cvxpy-conic
:func:`design` min E d(f(X),Y) s.t. C₁ ≤ ε over vertex channels (Wu, Xia & He 2020, Theorem 2)          cvxpy-conic
=============  ===============================================================================  =============

They are solved in full (never orbit-reduced, never by the theorem path of :mod:`problems.programs`), so
they are independent computations of the same optima; ``tests/model/test_instances.py`` compares them.
"""

from __future__ import annotations

import numpy as np

from ..database import DatabaseSpace
from ..errors import InvalidInputError
from . import losses, privacy
from .model import MechanismModel

__all__ = ["pd_dp", "pd_i", "r_pd", "pd_mip", "design"]


def _pmf(space: DatabaseSpace, prior) -> np.ndarray:
    if not isinstance(space, DatabaseSpace):
        raise InvalidInputError(f"space must be a DatabaseSpace, got {type(space).__name__}")
    return np.asarray(getattr(prior, "pmf", prior), dtype=float)


def _model(space: DatabaseSpace, prior, name: str) -> MechanismModel:
    labels = space.labels
    return MechanismModel(
        _pmf(space, prior), losses.hamming(space), name=name, input_labels=labels, output_labels=labels
    )


def pd_dp(space: DatabaseSpace, prior, eps: float) -> MechanismModel:
    """PD-DP: ``MechanismModel(p, hamming).add(differential(ε, neighbours=space))``."""
    return _model(space, prior, "pd-dp").add(privacy.differential(eps, neighbours=space))


def pd_i(space: DatabaseSpace, prior, eps: float) -> MechanismModel:
    """PD-I: ``MechanismModel(p, hamming).add(identifiability(ε, neighbours=space))``."""
    return _model(space, prior, "pd-i").add(privacy.identifiability(eps, neighbours=space))


def r_pd(space: DatabaseSpace, eps: float) -> MechanismModel:
    r"""R-PD as a model: PD-I at the uniform prior.

    R-PD relaxes PD-I's input marginal to any joint of total mass one; a model fixes a prior.  The two
    optima are equal: PD-I(uniform) ≥ R-PD (a restriction), and R-PD's optimal joint, the kernel
    :math:`e^{-\epsilon d}/(N(1+(m-1)e^{-\epsilon})^n)` (Wang, Ying & Zhang 2016, Lemma 1), has the uniform marginal and is
    ε-identifiable, so PD-I(uniform) ≤ R-PD = h(ε).
    """
    return _model(space, np.full(space.size, 1.0 / space.size), "r-pd").add(
        privacy.identifiability(eps, neighbours=space)
    )


def pd_mip(space: DatabaseSpace, prior, distortion: float) -> MechanismModel:
    """PD-MIP: ``MechanismModel(p, hamming).add(expected_loss(at_most=D)).minimise(mutual_information())``."""
    return (
        _model(space, prior, "pd-mip")
        .add(privacy.expected_loss(at_most=distortion))
        .minimise(privacy.mutual_information())
    )


def design(problem, eps: float) -> MechanismModel:  # noqa: ANN001 - problems.design.DesignProblem
    """The capacity-constrained design (``IPDesign(problem, factor=False)``): min E d(f(x), y) s.t. C₁ ≤ ε."""
    space = problem.space
    return MechanismModel(
        problem.prior.pmf,
        problem.database_distortion,
        name="ip-design",
        input_labels=space.labels,
        output_labels=problem.output_labels,
    ).add(privacy.individual_capacity(at_most=eps, shape=space.shape))
