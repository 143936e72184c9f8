"""Run the reproduction sections one after another and write ``REPORT.md``.

Each section is a :class:`SectionSpec`: a title, a function ``run(sec, ctx)`` that writes its files into
``ctx.out`` and records its checks and prose in ``sec`` (a :class:`~problems.reproduce.report.Section`), and the
optional dependencies it needs (:mod:`problems.reproduce.deps`).  A section whose dependency is missing does
not run, and the report says what did not run and why; a section that raises is reported as failed; either
way the other sections still run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidInputError
from ..export import atomic_write_text
from .deps import missing
from .report import Check, Section, prune_stale, render_report

__all__ = ["Context", "SectionSpec", "ReproduceResult", "run_section", "run_sections"]


@dataclass(frozen=True)
class Context:
    """What every section is given: the output directory, the progress callback and the run's options."""

    out: Path
    progress: Callable[[str], None] = print
    quick: bool = False
    full: bool = False
    workers: int | None = None
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.quick and self.full:
            raise InvalidInputError("--quick and --full exclude each other")


@dataclass(frozen=True)
class SectionSpec:
    """A section of the report: its title, the function that fills it, and its optional dependencies."""

    title: str
    run: Callable[[Section, Context], None]
    needs: tuple[str, ...] = ()


@dataclass
class ReproduceResult:
    """What a reproduction did: the files written, the sections (checks, failures, skips), stale files removed."""

    out_dir: Path
    paths: list[Path]
    sections: list[Section]
    removed: list[Path] = field(default_factory=list)
    quick: bool = False

    @property
    def checks(self) -> list[Check]:
        return [c for s in self.sections for c in s.checks]

    @property
    def failed_sections(self) -> list[Section]:
        return [s for s in self.sections if s.error is not None]

    @property
    def skipped_sections(self) -> list[Section]:
        """The sections that did not run here (a missing optional dependency); each says why."""
        return [s for s in self.sections if s.skipped is not None]

    @property
    def failed_checks(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    @property
    def ok(self) -> bool:
        """Every section that could run ran, and every claim check passed."""
        return not self.failed_sections and not self.failed_checks

    @property
    def report(self) -> Path:
        return self.out_dir / "REPORT.md"


def run_section(spec: SectionSpec, ctx: Context) -> Section:
    """Run one section: not at all if a dependency is missing (said in the section), failures recorded."""
    ctx.progress(f"[{spec.title}]")
    sec = Section(spec.title)
    start = time.perf_counter()
    reason = missing(spec.needs)
    if reason is not None:
        ctx.progress(f"  not run: {reason}")
        sec.skipped = reason
        sec.say(f"Not run: {reason}.")
    else:
        try:
            spec.run(sec, ctx)
        except Exception as exc:  # a section failing must not hide the others: the verdict table says so
            ctx.progress(f"  section failed: {exc!r}")
            sec.error = f"{type(exc).__name__}: {exc}"
    sec.seconds = time.perf_counter() - start
    return sec


def run_sections(specs: Sequence[SectionSpec], ctx: Context) -> ReproduceResult:
    """Run every section, write ``REPORT.md``, remove the stale files of a previous run; print the verdict."""
    t0 = time.perf_counter()
    sections = [run_section(spec, ctx) for spec in specs]
    result = ReproduceResult(ctx.out, [p for s in sections for p in s.paths], sections, quick=ctx.quick)
    text = render_report(sections, quick=ctx.quick, ok=result.ok, seconds=time.perf_counter() - t0)
    result.paths.append(atomic_write_text(ctx.out / "REPORT.md", text))
    result.removed = prune_stale(ctx.out, result.paths)
    for p in result.removed:
        ctx.progress(f"removed stale {p.name} (written by a previous run)")
    verdict = (
        "every claim holds"
        if result.ok
        else (f"{len(result.failed_checks)} check(s) and {len(result.failed_sections)} section(s) FAILED")
    )
    ctx.progress(
        f"done: {len(result.paths)} files in {ctx.out} ({time.perf_counter() - t0:.1f} s); {verdict}"
    )
    return result
