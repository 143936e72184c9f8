"""``python -m problems reproduce``: regenerate the paper's figures and the checks, with progress.

Writes into ``--out DIR``:

* ``figure2_uniform.{png,svg,csv}`` — ε_i*(D) and ε_d*(D) for a uniform prior (they coincide);
* ``figure2_nonuniform.{png,svg,csv}`` — the same for a non-uniform prior, showing the ε_X gap;
* ``h_curve.{png,svg}`` — h(ε);
* ``rpd_equals_h.{csv,md}`` — R-PD optimum against h(ε) for several (n, m, ε);
* ``theorem2_kkt.{csv,md}`` — PD-MIP against E_i at ε = h⁻¹(D) and λ against h⁻¹(D);
* the sections contributed by the information-privacy, IPOPT and orbit-reduction modules when present;
* ``REPORT.md`` — every table and figure in one page.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import priors
from .closed_forms import h, h_inv
from .curves import privacy_distortion_curve
from .database import DatabaseSpace
from .export import atomic_write_text
from .measures import mutual_information
from .mechanism import identifiability_mechanism
from .plotting import plot_h, plot_privacy_distortion
from .prior_constants import eps_tilde, eps_X
from .programs import PDMIP, RPD
from .report import Check, Section, prune_stale, verdict_table

__all__ = ["reproduce", "ReproduceResult", "NONUNIFORM_PRIOR", "TOL_EPS"]


def NONUNIFORM_PRIOR(space: DatabaseSpace) -> priors.Prior:
    """The non-uniform prior of the reproduction: Dirichlet(4) draw with seed 2015 (the paper's year)."""
    rng = np.random.default_rng(2015)
    return priors.from_pmf(space, rng.dirichlet(np.full(space.size, 4.0)), name="Dirichlet(4), seed 2015")


def _table(path_stem: Path, rows: list[dict]) -> list[Path]:
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


def rpd_table() -> list[dict]:
    """R-PD optimum against h(ε) (Lemma 1)."""
    rows = []
    for n, m in ((2, 2), (3, 2), (4, 2), (2, 3), (3, 3)):
        prog = RPD(DatabaseSpace(n, m))
        for eps in (0.25, 1.0, 2.5):
            res = prog.solve(eps)
            rows.append(
                {
                    "n": n,
                    "m": m,
                    "eps": eps,
                    "R-PD": res.value,
                    "h(eps)": h(eps, n, m),
                    "abs_diff": abs(res.value - h(eps, n, m)),
                    "max_kkt_residual": res.certificate.max_residual,
                }
            )
    return rows


def theorem2_table(prior: priors.Prior) -> list[dict]:
    """PD-MIP against E_i at ε = h⁻¹(D) for D ≤ h(ε̃_X) (Theorem 2)."""
    n, m = prior.n, prior.m
    Dmax = h(eps_tilde(prior), n, m)
    prog = PDMIP(prior)
    rows = []
    for frac in (0.2, 0.4, 0.6, 0.8, 1.0):
        D = frac * Dmax
        res = prog.solve(D)
        eps = float(h_inv(D, n, m))
        Ei = identifiability_mechanism(prior, eps)
        rows.append(
            {
                "D": D,
                "h_inv(D)": eps,
                "lambda (solver)": float(res.duals["distortion"]),
                "abs(lambda - h_inv)": abs(float(res.duals["distortion"]) - eps),
                "lambda (certificate)": float(res.extras["lambda_certified"]),
                "PD-MIP": res.value,
                "I(E_i)": mutual_information(Ei, prior),
                "max abs(W - E_i)": float(np.max(np.abs(res.matrix - Ei.matrix))),
                "duality_gap": res.certificate.duality_gap,
            }
        )
    return rows


@dataclass
class ReproduceResult:
    """What :func:`reproduce` did: the files written, the checks, the sections that failed, stale files removed."""

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
    def failed_checks(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    @property
    def ok(self) -> bool:
        """Every section ran and every claim check passed."""
        return not self.failed_sections and not self.failed_checks

    @property
    def report(self) -> Path:
        return self.out_dir / "REPORT.md"


def _figure2_section(out: Path, progress, sec: Section, *, n: int, m: int, points: int) -> dict:
    """Figure 2 for a uniform and a non-uniform prior; returns the curves keyed by prior label."""
    curves_by_prior = {}
    for label, prior in (
        ("uniform", priors.uniform(DatabaseSpace(n, m))),
        ("nonuniform", NONUNIFORM_PRIOR(DatabaseSpace(n, m))),
    ):
        progress(
            f"[figure 2, {label} prior] n = {n}, m = {m}: ε_X = {eps_X(prior):.4g}, ε̃_X = {eps_tilde(prior):.4g}"
        )
        curves = []
        for notion in ("i", "d"):
            progress(f" ε_{notion}*(D) on {points} points")
            curves.append(privacy_distortion_curve(prior, notion, points=points, progress=progress))
        stem = out / f"figure2_{label}"
        sec.paths += plot_privacy_distortion(curves, stem)
        rows = [{**ri, "eps_d": rd["eps_d"]} for ri, rd in zip(curves[0].rows(), curves[1].rows())]
        sec.paths += _table(stem, rows)
        curves_by_prior[label] = (prior, curves)
        ci, cd = curves
        gap = np.max(np.abs(ci.eps - cd.eps))
        sec.say(
            f"**{label} prior** ({prior.name}): ε_X = {eps_X(prior):.6g}, ε̃_X = {eps_tilde(prior):.6g}, "
            f"h(ε̃_X) = {h(eps_tilde(prior), n, m):.6g}; max |ε_i* − ε_d*| over the grid = {gap:.3g}; "
            f"{int(ci.solves.sum())} PD-I and {int(cd.solves.sum())} PD-DP solves, largest KKT residual "
            f"{max(c.max_residual.max() for c in curves):.2g}."
        )
        sec.figure(
            stem.with_suffix(".png"),
            f"ε_i*(D) and ε_d*(D) for the {label} prior with the bounds of Theorem 1"
            + (" — the two curves coincide (ε_X = 0)." if eps_X(prior) == 0 else "."),
        )
    # the claims of Figure 2 and Theorem 1, measured on both priors
    _, (ui, ud) = curves_by_prior["uniform"]
    sec.check(
        "Figure 2, uniform prior: ε_i*(D) = ε_d*(D)",
        "Wang, Ying & Zhang (2016) Fig. 2, Theorem 1 (ε_X = 0)",
        "max |ε_i* − ε_d*|, nats",
        float(np.max(np.abs(ui.eps - ud.eps))),
        TOL_EPS,
    )
    rise, gap_viol, lo_d, up_d, eq_i, lo_i = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    for _, (ci, cd) in curves_by_prior.values():
        for c in (ci, cd):
            rise = max(rise, float(np.max(np.diff(c.eps), initial=0.0)))
        D = ci.distortion
        left = D <= h(ci.eps_tilde, ci.n, ci.m) + 1e-12
        diff = ci.eps - cd.eps
        gap_viol = max(gap_viol, float(np.max(-diff)), float(np.max(diff[left] - ci.eps_X, initial=0.0)))
        lo_d = max(lo_d, float(np.max(cd.lower_dp - cd.eps)))
        up_d = max(up_d, float(np.max(cd.eps - np.maximum(cd.h_inv, 0.0))))
        eq_i = max(eq_i, float(np.max(np.abs(ci.eps[left] - np.maximum(ci.h_inv[left], 0.0)), initial=0.0)))
        lo_i = max(lo_i, float(np.max((ci.lower_i - ci.eps)[~left], initial=0.0)))
    sec.check(
        "Figure 2: ε_i*(D), ε_d*(D) non-increasing in D",
        "Wang, Ying & Zhang (2016) Fig. 2",
        "largest rise between grid points, nats",
        max(rise, 0.0),
        TOL_EPS,
    )
    sec.check(
        "Figure 2: 0 ≤ ε_i* − ε_d* (≤ ε_X for D ≤ h(ε̃_X))",
        "Wang, Ying & Zhang (2016) after Theorem 1",
        "max violation, nats",
        max(gap_viol, 0.0),
        TOL_EPS,
    )
    sec.check(
        "Theorem 1: ε_i*(D) = h⁻¹(D) for D ≤ h(ε̃_X)",
        "Wang, Ying & Zhang (2016) (18)",
        "max |ε_i* − h⁻¹(D)|, nats",
        eq_i,
        TOL_EPS,
    )
    sec.check(
        "Theorem 1: ε_i*(D) ≥ max{h⁻¹(D), ε_X} for D > h(ε̃_X)",
        "Wang, Ying & Zhang (2016) (18)",
        "max violation, nats",
        max(lo_i, 0.0),
        TOL_EPS,
    )
    sec.check(
        "Theorem 1: max{h⁻¹(D) − ε_X, 0} ≤ ε_d*(D) ≤ max{h⁻¹(D), 0}",
        "Wang, Ying & Zhang (2016) (19)",
        "max violation, nats",
        max(lo_d, up_d, 0.0),
        TOL_EPS,
    )
    return curves_by_prior


#: Accuracy of the exact inversion ε*(D) (``problems.inverse``: bisection/Newton to 1e-9 on ε, LP optima
#: certified to 1e-6 relative), the tolerance of every check on ε*.
TOL_EPS = 1e-6


def _core_sections(out: Path, progress, *, quick: bool) -> list[tuple[str, Callable]]:
    n, m = (4, 2) if quick else (6, 2)
    points = 12 if quick else 30

    def figure2(sec: Section) -> None:
        sec.say(
            f"Figure 2 of Wang, Ying & Zhang (2016) recomputed at n = {n}, m = {m} on {points} distortions: each ε*(D) by exact "
            "inversion of the certified PD-I / PD-DP optima. Checked against Theorem 1 (18)–(19) at every point."
        )
        _figure2_section(out, progress, sec, n=n, m=m, points=points)

    def h_section(sec: Section) -> None:
        sec.paths += plot_h(n, m, out / "h_curve")
        sec.say(
            f"The closed form h(ε) = n/(1 + e^ε/(m − 1)) for n = {n}, m = {m}, the optimum of R-PD (Lemma 1)."
        )
        sec.figure(out / "h_curve.png", "h(ε): distortion (rows) against the privacy level (nats).")

    def rpd(sec: Section) -> None:
        rows = rpd_table()
        sec.paths += _table(out / "rpd_equals_h", rows)
        sec.say(
            "R-PD solved as a certified LP for five (n, m) and three ε, against the closed form h(ε) (Lemma 1):"
        )
        sec.lines += [(out / "rpd_equals_h.md").read_text(), ""]
        sec.check(
            "R-PD optimum = h(ε)",
            "Wang, Ying & Zhang (2016) Lemma 1, (32)",
            "max |R-PD − h(ε)|, rows",
            max(r["abs_diff"] for r in rows),
            1e-7,
        )

    def thm2(sec: Section) -> None:
        prior = NONUNIFORM_PRIOR(DatabaseSpace(3, 2))
        rows = theorem2_table(prior)
        sec.paths += _table(out / "theorem2_kkt", rows)
        sec.say(
            f"PD-MIP (exponential cone) for n = 3, m = 2, {prior.name}, at five D ≤ h(ε̃_X): the optimal "
            "mechanism is E_i at ε = h⁻¹(D) and the distortion multiplier λ equals h⁻¹(D) (Theorem 2):"
        )
        sec.lines += [(out / "theorem2_kkt.md").read_text(), ""]
        sec.check(
            "Theorem 2: distortion multiplier λ = h⁻¹(D)",
            "Wang, Ying & Zhang (2016) Theorem 2",
            "max |λ − h⁻¹(D)|, nats",
            max(r["abs(lambda - h_inv)"] for r in rows),
            1e-4,
        )
        sec.check(
            "Theorem 2: PD-MIP optimum = I(X;Y) of E_i at ε = h⁻¹(D)",
            "Wang, Ying & Zhang (2016) Theorem 2, (26)",
            "max |PD-MIP − I(E_i)|, nats",
            max(abs(r["PD-MIP"] - r["I(E_i)"]) for r in rows),
            1e-6,
        )

    return [
        ("Figure 2 of Wang, Ying & Zhang (2016) and Theorem 1", figure2),
        ("h(ε)", h_section),
        ("R-PD = h(ε) (Lemma 1)", rpd),
        ("Theorem 2 of Wang, Ying & Zhang (2016): PD-MIP and its KKT certificate", thm2),
    ]


def reproduce(
    out_dir: str | Path,
    *,
    progress: Callable[[str], None] = print,
    quick: bool = False,
    full: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
) -> ReproduceResult:
    """Run the whole reproduction into ``out_dir`` and write ``REPORT.md``.

    ``full=True`` also recomputes the n = 200 orbit-scale curve (instead of drawing the shipped rows) as a
    sweep kept in ``out_dir/orbit_scale_points`` — on a LocalCluster of ``workers`` or on ``scheduler`` —
    which resumes when run again (hours on two cores: a few dozen reduced LPs of 1.37 M variables).

    Each section runs even if an earlier one failed (a failure is reported in the verdict table); files of
    a previous run listed in the manifest (:data:`problems.report.MANIFEST`) and not written again are
    removed.  ``result.ok`` is false if a section failed or a claim check failed.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    sections: list[Section] = []
    runs: list[tuple[str, Callable[[Section], None]]] = list(_core_sections(out, progress, quick=quick))
    if quick and full:
        from .errors import InvalidInputError

        raise InvalidInputError("--quick and --full exclude each other")
    for title, fn, quick_kwargs in _sections():
        kwargs = quick_kwargs if quick else {}
        if full and getattr(fn, "__name__", "") == "scale_figure":
            kwargs = {
                "ns": (10, 50, 200),
                "include": (),
                "sweep_out": out / "orbit_scale_points",
                "workers": workers,
                "scheduler": scheduler,
            }

        def run(sec: Section, fn=fn, kwargs=kwargs) -> None:
            if isinstance(fn, str):  # not available here: say why, check nothing
                sec.skipped = fn
                sec.say(f"Not run: {fn}.")
                return
            sec.paths += [Path(p) for p in fn(out, progress, report=sec, **kwargs)]

        runs.append((title, run))
    for title, run_section in runs:
        progress(f"[{title}]")
        sec = Section(title)
        start = time.perf_counter()
        try:
            run_section(sec)
        except Exception as exc:  # a section failing must not hide the others: the verdict table says so
            progress(f"  section failed: {exc!r}")
            sec.error = f"{type(exc).__name__}: {exc}"
        sec.seconds = time.perf_counter() - start
        sections.append(sec)

    result = ReproduceResult(out, [p for s in sections for p in s.paths], sections, quick=quick)
    text = _render(result, time.perf_counter() - t0)
    result.paths.append(atomic_write_text(out / "REPORT.md", text))
    result.removed = prune_stale(out, result.paths)
    for p in result.removed:
        progress(f"removed stale {p.name} (written by a previous run)")
    verdict = (
        "every claim holds"
        if result.ok
        else (f"{len(result.failed_checks)} check(s) and {len(result.failed_sections)} section(s) FAILED")
    )
    progress(f"done: {len(result.paths)} files in {out} ({time.perf_counter() - t0:.1f} s); {verdict}")
    return result


_QUICK_NOTE = (
    "**Quick run** (`--quick`): Figure 2 at n = 4 on 12 distortions (full run: n = 6 on 30), the orbit "
    "figure at n = 6, 10 only (full: 10, 50; `--full` adds n = 200, recomputed), the balance function "
    "on 5 entropy floors (full: 20). The claims checked are the same; the numbers are from smaller instances."
)


def _render(result: ReproduceResult, seconds: float) -> str:
    checks = result.checks
    failed = [(s.title, s.error) for s in result.failed_sections]
    title = "# Reproduction report" + (" (quick run)" if result.quick else "")
    passed = sum(c.passed for c in checks)
    lines = [title, ""]
    if result.quick:
        lines += [_QUICK_NOTE, ""]
    lines += [
        "Every claim of the papers (Wang, Ying & Zhang 2016; Wu, Xia & He 2017, 2020; Wu 2019a, 2019b) that this "
        "toolkit reproduces, checked against "
        f"the numbers of this run: **{passed} of {len(checks)} checks pass"
        + (f", {len(failed)} section(s) failed" if failed else "")
        + f"** ({'✓ all claims hold' if result.ok else '✗ see the rows marked ✗'}). "
        "Units: nats for privacy levels and information, rows (expected Hamming distance) for distortion.",
        "",
        "## Verdict",
        "",
    ]
    lines += verdict_table(checks, failed)
    skipped = [s for s in result.sections if s.skipped]
    if skipped:
        lines += [
            "Not run here (their claims are not in the table): "
            + "; ".join(f"{s.title} — {s.skipped}" for s in skipped)
            + ".",
            "",
        ]
    for sec in result.sections:
        lines += [f"## {sec.title}", ""]
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
    lines.append(f"Total time: {seconds:.1f} s.")
    return "\n".join(lines) + "\n"


def _sections() -> list[tuple[str, Callable | str, dict]]:
    """Reproduction sections of the other modules, with the keyword arguments of their ``--quick`` form.

    A section whose optional dependency is missing comes with the reason (a string) instead of a function.
    """
    found: list[tuple[str, Callable | str, dict]] = []
    for title, module, attr, quick_kwargs in (
        (
            "Information privacy (Wu, Xia & He 2020, 2017; Wu 2019a, 2019b)",
            "problems.information.figures",
            "reproduce_section",
            {},
        ),
        (
            "Mechanism design under information privacy",
            "problems.design.figures",
            "reproduce_section",
            {},
        ),
        ("Curves at scale (orbit reduction)", "problems.orbit.scale_figure", "scale_figure", {"ns": (6, 10)}),
        (
            "Curves at scale: an exchangeable mixture",
            "problems.orbit.scale_figure",
            "mixture_scale_figure",
            {"ns": (6, 10)},
        ),
        (
            "C₁ over the full joint and the balance function (IPOPT)",
            "ipopt_models",
            "reproduce_section",
            {"points": 5},
        ),
    ):
        try:
            mod = __import__(module, fromlist=[attr])
        except ImportError as exc:
            if module.split(".")[0] == "ipopt_models" and "casadi" in str(exc).lower():
                found.append((title, "the ipopt extra (casadi) is not installed", {}))
                continue
            if isinstance(exc, ModuleNotFoundError) and exc.name and module.startswith(exc.name):
                continue  # that part of the toolkit is not present
            raise
        if hasattr(mod, attr):
            found.append((title, getattr(mod, attr), quick_kwargs))
    return found
