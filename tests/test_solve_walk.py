"""The walk of a plain ``python -m problems solve`` through the files of ``problems/`` (``tools/trace_solve.py``).

At the depth of the layers (3: the command, the dispatcher, the program and what each calls directly) the walk
goes down once and comes back: the options are checked in one call, the dispatcher builds and solves, the
result is printed.  The bounds hold the measured walk (9 files, 10 climbs, 12 returns) against new round trips.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "trace_solve.py"


def _tool():
    spec = importlib.util.spec_from_file_location("trace_solve", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # every Python call of the solve goes through a profile hook: ~6 s of CPU
def test_layers_of_a_plain_solve_are_entered_once():
    tool = _tool()
    walk, steps = tool.trace(list(tool.DEFAULT), depth=3)
    m = tool.measure(walk, steps)
    assert m["files"] <= 9 and m["climbs"] <= 10 and m["returns"] <= 12, m
    # the command's helpers are entered once, before the dispatcher; the dispatcher once, and left once
    first = walk.index("dispatch.py")
    assert walk[:first].count("cli_common.py") <= 1
    back = len(walk) - 1 - walk[::-1].index("dispatch.py")
    assert "dispatch.py" not in walk[back + 1 :] and walk[back + 1] == "cli.py"
