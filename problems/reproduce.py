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

__all__ = ["reproduce", "NONUNIFORM_PRIOR"]


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


def reproduce(
    out_dir: str | Path, *, progress: Callable[[str], None] = print, quick: bool = False
) -> list[Path]:
    """Run the whole reproduction into ``out_dir``; returns the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    report: list[str] = ["# Reproduction report", ""]
    t0 = time.perf_counter()
    n, m = (4, 2) if quick else (6, 2)
    points = 12 if quick else 30

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
        written += plot_privacy_distortion(curves, stem)
        rows = [{**ri, "eps_d": rd["eps_d"]} for ri, rd in zip(curves[0].rows(), curves[1].rows())]
        written += _table(stem, rows)
        gap = np.max(np.abs(curves[0].eps - curves[1].eps))
        report += [
            f"## Figure 2 ({label} prior: {prior.name})",
            "",
            f"![figure 2 {label}]({stem.name}.png)",
            "",
            f"ε_X = {eps_X(prior):.6g}, ε̃_X = {eps_tilde(prior):.6g}, h(ε̃_X) = {h(eps_tilde(prior), n, m):.6g}; "
            f"max |ε_i* − ε_d*| over the grid = {gap:.3g}; "
            f"solves: {int(curves[0].solves.sum())} (PD-I) + {int(curves[1].solves.sum())} (PD-DP); "
            f"largest KKT residual {max(c.max_residual.max() for c in curves):.2g}.",
            "",
        ]

    progress("[h(ε)]")
    written += plot_h(n, m, out / "h_curve")
    report += ["## h(ε)", "", "![h](h_curve.png)", ""]

    progress("[table] R-PD = h(ε)")
    rows = rpd_table()
    written += _table(out / "rpd_equals_h", rows)
    report += ["## R-PD = h(ε) (Lemma 1)", "", (out / "rpd_equals_h.md").read_text(), ""]

    progress("[table] Theorem 2: PD-MIP optimum = E_i at ε = h⁻¹(D), λ = h⁻¹(D)")
    prior = NONUNIFORM_PRIOR(DatabaseSpace(3, 2))
    rows = theorem2_table(prior)
    written += _table(out / "theorem2_kkt", rows)
    report += [
        f"## Theorem 2 KKT check (n = 3, m = 2, {prior.name})",
        "",
        (out / "theorem2_kkt.md").read_text(),
        "",
    ]

    for title, section, quick_kwargs in _sections():
        progress(f"[{title}]")
        try:
            paths = section(out, progress, **(quick_kwargs if quick else {}))
        except Exception as exc:  # a section failing must not hide the others; say so in the report
            progress(f"  section failed: {exc!r}")
            report += [f"## {title}", "", f"**failed**: {exc!r}", ""]
            continue
        paths = [Path(p) for p in paths]
        written += paths
        report += [f"## {title}", ""]
        report += [
            f"![{p.stem}]({p.name})" if p.suffix == ".png" else f"- [{p.name}]({p.name})" for p in paths
        ]
        report.append("")

    report.append(f"Total time: {time.perf_counter() - t0:.1f} s.")
    written.append(atomic_write_text(out / "REPORT.md", "\n".join(report) + "\n"))
    progress(f"done: {len(written)} files in {out} ({time.perf_counter() - t0:.1f} s)")
    return written


def _sections() -> list[tuple[str, Callable, dict]]:
    """Reproduction sections of the other modules, with the keyword arguments of their ``--quick`` form."""
    found = []
    for title, module, attr, quick_kwargs in (
        ("Information privacy", "problems.information.cli", "reproduce_section", {}),
        (
            "Mechanism design under information privacy",
            "problems.design.cli",
            "reproduce_section",
            {},
        ),
        ("Curves at scale (orbit reduction)", "problems.orbit.scale_figure", "scale_figure", {"ns": (6, 10)}),
        ("Balance function (IPOPT)", "ipopt_models", "reproduce_section", {"points": 5}),
    ):
        try:
            mod = __import__(module, fromlist=[attr])
        except ImportError as exc:
            if module.split(".")[0] == "ipopt_models" and "casadi" in str(exc).lower():
                continue  # the ipopt extra is not installed
            if isinstance(exc, ModuleNotFoundError) and exc.name and module.startswith(exc.name):
                continue  # that part of the toolkit is not present
            raise
        if hasattr(mod, attr):
            found.append((title, getattr(mod, attr), quick_kwargs))
    return found
