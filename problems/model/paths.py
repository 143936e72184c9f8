"""The old ``solve(path=…)`` / ``--path`` values of a :class:`~problems.model.MechanismModel` and their new names.

A model is solved with the solve choice of :mod:`problems.dispatch` (``formulation=``, ``method=``,
``solver=``; ``docs/model.md``).  The old keyword ``path`` named a route instead and still works for one
release with a :class:`DeprecationWarning`:

============ ==================================================================================
``path``     now
============ ==================================================================================
``auto``     ``method="auto"``
``program``  ``method="auto"``: a model that is PD-DP or PD-I itself is solved as that program
             (``path="program"`` also refused any other model)
``lp-core``  ``method="lp"``: the model's own ratio LP through the LP chain
``cvxpy``    ``solver="cvxpy"``: the CVXPY problem, certified on the returned mechanism
============ ==================================================================================

Kept apart so that the command line can offer the names without importing CVXPY.
"""

from __future__ import annotations

from ..errors import InvalidInputError
from ..solve_choice import warn_deprecated

__all__ = ["PATHS", "route_from_path"]

#: The old values of ``solve(path=)`` and ``--path`` (deprecated).
PATHS = ("auto", "program", "lp-core", "cvxpy")

#: old path → (method, the route it insisted on or None, the new spelling).
_NEW = {
    "auto": ("auto", None, "method='auto'"),
    "program": ("auto", "program", "method='auto' (a model that is PD-DP or PD-I itself is solved as it)"),
    "lp-core": ("lp", None, "method='lp'"),
    "cvxpy": ("auto", "cvxpy", "solver='cvxpy'"),
}


def route_from_path(path: str, method: str, *, stacklevel: int = 3) -> tuple[str, str | None]:
    """``(method, route)`` of the deprecated ``path=`` (warns): the route is ``"program"``, ``"cvxpy"`` or None."""
    if path not in PATHS:
        raise InvalidInputError(f"path must be one of {PATHS}, got {path!r}")
    new_method, route, spelling = _NEW[path]
    warn_deprecated(f"path={path!r}", spelling, stacklevel=stacklevel)
    if method not in ("auto", new_method):
        raise InvalidInputError(f"path={path!r} and method={method!r} disagree; pass {spelling} only")
    return new_method, route
