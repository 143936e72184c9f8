"""Every example of the README runs as written from the repository root, and ``examples/`` holds them.

The commands run in a scratch directory holding a copy of ``examples/`` (the commands' files — ``W.csv``,
``curves/``, ``pd_mip.json`` — land there, not in the repository), with the repository on ``PYTHONPATH``.
"""

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
EXAMPLES = ROOT / "examples"


def _readme_commands() -> list[str]:
    """The command lines of the README's command-line block (comments kept: they are part of the line)."""
    block = next(b for b in re.findall(r"```bash\n(.*?)```", README, re.S) if "python -m problems solve" in b)
    return [ln for ln in block.splitlines() if ln.strip()]


COMMANDS = _readme_commands()


@pytest.fixture
def repo_copy(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    return tmp_path


def _run(argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_commands_script_is_the_readme():
    lines = [
        ln
        for ln in (EXAMPLES / "commands.sh").read_text().splitlines()
        if ln.strip() and not ln.startswith("#") and ln != "set -e"
    ]
    assert lines == COMMANDS


def test_quickstart_is_the_readme_example():
    block = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    assert block in (EXAMPLES / "quickstart.py").read_text()


def test_quickstart_runs(repo_copy):
    res = _run([sys.executable, "examples/quickstart.py"], repo_copy)
    assert res.returncode == 0, res.stderr
    assert (repo_copy / "pd_mip.json").stat().st_size > 0


@pytest.mark.parametrize("command", COMMANDS, ids=[f"{k}-{c.split()[3]}" for k, c in enumerate(COMMANDS)])
def test_readme_command_runs(command, repo_copy):
    argv = shlex.split(command, comments=True)
    assert argv[:2] == ["python", "-m"]
    if argv[2] == "ipopt_models" and importlib.util.find_spec("casadi") is None:
        pytest.skip("the ipopt extra (casadi) is not installed")
    res = _run([sys.executable, *argv[1:]], repo_copy)
    assert res.returncode == 0, f"{command}\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}"
    assert res.stdout.strip()


def test_channel_file_is_what_make_channel_writes(repo_copy):
    (repo_copy / "examples" / "channel.npy").unlink()
    res = _run([sys.executable, "examples/make_channel.py"], repo_copy)
    assert res.returncode == 0, res.stderr
    np.testing.assert_array_equal(
        np.load(repo_copy / "examples" / "channel.npy"), np.load(EXAMPLES / "channel.npy")
    )


def test_readme_mentions_console_script():
    assert "privacy-problems" in README


@pytest.mark.slow
def test_readme_reproduce_command_runs(tmp_path):
    block = next(b for b in re.findall(r"```bash\n(.*?)```", README, re.S) if "reproduce" in b)
    command = block.strip().split("&&")[-1].strip()  # the install step is not run here
    argv = shlex.split(command)
    res = _run([sys.executable, *argv[1:]], tmp_path, timeout=3600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert (tmp_path / "out" / "REPORT.md").read_text().startswith("# Reproduction report\n")


def _block(lang: str, needle: str) -> str:
    return next(b for b in re.findall(rf"```{lang}\n(.*?)```", README, re.S) if needle in b)


def test_model_example_is_the_readme_and_runs(repo_copy):
    assert _block("python", "MechanismModel") in (EXAMPLES / "model.py").read_text()
    res = _run([sys.executable, "examples/model.py"], repo_copy)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("optimal 0.55267303")


def test_model_spec_command_runs(repo_copy):
    command = "python -m problems model examples/spec.toml --json"
    assert f"`{command}`" in README
    res = _run([sys.executable, *shlex.split(command)[1:]], repo_copy)
    assert res.returncode == 0, res.stderr
    assert '"certified": true' in res.stdout


def test_sweep_script_is_the_readme():
    assert _block("bash", "problems sweep") in (EXAMPLES / "sweep.sh").read_text()


@pytest.mark.slow
def test_readme_sweep_command_runs(repo_copy):
    command = _block("bash", "problems sweep").split("\n#")[0].replace("\\\n", " ")
    argv = shlex.split(command)
    res = _run([sys.executable, *argv[1:]], repo_copy, timeout=1200)
    assert res.returncode == 0, res.stderr[-3000:]
    assert (repo_copy / "study" / "results.csv").stat().st_size > 0
