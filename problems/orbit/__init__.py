"""Exact privacy–distortion programs for exchangeable priors by orbit (symmetry) reduction.

See ``docs/orbit_reduction.md`` for the derivation.  Public API:

* :class:`ReducedPDDP`, :class:`ReducedPDI`, :class:`ReducedRPD` — ``.solve(eps) -> SolveResult``;
* :class:`ReducedPDMIP` — PD-MIP for i.i.d. priors, ``.solve(D) -> SolveResult`` (single-letterisation);
  :func:`product_channel` gives its n-row mechanism lazily (:class:`ProductChannel`, Kronecker power, sampler);
* :func:`make_program` — the dispatcher of :mod:`problems.dispatch` (``formulation="auto" | "dense" | "reduced"``);
* :class:`SymmetricPrior` and constructors — exchangeable priors at any n (no length-mⁿ pmf);
* :func:`mixture_enclosure` — the mixture sandwich of PD-DP for an exchangeable mixture prior (any n);
* :func:`lift_mechanism`, :func:`sample` — the full mechanism (small N) or samples y ~ W(·|x) (any N);
* :func:`lifted_certificate` — the reduced primal–dual pair lifted to the dense LP and certified there;
* :class:`JointTypes`, :class:`ReducedLP` — the building blocks.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# Imported on first use (PEP 562): the command line reaches the dispatcher without loading the solvers.
_lazy_getattr, __dir__ = lazy_exports(__name__, globals())


def __getattr__(name: str) -> object:
    """The lazily loaded names, and ``ReducedLPSolution``: deprecated alias of :class:`problems.lp.LPSolution`
    (warns)."""
    if name == "ReducedLPSolution":
        from . import reduced_lp

        return reduced_lp.__getattr__(name)
    return _lazy_getattr(name)


if TYPE_CHECKING:  # the lazily loaded names: for type checkers, and the table lazy_exports reads
    from ..dispatch import make_program
    from .dispatch import PATHS, resolve_path  # deprecated: problems.dispatch
    from .lift import lift_mechanism, sample
    from .lift_dual import lift_duals, lifted_certificate
    from .mixture_prior import MixtureEnclosure, mixture_enclosure
    from .pd_mip_iid import ProductChannel, ReducedPDMIP, iid_row_pmf, product_channel
    from .programs import LIFT_LIMIT, ReducedPDDP, ReducedPDI, ReducedRPD
    from .reduced_lp import ReducedLP
    from .symmetric_prior import (
        SymmetricPrior,
        as_symmetric,
        parse_symmetric_prior,
        symmetric_contagious,
        symmetric_iid,
        symmetric_mixture,
        symmetric_uniform,
    )
    from .types import JointTypes, compositions


__all__ = [
    "LIFT_LIMIT",
    "PATHS",
    "JointTypes",
    "MixtureEnclosure",
    "ProductChannel",
    "ReducedLP",
    "ReducedPDDP",
    "ReducedPDI",
    "ReducedPDMIP",
    "ReducedRPD",
    "SymmetricPrior",
    "as_symmetric",
    "compositions",
    "iid_row_pmf",
    "lift_duals",
    "lift_mechanism",
    "lifted_certificate",
    "make_program",
    "mixture_enclosure",
    "parse_symmetric_prior",
    "product_channel",
    "resolve_path",
    "sample",
    "symmetric_contagious",
    "symmetric_iid",
    "symmetric_mixture",
    "symmetric_uniform",
]
