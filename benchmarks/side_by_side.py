"""Helpers of the side-by-side benchmarks: one point's public call in a fresh subprocess per variant, interleaved.

A benchmark script calls :func:`run` with its own path and a point (a dict with the keys of
``bench_reduced_scale.child_toolkit`` and a ``variant``); the script, started with ``--child POINT``, sets its
variant up and prints the child's JSON line.  :func:`write` rewrites the results atomically after every point;
:func:`cell` formats one answer for a markdown table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["run", "write", "cell"]


def run(script: str, point: dict, timeout: float = 1800.0) -> dict:
    """``script --child POINT`` in a fresh interpreter: its last stdout line as JSON, or ``{"error": …}``."""
    out = subprocess.run(
        [sys.executable, script, "--child", json.dumps(point)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:] or [f"exit {out.returncode}"]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def write(path: Path, rows: list[dict]) -> None:
    """``rows`` as JSON at ``path``, written to a temporary file and renamed."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(rows, fh, indent=1)
    os.replace(tmp, path)


def cell(r: dict) -> str:
    """Wall seconds and the attempt that answered (and the status when it is not ``optimal``)."""
    if "error" in r:
        return f"error: {r['error']}"
    mark = "" if r["status"] == "optimal" else f" **{r['status']}**"
    return f"{r['solve_s']:.1f} {r['solver']}{mark}"
