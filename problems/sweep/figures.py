"""Figures drawn from a sweep table: the value against the sweep's axis, one file per (program, n, m).

Drawn on :class:`matplotlib.figure.Figure` objects (no pyplot, no change to the caller's backend).  Up to
eight priors get a legend; more (random Dirichlet studies) are drawn as thin lines with the median bold.
Points that are not certified are drawn hollow, so an uncertified value is never mistaken for a proved one.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

__all__ = ["sweep_figures", "AXES"]

#: program → (x label, y label) with units.
AXES = {
    "pd-dp": ("privacy level ε (nats)", "D*_d(ε), expected Hamming distortion"),
    "pd-i": ("privacy level ε (nats)", "D*_i(ε), expected Hamming distortion"),
    "r-pd": ("privacy level ε (nats)", "D*_r(ε) = h(ε), expected Hamming distortion"),
    "pd-mip": ("distortion D (expected Hamming)", "ε*_m(D) = min I(X;Y) (nats)"),
    "eps-d": ("distortion D (expected Hamming)", "ε*_d(D) (nats)"),
    "eps-i": ("distortion D (expected Hamming)", "ε*_i(D) (nats)"),
    "design": ("individual capacity limit ε (nats)", "minimum expected distortion"),
    "c1-dp": ("privacy level ε (nats)", "C₁ of the optimal ε-DP mechanism (nats)"),
    "model": ('swept parameter (the spec\'s "sweep" fields)', "model optimum"),
}


def sweep_figures(rows: list[dict], out: str | Path, *, dpi: int = 120) -> list[Path]:
    """Write ``out/<program>_n<n>_m<m>.png`` for every group of rows with at least one finite value."""
    from matplotlib.figure import Figure

    from ..export import atomic_write_bytes

    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["program"], r["n"], r["m"])].append(r)
    out = Path(out)
    paths = []
    for (program, n, m), group in sorted(groups.items()):
        if not any(r.get("value") is not None for r in group):
            continue
        xname = "eps" if group[0].get("eps") is not None else "distortion"
        by_prior: dict[str, list[dict]] = defaultdict(list)
        for r in group:
            by_prior[r["prior"]].append(r)
        fig = Figure(figsize=(6.0, 4.0))
        ax = fig.add_subplot(1, 1, 1)
        many = len(by_prior) > 8
        curves = []
        for k, (prior, pts) in enumerate(sorted(by_prior.items())):
            pts = sorted(pts, key=lambda r: r[xname])
            x = np.array([r[xname] for r in pts], dtype=float)
            y = np.array([np.nan if r.get("value") is None else r["value"] for r in pts], dtype=float)
            cert = np.array([bool(r.get("certified")) for r in pts])
            if many:
                ax.plot(x, y, color="0.6", lw=0.6, alpha=0.7)
                curves.append((x, y))
                continue
            marker = "osD^v<>p"[k % 8]
            (line,) = ax.plot(x, y, lw=1.2, label=prior, marker=marker, ms=4, markevery=max(1, len(x) // 12))
            if (~cert).any():
                ax.plot(x[~cert], y[~cert], ls="none", marker=marker, ms=7, mfc="white", mec=line.get_color())
        if many and curves:
            xs = curves[0][0]
            same = [y for x, y in curves if x.shape == xs.shape and np.allclose(x, xs)]
            if same:
                ax.plot(xs, np.nanmedian(np.vstack(same), axis=0), color="C0", lw=2, label="median")
            ax.plot([], [], color="0.6", lw=0.6, label=f"{len(by_prior)} priors")
        xl, yl = AXES.get(program, (xname, "value"))
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.set_title(
            f"{program}, n = {n}, m = {m}" + ("  (hollow: not certified)" if not many else ""), fontsize=9
        )
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best", framealpha=0.8)
        fig.tight_layout()
        import io

        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi)
        paths.append(atomic_write_bytes(out / f"{program}_n{n}_m{m}.png", buf.getvalue()))
    return paths
