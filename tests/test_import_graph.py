"""No import circles in ``problems/`` and ``ipopt_models/``, counting the imports made inside functions.

The module graph is built from the source with :mod:`ast`: every ``import``/``from … import`` anywhere in a
module (module level, functions, methods) is an edge, relative imports resolved; ``from pkg import name``
where ``name`` is a submodule of ``pkg`` is an edge to that submodule as well.  Not edges: a package
``__init__`` importing its own submodules (loading a package's parts is what it is for), and imports under
``if TYPE_CHECKING:`` (never run).  An import of ``pkg.sub`` also runs ``pkg/__init__``, but that is the
package's own business and not counted as an edge from the importer to ``pkg``'s other parts.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("problems", "ipopt_models")

#: Cycles allowed, each as the sorted tuple of the modules of its strongly connected component: none.
ALLOWED: set[tuple[str, ...]] = set()


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST):  # noqa: ANN202
    """Every Import/ImportFrom node, skipping the bodies of ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """``name`` or its longest prefix that is a module of ours."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def build_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if _is_package(name, modules) else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _imports(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets.append(mod)
                targets += [f"{mod}.{alias.name}" for alias in node.names if f"{mod}.{alias.name}" in modules]
            for target in targets:
                known = _known(target, modules)
                if known is None or known == name:
                    continue
                if _is_package(name, modules) and known.startswith(name + "."):
                    continue  # a package importing its own submodules
                graph[name].add(known)
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each with one cycle through it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    components: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                components.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return components


def _cycle_in(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest cycle through the first module of a component (breadth-first)."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & members):
                if w == start:
                    return paths[v] + [start]
                if w not in paths:
                    paths[w] = paths[v] + [w]
                    nxt.append(w)
        frontier = nxt
    return component


def test_graph_sees_function_level_imports():
    graph = build_graph()
    # problems/cli.py imports the dispatcher inside _cmd_solve only
    assert any(target.endswith("dispatch") for target in graph["problems.cli"])
    assert "problems.errors" in graph["problems.priors"]


def test_no_import_cycles():
    graph = build_graph()
    found = [c for c in find_cycles(graph) if tuple(c) not in ALLOWED]
    text = "\n".join(" → ".join(_cycle_in(c, graph)) + f"   (component: {', '.join(c)})" for c in found)
    assert not found, f"import cycles:\n{text}"


def test_find_cycles_on_a_small_graph():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert find_cycles(graph) == [["a", "b", "c"]]
    assert _cycle_in(["a", "b", "c"], graph) == ["a", "b", "c", "a"]


#: The longest a library module may be (a newcomer reads one concept per file).
MAX_LINES = 700


def test_no_library_file_is_over_the_line_limit() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
