"""The built wheel works outside the repository (tools/check_wheel.py), and the guard that the check relies
on really records reads of the source tree."""

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("check_wheel", ROOT / "tools" / "check_wheel.py")
check_wheel = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_wheel)


def test_guard_records_reads_of_forbidden_paths_only(tmp_path):
    forbidden = tmp_path / "repo"
    allowed = forbidden / ".ci" / "venv"
    allowed.mkdir(parents=True)
    (forbidden / "data.csv").write_text("1\n")
    (allowed / "dep.py").write_text("x = 1\n")
    (tmp_path / "outside.txt").write_text("ok\n")
    log = tmp_path / "reads.log"
    guard = check_wheel.GUARD_SOURCE.format(forbidden=[str(forbidden)], allowed=[str(allowed)], log=str(log))
    script = (
        f"{guard}\n"
        f"open({str(tmp_path / 'outside.txt')!r}).read()\n"
        f"open({str(allowed / 'dep.py')!r}).read()\n"
        f"open({str(forbidden / 'data.csv')!r}).read()\n"
        f"import os; os.listdir({str(forbidden)!r})\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=tmp_path)
    lines = log.read_text().splitlines()
    assert [line.split(" (pid")[0] for line in lines] == [
        f"open {forbidden / 'data.csv'}",
        f"os.listdir {forbidden}",
    ]


def test_check_refuses_a_work_directory_inside_the_repository():
    with pytest.raises(check_wheel.WheelCheckError, match="inside the repository"):
        check_wheel.check_wheel(ROOT / "build" / "wheel-check")


def test_build_system_can_read_the_spdx_license():
    # PEP 639 license expressions (``license = "MIT"``) need setuptools >= 77; older ones reject the
    # string form, so the build requirement must say so.
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["license"] == "MIT"
    assert "setuptools>=77" in meta["build-system"]["requires"]


@pytest.mark.slow
def test_wheel_works_outside_the_repository(tmp_path):
    """Build, install in a new environment under tmp_path, and run --version, a solve, reproduce --quick
    and the quick-start example there (about a minute on two cores)."""
    times = check_wheel.check_wheel(tmp_path, log=lambda _msg: None)
    assert set(times) == {
        "build",
        "install",
        "import and --version",
        "solve",
        "reproduce --quick",
        "quickstart",
    }
