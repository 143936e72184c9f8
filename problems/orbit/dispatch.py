"""Deprecated: the dispatcher is :mod:`problems.dispatch` (it is not specific to the orbit reduction).

This module re-exports it for one release and warns when imported.  The old names map to the new ones:
``PATHS`` is :data:`problems.dispatch.FORMULATIONS`, :func:`resolve_path` is
:func:`problems.dispatch.resolve_formulation`, ``CLI_PATHS``/:func:`split_path` are the old ``--path``
values (:mod:`problems.solve_choice`).
"""

from __future__ import annotations

import warnings
from typing import Any

from ..database import DatabaseSpace
from ..dispatch import (
    PROGRAMS,
    REDUCIBLE,
    SYMMETRIC_SPECS,
    SpecProgram,
    make_program,
    prior_from_spec,
    program_from_spec,
    resolve_formulation,
    solve_from_spec,
)
from ..priors import Prior
from ..solve_choice import FORMULATIONS, LEGACY_PATHS, split_path
from .symmetric_prior import SymmetricPrior

warnings.warn(
    "problems.orbit.dispatch is deprecated and will be removed in the next release; import from "
    "problems.dispatch",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = [
    "make_program",
    "resolve_path",
    "program_from_spec",
    "prior_from_spec",
    "solve_from_spec",
    "split_path",
    "SpecProgram",
    "PATHS",
    "CLI_PATHS",
    "PROGRAMS",
    "REDUCIBLE",
    "SYMMETRIC_SPECS",
]

PATHS = FORMULATIONS
CLI_PATHS = LEGACY_PATHS


def resolve_path(name: str, prior: Prior | SymmetricPrior | DatabaseSpace, path: str = "auto") -> Any:
    """Deprecated name of :func:`problems.dispatch.resolve_formulation`."""
    warnings.warn(
        "resolve_path is deprecated and will be removed in the next release; use "
        "problems.dispatch.resolve_formulation",
        DeprecationWarning,
        stacklevel=2,
    )
    return resolve_formulation(name, prior, path)
