r"""ε*_d(D)/n and ε*_i(D)/n against D/n at several n, with h⁻¹ (paper 002, Theorem 1, (17)–(19)).

ε*(D) = min{ε : D*(ε) ≤ D} is the inverse of the non-increasing D*(ε).  Each point is computed exactly:
for a grid of distortion levels D = δ·n, Brent's method (:func:`scipy.optimize.brentq`) finds the ε with
D*(ε) = D, re-solving the reduced LP (only e^ε changes).  For PD-I the search starts at ε_X (below it PD-I
is infeasible, Lemma 3); where D*_i(ε_X) ≤ D already, ε*_i(D) = ε_X.  Where D*_d(0) ≤ D, ε*_d(D) = 0.

The prior is i.i.d. with row pmf ``row`` (default (0.3, 0.7)).  The m = 2, n = 200 joint-type LP has
1.37 million variables and takes minutes per solve, so ``ns`` containing 200 makes this a long run;
``xtol`` and ``levels`` bound the number of solves.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

from ..closed_forms import h_inv
from ..errors import InfeasibleProgramError
from .programs import ReducedPDDP, ReducedPDI
from .symmetric_prior import symmetric_iid

__all__ = ["scale_figure", "eps_star_curve"]


def eps_star_curve(
    prog, n: int, levels: Sequence[float], *, eps_min: float = 0.0, eps_max: float = 12.0, xtol: float = 1e-4
) -> list[float]:
    """ε*(δn) for each δ in ``levels`` by Brent's method on D*(ε) − δn (NaN if D*(eps_max) > δn)."""
    cache: dict[float, float] = {}

    def D(eps: float) -> float:
        if eps not in cache:
            cache[eps] = prog.solve(eps).value
        return cache[eps]

    out = []
    for delta in levels:
        target = delta * n
        if D(eps_min) <= target:
            out.append(eps_min)
        elif D(eps_max) > target:
            out.append(math.nan)
        else:
            out.append(brentq(lambda e, t=target: D(e) - t, eps_min, eps_max, xtol=xtol))
    return out


def scale_figure(
    out_dir: str | Path,
    progress: Callable[[str], object] = print,
    ns: Sequence[int] = (10, 50, 200),
    *,
    row: Sequence[float] = (0.3, 0.7),
    levels: Sequence[float] = (0.05, 0.1, 0.15, 0.2, 0.25),
    xtol: float = 1e-4,
) -> list[Path]:
    """Write ``orbit_scale.png``, ``orbit_scale.svg`` and ``orbit_scale.csv`` to ``out_dir``; return the paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    for n in ns:
        prior = symmetric_iid(n, row)
        for name, cls in (("dp", ReducedPDDP), ("i", ReducedPDI)):
            progress(f"n = {n}: building reduced PD-{name.upper()}")
            prog = cls(prior)
            lo = getattr(prog, "eps_X", 0.0)
            try:
                eps = eps_star_curve(prog, n, levels, eps_min=lo, xtol=xtol)
            except InfeasibleProgramError as exc:  # pragma: no cover - defensive
                progress(f"  skipped: {exc}")
                continue
            for delta, e in zip(levels, eps):
                rows.append(
                    {"n": n, "program": f"pd-{name}", "D_over_n": delta, "eps_star": e, "eps_over_n": e / n}
                )
                progress(f"  D/n = {delta:.3f}: ε* = {e:.6g}")
    csv_path = out / "orbit_scale.csv"
    with csv_path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["n", "program", "D_over_n", "eps_star", "eps_over_n"])
        w.writeheader()
        w.writerows(rows)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    grid = np.linspace(min(levels), max(levels), 200)
    for ax, key, title in ((axes[0], "eps_over_n", "ε*(D)/n"), (axes[1], "eps_star", "ε*(D)")):
        for n in ns:
            for prog, style in (("pd-dp", "o-"), ("pd-i", "s--")):
                pts = [(r["D_over_n"], r[key]) for r in rows if r["n"] == n and r["program"] == prog]
                if pts:
                    x, y = zip(*pts)
                    ax.plot(x, y, style, label=f"{prog} n={n}", ms=4)
            hv = h_inv(grid * n, n, 2)
            ax.plot(grid, hv / n if key == "eps_over_n" else hv, ":", color="k", lw=1)
        ax.set_xlabel("D/n")
        ax.set_ylabel(title)
        ax.set_title(f"{title}; dotted: h⁻¹(D){'/n' if key == 'eps_over_n' else ''} (iid {tuple(row)})")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    paths = [csv_path]
    for ext in ("png", "svg"):
        p = out / f"orbit_scale.{ext}"
        fig.savefig(p, dpi=130)
        paths.append(p)
    plt.close(fig)
    return paths
