"""Mechanism-design modelling layer: pose a privacy question as a CVXPY program with the toolkit's certificate.

See ``docs/model.md``.  :class:`MechanismModel` holds the prior, the loss and the constraints of
:mod:`problems.model.privacy`; :mod:`problems.model.losses` and :mod:`problems.model.neighbours` build the
data; :mod:`problems.model.instances` writes the papers' programs as models; :mod:`problems.model.export`
writes a mechanism with its constraint set and re-checks it without CVXPY.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# Imported on first use (PEP 562), so that importing the package (and the command line) stays cheap.
__getattr__, __dir__ = lazy_exports(__name__, globals(), modules=("losses", "privacy"))

if TYPE_CHECKING:  # the lazily loaded names: for type checkers, and the table lazy_exports reads
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
