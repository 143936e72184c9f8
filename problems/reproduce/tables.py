"""The tables of the reproduction: CSV for the data and markdown for ``REPORT.md``, written atomically."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ..export import atomic_write_text
from .report import Section, _cell

__all__ = ["write_records", "write_table", "write_csv"]


def write_records(path_stem: Path, rows: list[dict]) -> list[Path]:
    """``rows`` (dicts with the same keys) as ``path_stem.csv`` and ``path_stem.md`` (floats to 10 digits)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    md = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    for r in rows:
        md.append(
            "| " + " | ".join(f"{v:.10g}" if isinstance(v, float) else str(v) for v in r.values()) + " |"
        )
    return [
        atomic_write_text(path_stem.with_suffix(".csv"), buf.getvalue()),
        atomic_write_text(path_stem.with_suffix(".md"), "\n".join(md) + "\n"),
    ]


def write_table(out_dir: Path, name: str, header: list[str], rows: list[list], sec: Section) -> list[Path]:
    """``name.csv`` and ``name.md`` in ``out_dir`` (floats to 6 digits); the markdown also goes into ``sec``."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    written = [atomic_write_text(out_dir / f"{name}.csv", buf.getvalue())]
    fmt = [[f"{v:.6g}" if isinstance(v, float) else str(v) for v in r] for r in rows]
    lines = ["| " + " | ".join(map(_cell, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(_cell, r)) + " |" for r in fmt]
    written.append(atomic_write_text(out_dir / f"{name}.md", "\n".join(lines) + "\n"))
    sec.lines += lines + [""]
    return written


def write_csv(path: Path, rows: list[dict]) -> Path:
    """``rows`` as one CSV; the columns are the union of the rows' keys, in order of first appearance."""
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return atomic_write_text(path, buf.getvalue())
