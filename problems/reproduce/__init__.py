"""``python -m problems reproduce``: regenerate the papers' figures and the checks, with progress.

This package is the reproduction application, kept apart from the library it exercises: each section is a
small function ``section(sec, ctx)`` that computes with the library, writes its files into the output
directory and records its checks in a :class:`~problems.reproduce.report.Section`.

* :mod:`~problems.reproduce.wang2016` — Figure 2 and Theorem 1, h(ε), R-PD = h(ε), Theorem 2;
* :mod:`~problems.reproduce.information` — information privacy (Wu, Xia & He 2017, 2020; Wu 2019a, 2019b);
* :mod:`~problems.reproduce.design` — optimal mechanisms under information privacy;
* :mod:`~problems.reproduce.scale` — ε*(D) at scale (orbit reduction), also ``python -m problems.reproduce.scale``;
* :mod:`~problems.reproduce.ipopt` — C₁ over the full joint and the balance function (``ipopt`` extra);
* :mod:`~problems.reproduce.figures` — the figures of these sections; :mod:`~problems.reproduce.tables` — tables;
* :mod:`~problems.reproduce.report` — checks, sections, the verdict table and ``REPORT.md``;
* :mod:`~problems.reproduce.runner` — runs the sections; :mod:`~problems.reproduce.sections` lists them;
  :mod:`~problems.reproduce.deps` — the optional dependencies (a section that cannot run is a row of the
  verdict table saying what did not run and why).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from .runner import Context, ReproduceResult, SectionSpec, run_sections
from .sections import section_specs
from .wang2016 import NONUNIFORM_PRIOR, TOL_EPS

__all__ = ["reproduce", "ReproduceResult", "SectionSpec", "Context", "NONUNIFORM_PRIOR", "TOL_EPS"]


def reproduce(
    out_dir: str | Path,
    *,
    progress: Callable[[str], None] = print,
    quick: bool = False,
    full: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    sections: Sequence[SectionSpec] | None = None,
) -> ReproduceResult:
    """Run the whole reproduction into ``out_dir`` and write ``REPORT.md``.

    ``full=True`` also recomputes the n = 200 orbit-scale curve (instead of drawing the shipped rows) as a
    sweep kept in ``out_dir/orbit_scale_points`` — on a LocalCluster of ``workers`` or on ``scheduler`` —
    which resumes when run again (about half a minute: for the i.i.d. prior every point is n × the certified
    one-row program, :mod:`problems.orbit.product_prior`; the reduced LP of 1.37 M variables is not needed).
    ``sections`` replaces the sections of the report (default :func:`~problems.reproduce.sections.section_specs`).

    Each section runs even if an earlier one failed (a failure is reported in the verdict table); a section
    whose optional dependency is missing does not run, and its row in the verdict table says why.  Files of a
    previous run listed in the manifest (:data:`problems.reproduce.report.MANIFEST`) and not written again
    are removed.  ``result.ok`` is false if a section failed or a claim check failed.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ctx = Context(out, progress, quick=quick, full=full, workers=workers, scheduler=scheduler)
    return run_sections(section_specs(ctx) if sections is None else sections, ctx)
