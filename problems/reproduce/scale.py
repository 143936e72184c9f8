r"""The orbit-scale sections of the reproduction: ε*(D) against D/n at several n, drawn and checked.

:func:`scale_figure` computes the rows (:func:`problems.orbit.scale.scale_rows`, or one sweep point each
through :func:`problems.sweep.studies.scale_rows_via_sweep`), writes ``orbit_scale.{csv,png,svg}`` and, given a
report section, records the checks of Theorem 1 (Wang, Ying & Zhang 2016, (18)–(19)).
:func:`mixture_scale_figure` does the same for an exchangeable mixture.  The command line is
``python -m problems.reproduce.scale OUT [--ns 10 50 200] [--programs dp i] [--levels …]``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import InfeasibleProgramError
from ..export import atomic_write_text
from ..orbit.scale import (
    DEFAULT_LEVELS,
    DEFAULT_NS,
    FIELDS,
    read_rows,
    scale_rows,
    theorem1_violations,
)
from ..plotting import save_figure
from ..sweep.studies import scale_rows_via_sweep
from .figures import scale_plot
from .report import Section
from .runner import Context

__all__ = [
    "scale_figure",
    "mixture_scale_figure",
    "scale_section",
    "mixture_section",
    "main",
    "MIXTURE_PRIOR",
    "MIXTURE_NS",
]

#: The exchangeable mixture of the second scale figure (rows dependent: ε*(D) moves with n) and its n.
MIXTURE_PRIOR = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"
MIXTURE_NS: tuple[int, ...] = (10, 20, 30)


def scale_figure(
    out_dir: str | Path,
    progress: Callable[[str], object] = print,
    ns: Sequence[int] = DEFAULT_NS,
    *,
    row: Sequence[float] = (0.3, 0.7),
    levels: Sequence[float] = DEFAULT_LEVELS,
    xtol: float = 1e-6,
    programs: Sequence[str] = ("dp", "i"),
    include: Sequence[str | Path] | None = None,
    report: Section | None = None,
    sweep_out: str | Path | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    prior: str | None = None,
    name: str = "orbit_scale",
) -> list[Path]:
    """Write ``orbit_scale.png``, ``orbit_scale.svg`` and ``orbit_scale.csv`` to ``out_dir``; return the paths.

    The CSV has one row per (n, program, D/n) with ε*, ε*/n, h⁻¹(D)/n, the number of LP solves and the largest
    KKT residual among them.  ``include`` lists CSV files of earlier runs (default: none) whose rows for n not in
    ``ns`` are added to the figure and marked "precomputed" in the legend.  The shipped n = 200 rows
    (:data:`PRECOMPUTED_CSV`) are an independently computed test reference, not a figure input.  With ``sweep_out``
    every point is a sweep point (:func:`problems.sweep.studies.scale_rows_via_sweep`) kept in that directory,
    on a LocalCluster of ``workers`` or the ``scheduler`` given (``reproduce --full`` does this for n = 200).
    With ``report`` (a :class:`~problems.reproduce.report.Section`) the Theorem 1 checks and the prose of the
    report section are recorded.
    ``prior`` (a symmetric prior spec) replaces the i.i.d. prior ``row``; the files are ``name``.csv/.png/.svg.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if sweep_out is not None:  # every (n, program, D/n) a keyed sweep point: Dask, resumable (docs/sweeps.md)
        rows = scale_rows_via_sweep(
            ns,
            levels,
            sweep_out,
            programs=programs,
            row=row,
            scheduler=scheduler,
            workers=workers,
            echo=lambda line: progress(f"  {line}"),
            progress=False,
        )
    else:
        rows = _rows_in_process(ns, programs, levels, row=row, xtol=xtol, progress=progress, prior=prior)
    # the shipped n = 200 rows are a test reference, not a figure input: no precomputed rows by default
    pre = [r for path in include or () for r in read_rows(path) if r["n"] not in ns]
    csv_path = _write_rows(out / f"{name}.csv", rows + pre)
    label = f"i.i.d. prior {tuple(row)}" if prior is None else f"prior {prior}"
    fig = scale_plot(rows + pre, computed_ns=ns, row=row, levels=levels, label=label)
    paths = [csv_path, *save_figure(fig, out / name, dpi=130)]
    if report is not None:
        _record(report, rows + pre, ns, label, paths[1], iid=prior is None)
    return paths


def _rows_in_process(
    ns: Sequence[int],
    programs: Sequence[str],
    levels: Sequence[float],
    *,
    progress: Callable[[str], object],
    **kwargs,  # noqa: ANN003
) -> list[dict]:
    """:func:`~problems.orbit.scale.scale_rows` for every n and program, in this process."""
    rows: list[dict] = []
    for n in ns:
        for prog in programs:
            try:
                rows.extend(scale_rows(n, prog, levels, progress=progress, **kwargs))
            except InfeasibleProgramError as exc:  # pragma: no cover - defensive
                progress(f"  skipped: {exc}")
    return rows


def _write_rows(path: Path, rows: list[dict]) -> Path:
    """The rows as CSV with the columns :data:`~problems.orbit.scale.FIELDS` (other keys dropped)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return atomic_write_text(path, buf.getvalue())


def mixture_scale_figure(
    out_dir: str | Path,
    progress: Callable[[str], object] = print,
    ns: Sequence[int] = MIXTURE_NS,
    *,
    report=None,  # noqa: ANN001
    **kwargs,  # noqa: ANN003
) -> list[Path]:
    """The scale figure for the exchangeable mixture :data:`MIXTURE_PRIOR`: ``orbit_scale_mixture.*``."""
    return scale_figure(
        out_dir,
        progress,
        ns,
        include=(),
        report=report,
        prior=MIXTURE_PRIOR,
        name="orbit_scale_mixture",
        **kwargs,
    )


def _record(sec, rows, ns, label, png, iid: bool = True) -> None:  # noqa: ANN001
    all_ns = sorted({r["n"] for r in rows})
    pre = [n for n in all_ns if n not in ns]
    sec.say(
        f"**Theorem 1 of Wang, Ying & Zhang (2016) at scale.** ε*_d(D) and ε*_i(D) for the {label} at "
        f"n = {', '.join(map(str, all_ns))}, each point by Newton inversion of D*(ε) — "
        + (
            "for an i.i.d. prior n times the certified one-row program (single-letterisation, "
            "problems.orbit.product_prior)"
            if iid
            else "the orbit-reduced LP, or where they apply the mixture theorems (PD-DP: the mixture sandwich; "
            "PD-I: Lemma 4 with a non-negative output law; problems.orbit.mixture_prior, mixture_pd_i)"
        )
        + (f" (n = {', '.join(map(str, pre))}: precomputed rows shipped with the package)" if pre else "")
        + ". Checked: ε*_d ≤ max{h⁻¹(D), 0} ≤ max{h⁻¹(D), ε_X} ≤ ε*_i at every point."
    )
    sec.figure(
        png,
        "Left: ε*(D) against D/n — the curves of every n coincide with h⁻¹ below D/n = 0.3 = min π. "
        "Right: the distance from h⁻¹(D), where PD-DP drops to 0 and PD-I stays at ε_X."
        if iid
        else "Left: ε*(D) against D/n — for an exchangeable mixture the rows are dependent, and the curves "
        "move with n (ε_X grows with n, and so does the gap to h⁻¹). Right: the distance from h⁻¹(D).",
    )
    dp, vi = theorem1_violations(rows)
    tol = 1e-4
    counts = {(r["n"], r["program"]): r["uncertified_solves"] for r in rows if r["n"] in ns}
    sec.check(
        "every LP solve behind the computed curves is certified",
        "toolkit certificate",
        "number of uncertified LP solves (PD-I at ε = ε_X: lower bound = value, or Lemma 3, suffices)",
        float(sum(v for v in counts.values() if math.isfinite(v))),
        0.0,
    )
    top = max(all_ns, default=0)
    sec.check(
        f"ε*_d(D) ≤ max{{h⁻¹(D), 0}} at n ≤ {top}",
        "Wang, Ying & Zhang (2016) Theorem 1 (19)",
        "max violation, nats",
        dp,
        tol,
    )
    sec.check(
        f"ε*_i(D) ≥ max{{h⁻¹(D), ε_X}} at n ≤ {top}",
        "Wang, Ying & Zhang (2016) Theorem 1 (18)",
        "max violation, nats",
        vi,
        tol,
    )


def scale_section(sec: Section, ctx: Context) -> None:
    """The i.i.d. scale figure: n = 10, 50, 200 (``--quick``: 6, 10; ``--full``: the same n through the sweep)."""
    kwargs: dict = {}
    if ctx.quick:
        kwargs = {"ns": (6, 10)}
    elif ctx.full:
        kwargs = {
            "ns": (10, 50, 200),
            "include": (),
            "sweep_out": ctx.out / "orbit_scale_points",
            "workers": ctx.workers,
            "scheduler": ctx.scheduler,
        }
    sec.paths += scale_figure(ctx.out, ctx.progress, report=sec, **kwargs)


def mixture_section(sec: Section, ctx: Context) -> None:
    """The scale figure of the exchangeable mixture :data:`MIXTURE_PRIOR` (``--quick``: n = 6, 10)."""
    kwargs = {"ns": (6, 10)} if ctx.quick else {}
    sec.paths += mixture_scale_figure(ctx.out, ctx.progress, report=sec, **kwargs)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m problems.reproduce.scale OUT [--ns 10 50 200] [--programs dp i] [--levels …]``.

    For the i.i.d. prior every point is n × the certified one-row program (:mod:`problems.orbit.product_prior`):
    n = 200 takes seconds.  A mixture (``prior=``) solves reduced LPs (~12 CPU min each at n = 200).
    """
    import argparse

    ap = argparse.ArgumentParser(description="ε*(D)/n against D/n for PD-DP and PD-I (orbit-reduced LPs)")
    ap.add_argument("out", help="output directory")
    ap.add_argument("--ns", type=int, nargs="+", default=list(DEFAULT_NS))
    ap.add_argument("--programs", nargs="+", choices=["dp", "i"], default=["dp", "i"])
    ap.add_argument("--levels", type=float, nargs="+", default=list(DEFAULT_LEVELS), help="values of D/n")
    ap.add_argument(
        "--include", nargs="*", default=None, help="CSV files of earlier runs to add (default: shipped n=200)"
    )
    args = ap.parse_args(argv)
    for p in scale_figure(
        args.out,
        lambda s: print(s, flush=True),
        ns=tuple(args.ns),
        levels=tuple(args.levels),
        programs=tuple(args.programs),
        include=args.include,
    ):
        print(f"wrote {p}")


if __name__ == "__main__":  # pragma: no cover
    main()
