"""Names of a package loaded on first use (PEP 562), so that importing it stays cheap; deprecated aliases.

``__getattr__, __dir__ = lazy_exports(__name__, globals(), modules=("sub",))`` in a package's ``__init__``
whose ``if TYPE_CHECKING:`` block imports each lazy name from its submodule (``from .module import Name``,
``from . import sub``): that block is the one table of where the names live, read by type checkers and,
with :mod:`ast`, by :func:`lazy_exports`; ``__all__`` (the one list of public names) is written beside it.
``package.Name`` imports ``package.module`` when first asked for and caches ``module.Name``; a name listed
in ``modules`` gives the submodule itself.  An explicit table ``{"Name": ".module"}`` may be passed instead.

``deprecated_module_alias(__name__, "old", "new")`` keeps the import path ``package.old`` of a renamed
submodule working for one release: a stand-in registered in ``sys.modules`` (no file, so nothing binds it
over an attribute of the package, such as a function that shares the old name) whose attributes are those
of ``package.new``, each fetched with a ``DeprecationWarning``.
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from collections.abc import Callable

__all__ = ["lazy_exports", "type_checking_table", "deprecated_aliases", "deprecated_module_alias"]


def type_checking_table(path: str) -> dict[str, str]:
    """``{name: ".module"}`` of the imports inside the top-level ``if TYPE_CHECKING:`` block of ``path``."""
    import ast  # only on the first lazy name: the command line's start does not pay for it

    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    table: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom):
                    for alias in imp.names:
                        name = alias.asname or alias.name
                        table[name] = "." * imp.level + (imp.module or name)
    return table


def lazy_exports(
    package: str, namespace: dict, table: dict[str, str] | None = None, modules: tuple[str, ...] = ()
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package`` for the names in ``table``.

    Without ``table``, the names are those imported under ``if TYPE_CHECKING:`` in the package's
    ``__init__`` (see the module docstring), read when the first one is asked for and kept as the package's
    ``_LAZY``.
    """
    known: dict[str, str] = {} if table is None else dict(table)

    def _table() -> dict[str, str]:
        if not known:
            known.update(type_checking_table(namespace["__file__"]))
        return known

    def __getattr__(name: str) -> object:
        if name == "_LAZY":
            return _table()
        target = _table().get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(target, package)
        value = module if name in modules else getattr(module, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(_table()))

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


def deprecated_module_alias(package: str, old: str, new: str) -> None:
    """Register ``package.old`` as a deprecated alias of the submodule ``package.new`` (see the module docstring).

    Python's import system returns a module already in ``sys.modules`` without setting it as an attribute of
    its package, so ``import package.old`` and ``from package.old import name`` work while ``package.old``,
    the package attribute, stays whatever the package defines (or is missing).
    """
    alias = types.ModuleType(
        f"{package}.{old}", f"Deprecated alias of :mod:`{package}.{new}` (removed in the next release)."
    )

    def __getattr__(name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        warnings.warn(
            f"the module {package}.{old} is now {package}.{new}; the old path stops working in the next "
            "release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(f"{package}.{new}"), name)

    alias.__getattr__ = __getattr__  # type: ignore[method-assign]  # PEP 562 on a module object
    sys.modules.setdefault(alias.__name__, alias)
