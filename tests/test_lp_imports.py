"""The LP core and the LP chain with its back ends import without CVXPY; the old import paths of the solvers
warn once and give the new modules; the library itself never imports an old path."""

import subprocess
import sys

#: Old path → new module (the four modules that moved into problems.solvers).
MOVED = {
    "problems.lp.backends": "problems.solvers.backends",
    "problems.lp.chain": "problems.solvers.chain",
    "problems.solver": "problems.solvers.conic",
    "problems.solver_stats": "problems.solvers.stats",
}


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_lp_core_imports_without_cvxpy() -> None:
    code = (
        "import sys\n"
        "import problems.lp, problems.lp.spec, problems.lp.bounds, problems.lp.status, problems.lp.tiny\n"
        "import problems.lp.matrix_check\n"
        "import problems.solvers, problems.solvers.chain, problems.solvers.backends\n"
        "import problems.solvers.settings, problems.solvers.stats, problems.solvers.attempts\n"
        "from problems.solvers import SolverStats, Attempt, solve, BACKENDS, settings\n"
        "print(sorted(m for m in sys.modules if m == 'cvxpy' or m.startswith('cvxpy.')))\n"
    )
    assert _run(code) == "[]"


def test_settings_import_nothing_heavy() -> None:
    """The settings (and the LP status with the exit codes) load without NumPy: the command line can read
    them before anything large is imported."""
    code = (
        "import sys\n"
        "import problems.solvers.settings, problems.lp.status\n"
        "print(sorted(m for m in ('numpy', 'scipy', 'cvxpy') if m in sys.modules))\n"
    )
    assert _run(code) == "[]"


def test_old_paths_warn_once_and_are_the_new_modules() -> None:
    code = (
        "import importlib, warnings\n"
        f"for old, new in {sorted(MOVED.items())!r}:\n"
        "    with warnings.catch_warnings(record=True) as caught:\n"
        "        warnings.simplefilter('always')\n"
        "        first = importlib.import_module(old)\n"
        "        again = importlib.import_module(old)\n"
        "    module = importlib.import_module(new)\n"
        "    words = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]\n"
        "    same = first is module and again is module and all(n in dir(first) for n in module.__all__)\n"
        "    print(old, len(words), same, bool(words) and old in words[0] and new in words[0])\n"
    )
    assert _run(code).splitlines() == [f"{old} 1 True True" for old in sorted(MOVED)]


def test_moved_names_of_problems_lp_warn_and_forward() -> None:
    code = (
        "import warnings\n"
        "import problems.lp as lp, problems.solvers as s\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    same = lp.solve is s.solve and lp.LPSolution is s.LPSolution and lp.BACKENDS is s.BACKENDS\n"
        "    lp.solve\n"
        "print(same, sum(issubclass(w.category, DeprecationWarning) for w in caught))\n"
    )
    # solve and BACKENDS moved (one warning each, the second lp.solve finds the cached name); LPSolution's
    # home is problems.lp.solution, so it does not warn
    assert _run(code) == "True 2"


#: Deprecated module paths of other moves (the dispatcher left ``orbit``; the applications left the library).
OTHER_SHIMS = [
    "problems.orbit.dispatch",
    "problems.orbit.scale_figure",
    "problems.information.figures",
    "problems.design.figures",
    "problems.report",
]


def test_the_library_never_imports_an_old_path() -> None:
    """Every module of the library imports with DeprecationWarnings from ``problems`` as errors."""
    # the deprecated shims of moved modules warn by design (each is tested where it moved)
    shims = ", ".join(repr(m) for m in [*MOVED, *OTHER_SHIMS])
    code = (
        "import importlib, pkgutil, sys, warnings\n"
        "warnings.filterwarnings('error', category=DeprecationWarning, module=r'problems(\\.|$)')\n"
        "warnings.filterwarnings('error', message=r'problems\\.', category=DeprecationWarning)\n"
        "import problems\n"
        f"skip = {{{shims}, 'problems.__main__'}}\n"
        "def walk(package):\n"
        "    for info in pkgutil.iter_modules(package.__path__, package.__name__ + '.'):\n"
        "        if info.name not in skip:\n"
        "            module = importlib.import_module(info.name)\n"
        "            if info.ispkg:\n"
        "                walk(module)\n"
        "walk(problems)\n"
        "print(sorted(set(sys.modules) & skip))\n"
    )
    assert _run(code) == "[]"
