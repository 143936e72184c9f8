r"""Run a sweep on Dask: a ``LocalCluster`` by default, any ``dask.distributed`` scheduler by address.

Every point is submitted as a pure task keyed by its specification (:attr:`Point.dask_key`), so the
scheduler recomputes the points of a worker that dies (killed, out of memory) on another worker — Dask's
resilience, not ours — and a task that keeps killing workers ends as ``KilledWorker`` and is recorded as a
failed point.  Results are written by the client, atomically, as they arrive (:class:`ResultStore`): an
interrupted sweep keeps every finished point, and the next run skips them.

``scheduler="synchronous"`` runs the points in this process one after another (no cluster): for tiny
sweeps, debugging, and the command lines that reproduce one curve.
"""

from __future__ import annotations

import logging
import math
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidInputError
from ..progress import TICK_SECONDS, Progress
from ..resources import memory_room
from .grid import Point, SweepSpec
from .jobs import COLUMNS, estimate_bytes, failed_row, refused_row, run_point
from .store import ResultStore

__all__ = ["SweepSummary", "run_sweep", "check_scheduler"]

GiB = 2**30


@dataclass
class SweepSummary:
    """What a sweep did.  ``rows`` is the table (one dict per point, in grid order)."""

    points: int
    computed: int
    skipped: int
    failed: int
    scheduler: str
    workers: int
    table: str
    csv: str
    seconds: float
    rows: list[dict] = field(repr=False, default_factory=list)
    figures: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "points": self.points,
            "computed": self.computed,
            "skipped": self.skipped,
            "failed": self.failed,
            "scheduler": self.scheduler,
            "workers": self.workers,
            "table": self.rows,
            "files": {"parquet": self.table, "csv": self.csv, "figures": self.figures},
            "seconds": self.seconds,
        }


def _points(spec: SweepSpec | Sequence[Point]) -> list[Point]:
    points = spec.points() if isinstance(spec, SweepSpec) else list(spec)
    if not points:
        raise InvalidInputError("the sweep has no points (check the ε/D values against n)")
    if not all(isinstance(p, Point) for p in points):
        raise InvalidInputError("run_sweep takes a SweepSpec or a sequence of Point")
    return points


_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ws|wss|ucx)://)?\[?[A-Za-z0-9_.\-:]+\]?:\d{1,5}$|^inproc://\S+$")


def check_scheduler(scheduler: str | None) -> str | None:
    """``scheduler`` if it is None, ``"synchronous"`` or a Dask address ``[tcp://]HOST:PORT``; bad input otherwise.

    Checked before any point runs or any connection is tried (an address without a port is a typo, not a
    scheduler).
    """
    if scheduler is None or scheduler == "synchronous":
        return scheduler
    if not isinstance(scheduler, str) or not _ADDRESS.match(scheduler.strip()):
        raise InvalidInputError(
            f"--scheduler must be 'synchronous' or the address of a running Dask scheduler, tcp://HOST:PORT "
            f"(for example tcp://127.0.0.1:8786), got {scheduler!r}"
        )
    return scheduler.strip()


def _connect(scheduler: str | None, workers: int | None, memory_limit: int):  # noqa: ANN202
    """(client, cluster or None, description)."""
    from distributed import Client, LocalCluster

    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError, ValueError) as exc:
            raise InvalidInputError(f"cannot connect to the Dask scheduler at {scheduler!r}: {exc}") from exc
        return client, None, scheduler
    k = workers or os.cpu_count() or 1
    cluster = LocalCluster(
        n_workers=k,
        threads_per_worker=1,
        processes=True,
        memory_limit=memory_limit,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )
    return Client(cluster), cluster, f"LocalCluster({k} workers)"


def _worker_limit(client) -> float:  # noqa: ANN001
    """The smallest memory limit among the cluster's workers (inf when none is set)."""
    info = client.scheduler_info().get("workers", {})
    limits = [w.get("memory_limit") or math.inf for w in info.values()]
    return min(limits, default=math.inf)


def run_sweep(
    spec: SweepSpec | Sequence[Point],
    out: str | Path,
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    memory_limit: int | None = None,
    progress: bool = True,
    echo: Callable[[str], object] | None = None,
    figures: bool = True,
    retry_errors: bool = True,
    client=None,  # noqa: ANN001
) -> SweepSummary:
    """Run every point of ``spec`` not already finished in ``out``; write the tables; return a summary.

    Parameters
    ----------
    spec:
        A :class:`SweepSpec` (the grid) or a sequence of :class:`Point`.
    out:
        The results directory (see :mod:`problems.sweep.store`).
    scheduler:
        ``None`` — a ``LocalCluster`` of ``workers`` processes (default: the machine's cores), one thread
        each; ``"tcp://HOST:PORT"`` — an existing ``dask.distributed`` scheduler; ``"synchronous"`` — this
        process, one point after another.
    memory_limit:
        Bytes per local worker (default: from the largest point's estimate, at most the available memory
        divided among the workers).  Points whose estimate exceeds the workers' limit are refused before they
        are sent (``status: refused``).
    retry_errors:
        Recompute points whose stored row recorded an error (failed or refused); finished points are kept.
    progress:
        A bar with ETA on a terminal (stderr), one line per finished point otherwise (:mod:`problems.progress`).
    echo:
        Called with the line of every finished point, whatever ``progress`` says.
    client:
        An existing ``distributed.Client`` to use (not closed).
    """
    t0 = time.perf_counter()
    scheduler = check_scheduler(scheduler)
    points = _points(spec)
    store = ResultStore(out)
    done = store.finished(points, retry_errors=retry_errors)
    todo = [p for p in points if p.key not in done]
    new: dict[str, dict] = {}
    desc, n_workers = "none (every point was finished)", 0
    bar = Progress(len(todo), "sweep", quiet=not progress, heartbeat=TICK_SECONDS)

    def record(p: Point, row: dict) -> None:
        store.save(p, row)
        new[p.key] = row
        axis = f"ε={row['eps']:g}" if row.get("eps") is not None else f"D={row['distortion']:g}"
        value = "—" if row.get("value") is None else f"{row['value']:.6g}"
        line = (
            f"{row['program']} n={row['n']} m={row['m']} {row['prior']} {axis}: {row['status']} {value} "
            f"({row.get('worker') or '-'})"
        )
        bar.step(line)
        if echo is not None:
            echo(line)

    try:
        if todo and scheduler == "synchronous":
            desc, n_workers = "synchronous", 1
            for p in todo:
                record(p, run_point(p))
        elif todo:
            need = max(estimate_bytes(p) for p in todo)
            k = workers or os.cpu_count() or 1
            share = (memory_room() or 8 * GiB) // max(k, 1)
            limit: float = memory_limit or int(min(share, max(2 * need, 2 * GiB)))
            own = client is None
            if own:
                client, cluster, desc = _connect(scheduler, workers, int(limit))
            else:
                cluster, desc = None, str(getattr(client, "scheduler", None) and client.scheduler.address)
            try:
                if scheduler is not None or not own:
                    limit = _worker_limit(client)
                n_workers = len(client.scheduler_info().get("workers", {}))
                send = []
                for p in todo:
                    est = estimate_bytes(p)
                    if est > limit:
                        record(
                            p,
                            refused_row(
                                p,
                                f"estimated {est / GiB:.1f} GiB > worker memory limit {limit / GiB:.1f} GiB; "
                                "use the reduced or theorem path, or workers with more memory",
                            ),
                        )
                    else:
                        send.append(p)
                _gather(client, send, record)
            finally:
                if own:
                    client.close()
                    if cluster is not None:
                        cluster.close()
    finally:
        bar.close()
    rows = [{c: (done.get(p.key) or new[p.key]).get(c) for c in COLUMNS} for p in points]
    parquet, csv_path = store.write_tables(rows)
    figs: list[str] = []
    if figures:
        from .figures import sweep_figures

        figs = [str(f) for f in sweep_figures(rows, store.root / "figures")]
    failed = sum(1 for r in new.values() if r["status"] in ("failed", "refused"))
    return SweepSummary(
        points=len(points),
        computed=len(new),
        skipped=len(done),
        failed=failed,
        scheduler=desc,
        workers=n_workers,
        table=str(parquet),
        csv=str(csv_path),
        seconds=time.perf_counter() - t0,
        rows=rows,
        figures=figs,
    )


def _gather(client, points: list[Point], record: Callable[[Point, dict], None]) -> None:  # noqa: ANN001
    """Submit every point as a pure keyed task and record rows as they finish."""
    from distributed import as_completed

    if not points:
        return
    futures = {client.submit(run_point, p, key=p.dask_key, pure=True): p for p in points}
    for fut in as_completed(list(futures)):
        p = futures[fut]
        try:
            row = fut.result()
        except Exception as exc:  # noqa: BLE001 — KilledWorker, a lost connection…: recorded, the sweep goes on
            row = failed_row(p, f"{type(exc).__name__}: {exc}")
        record(p, row)
        fut.release()
