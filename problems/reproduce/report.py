"""The pieces of ``REPORT.md``: claim checks, report sections, the verdict table, the page and the manifest.

A reproduction section (the section functions of :mod:`problems.reproduce` and
``ipopt_models.reproduce.reproduce_section``) receives a :class:`Section`, writes its files, and records in it

* what it checked, as :class:`Check` objects — a claim of the papers, the measured quantity, its value,
  the tolerance and whether the claim holds — which make the verdict table at the top of the report;
* a few sentences (``say``) and tables (``table``) that explain the check under the section's heading.

A section that could not run here (an optional dependency is missing) keeps the reason in
:attr:`Section.skipped`; the verdict table has a row for it saying what did not run and why.

The output directory keeps a manifest (:data:`MANIFEST`) of the files the report owns, so that a new run
removes the files of the previous run it did not write again (and nothing else).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..export import atomic_write_text

__all__ = [
    "Check",
    "Section",
    "verdict_table",
    "render_report",
    "VERDICT_COLUMNS",
    "MANIFEST",
    "read_manifest",
    "prune_stale",
]

#: Name of the manifest file in the output directory (one JSON object: {"files": [relative names]}).
MANIFEST = ".reproduce-manifest.json"


@dataclass(frozen=True)
class Check:
    """One claim checked against numbers: ``passed`` iff ``measured <= tolerance`` (both non-negative).

    ``measured`` is always a non-negative discrepancy (a deviation or a violation: 0 means the claim holds
    exactly), so that one column of the verdict table reads the same for every claim.
    """

    claim: str
    source: str
    quantity: str
    measured: float
    tolerance: float
    section: str = ""

    @property
    def passed(self) -> bool:
        return math.isfinite(self.measured) and self.measured <= self.tolerance

    def to_dict(self) -> dict:
        return {
            "claim": self.claim,
            "source": self.source,
            "quantity": self.quantity,
            "measured": self.measured,
            "tolerance": self.tolerance,
            "passed": self.passed,
            "section": self.section,
        }


@dataclass
class Section:
    """A section of the report: its title, its prose and tables, its files and its checks."""

    title: str
    lines: list[str] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    error: str | None = None
    skipped: str | None = None
    seconds: float = 0.0

    def check(self, claim: str, source: str, quantity: str, measured: float, tolerance: float) -> Check:
        """Record a check (``measured`` a non-negative discrepancy; see :class:`Check`)."""
        c = Check(claim, source, quantity, float(measured), float(tolerance), self.title)
        self.checks.append(c)
        return c

    def say(self, *paragraphs: str) -> None:
        """Add paragraphs of prose."""
        for p in paragraphs:
            self.lines += [p, ""]

    def table(self, header: list[str], rows: list[list], *, digits: int = 6) -> None:
        """Add a markdown table."""
        fmt = [[f"{v:.{digits}g}" if isinstance(v, float) else str(v) for v in r] for r in rows]
        self.lines += ["| " + " | ".join(map(_cell, header)) + " |", "|" + "---|" * len(header)]
        self.lines += ["| " + " | ".join(map(_cell, r)) + " |" for r in fmt]
        self.lines.append("")

    def figure(self, path: str | Path, caption: str) -> None:
        """Embed a PNG with a caption (the caption says what the figure shows)."""
        p = Path(path)
        self.lines += [f"![{p.stem}]({p.name})", "", f"Figure ({p.name}): {caption}", ""]

    def files(self) -> str:
        """One line naming the data files of the section (CSV, SVG, JSON), linked."""
        data = [p for p in self.paths if p.suffix != ".png"]
        return "Files: " + ", ".join(f"[{p.name}]({p.name})" for p in data) + "." if data else ""


#: The columns of the verdict table and what each means (printed under the table).
VERDICT_COLUMNS = [
    ("claim", "the statement of the papers that is checked"),
    (
        "source",
        "where the claim is stated (the paper by authors and year, as in the references of the documentation; equation)",
    ),
    ("measured quantity", "the discrepancy computed from this run's data (0 would be exact agreement)"),
    ("measured", "its value (nats for privacy levels and information, rows for distortion)"),
    ("tolerance", "the largest discrepancy accepted: the accuracy of the numerical method behind the number"),
    ("verdict", "✓ if measured ≤ tolerance, ✗ otherwise"),
]


def _cell(text: object) -> str:
    """Text safe inside a markdown table cell (pipes escaped, one line)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def verdict_table(
    checks: list[Check],
    failed_sections: Sequence[tuple[str, str | None]] = (),
    not_run: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """The verdict table (markdown lines) and its column legend.

    One row per check, one per failed section (✗) and one per section that did not run here
    (``not_run``: (title, reason) — a missing optional dependency), so that nothing is left out silently.
    """
    lines = [
        "| claim | source | measured quantity | measured | tolerance | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for c in checks:
        lines.append(
            f"| {_cell(c.claim)} | {_cell(c.source)} | {_cell(c.quantity)} | {c.measured:.3g} | "
            f"{c.tolerance:.0e} | {'✓' if c.passed else '✗'} |"
        )
    for title, err in failed_sections:
        lines.append(
            f"| every claim of section “{_cell(title)}” | — | section failed: {_cell(err)} | — | — | ✗ |"
        )
    for title, reason in not_run:
        lines.append(
            f"| every claim of section “{_cell(title)}” | — | did not run: {_cell(reason)} | — | — | not run |"
        )
    lines.append("")
    lines += [f"* **{name}** — {meaning}." for name, meaning in VERDICT_COLUMNS]
    lines.append("")
    return lines


def read_manifest(out_dir: str | Path) -> list[str]:
    """The relative file names of the previous run's manifest (empty if none or unreadable)."""
    try:
        obj = json.loads((Path(out_dir) / MANIFEST).read_text())
        return [str(f) for f in obj.get("files", []) if isinstance(f, str)]
    except (OSError, ValueError, AttributeError):
        return []


def prune_stale(out_dir: str | Path, written: list[Path]) -> list[Path]:
    """Remove the files of the previous manifest not written now; record the new manifest; return removed.

    Only names listed in the previous manifest are candidates, and only plain files directly inside
    ``out_dir`` (a manifest entry with a directory part or ``..`` is ignored), so files the report does not
    own are never touched.
    """
    out = Path(out_dir)
    now = sorted({Path(p).name for p in written if Path(p).resolve().parent == out.resolve()})
    removed = []
    for name in read_manifest(out):
        if name in now or name != os.path.basename(name) or name in ("", ".", "..", MANIFEST):
            continue
        p = out / name
        if p.is_file() and not p.is_symlink():
            p.unlink()
            removed.append(p)
    atomic_write_text(out / MANIFEST, json.dumps({"files": now}, indent=1) + "\n")
    return removed


_QUICK_NOTE = (
    "**Quick run** (`--quick`): Figure 2 at n = 4 on 12 distortions (full run: n = 6 on 30), the orbit "
    "figure at n = 6, 10 only (full: 10, 50; `--full` adds n = 200, recomputed), the balance function "
    "on 5 entropy floors (full: 20). The claims checked are the same; the numbers are from smaller instances."
)


def _header(sections: Sequence[Section], *, quick: bool, ok: bool) -> list[str]:
    """The title, the quick-run note and the sentence that counts the checks."""
    checks = [c for s in sections for c in s.checks]
    failed = [s for s in sections if s.error is not None]
    passed = sum(c.passed for c in checks)
    lines = ["# Reproduction report" + (" (quick run)" if quick else ""), ""]
    if quick:
        lines += [_QUICK_NOTE, ""]
    lines += [
        "Every claim of the papers (Wang, Ying & Zhang 2016; Wu, Xia & He 2017, 2020; Wu 2019a, 2019b) that this "
        "toolkit reproduces, checked against "
        f"the numbers of this run: **{passed} of {len(checks)} checks pass"
        + (f", {len(failed)} section(s) failed" if failed else "")
        + f"** ({'✓ all claims hold' if ok else '✗ see the rows marked ✗'}). "
        "Units: nats for privacy levels and information, rows (expected Hamming distance) for distortion.",
        "",
    ]
    return lines


def _section_body(sec: Section) -> list[str]:
    """A section's heading, its failure, its checks, its prose, its files and its time."""
    lines = [f"## {sec.title}", ""]
    if sec.error is not None:
        lines += [f"**This section failed**: `{sec.error}`. Its claims are marked ✗ above.", ""]
    if sec.checks:
        lines.append("Claims checked in this section (measured discrepancy, tolerance):")
        lines.append("")
        lines += [
            f"* {'✓' if c.passed else '✗'} {c.claim}: {c.measured:.3g} (≤ {c.tolerance:.0e})"
            for c in sec.checks
        ]
        lines.append("")
    lines += sec.lines
    files = sec.files()
    if files:
        lines += [files, ""]
    lines += [f"Section time: {sec.seconds:.1f} s.", ""]
    return lines


def render_report(sections: Sequence[Section], *, quick: bool, ok: bool, seconds: float) -> str:
    """The text of ``REPORT.md``: the verdict table first, then every section, then the total time."""
    lines = _header(sections, quick=quick, ok=ok)
    lines += ["## Verdict", ""]
    skipped = [s for s in sections if s.skipped]
    lines += verdict_table(
        [c for s in sections for c in s.checks],
        [(s.title, s.error) for s in sections if s.error is not None],
        [(s.title, s.skipped) for s in skipped if s.skipped is not None],
    )
    if skipped:
        lines += [
            "Not run here (their claims are not in the table): "
            + "; ".join(f"{s.title} — {s.skipped}" for s in skipped)
            + ".",
            "",
        ]
    for sec in sections:
        lines += _section_body(sec)
    lines.append(f"Total time: {seconds:.1f} s.")
    return "\n".join(lines) + "\n"
