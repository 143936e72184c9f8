"""The values of the three solve-choice parameters, and the mapping of the old ``path=`` keyword.

The parameters are documented once, in :mod:`problems.dispatch`: ``formulation=`` (``"auto"`` | ``"dense"`` |
``"reduced"``), ``method=`` (``"auto"`` | ``"lp"`` | ``"theorem"``) and ``solver=`` (a back end name).  This
module holds what the programs need to check them without importing the dispatcher (which imports the
programs): the tuples of valid values, their checks, and the translation of the deprecated ``path=`` keyword
(one release, with a :class:`DeprecationWarning`).
"""

from __future__ import annotations

import warnings

from .errors import InvalidInputError

__all__ = [
    "FORMULATIONS",
    "METHODS",
    "LEGACY_PATHS",
    "check_formulation",
    "check_method",
    "split_path",
    "method_from_path",
    "formulation_from_path",
    "join_path",
    "warn_deprecated",
]

#: ``formulation=``: the orbit-reduced program where it applies (auto), the N×N program, or the reduced one.
FORMULATIONS = ("auto", "dense", "reduced")
#: ``method=``: a closed form where one applies, else the LP (auto); always the LP; only the closed form.
METHODS = ("auto", "lp", "theorem")
#: The old ``path``/``--path`` values: a formulation or a method (deprecated).
LEGACY_PATHS = ("auto", "dense", "reduced", "lp", "theorem")


def check_formulation(formulation: str) -> str:
    if formulation not in FORMULATIONS:
        raise InvalidInputError(f"formulation must be one of {FORMULATIONS}, got {formulation!r}")
    return formulation


def check_method(method: str) -> str:
    if method not in METHODS:
        raise InvalidInputError(f"method must be one of {METHODS}, got {method!r}")
    return method


def split_path(path: str) -> tuple[str, str]:
    """``(formulation, method)`` of an old ``path``/``--path`` value: dense/reduced/auto or theorem/lp."""
    if path not in LEGACY_PATHS:
        raise InvalidInputError(f"path must be one of {LEGACY_PATHS}, got {path!r}")
    if path in ("lp", "theorem"):
        return "auto", path
    return path, "auto"


def join_path(formulation: str, method: str) -> str | None:
    """The old single ``path`` value of a ``(formulation, method)`` pair, or None when no old value names it.

    The inverse of :func:`split_path`: ``("auto", "auto")`` → ``"auto"``, ``("dense", "auto")`` → ``"dense"``,
    ``("auto", "lp")`` → ``"lp"``; a pair with both set (``("dense", "lp")``) had no old name.
    """
    if method == "auto":
        return formulation
    if formulation == "auto":
        return method
    return None


def warn_deprecated(old: str, new: str, *, stacklevel: int = 2) -> None:
    """Warn (:class:`DeprecationWarning`) that the keyword ``old`` is kept for one release; ``new`` replaces it.

    ``stacklevel`` is that of :func:`warnings.warn` called where this function is called (2: its caller).
    """
    warnings.warn(
        f"the keyword {old} is deprecated and will be removed in the next release; use {new}",
        DeprecationWarning,
        stacklevel=stacklevel + 1,
    )


def method_from_path(method: str, path: str | None, *, stacklevel: int = 3) -> str:
    """The ``method=`` of a ``solve(eps, …)`` call, ``path=`` (deprecated) included (not yet checked)."""
    if path is not None:
        warn_deprecated(f"path={path!r}", f"method={path!r}", stacklevel=stacklevel)
        if method not in ("auto", path):
            raise InvalidInputError(f"path={path!r} and method={method!r} disagree; pass method= only")
        method = path
    return method


def formulation_from_path(formulation: str, path: str | None, *, stacklevel: int = 3) -> str:
    """The ``formulation=`` of a ``make_program`` call, ``path=`` (deprecated) included (not yet checked)."""
    if path is not None:
        warn_deprecated(f"path={path!r}", f"formulation={path!r}", stacklevel=stacklevel)
        if formulation not in ("auto", path):
            raise InvalidInputError(
                f"path={path!r} and formulation={formulation!r} disagree; pass formulation= only"
            )
        formulation = path
    return formulation
