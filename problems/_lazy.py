"""Names of a package loaded on first use (PEP 562), so that importing it stays cheap; deprecated aliases.

``__getattr__, __dir__ = lazy_exports(__name__, globals(), {"Name": ".module"}, modules=("sub",))`` in a
package's ``__init__``: ``package.Name`` imports ``package.module`` when first asked for and caches
``module.Name``; a name listed in ``modules`` (with ``"sub": ".sub"`` in the table) gives the submodule itself.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable

__all__ = ["lazy_exports", "deprecated_aliases"]


def lazy_exports(
    package: str, namespace: dict, table: dict[str, str], modules: tuple[str, ...] = ()
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package`` for the names in ``table``."""

    def __getattr__(name: str) -> object:
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(target, package)
        value = module if name in modules else getattr(module, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__


def deprecated_aliases(module: str, table: dict[str, tuple[object, str]]) -> Callable[[str], object]:
    """The module-level ``__getattr__`` of ``module`` for old names kept for one release:
    ``table[old] = (the object now, its new name)``; each access warns with a :class:`DeprecationWarning`."""

    def __getattr__(name: str) -> object:
        if name not in table:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value, new = table[name]
        warnings.warn(f"{module}.{name} is deprecated: use {new}", DeprecationWarning, stacklevel=2)
        return value

    return __getattr__
