"""Mechanism-design modelling layer: pose a privacy question as a CVXPY program with the toolkit's certificate.

See ``docs/model.md``.  :class:`MechanismModel` holds the prior, the loss and the constraints of
:mod:`problems.model.privacy`; :mod:`problems.model.losses` and :mod:`problems.model.neighbours` build the
data; :mod:`problems.model.instances` writes the papers' programs as models; :mod:`problems.model.export`
writes a mechanism with its constraint set and re-checks it without CVXPY.
"""

import importlib as _importlib

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


def __getattr__(name: str):
    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'problems.model' has no attribute {name!r}")
    module = _importlib.import_module(target, __name__)
    value = module if target == "." + name else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
