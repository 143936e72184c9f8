r"""ε*_d(D)/n and ε*_i(D)/n against D/n at several n, with h⁻¹ (Wang, Ying & Zhang 2016, Theorem 1, (17)–(19)).

ε*(D) = min{ε : D*(ε) ≤ D} is the inverse of the non-increasing D*(ε).  Each point is computed exactly, by a
safeguarded Newton iteration on f(ε) = D*(ε) − D that re-solves the reduced LP (only e^ε changes):

* the derivative is the envelope theorem on the reduced LP: for the rows σ_p(u_s − e^ε κ_p u_d) ≤ 0 with
  multipliers λ_p, dD*/dε = −e^ε Σ_p λ_p σ_p κ_p u_{d_p} (one-sided where the active set changes; the
  bracket below makes that harmless);
* a bracket [lo, hi] with f(lo) > 0 ≥ f(hi) is kept; a Newton step leaving it is replaced by bisection;
* the start is h⁻¹(D) (clipped to the bracket): by Theorem 1 D*_d ≤ h ≤ D*_i, and where the curves coincide
  with h⁻¹ the first solve already satisfies |f| ≤ ``ftol`` (one LP per point).

Stopping: |f(ε)| ≤ max(``ftol``, ``ftol_rel``·D) (the large reduced LPs are accurate to ~3e-8 relative, so an
absolute 1e-6 would make n = 200 spend extra 12-minute solves on rounding) or bracket width ≤ ``xtol``.  For PD-I the search starts at ε_X (below it PD-I is
infeasible, Lemma 3); where D*_i(ε_X) ≤ D already, ε*_i(D) = ε_X.  Where D*_d(0) ≤ D, ε*_d(D) = 0.

The prior is i.i.d. with row pmf ``row`` (default (0.3, 0.7)), so D*_d(0) = 0.3·n (output the all-ones
database).  Measured (n = 10, 50): ε*_d = ε*_i = h⁻¹ for D/n < 0.3 (to 1e-6), while for D/n ≥ 0.3
ε*_d = 0 and ε*_i = ε_X = ln(7/3) but h⁻¹(D) > 0 until D/n = 1/2 (note h(ε_X) = 0.3·n): the default
levels straddle D/n = 0.3.  Cost: a few LP solves per point; the m = 2 joint-type LP has C(n+3, 3) variables
(23 426 at n = 50: ~2.5 s per solve; 1.37 M at n = 200: ~12 CPU min per solve, hours per figure), see
``docs/orbit_reduction.md`` §7 for measured times.
"""

from __future__ import annotations

import csv
import io
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..closed_forms import h_inv
from ..errors import InfeasibleProgramError
from ..export import atomic_write_text
from ..plotting import save_figure
from .programs import ReducedPDDP, ReducedPDI
from .symmetric_prior import parse_symmetric_prior, symmetric_iid

__all__ = [
    "scale_figure",
    "scale_plot",
    "theorem1_violations",
    "scale_rows",
    "read_rows",
    "eps_star_curve",
    "main",
    "DEFAULT_NS",
    "DEFAULT_LEVELS",
    "FIELDS",
    "PRECOMPUTED_CSV",
    "MIXTURE_PRIOR",
    "MIXTURE_NS",
    "mixture_scale_figure",
]

#: n values of the default figure (each n costs a few dozen LP solves; see the module docstring).
DEFAULT_NS: tuple[int, ...] = (10, 50)

#: The exchangeable mixture of the second scale figure (rows dependent: ε*(D) moves with n) and its n.
MIXTURE_PRIOR = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"
MIXTURE_NS: tuple[int, ...] = (10, 20, 30)

#: Default distortion levels D/n.  For the row (0.3, 0.7) the three curves coincide below D/n = 0.3 = min π
#: and separate above it (ε*_d = 0, ε*_i = ε_X, h⁻¹ > 0 up to D/n = 1/2); levels straddle that point.
DEFAULT_LEVELS: tuple[float, ...] = (0.05, 0.1, 0.15, 0.2, 0.25, 0.28, 0.295, 0.305, 0.32, 0.36, 0.4, 0.45)


def _value_and_slope(
    prog, eps: float, log: list[dict] | None = None, progress: Callable[[str], object] | None = None
) -> tuple[float, float]:
    """D*(ε) and dD*/dε (envelope theorem on the reduced LP; NaN if the LP was solved rescaled)."""
    t0 = time.perf_counter()
    res = prog.solve(eps)
    if log is not None:
        cert = res.certificate
        log.append(
            {
                "eps": float(eps),
                "value": float(res.value),
                "max_kkt": float(cert.max_residual) if cert is not None else math.nan,
                "certified": bool(getattr(res, "certified", True)),
                "lower_tight": bool(
                    res.bounds is not None
                    and abs(res.bounds.lower - res.value) <= 1e-6 * max(1.0, abs(res.value))
                ),
                "seconds": time.perf_counter() - t0,
                "result": res,
            }
        )
        if progress is not None:
            e = log[-1]
            progress(
                f"  LP at ε = {e['eps']:.9g}: D* = {e['value']:.10g}, KKT {e['max_kkt']:.1e}, {e['seconds']:.1f} s"
                + ("" if e["certified"] else f", NOT certified ({res.status}, bounds {res.bounds})")
            )
    lp = prog.lp
    if "u" not in res.extras or not res.duals:
        return res.value, math.nan  # theorem path: no multipliers (the root finder bisects)
    u = np.asarray(res.extras["u"], dtype=float)
    lam = np.asarray(res.duals["ratio"], dtype=float)
    slope = -math.exp(res.eps) * float(lam @ (lp.spec.kappa * u[lp.spec.dst]))
    return res.value, slope


def eps_star_curve(
    prog,
    n: int,
    levels: Sequence[float],
    *,
    eps_min: float = 0.0,
    eps_max: float = 12.0,
    xtol: float = 1e-6,
    ftol: float = 1e-6,
    ftol_rel: float = 2e-7,
    m: int = 2,
    counter: list[int] | None = None,
    log: list[dict] | None = None,
    progress: Callable[[str], object] | None = None,
) -> list[float]:
    """ε*(δn) for each δ in ``levels`` (NaN if D*(eps_max) > δn); see the module docstring for the method."""
    cache: dict[float, tuple[float, float]] = {}

    def F(eps: float) -> tuple[float, float]:
        if eps not in cache:
            cache[eps] = _value_and_slope(prog, eps, log, progress)
            if counter is not None:
                counter[0] += 1
        return cache[eps]

    out = []
    ftol_abs = ftol
    for delta in levels:
        target = delta * n
        # the reduced LPs are solved to ~3e-8 relative at large n: |f| ≤ max(ftol, ftol_rel·D) accepts that
        ftol = max(ftol_abs, ftol_rel * target)
        if F(eps_min)[0] <= target + ftol:
            out.append(eps_min)
            continue
        lo, hi = eps_min, eps_max
        # tighten the bracket with points already solved
        for e, (v, _) in cache.items():
            if v - target > 0:
                lo = max(lo, e)
            else:
                hi = min(hi, e)
        # (D*(eps_max) > target is detected only if the iteration gets there: no solve spent on it upfront)
        x = float(h_inv(target, n, m))
        x = min(max(x, lo), hi)
        result = math.nan
        for _ in range(60):
            v, g = F(x)
            f = v - target
            if abs(f) <= ftol:
                result = x
                break
            if f > 0:
                lo = x
            else:
                hi = x
            if hi - lo <= xtol:
                result = hi
                break
            step = x - f / g if (math.isfinite(g) and g < 0) else math.nan
            x = step if (math.isfinite(step) and lo < step < hi) else 0.5 * (lo + hi)
        if (
            hi == eps_max
            and not (math.isfinite(result) and abs(F(result)[0] - target) <= ftol)
            and F(eps_max)[0] - target > ftol
        ):
            result = math.nan  # D*(eps_max) > δn: not reached on [eps_min, eps_max]
        out.append(result)
    return out


FIELDS = [
    "n",
    "program",
    "D_over_n",
    "eps_star",
    "eps_over_n",
    "h_inv_over_n",
    "lp_solves",
    "max_kkt",
    "uncertified_solves",
]

#: n = 200 rows shipped with the package as a test reference (not a figure input): computed once, one
#: reduced LP per point solved by Clarabel through the LP chain and a Newton step on its envelope slope
#: (``benchmarks/scale_points.py``), each LP certified; ``max_kkt`` is the largest KKT residual among them.
PRECOMPUTED_CSV = Path(__file__).with_name("data") / "orbit_scale_n200.csv"


def scale_rows(
    n: int,
    program: str,
    levels: Sequence[float],
    *,
    row: Sequence[float] = (0.3, 0.7),
    xtol: float = 1e-6,
    progress: Callable[[str], object] = print,
    prior: str | None = None,
) -> list[dict]:
    """ε*(δn) for ``program`` ∈ {"dp", "i"} at every δ in ``levels``, one CSV row each (see :data:`FIELDS`).

    ``prior`` is a symmetric prior spec (``"mixture:0.5,0.5/0.8,0.2/0.3,0.7"``, see
    :func:`~problems.orbit.symmetric_prior.parse_symmetric_prior`); default the i.i.d. prior with row ``row``.
    """
    cls = {"dp": ReducedPDDP, "i": ReducedPDI}[program]
    sym = symmetric_iid(n, row) if prior is None else parse_symmetric_prior(prior, n, 2)
    progress(f"n = {n}: building reduced PD-{program.upper()}")
    prog = cls(sym)
    lo = getattr(prog, "eps_X", 0.0)
    counter = [0]
    log: list[dict] = []
    eps = eps_star_curve(prog, n, levels, eps_min=lo, xtol=xtol, counter=counter, log=log, progress=progress)
    max_kkt = max((e["max_kkt"] for e in log), default=math.nan)
    # PD-I at ε = ε_X has no interior point (Lemma 3: infeasible below): its LP may be left "inaccurate" with
    # only the lower bound proved; that solve is not counted when the lower bound equals the value, or when every
    # point with ε* = ε_X is proved without it (Lemma 3 and the constant mechanism, problems.inverse)
    from ..inverse import boundary_proof

    at_lo = [delta * n for delta, e in zip(levels, eps) if e == lo]
    lemma3 = program == "i" and all(boundary_proof(prog, D) is not None for D in at_lo)
    boundary = [
        e
        for e in log
        if not e["certified"] and program == "i" and e["eps"] == lo and (e["lower_tight"] or lemma3)
    ]
    uncertified = sum(not e["certified"] for e in log) - len(boundary)
    if boundary:
        how = "every point at ε_X proved by Lemma 3" if lemma3 else "proved from below only"
        progress(f"  PD-I at ε_X = {lo:.9g}: value {boundary[0]['value']:.10g}, {how}")
    rows = []
    for delta, e in zip(levels, eps):
        hv = float(h_inv(delta * n, n, 2))
        rows.append(
            {
                "n": n,
                "program": f"pd-{program}",
                "D_over_n": delta,
                "eps_star": e,
                "eps_over_n": e / n,
                "h_inv_over_n": hv / n,
                "lp_solves": counter[0],
                "max_kkt": max_kkt,
                "uncertified_solves": uncertified,
            }
        )
        progress(f"  D/n = {delta:.3f}: ε* = {e:.6g} (h⁻¹ = {hv:.6g})")
    return rows


def read_rows(path: str | Path) -> list[dict]:
    """Rows of an ``orbit_scale.csv`` (numbers parsed)."""
    out = []
    with Path(path).open(newline="") as fh:
        for r in csv.DictReader(fh):
            d: dict = {"n": int(r["n"]), "program": r["program"]}
            for key in FIELDS[2:]:
                d[key] = float(r[key]) if r.get(key) not in (None, "") else math.nan
            out.append(d)
    return out


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
    report=None,
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
    With ``report`` (a
    :class:`problems.report.Section`) the Theorem 1 checks and the prose of the report section are recorded.
    ``prior`` (a symmetric prior spec) replaces the i.i.d. prior ``row``; the files are ``name``.csv/.png/.svg.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    if sweep_out is not None:  # every (n, program, D/n) a keyed sweep point: Dask, resumable (docs/sweeps.md)
        from ..sweep.studies import scale_rows_via_sweep

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
    for n in ns if sweep_out is None else ():
        for prog in programs:
            try:
                rows.extend(scale_rows(n, prog, levels, row=row, xtol=xtol, progress=progress, prior=prior))
            except InfeasibleProgramError as exc:  # pragma: no cover - defensive
                progress(f"  skipped: {exc}")
    if include is None:
        include = []  # the shipped n = 200 rows are a test reference, not a figure input
    pre: list[dict] = []
    for path in include:
        pre.extend(r for r in read_rows(path) if r["n"] not in ns)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    w.writerows(pre)
    csv_path = atomic_write_text(out / f"{name}.csv", buf.getvalue())
    label = f"i.i.d. prior {tuple(row)}" if prior is None else f"prior {prior}"
    fig = scale_plot(rows + pre, computed_ns=ns, row=row, levels=levels, label=label)
    paths = [csv_path, *save_figure(fig, out / name, dpi=130)]
    if report is not None:
        _record(report, rows + pre, ns, label, paths[1], iid=prior is None)
    return paths


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


def theorem1_violations(rows: Sequence[dict]) -> tuple[float, float]:
    """Largest violations of Theorem 1 in ``rows``: (ε*_d − max{h⁻¹, 0})⁺ and (max{h⁻¹, ε_X} − ε*_i)⁺.

    ε_X is taken as the PD-I curve's value at its largest D (where ε*_i = ε_X, the left end of its search).
    """
    dp = [
        max(0.0, r["eps_star"] - max(r["h_inv_over_n"] * r["n"], 0.0))
        for r in rows
        if r["program"] == "pd-dp"
    ]
    vi = []
    for n in {r["n"] for r in rows}:
        ri = [r for r in rows if r["program"] == "pd-i" and r["n"] == n and math.isfinite(r["eps_star"])]
        if not ri:
            continue
        eps_x = min(r["eps_star"] for r in ri)
        vi += [max(0.0, max(r["h_inv_over_n"] * r["n"], eps_x) - r["eps_star"]) for r in ri]
    return max(dp, default=0.0), max(vi, default=0.0)


def _record(sec, rows, ns, label, png, iid: bool = True) -> None:  # noqa: ANN001
    all_ns = sorted({r["n"] for r in rows})
    pre = [n for n in all_ns if n not in ns]
    sec.say(
        f"**Theorem 1 of Wang, Ying & Zhang (2016) at scale.** ε*_d(D) and ε*_i(D) for the {label} at "
        f"n = {', '.join(map(str, all_ns))}, each point by Newton inversion of the orbit-reduced LP"
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


def scale_plot(
    rows: Sequence[dict],
    *,
    computed_ns: Sequence[int] = (),
    row: Sequence[float] = (0.3, 0.7),
    levels: Sequence[float] = DEFAULT_LEVELS,
    label: str | None = None,
):
    """The two panels on a new ``Figure``: ε*(D) and ε*(D) − h⁻¹(D) against D/n, one colour per n.

    ε*(D) depends on D only through D/n here (h⁻¹(δn) = ln(1/δ − 1) for m = 2), so the curves of all n are
    drawn on one scale: PD-DP solid with filled circles, PD-I dashed with open squares, the markers larger for
    the smaller n, so that coinciding curves stay visible.
    """
    from ..plotting import new_figure

    fig, axes = new_figure(1, 2, figsize=(11, 4.6))
    all_ns = sorted({r["n"] for r in rows})
    lv = [r["D_over_n"] for r in rows] or list(levels)
    grid = np.linspace(min(lv), max(lv), 200)
    hv = np.asarray(h_inv(grid * 2, 2, 2), dtype=float)  # h⁻¹(δn) does not depend on n for m = 2
    axes[0].plot(grid, np.maximum(hv, 0), ":", color="k", lw=1.2, label=r"$\max\{h^{-1}(D), 0\}$")
    axes[1].axhline(0.0, color="k", lw=1.2, ls=":")
    styles: dict[str, dict[str, Any]] = {
        "pd-dp": dict(ls="-", marker="o", ms=4, lw=1.5),
        "pd-i": dict(ls=(0, (5, 3)), marker="s", ms=7, mfc="none", mew=1.2, lw=1.5),
    }
    for k, n in enumerate(all_ns):
        tag = "" if n in computed_ns else " (precomputed)"
        for prog, style in styles.items():
            pts = sorted(
                (r["D_over_n"], r["eps_star"], r["h_inv_over_n"] * r["n"])
                for r in rows
                if r["n"] == n and r["program"] == prog
            )
            if not pts:
                continue
            x, y, hx = (np.array(v) for v in zip(*pts))
            # larger markers for the earlier n, drawn underneath: curves that coincide stay visible
            grow = 3.0 * (len(all_ns) - 1 - k)
            kw = dict(style, color=f"C{k}", label=f"{prog.upper()}, n = {n}{tag}", zorder=2 + k)
            kw["ms"] = style["ms"] + grow
            axes[0].plot(x, y, **kw)
            axes[1].plot(x, y - np.maximum(hx, 0), **kw)
    axes[0].set_ylabel(r"$\epsilon^*(D)$ (nats)")
    axes[0].set_title(r"$\epsilon^*(D)$, dotted: $h^{-1}(D)$", fontsize=10)
    axes[1].set_ylabel(r"$\epsilon^*(D) - \max\{h^{-1}(D), 0\}$ (nats)")
    axes[1].set_title(r"distance from $h^{-1}(D)$: PD-I above, PD-DP below (Theorem 1)", fontsize=10)
    for ax in axes:
        ax.set_xlabel("D/n (expected Hamming distortion per row)")
        ax.grid(alpha=0.3)
    axes[0].set_ylim(0, None)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=min(4, len(labels)), fontsize=8)
    fig.suptitle(f"PD-DP and PD-I at scale, {label or f'i.i.d. prior {tuple(row)}'}", fontsize=11)
    return fig


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m problems.orbit.scale_figure OUT [--ns 10 50 200] [--programs dp i] [--levels …]``.

    n = 200 takes hours (each LP solve ~12 CPU min, one per level plus one at the left end of each curve).
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
