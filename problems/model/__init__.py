"""Mechanism-design modelling layer: pose a privacy question as a CVXPY program with the toolkit's certificate.

See ``docs/model.md``.  :class:`MechanismModel` holds the prior, the loss and the constraints of
:mod:`problems.model.privacy`; :mod:`problems.model.losses` and :mod:`problems.model.neighbours` build the
data; :mod:`problems.model.instances` writes the papers' programs as models; :mod:`problems.model.export`
writes a mechanism with its constraint set and re-checks it without CVXPY.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# Loaded on first use, so that ``python -m problems model --help`` and the other subcommands do not import
# CVXPY just to build their parsers.
_LAZY: dict[str, str] = {
    "losses": ".losses",
    "privacy": ".privacy",
    "export_model": ".export",
    "is_feasible": ".export",
    "MechanismModel": ".model",
    "ModelResult": ".model",
    "UnboundedSpace": ".neighbours",
    "resolve_pairs": ".neighbours",
}

__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY, modules=("losses", "privacy"))

if TYPE_CHECKING:  # the lazily loaded names, for type checkers
    from . import losses, privacy
    from .export import export_model, is_feasible
    from .model import MechanismModel, ModelResult
    from .neighbours import UnboundedSpace, resolve_pairs


__all__ = [
    "MechanismModel",
    "ModelResult",
    "UnboundedSpace",
    "export_model",
    "is_feasible",
    "losses",
    "privacy",
    "resolve_pairs",
]
