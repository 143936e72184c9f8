"""The mechanism-design section of the reproduction report: two figures, their data and the checks.

* ``design_comparison.{csv,png,svg}`` — expected distortion of the optimal mechanism under C₁ ≤ ε against
  calibrated basic channels and the optimal ε-DP mechanism (count query, 6 binary records);
* ``design_privacy_distortion.{csv,png,svg}`` — ε_i*(D), ε_d*(D), ε_m*(D) and ε_IP*(D) (identity query).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..curves import privacy_distortion_curve
from ..database import DatabaseSpace
from ..design.compare import comparison_table
from ..design.problem import design_problem
from ..design.program import IPDesign
from ..plotting import save_figure
from ..priors import uniform
from .figures import BASELINES, comparison_figure, privacy_distortion_ip_figure
from .report import Section
from .runner import Context
from .tables import write_csv

__all__ = ["design_section", "reproduce_section"]


def _comparison_checks(sec: Section, rows: list[dict]) -> None:
    """C₁ ≤ ε, no calibrated channel does better, and the Lagrangian lower bound certifies the optimum."""
    sec.check(
        "designed mechanism satisfies C₁ ≤ ε",
        "Wu, Xia & He (2020) Def. 5, Theorem 2",
        "max (C₁ − ε), nats",
        max(max(0.0, r["optimal_ip_C1"] - r["eps"]) for r in rows),
        1e-7,
    )
    worse = 0.0
    for r in rows:
        for key in BASELINES:
            if key != "optimal_ip" and key in r and r.get(f"{key}_C1", np.inf) <= r["eps"] + 1e-9:
                worse = max(worse, r["optimal_ip"] - r[key])
    sec.check(
        "designed mechanism is no worse than any calibrated channel / ε-DP optimum",
        "Wu, Xia & He (2020) §4–5 (baselines)",
        "max (distortion − baseline distortion)",
        worse,
        1e-7,
    )
    sec.check(
        "design optimum certified by its Lagrangian lower bound",
        "toolkit certificate",
        "max (value − lower bound)",
        max(abs(r["optimal_ip"] - r["optimal_ip_lower_bound"]) for r in rows),
        1e-6,
    )


def _comparison(out: Path, progress: Callable[[str], None], sec: Section, start: float) -> list[Path]:
    """The count over n = 6 binary records, Hamming distortion, uniform prior: table, figure, checks."""
    problem = design_problem(DatabaseSpace(6, 2), "count")
    eps_grid = np.round(np.linspace(0.025, 0.75, 16), 4)
    progress(f"design: comparison table, count query n=6, {len(eps_grid)} values of eps")
    rows = comparison_table(problem, eps_grid, factor=True)
    paths = [write_csv(out / "design_comparison.csv", rows)]
    paths += save_figure(comparison_figure(rows), out / "design_comparison")
    progress(f"design: comparison done in {time.perf_counter() - start:.1f} s")
    sec.say(
        "**Optimal mechanisms under information privacy** (Wu, Xia & He 2020, Theorem 2 as the constraint): the count "
        "of 6 binary records, uniform prior, Hamming distortion. The optimal mechanism under C₁ ≤ ε is "
        "compared with the calibrated basic channels and the optimal ε-DP mechanism. Checked: its C₁ is at "
        "most ε, its Lagrangian lower bound certifies it, and no admissible mechanism (C₁ ≤ ε) does better."
    )
    sec.figure(
        out / "design_comparison.png",
        "Expected distortion against ε: the optimal mechanism (black) lies below every calibrated channel.",
    )
    _comparison_checks(sec, rows)
    return paths


def _four_curves(out: Path, sec: Section) -> list[Path]:
    """ε_i*, ε_d*, ε_m*, ε_IP* on the identity query (3 binary records, uniform prior, Hamming distortion)."""
    space = DatabaseSpace(3, 2)
    prior = uniform(space)
    curves = {nt: privacy_distortion_curve(prior, nt, points=12) for nt in ("i", "d", "m")}
    grid = curves["d"].distortion
    design = IPDesign(design_problem(space, "identity", prior=prior))
    ip = np.array([design.solve_reverse(float(D)).value for D in grid])
    crow = [
        {
            "D": float(D),
            "eps_i": float(curves["i"].eps[k]),
            "eps_d": float(curves["d"].eps[k]),
            "eps_m": float(curves["m"].eps[k]),
            "eps_IP": float(ip[k]),
        }
        for k, D in enumerate(grid)
    ]
    paths = [write_csv(out / "design_privacy_distortion.csv", crow)]
    title = "identity query, 3 binary records, uniform prior"
    fig = privacy_distortion_ip_figure(grid, curves, ip, title=title)
    paths += save_figure(fig, out / "design_privacy_distortion")
    sec.say(
        "**Four privacy–distortion functions** on the identity query (3 binary records, uniform prior): the "
        "least ε for identifiability, differential privacy, mutual information and information privacy "
        "(C₁) at each distortion D. For the uniform prior ε_i* = ε_d* (drawn with different markers so that "
        "both stay visible)."
    )
    sec.figure(out / "design_privacy_distortion.png", "ε*(D) of four privacy notions, nats.")
    sec.check(
        "identity query, uniform prior: ε_i*(D) = ε_d*(D)",
        "Wang, Ying & Zhang (2016) Theorem 1 (ε_X = 0)",
        "max |ε_i* − ε_d*|, nats",
        float(np.max(np.abs(curves["i"].eps - curves["d"].eps))),
        1e-6,
    )
    return paths


def reproduce_section(
    out_dir: Path, progress: Callable[[str], None] = print, *, report: Section | None = None
) -> list[Path]:
    """Comparison table + figure (count query) and the ε*(D) figure with ε_IP*(D) (identity query).

    Writes ``design_comparison.{csv,png,svg}`` and ``design_privacy_distortion.{csv,png,svg}``; with
    ``report``, records the checks and the prose of the section there.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    sec = report if report is not None else Section("mechanism design")
    paths = _comparison(out, progress, sec, start)
    paths += _four_curves(out, sec)
    progress(f"design: privacy-distortion figure done; total {time.perf_counter() - start:.1f} s")
    return paths


def design_section(sec: Section, ctx: Context) -> None:
    """The report section on optimal mechanisms under information privacy."""
    sec.paths += reproduce_section(ctx.out, ctx.progress, report=sec)
