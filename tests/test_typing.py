"""The typed API: each lazily loading package imports exactly its lazy names under ``TYPE_CHECKING`` (so type
checkers see the real types, not the ``object`` of a module ``__getattr__``).  That the ``py.typed`` markers
ship in the wheel is checked by ``tools/check_wheel.py``."""

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAZY_PACKAGES = [
    "problems",
    "problems.design",
    "problems.information",
    "problems.lp",
    "problems.model",
    "problems.orbit",
    "problems.solvers",
    "ipopt_models",
]


def _type_checking_imports(path: Path) -> dict[str, str]:
    """``{name: ".module"}`` of the imports inside ``if TYPE_CHECKING:`` of a module's top level."""
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom), ast.dump(imp)
                for alias in imp.names:
                    module = "." * imp.level + (imp.module or "")
                    found[alias.asname or alias.name] = module if imp.module else f".{alias.name}"
    return found


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_type_checking_block_matches_the_lazy_table(package):
    mod = importlib.import_module(package)
    path = Path(mod.__file__)
    # names that moved away stay typed where they were, for their deprecation release (``_MOVED``)
    assert _type_checking_imports(path) == {**mod._LAZY, **getattr(mod, "_MOVED", {})}


def test_the_lazy_packages_are_all_listed():
    users = sorted(
        ".".join(p.relative_to(ROOT).parent.parts)
        for top in ("problems", "ipopt_models")
        for p in (ROOT / top).rglob("__init__.py")
        if "lazy_exports(" in p.read_text(encoding="utf-8")
    )
    assert users == sorted(LAZY_PACKAGES)
