"""The LP core of the toolkit: a ratio-LP specification, its rigorous bounds and the status of an answer.

* :mod:`problems.lp.spec` — :class:`RatioLPSpec` and its two builders (dense and orbit-reduced);
* :mod:`problems.lp.bounds` — the exactly feasible repair and the safe dual bound;
* :mod:`problems.lp.face` — the face repair: a back end's point rebuilt on the face of its tight ratio rows;
* :mod:`problems.lp.fold` — the mirror fold: an LP with a symmetry of its own solved on its orbit sums;
* :mod:`problems.lp.solution` — :class:`LPSolution`, the one solution type of every ratio LP;
* :mod:`problems.lp.status` — the one status rule (:func:`decide_status`), the status enum and the exit codes;
* :mod:`problems.lp.tiny` — the optima below the range of normal doubles (ε of several hundred);
* :mod:`problems.lp.matrix_check` — the exact feasibility test of a whole mechanism.

The back ends and the chain that tries and certifies them live in :mod:`problems.solvers`; their old names
here (``problems.lp.solve``, ``problems.lp.backends``, …) keep working for one release, with a
:class:`DeprecationWarning`.  The LP core imports without CVXPY.
"""

import importlib
import warnings
from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# Imported on first use (PEP 562): ``problems.lp.status`` (the exit codes) must not pull in the back ends.
#: Names that moved to :mod:`problems.solvers` (deprecated here; typed below like the lazy names).
_MOVED: dict[str, str] = {
    **dict.fromkeys(
        ("BACKENDS", "BackendError", "RawSolution", "backend", "resolve_order"), "..solvers.backends"
    ),
    "solve": "..solvers.chain",
    "Attempt": "..solvers.attempts",
}

_lazy_getattr, __dir__ = lazy_exports(__name__, globals())


def __getattr__(name: str) -> object:
    target = _MOVED.get(name)
    if target is None:
        return _lazy_getattr(name)
    module = importlib.import_module(target, __name__)
    warnings.warn(
        f"problems.lp.{name} is deprecated and will be removed in the next release; "
        f"import it from {module.__name__.rsplit('.', 1)[0]}",
        DeprecationWarning,
        stacklevel=2,
    )
    value = getattr(module, name)
    globals()[name] = value  # warned once: later lookups find the name without calling this
    return value


if TYPE_CHECKING:  # the lazily loaded names: for type checkers, and the table lazy_exports reads
    # the deprecated names, still typed (``X as X`` marks them re-exported)
    from ..solvers.attempts import Attempt as Attempt
    from ..solvers.backends import BACKENDS as BACKENDS
    from ..solvers.backends import BackendError as BackendError
    from ..solvers.backends import RawSolution as RawSolution
    from ..solvers.backends import backend as backend
    from ..solvers.backends import resolve_order as resolve_order
    from ..solvers.chain import solve as solve
    from .bounds import (
        ABSOLUTE_GAP,
        RELATIVE_GAP,
        Bounds,
        certified,
        certify,
        lower_bound,
        repair,
        upper_bound,
        verify,
    )
    from .solution import LPSolution
    from .spec import RatioLPSpec, dense_spec, reduced_spec
    from .status import EXIT_CODES, Status, decide_status


__all__ = [
    "RELATIVE_GAP",
    "ABSOLUTE_GAP",
    "Bounds",
    "LPSolution",
    "certified",
    "certify",
    "lower_bound",
    "repair",
    "upper_bound",
    "verify",
    "RatioLPSpec",
    "dense_spec",
    "reduced_spec",
    "EXIT_CODES",
    "Status",
    "decide_status",
]
