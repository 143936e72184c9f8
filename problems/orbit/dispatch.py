"""Choose between the dense programs (:mod:`problems.programs`) and the orbit-reduced ones.

``make_program(name, prior, path="auto")`` returns an object with ``.solve(eps)`` (``.solve(D)`` for PD-MIP):

* ``path="reduced"`` — the orbit-reduced program; needs a prior of kind uniform/iid/exchangeable (a
  :class:`~problems.priors.Prior` or a :class:`~problems.orbit.symmetric_prior.SymmetricPrior`).  PD-MIP's
  reduced form (:class:`~problems.orbit.pd_mip_iid.ReducedPDMIP`, single-letterisation) needs an i.i.d.
  prior (uniform or iid): exchangeable mixtures raise :class:`~problems.errors.InvalidPriorError`;
* ``path="dense"`` — the N×N program (a SymmetricPrior is expanded to its pmf, small n only);
* ``path="auto"`` — reduced for row-permutation-invariant priors (for PD-MIP: i.i.d. priors), dense otherwise.

For the CLI: ``PATHS`` lists the choices of ``--path``; :func:`resolve_path` says which path ``auto`` picks.
"""

from __future__ import annotations

from typing import Any

from ..database import DatabaseSpace
from ..errors import InvalidInputError, InvalidPriorError
from ..priors import Prior
from .pd_mip_iid import ReducedPDMIP, iid_row_pmf
from .programs import ReducedPDDP, ReducedPDI, ReducedRPD
from .symmetric_prior import SYMMETRIC_KINDS, SymmetricPrior

__all__ = ["make_program", "resolve_path", "PATHS", "PROGRAMS", "REDUCIBLE"]

PATHS = ("auto", "dense", "reduced")
PROGRAMS = ("pd-dp", "pd-i", "r-pd", "pd-mip")
#: Programs with a reduced form (PD-MIP: for i.i.d. priors only).
REDUCIBLE = ("pd-dp", "pd-i", "r-pd", "pd-mip")


def _kind(prior: Prior | SymmetricPrior | DatabaseSpace) -> str:
    if isinstance(prior, DatabaseSpace):
        return "uniform"  # R-PD: no prior, the full symmetry group applies
    return prior.kind


def resolve_path(name: str, prior: Prior | SymmetricPrior | DatabaseSpace, path: str = "auto") -> str:
    """``"dense"`` or ``"reduced"``: the path :func:`make_program` will take (validating the choice)."""
    name = name.lower()
    if name not in PROGRAMS:
        raise InvalidInputError(f"unknown program {name!r}; choose one of {PROGRAMS}")
    if path not in PATHS:
        raise InvalidInputError(f"path must be one of {PATHS}, got {path!r}")
    symmetric = name == "r-pd" or _kind(prior) in SYMMETRIC_KINDS
    iid = not isinstance(prior, DatabaseSpace) and iid_row_pmf(prior) is not None
    if path == "auto":
        return "reduced" if symmetric and name in REDUCIBLE and (name != "pd-mip" or iid) else "dense"
    if path == "reduced":
        if name not in REDUCIBLE:
            raise InvalidInputError(f"{name} has no reduced form; reduced programs exist for {REDUCIBLE}")
        if not symmetric:
            raise InvalidPriorError(
                f"the reduced path needs a prior invariant under permuting rows (kind in {SYMMETRIC_KINDS}); "
                f"this prior has kind {_kind(prior)!r}. Use path='dense' or 'auto'"
            )
        if name == "pd-mip" and not iid:
            raise InvalidPriorError(
                "the reduced PD-MIP covers i.i.d. priors only (single-letterisation needs independent rows); "
                f"this prior has kind {_kind(prior)!r}. Use path='dense' (small n only)"
            )
    return path


def make_program(
    name: str, prior: Prior | SymmetricPrior | DatabaseSpace, path: str = "auto", **kwargs: Any
) -> Any:
    """Build program ``name`` (pd-dp, pd-i, r-pd, pd-mip) for ``prior`` on the chosen path.

    ``prior`` may be a DatabaseSpace for r-pd.  ``kwargs`` go to the program's constructor (e.g. ``solver=``;
    reduced programs also take ``backend=`` and ``lift_limit=``).
    """
    name = name.lower()
    chosen = resolve_path(name, prior, path)
    if chosen == "reduced":
        if name == "r-pd":
            space = prior if isinstance(prior, DatabaseSpace) else prior.space
            return ReducedRPD(space, **kwargs)
        if name == "pd-mip":
            return ReducedPDMIP(prior, **kwargs)
        return (ReducedPDDP if name == "pd-dp" else ReducedPDI)(prior, **kwargs)
    from ..programs import PDDP, PDI, PDMIP, RPD

    if name == "r-pd":
        space = prior if isinstance(prior, DatabaseSpace) else prior.space
        return RPD(space, **kwargs)
    if isinstance(prior, DatabaseSpace):
        raise InvalidInputError(f"{name} needs a prior, got a DatabaseSpace")
    dense = prior.to_prior() if isinstance(prior, SymmetricPrior) else prior
    return {"pd-dp": PDDP, "pd-i": PDI, "pd-mip": PDMIP}[name](dense, **kwargs)
