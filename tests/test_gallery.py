"""The gallery scripts ``examples/plot_*.py``: each has the header sphinx-gallery renders, and each runs.

The docs build (``python -m sphinx -W -b html docs docs/_build/html``) executes them all and stops at the
first error; here the header is checked in a few milliseconds, and the runs are a slow test.
"""

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "examples").glob("plot_*.py"))


def test_at_least_ten_gallery_scripts():
    assert len(SCRIPTS) >= 10


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_gallery_header(script):
    tree = ast.parse(script.read_text())
    doc = ast.get_docstring(tree, clean=False)
    assert doc, f"{script.name} has no docstring header"
    lines = doc.strip("\n").splitlines()
    title, underline = lines[0], lines[1]
    assert set(underline) == {"="} and len(underline) == len(title), f"{script.name}: title underline"
    assert len(lines) > 3, f"{script.name}: the header says what the example shows"
    # the library never touches matplotlib's global state, and neither do its examples
    assert "pyplot" not in script.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_gallery_script_runs(script, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    res = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip()
