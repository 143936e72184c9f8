"""Figures drawn on :class:`matplotlib.figure.Figure` objects and written as PNG and SVG, atomically.

No function here touches matplotlib's global state (no ``matplotlib.use``, no ``pyplot``): a figure is a
``Figure`` made by :func:`new_figure`, drawn on through its axes and written with ``fig.savefig``, so the
library can be used inside a notebook or a GUI program without changing its backend.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .closed_forms import h
from .curves import Curve
from .export import atomic_write_bytes

__all__ = [
    "new_figure",
    "save_figure",
    "outside_legend",
    "privacy_distortion_figure",
    "plot_privacy_distortion",
    "h_figure",
    "plot_h",
]


def new_figure(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] = (6.4, 4.4), **kwargs):
    """A ``Figure`` (not registered with pyplot) and its axes (an array when there are several)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    axes = fig.subplots(nrows, ncols, **kwargs)
    return fig, axes


def save_figure(fig, stem: str | Path, *, dpi: int = 150) -> list[Path]:
    """Save ``fig`` as ``stem.png`` and ``stem.svg`` (each written atomically); returns the paths."""
    stem = Path(stem)
    paths = []
    for ext in ("png", "svg"):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=dpi, bbox_inches="tight")
        paths.append(atomic_write_bytes(stem.with_suffix(f".{ext}"), buf.getvalue()))
    return paths


def outside_legend(ax, **kwargs):
    """A legend to the right of the axes, where it cannot cover data."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=8, **kwargs)


#: Style of each notion: colour, line style, marker, label.  PD-I is drawn solid with filled circles and
#: PD-DP dashed with larger open squares, so that where the two curves coincide (uniform priors) both stay
#: visible.
_STYLES = {
    "i": dict(
        color="C0", ls="-", marker="o", ms=3.5, mfc="C0", lw=2.0, label=r"$\epsilon_{\rm i}^*(D)$ (PD-I)"
    ),
    "d": dict(
        color="C1",
        ls=(0, (5, 3)),
        marker="s",
        ms=6.5,
        mfc="none",
        mew=1.2,
        lw=1.6,
        label=r"$\epsilon_{\rm d}^*(D)$ (PD-DP)",
    ),
    "m": dict(color="C2", ls="-", marker="^", ms=3.5, lw=2.0, label=r"$\epsilon_{\rm m}^*(D)$ (PD-MIP)"),
}


def privacy_distortion_figure(curves: Sequence[Curve], *, title: str | None = None):
    """Figure 2 of Wang, Ying & Zhang (2016) on a new ``Figure``: the curves with the references that apply to them.

    ε_i*, ε_d* (privacy levels, nats) are drawn with h⁻¹(D) and, when ε_X > 0, the lower bound
    max{h⁻¹(D) − ε_X, 0} of Theorem 1 and the level ε_X.  ε_m* (mutual information, nats) is a different
    quantity: with ε_i*/ε_d* it is drawn on a second y-axis, and Theorem 1's bounds (which bound privacy
    levels, not information) are drawn only when an ε_i* or ε_d* curve is on the figure.
    """
    fig, ax = new_figure(figsize=(6.4, 4.4))
    ref = curves[0]
    D = ref.distortion
    levels = [c for c in curves if c.notion in ("i", "d")]
    info = [c for c in curves if c.notion == "m"]
    tops = []
    for c in levels:
        ax.plot(c.distortion, c.eps, zorder=3 if c.notion == "i" else 2.5, **_STYLES[c.notion])
        tops.append(np.nanmax(np.where(np.isfinite(c.eps), c.eps, np.nan)))
    if levels:
        ax.plot(D, np.maximum(ref.h_inv, 0), "k:", lw=1.2, label=r"$\max\{h^{-1}(D), 0\}$ (Theorem 1)")
        if math.isfinite(ref.eps_X) and ref.eps_X > 0:
            ax.plot(
                D,
                ref.lower_dp,
                color="0.45",
                ls=(0, (3, 1, 1, 1)),
                lw=1,
                label=r"$\max\{h^{-1}(D)-\epsilon_X,0\}$ (Theorem 1)",
            )
            ax.axhline(ref.eps_X, color="0.6", lw=0.8, ls="--", label=r"$\epsilon_X$")
        ax.set_ylabel(r"privacy level $\epsilon$ (nats)")
        top = np.nanmax(tops)
        ax.set_ylim(0, min(top * 1.08 + 0.1, 12))
    info_ax = ax if not (levels and info) else ax.twinx()
    for c in info:
        info_ax.plot(c.distortion, c.eps, **_STYLES[c.notion])
    if info:
        info_ax.set_ylabel(r"mutual information $\epsilon_{\rm m}^*(D) = \min I(X;Y)$ (nats)")
        info_ax.set_ylim(0, np.nanmax([np.nanmax(c.eps) for c in info]) * 1.08 + 1e-3)
    if math.isfinite(ref.eps_tilde):
        x = h(ref.eps_tilde, ref.n, ref.m)
        if 0 < x < ref.n:
            ax.axvline(x, color="0.6", lw=0.8, ls="-.", label=r"$D = h(\tilde\epsilon_X)$")
    ax.set_xlim(0, ref.n)
    ax.set_xlabel("distortion D (expected Hamming distance, rows)")
    ax.set_title(title or f"n = {ref.n}, m = {ref.m}, prior: {ref.prior_name}", fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    if info_ax is not None and info_ax is not ax:
        h2, l2 = info_ax.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    ax.legend(
        handles,
        labels,
        loc="upper left",
        bbox_to_anchor=(1.12 if info_ax not in (None, ax) else 1.01, 1.0),
        borderaxespad=0.0,
        fontsize=8,
    )
    ax.grid(alpha=0.3)
    return fig


def plot_privacy_distortion(
    curves: Sequence[Curve], stem: str | Path, *, title: str | None = None
) -> list[Path]:
    """Draw :func:`privacy_distortion_figure` and write ``stem.png`` and ``stem.svg``."""
    return save_figure(privacy_distortion_figure(curves, title=title), stem)


def h_figure(n: int, m: int, *, eps_max: float = 6.0):
    """h(ε) = n/(1 + e^ε/(m−1)), the R-PD optimum (Lemma 1), on a new ``Figure``."""
    eps = np.linspace(0, eps_max, 400)
    fig, ax = new_figure(figsize=(5.6, 3.8))
    ax.plot(eps, h(eps, n, m), lw=2, label=r"$h(\epsilon)$ = R-PD optimum")
    ax.axhline(n * (m - 1) / m, color="0.6", ls=":", lw=0.8, label=r"$h(0) = n(m-1)/m$")
    ax.set_xlabel(r"privacy level $\epsilon$ (nats)")
    ax.set_ylabel(r"distortion $h(\epsilon)$ (rows)")
    ax.set_title(rf"$h(\epsilon)$ for n = {n}, m = {m}", fontsize=10)
    ax.set_xlim(0, eps_max)
    ax.set_ylim(0, n * (m - 1) / m * 1.08)
    ax.legend(fontsize=8, loc="center right")  # the curve is near 0 there; the h(0) line is at the top
    ax.grid(alpha=0.3)
    return fig


def plot_h(n: int, m: int, stem: str | Path, *, eps_max: float = 6.0) -> list[Path]:
    """Draw :func:`h_figure` and write ``stem.png`` and ``stem.svg``."""
    return save_figure(h_figure(n, m, eps_max=eps_max), stem)
