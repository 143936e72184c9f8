r"""The results directory of a sweep: one atomic JSON file per finished point, and the tables.

Layout of ``DIR``::

    DIR/points/<key>.json    one finished point: {"point": spec, "row": row}, written atomically
    DIR/results.parquet      the table (pyarrow), one row per point of the sweep, in grid order
    DIR/results.csv          the same table as CSV
    DIR/figures/*.png        value (or ε*) against the sweep axis, one panel per (program, n, m)

A point file is written only once its row is complete (temporary file + ``os.replace``), so an interrupted
sweep leaves finished points and nothing half-written; the next run finds them by key and skips them.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable
from pathlib import Path

from ..errors import InvalidInputError
from ..export import atomic_write_bytes, atomic_write_text
from .grid import Point
from .jobs import COLUMNS

__all__ = ["ResultStore", "SCHEMA"]


def _schema():  # noqa: ANN202
    import pyarrow as pa

    return pa.schema(
        [
            ("program", pa.string()),
            ("n", pa.int64()),
            ("m", pa.int64()),
            ("prior", pa.string()),
            ("eps", pa.float64()),
            ("distortion", pa.float64()),
            ("status", pa.string()),
            ("certified", pa.bool_()),
            ("value", pa.float64()),
            ("lower", pa.float64()),
            ("upper", pa.float64()),
            ("solver", pa.string()),
            ("iterations", pa.int64()),
            ("solve_time", pa.float64()),
            ("worker", pa.string()),
            ("key", pa.string()),
            ("error", pa.string()),
        ]
    )


#: Column name → Arrow type name of the table (``docs/sweeps.md``).
SCHEMA = {
    "program": "string",
    "n": "int64",
    "m": "int64",
    "prior": "string",
    "eps": "double",
    "distortion": "double",
    "status": "string",
    "certified": "bool",
    "value": "double",
    "lower": "double",
    "upper": "double",
    "solver": "string",
    "iterations": "int64",
    "solve_time": "double",
    "worker": "string",
    "key": "string",
    "error": "string",
}


class ResultStore:
    """Finished points of a sweep, on disk under ``root``."""

    def __init__(self, root: str | Path) -> None:
        root = Path(root)
        if root.exists() and not root.is_dir():
            raise InvalidInputError(f"sweep output {str(root)!r} exists and is not a directory")
        self.root = root
        self.points_dir = root / "points"
        try:
            self.points_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InvalidInputError(f"cannot create the sweep output directory {str(root)!r}: {exc}") from exc

    def _path(self, key: str) -> Path:
        return self.points_dir / f"{key}.json"

    def load(self, key: str) -> dict | None:
        """The stored row of ``key``, or None (missing or unreadable: then it is recomputed)."""
        p = self._path(key)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            row = data["row"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not isinstance(row, dict) or row.get("key") != key or set(COLUMNS) - set(row):
            return None
        return row

    def save(self, point: Point, row: dict) -> Path:
        """Write one finished point atomically."""
        text = json.dumps({"point": point.spec(), "row": row}, indent=1, sort_keys=True, allow_nan=False)
        return atomic_write_text(self._path(point.key), text)

    def finished(self, points: Iterable[Point], *, retry_errors: bool = True) -> dict[str, dict]:
        """Rows already on disk for ``points`` (rows that recorded an error are left out when retrying)."""
        out = {}
        for p in points:
            row = self.load(p.key)
            if row is None or (
                retry_errors and row.get("status") in ("failed", "refused") and row.get("error")
            ):
                continue
            out[p.key] = row
        return out

    def write_tables(self, rows: list[dict]) -> tuple[Path, Path]:
        """``results.parquet`` and ``results.csv`` (atomically), one row per point, columns :data:`COLUMNS`."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        clean = [{c: _cell(r.get(c)) for c in COLUMNS} for r in rows]
        table = pa.Table.from_pylist(clean, schema=_schema())
        buf = pa.BufferOutputStream()
        pq.write_table(table, buf)
        parquet = atomic_write_bytes(self.root / "results.parquet", buf.getvalue().to_pybytes())
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=list(COLUMNS), lineterminator="\n")
        writer.writeheader()
        for r in clean:
            writer.writerow({k: _csv(v) for k, v in r.items()})
        csv_path = atomic_write_text(self.root / "results.csv", text.getvalue())
        return parquet, csv_path


def _cell(v):  # noqa: ANN001, ANN202
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _csv(v) -> str:  # noqa: ANN001
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v)
