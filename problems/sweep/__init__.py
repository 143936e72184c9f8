"""Studies on Dask: a declarative grid of points, run on a ``LocalCluster`` or a cluster, resumable.

``run_sweep(SweepSpec(...), "DIR")`` (or ``python -m problems sweep``) solves every point of the grid
(:mod:`problems.sweep.grid`) as a pure, keyed Dask task (:mod:`problems.sweep.runner`), writes each finished
point atomically (:mod:`problems.sweep.store`) and the table ``DIR/results.parquet`` / ``DIR/results.csv``
with one row per point (:data:`COLUMNS`).  See ``docs/sweeps.md``.
"""

from __future__ import annotations

from .grid import DISTORTION_PROGRAMS, EPS_PROGRAMS, PROGRAMS, Point, SweepSpec, load_spec
from .jobs import COLUMNS, estimate_bytes, run_point
from .runner import SweepSummary, run_sweep
from .store import SCHEMA, ResultStore

__all__ = [
    "COLUMNS",
    "DISTORTION_PROGRAMS",
    "EPS_PROGRAMS",
    "PROGRAMS",
    "Point",
    "ResultStore",
    "SCHEMA",
    "SweepSpec",
    "SweepSummary",
    "estimate_bytes",
    "load_spec",
    "run_point",
    "run_sweep",
]
