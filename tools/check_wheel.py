#!/usr/bin/env python3
"""Build the sdist and the wheel, install the wheel in a fresh virtual environment outside the repository,
and check that the installed package works there.

Steps, each timed:

1. ``python -m build`` (sdist, then the wheel built from the unpacked sdist, so a file missing from the sdist
   or from the package data fails here or below).
2. A new virtual environment in a temporary directory (never under the repository).  By default its
   dependencies are *layered*: a ``.pth`` file lists the site-packages of the interpreter running this
   script, as plain paths, so that interpreter's own ``.pth`` files (an editable install of this project)
   are not run, and the wheel is installed with ``--no-deps`` into the new environment, which comes first
   on ``sys.path``.  ``--fresh-deps`` instead resolves every dependency from the package index (slow; it
   needs the network).
3. A guard against reading the source tree: an audit hook (:func:`sys.addaudithook`), installed at start-up
   through a ``.pth`` file in the new environment, records every ``open``, ``os.listdir`` and
   ``os.scandir`` of a path inside the repository or its ``../shared`` folder (the layered dependencies
   excepted); any such access fails the check.
4. The checks, from a working directory outside the repository, with ``PYTHONPATH`` unset:

   * ``problems.__file__`` lies inside the new environment, with the package data (``py.typed`` markers,
     the precomputed orbit-scale rows);
   * ``privacy-problems --version`` prints the version of ``pyproject.toml``;
   * ``privacy-problems solve pd-dp --n 3 --m 2 --prior uniform --eps 1 --path lp --json`` is certified
     optimal with the value of the closed form n(m−1)/(m−1+e^ε) (uniform prior: randomized response on
     each record, Wang, Ying & Zhang (2016)) inside its proved bounds;
   * ``python -m problems reproduce --quick --out DIR`` exits 0 and writes ``REPORT.md``;
   * ``examples/quickstart.py``, copied into the working directory, runs and writes ``pd_mip.json``.

Usage::

    python tools/check_wheel.py                # exit 0 when every check passes
    python tools/check_wheel.py --fresh-deps   # dependencies from the index instead of layered
    python tools/check_wheel.py --keep DIR     # build and install under DIR (kept), not a temporary one

Needs the ``build`` package (in the ``test`` extra); the default isolated build needs the package index
for setuptools.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["GUARD_SOURCE", "WheelCheckError", "check_wheel", "main"]

ROOT = Path(__file__).resolve().parents[1]

GUARD_SOURCE = '''\
"""Records file-system reads of forbidden paths (the source tree, ../shared) to a log (tools/check_wheel.py)."""
import os
import sys

_FORBIDDEN = {forbidden!r}
_ALLOWED = {allowed!r}
_LOG = {log!r}
_EVENTS = ("open", "os.listdir", "os.scandir")


def _hook(event, args):
    if event not in _EVENTS or not args:
        return
    path = args[0]
    if isinstance(path, int) or path is None:
        return
    try:
        path = os.path.abspath(os.fsdecode(path))
    except (TypeError, ValueError):
        return
    if path == _LOG or any(path == a or path.startswith(a + os.sep) for a in _ALLOWED):
        return
    if any(path == f or path.startswith(f + os.sep) for f in _FORBIDDEN):
        with open(_LOG, "a", encoding="utf-8") as fh:
            fh.write(f"{{event}} {{path}} (pid {{os.getpid()}}: {{' '.join(sys.argv)}})\\n")


sys.addaudithook(_hook)
'''


class WheelCheckError(RuntimeError):
    """A step of the wheel check failed; the message names the step and what went wrong."""


def _run(cmd: Sequence[str | Path], *, cwd: Path, env: dict[str, str], what: str) -> str:
    """Run ``cmd``; return its stdout, or raise :class:`WheelCheckError` with its output when it fails."""
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise WheelCheckError(
            f"{what}: exit {proc.returncode} from {' '.join(map(str, cmd))}\n"
            f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
        )
    return proc.stdout


def _site_packages(python: Path) -> Path:
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


def _clean_env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "CONDA"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    env["PYTHONNOUSERSITE"] = "1"
    env["MPLBACKEND"] = "Agg"
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def check_wheel(
    work: Path, *, fresh_deps: bool = False, isolation: bool = True, log: Callable[[str], object] = print
) -> dict[str, float]:
    """Build, install and check the wheel under ``work`` (a directory outside the repository).

    Returns the seconds each step took; raises :class:`WheelCheckError` naming the failed step.
    """
    work = work.resolve()
    if work == ROOT or ROOT in work.parents:
        raise WheelCheckError(f"the work directory {str(work)!r} is inside the repository {str(ROOT)!r}")
    times: dict[str, float] = {}
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]

    def step(name: str, t0: float) -> None:
        times[name] = time.perf_counter() - t0
        log(f"  {name}: {times[name]:.1f} s")

    # 1. sdist and wheel
    t0 = time.perf_counter()
    dist = work / "dist"
    build_cmd = [sys.executable, "-m", "build", "--outdir", dist]
    if not isolation:
        build_cmd.append("--no-isolation")
    _run([*build_cmd, ROOT], cwd=work, env=dict(os.environ), what="python -m build")
    wheels = sorted(dist.glob("privacy_problems-*.whl"))
    sdists = sorted(dist.glob("privacy_problems-*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        raise WheelCheckError(
            f"python -m build: expected one wheel and one sdist in {dist}, found {os.listdir(dist)}"
        )
    step("build", t0)

    # 2. a new environment with the wheel
    t0 = time.perf_counter()
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=work, env=dict(os.environ), what="venv")
    python = venv / "bin" / "python"
    site = _site_packages(python)
    deps: list[str] = []
    if fresh_deps:
        _run([python, "-m", "ensurepip", "--upgrade"], cwd=work, env=_clean_env(venv), what="ensurepip")
        pip = [python, "-m", "pip", "install", "--quiet", wheels[0]]
    else:
        paths = sysconfig.get_paths()
        deps = list(dict.fromkeys([paths["purelib"], paths["platlib"]]))
        (site / "_layered_dependencies.pth").write_text("".join(f"{p}\n" for p in deps))
        # --ignore-installed: the layered site-packages may hold an (editable) install of the same version
        pip = [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "--quiet",
            "--no-deps",
            "--ignore-installed",
        ]
        pip.append(wheels[0])
    _run(pip, cwd=work, env=_clean_env(venv), what="pip install the wheel")

    # 3. the guard against reading the source tree
    guard_log = work / "source_tree_reads.log"
    forbidden = [str(ROOT), str(ROOT.parent / "shared")]
    allowed = [*deps, str(venv)]
    (site / "_source_tree_guard.py").write_text(
        GUARD_SOURCE.format(forbidden=forbidden, allowed=allowed, log=str(guard_log))
    )
    (site / "_source_tree_guard.pth").write_text("import _source_tree_guard\n")
    step("install", t0)

    # 4. the checks, outside the repository
    run_dir = work / "run"
    run_dir.mkdir()
    env = _clean_env(venv)

    t0 = time.perf_counter()
    where = _run(
        [
            python,
            "-c",
            "import problems, ipopt_models; print(problems.__file__); print(ipopt_models.__file__)",
        ],
        cwd=run_dir,
        env=env,
        what="import",
    ).split()
    for f in where:
        if venv not in Path(f).resolve().parents:
            raise WheelCheckError(f"import: {f} is not inside the new environment {venv}")
    for data in ("problems/py.typed", "ipopt_models/py.typed", "problems/orbit/data/orbit_scale_n200.csv"):
        if not (site / data).is_file():
            raise WheelCheckError(f"package data: {data} is not installed from the wheel")
    out = _run([venv / "bin" / "privacy-problems", "--version"], cwd=run_dir, env=env, what="--version")
    if version not in out:
        raise WheelCheckError(f"--version: {out.strip()!r} does not name version {version}")
    step("import and --version", t0)

    t0 = time.perf_counter()
    n, m, eps = 3, 2, 1.0
    solve = [venv / "bin" / "privacy-problems", "solve", "pd-dp", "--n", n, "--m", m, "--prior", "uniform"]
    res = json.loads(
        _run([*solve, "--eps", eps, "--path", "lp", "--json"], cwd=run_dir, env=env, what="solve")
    )
    closed = n * (m - 1) / (m - 1 + math.exp(eps))
    lo, hi = res["bounds"]["lower"], res["bounds"]["upper"]
    if not (res["status"] == "optimal" and res["certified"] and lo - 1e-9 <= closed <= hi + 1e-9):
        raise WheelCheckError(f"solve: expected a certified optimum with bounds around {closed}, got {res}")
    step("solve", t0)

    t0 = time.perf_counter()
    out_dir = run_dir / "reproduce"
    _run(
        [python, "-m", "problems", "reproduce", "--quick", "--out", out_dir],
        cwd=run_dir,
        env=env,
        what="reproduce",
    )
    if not (out_dir / "REPORT.md").is_file():
        raise WheelCheckError(f"reproduce --quick: no REPORT.md in {out_dir}")
    step("reproduce --quick", t0)

    t0 = time.perf_counter()
    shutil.copy(ROOT / "examples" / "quickstart.py", run_dir / "quickstart.py")
    _run([python, "quickstart.py"], cwd=run_dir, env=env, what="examples/quickstart.py")
    if not (run_dir / "pd_mip.json").is_file():
        raise WheelCheckError("examples/quickstart.py: pd_mip.json was not written")
    step("quickstart", t0)

    if guard_log.exists():
        raise WheelCheckError(f"the installed package read the source tree:\n{guard_log.read_text()[:4000]}")
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fresh-deps", action="store_true", help="install the dependencies from the index")
    parser.add_argument("--no-isolation", action="store_true", help="python -m build --no-isolation")
    parser.add_argument(
        "--keep", metavar="DIR", help="work under DIR (created, kept) instead of a temporary one"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        if args.keep:
            Path(args.keep).mkdir(parents=True, exist_ok=False)
            check_wheel(Path(args.keep), fresh_deps=args.fresh_deps, isolation=not args.no_isolation)
        else:
            with tempfile.TemporaryDirectory(prefix="privacy-problems-wheel-") as tmp:
                check_wheel(Path(tmp), fresh_deps=args.fresh_deps, isolation=not args.no_isolation)
    except WheelCheckError as exc:
        print(f"wheel check FAILED: {exc}", file=sys.stderr)
        return 1
    print(f"wheel check passed in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
