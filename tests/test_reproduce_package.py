"""The reproduction package apart from the library: what did not run is said in REPORT.md, the library does
not import the application, the old module paths still work (with a DeprecationWarning), small sections."""

import ast
import importlib
import sys
import warnings
from pathlib import Path

import pytest

import problems.reproduce as rp
from problems.reproduce import Context, SectionSpec, reproduce
from problems.reproduce.deps import OPTIONAL, missing
from problems.reproduce.sections import section_specs

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "problems"
APP = PACKAGE / "reproduce"

#: The deprecated aliases of the moved modules (they import the application, for one release).
SHIMS = {
    "problems.report": "problems.reproduce.report",
    "problems.information.figures": "problems.reproduce.information",
    "problems.design.figures": "problems.reproduce.design",
    "problems.orbit.scale_figure": "problems.reproduce.scale",
}
#: Modules allowed to import problems.reproduce: the CLI entry that runs it, and the aliases above.
ALLOWED = {"problems.cli", *SHIMS}


def _cheap(sec, ctx):
    sec.check("a claim that holds", "nowhere", "nothing", 0.0, 1.0)


def _row(title: str, reason: str) -> str:
    return f"| every claim of section “{title}” | — | did not run: {reason} | — | — | not run |"


def test_missing_matplotlib_is_a_row_saying_what_did_not_run(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` fails as if not installed
    h = next(s for s in section_specs(Context(tmp_path, quick=True)) if s.title == "h(ε)")
    specs = [SectionSpec("cheap", _cheap), h]
    result = reproduce(tmp_path, progress=lambda s: None, quick=True, sections=specs)
    text = (tmp_path / "REPORT.md").read_text()
    reason = OPTIONAL["matplotlib"][1]
    assert _row("h(ε)", reason) in text[: text.index("## cheap")]  # in the verdict table
    assert f"Not run: {reason}." in text
    assert [s.title for s in result.skipped_sections] == ["h(ε)"]
    assert result.ok and not (tmp_path / "h_curve.png").exists()


def test_missing_casadi_is_a_row_saying_what_did_not_run(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "casadi", None)
    ipopt = [s for s in section_specs(Context(tmp_path)) if "IPOPT" in s.title]
    result = reproduce(tmp_path, progress=lambda s: None, sections=ipopt)
    text = (tmp_path / "REPORT.md").read_text()
    assert _row(ipopt[0].title, "the ipopt extra (casadi) is not installed") in text
    assert result.ok and result.skipped_sections[0].title == ipopt[0].title


def test_full_run_needs_dask_for_the_sweep(tmp_path, monkeypatch):
    needs = {s.title: s.needs for s in section_specs(Context(tmp_path, full=True))}
    assert "dask" in needs["Curves at scale (orbit reduction)"]
    assert "dask" not in {n for s in section_specs(Context(tmp_path)) for n in s.needs}
    monkeypatch.setitem(sys.modules, "distributed", None)
    assert missing(("matplotlib", "dask")) == OPTIONAL["dask"][1]
    assert missing(("matplotlib",)) is None


def _imports(path: Path, module: str) -> set[str]:
    """Every module ``path`` imports (at the top or inside functions), relative imports resolved."""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return found


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        yield path, ".".join(parts)


def test_library_does_not_import_the_application():
    # the scan resolves relative imports, also those inside functions (the sweep's import of the scale rows)
    assert "problems.orbit.scale.eps_star_curve" in _imports(
        PACKAGE / "sweep" / "jobs.py", "problems.sweep.jobs"
    )
    offenders = []
    for path, module in _modules():
        if module.startswith("problems.reproduce") or module in ALLOWED:
            continue
        imported = _imports(path, module)
        bad = {m for m in imported if m == "problems.reproduce" or m.startswith("problems.reproduce.")}
        bad |= imported & set(SHIMS)  # nor the deprecated aliases of the application
        if bad:
            offenders.append((module, sorted(bad)))
    assert offenders == []


def test_application_imports_are_explicit_and_sections_small():
    for path in sorted(APP.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "__import__", path.name
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not any(n.startswith("importlib") for n in names), path.name
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                assert length <= 80, f"{path.name}:{node.name} has {length} lines"


@pytest.mark.parametrize("old, new", sorted(SHIMS.items()))
def test_old_module_paths_warn_and_give_the_same_objects(old, new, monkeypatch):
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=new.rsplit(".", 1)[0]):
        mod = importlib.import_module(old)
    for name in mod.__all__:
        assert getattr(mod, name) is not None, name
    if old == "problems.orbit.scale_figure":
        from problems.orbit import scale
        from problems.reproduce import figures
        from problems.reproduce import scale as app

        assert mod.eps_star_curve is scale.eps_star_curve and mod.scale_figure is app.scale_figure
        assert mod.scale_plot is figures.scale_plot
    else:
        target = importlib.import_module(new)
        shared = [n for n in mod.__all__ if hasattr(target, n)]
        assert shared and all(getattr(mod, n) is getattr(target, n) for n in shared)


def test_new_paths_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for name in (
            "problems.reproduce",
            "problems.orbit.scale",
            "problems.sweep.jobs",
            "problems.sweep.studies",
        ):
            importlib.import_module(name)
    assert rp.reproduce is reproduce
