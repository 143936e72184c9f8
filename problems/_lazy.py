"""Names of a package loaded on first use (PEP 562), so that importing it stays cheap.

``__getattr__, __dir__ = lazy_exports(__name__, globals(), {"Name": ".module"}, modules=("sub",))`` in a
package's ``__init__``: ``package.Name`` imports ``package.module`` when first asked for and caches
``module.Name``; a name listed in ``modules`` (with ``"sub": ".sub"`` in the table) gives the submodule itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

__all__ = ["lazy_exports"]


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
