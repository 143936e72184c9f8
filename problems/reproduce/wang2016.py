"""The sections of Wang, Ying & Zhang (2016): Figure 2 and Theorem 1, h(ε), R-PD = h(ε), Theorem 2.

Files written into the output directory:

* ``figure2_uniform.{png,svg,csv}`` — ε_i*(D) and ε_d*(D) for a uniform prior (they coincide);
* ``figure2_nonuniform.{png,svg,csv}`` — the same for a non-uniform prior, showing the ε_X gap;
* ``h_curve.{png,svg}`` — h(ε);
* ``rpd_equals_h.{csv,md}`` — R-PD optimum against h(ε) for several (n, m, ε);
* ``theorem2_kkt.{csv,md}`` — PD-MIP against E_i at ε = h⁻¹(D) and λ against h⁻¹(D).
"""

from __future__ import annotations

import numpy as np

from .. import priors
from ..closed_forms import h, h_inv
from ..curves import Curve, privacy_distortion_curve
from ..database import DatabaseSpace
from ..measures import mutual_information
from ..mechanism import identifiability_mechanism
from ..plotting import plot_h, plot_privacy_distortion
from ..prior_constants import eps_tilde, eps_X
from ..programs import PDMIP, RPD
from .report import Section
from .runner import Context
from .tables import write_records

__all__ = [
    "NONUNIFORM_PRIOR",
    "TOL_EPS",
    "rpd_table",
    "theorem2_table",
    "figure2_section",
    "h_section",
    "rpd_section",
    "theorem2_section",
]

#: Accuracy of the exact inversion ε*(D) (``problems.inverse``: bisection/Newton to 1e-9 on ε, LP optima
#: certified to 1e-6 relative), the tolerance of every check on ε*.
TOL_EPS = 1e-6


def NONUNIFORM_PRIOR(space: DatabaseSpace) -> priors.Prior:
    """The non-uniform prior of the reproduction: Dirichlet(4) draw with seed 2015 (the paper's year)."""
    rng = np.random.default_rng(2015)
    return priors.from_pmf(space, rng.dirichlet(np.full(space.size, 4.0)), name="Dirichlet(4), seed 2015")


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


def _figure2_size(ctx: Context) -> tuple[int, int, int]:
    """(n, m, points) of Figure 2: n = 6 on 30 distortions, or n = 4 on 12 for ``--quick``."""
    return (4, 2, 12) if ctx.quick else (6, 2, 30)


def _figure2_prior(sec: Section, ctx: Context, label: str, prior: priors.Prior, points: int) -> list[Curve]:
    """ε_i*(D) and ε_d*(D) for one prior: the figure, the table and a paragraph; returns the two curves."""
    n, m, progress = prior.n, prior.m, ctx.progress
    progress(
        f"[figure 2, {label} prior] n = {n}, m = {m}: ε_X = {eps_X(prior):.4g}, ε̃_X = {eps_tilde(prior):.4g}"
    )
    curves = []
    for notion in ("i", "d"):
        progress(f" ε_{notion}*(D) on {points} points")
        curves.append(privacy_distortion_curve(prior, notion, points=points, progress=progress))
    stem = ctx.out / f"figure2_{label}"
    sec.paths += plot_privacy_distortion(curves, stem)
    rows = [{**ri, "eps_d": rd["eps_d"]} for ri, rd in zip(curves[0].rows(), curves[1].rows())]
    sec.paths += write_records(stem, rows)
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
    return curves


def _figure2_checks(sec: Section, curves_by_prior: dict[str, list[Curve]]) -> None:
    """The claims of Figure 2 and Theorem 1, measured on both priors."""
    ui, ud = curves_by_prior["uniform"]
    sec.check(
        "Figure 2, uniform prior: ε_i*(D) = ε_d*(D)",
        "Wang, Ying & Zhang (2016) Fig. 2, Theorem 1 (ε_X = 0)",
        "max |ε_i* − ε_d*|, nats",
        float(np.max(np.abs(ui.eps - ud.eps))),
        TOL_EPS,
    )
    rise, gap_viol, lo_d, up_d, eq_i, lo_i = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    for ci, cd in curves_by_prior.values():
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
    src = "Wang, Ying & Zhang (2016)"
    for claim, source, quantity, measured in (
        (
            "Figure 2: ε_i*(D), ε_d*(D) non-increasing in D",
            f"{src} Fig. 2",
            "largest rise between grid points, nats",
            rise,
        ),
        (
            "Figure 2: 0 ≤ ε_i* − ε_d* (≤ ε_X for D ≤ h(ε̃_X))",
            f"{src} after Theorem 1",
            "max violation, nats",
            gap_viol,
        ),
        ("Theorem 1: ε_i*(D) = h⁻¹(D) for D ≤ h(ε̃_X)", f"{src} (18)", "max |ε_i* − h⁻¹(D)|, nats", eq_i),
        ("Theorem 1: ε_i*(D) ≥ max{h⁻¹(D), ε_X} for D > h(ε̃_X)", f"{src} (18)", "max violation, nats", lo_i),
        (
            "Theorem 1: max{h⁻¹(D) − ε_X, 0} ≤ ε_d*(D) ≤ max{h⁻¹(D), 0}",
            f"{src} (19)",
            "max violation, nats",
            max(lo_d, up_d),
        ),
    ):
        sec.check(claim, source, quantity, max(measured, 0.0), TOL_EPS)


def figure2_section(sec: Section, ctx: Context) -> None:
    """Figure 2 for a uniform and a non-uniform prior, checked against Theorem 1 (18)–(19) at every point."""
    n, m, points = _figure2_size(ctx)
    sec.say(
        f"Figure 2 of Wang, Ying & Zhang (2016) recomputed at n = {n}, m = {m} on {points} distortions: each ε*(D) by exact "
        "inversion of the certified PD-I / PD-DP optima. Checked against Theorem 1 (18)–(19) at every point."
    )
    space = DatabaseSpace(n, m)
    curves_by_prior = {
        label: _figure2_prior(sec, ctx, label, prior, points)
        for label, prior in (("uniform", priors.uniform(space)), ("nonuniform", NONUNIFORM_PRIOR(space)))
    }
    _figure2_checks(sec, curves_by_prior)


def h_section(sec: Section, ctx: Context) -> None:
    """The closed form h(ε), the optimum of R-PD (Lemma 1), drawn."""
    n, m, _ = _figure2_size(ctx)
    sec.paths += plot_h(n, m, ctx.out / "h_curve")
    sec.say(
        f"The closed form h(ε) = n/(1 + e^ε/(m − 1)) for n = {n}, m = {m}, the optimum of R-PD (Lemma 1)."
    )
    sec.figure(ctx.out / "h_curve.png", "h(ε): distortion (rows) against the privacy level (nats).")


def rpd_section(sec: Section, ctx: Context) -> None:
    """R-PD solved as a certified LP against the closed form h(ε) (Lemma 1)."""
    rows = rpd_table()
    sec.paths += write_records(ctx.out / "rpd_equals_h", rows)
    sec.say(
        "R-PD solved as a certified LP for five (n, m) and three ε, against the closed form h(ε) (Lemma 1):"
    )
    sec.lines += [(ctx.out / "rpd_equals_h.md").read_text(), ""]
    sec.check(
        "R-PD optimum = h(ε)",
        "Wang, Ying & Zhang (2016) Lemma 1, (32)",
        "max |R-PD − h(ε)|, rows",
        max(r["abs_diff"] for r in rows),
        1e-7,
    )


def theorem2_section(sec: Section, ctx: Context) -> None:
    """PD-MIP at five D ≤ h(ε̃_X): the optimum is E_i at ε = h⁻¹(D) and λ = h⁻¹(D) (Theorem 2)."""
    prior = NONUNIFORM_PRIOR(DatabaseSpace(3, 2))
    rows = theorem2_table(prior)
    sec.paths += write_records(ctx.out / "theorem2_kkt", rows)
    sec.say(
        f"PD-MIP (exponential cone) for n = 3, m = 2, {prior.name}, at five D ≤ h(ε̃_X): the optimal "
        "mechanism is E_i at ε = h⁻¹(D) and the distortion multiplier λ equals h⁻¹(D) (Theorem 2):"
    )
    sec.lines += [(ctx.out / "theorem2_kkt.md").read_text(), ""]
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
