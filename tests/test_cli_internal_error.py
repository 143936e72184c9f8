"""A crash is never exit 1 ("proved infeasible"): an unexpected exception is exit 5 with one line, and its
traceback only with ``--debug``, on both command lines."""

from __future__ import annotations

import pytest

import problems.prior_constants as prior_constants
from problems.cli import main
from problems.lp.status import EXIT_CODES


def _boom(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
    raise ValueError("an unexpected\nproblem")


@pytest.fixture
def crashing(monkeypatch):
    monkeypatch.setattr(prior_constants, "symmetric_constants", _boom)


ARGS = ["constants", "--n", "3", "--m", "2", "--prior", "uniform"]


def test_internal_error_is_exit_5_with_one_line(crashing, capsys):
    assert main(ARGS) == EXIT_CODES["internal"] == 5
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: internal error (ValueError: an unexpected problem)")
    assert "constants --n 3 --m 2 --prior uniform" in lines[0] and "--debug" in lines[0]


@pytest.mark.parametrize("where", [0, len(ARGS)])
def test_debug_anywhere_adds_the_traceback(crashing, capsys, where):
    argv = ARGS[:where] + ["--debug"] + ARGS[where:]
    assert main(argv) == 5
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "_boom" in err
    assert "error: internal error (ValueError" in err


def test_the_same_command_without_the_crash_is_certified(capsys):
    assert main(ARGS) == 0
    assert "--debug" not in capsys.readouterr().err


def test_ipopt_command_line_maps_a_crash_to_exit_5(monkeypatch, capsys):
    pytest.importorskip("casadi")
    import ipopt_models.cli as icli

    monkeypatch.setattr(icli, "_run", _boom)
    assert icli.main(["bilinear-pd", "--n", "2", "--m", "2", "--eps", "1"]) == 5
    assert "Traceback" not in capsys.readouterr().err


def test_closed_pipe_is_not_an_internal_error():
    """``… | head``: the reader went away; the command stops quietly with SIGPIPE's status (141), no message."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from problems.cli import main\n"
        "sys.stdout.close = lambda: None\n"
        "sys.exit(main(['constants', '--n', '3', '--m', '2', '--prior', 'uniform']))\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the command writes
    err = proc.stderr.read().decode()
    assert proc.wait() == 141, err
    assert "internal error" not in err and "Traceback" not in err
