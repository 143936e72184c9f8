"""Figures (matplotlib, Agg backend) written as PNG and SVG, atomically."""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .closed_forms import h
from .curves import Curve
from .export import atomic_write_bytes

__all__ = ["save_figure", "plot_privacy_distortion", "plot_h"]


def _subplots(*args, **kwargs):
    """``(fig, ax)`` on a :class:`matplotlib.figure.Figure`: no pyplot, the global matplotlib state untouched."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=kwargs.pop("figsize", None))
    return fig, fig.subplots(*args, **kwargs)


def save_figure(fig, stem: str | Path) -> list[Path]:
    """Save ``fig`` as ``stem.png`` and ``stem.svg`` (each written atomically); returns the paths."""
    stem = Path(stem)
    paths = []
    for ext in ("png", "svg"):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=150, bbox_inches="tight")
        paths.append(atomic_write_bytes(stem.with_suffix(f".{ext}"), buf.getvalue()))
    return paths


def plot_privacy_distortion(
    curves: Sequence[Curve], stem: str | Path, *, title: str | None = None
) -> list[Path]:
    """Figure 2 of paper 002: ε_i*(D), ε_d*(D) with h⁻¹(D), h⁻¹(D) − ε_X, ε_X and h(ε̃_X) marked."""
    fig, ax = _subplots(figsize=(6.4, 4.4))
    styles = {
        "i": ("C0", "-", r"$\epsilon_{\rm i}^*(D)$ (PD-I)"),
        "d": ("C1", "--", r"$\epsilon_{\rm d}^*(D)$ (PD-DP)"),
        "m": ("C2", "-.", r"$\epsilon_{\rm m}^*(D)$ (PD-MIP, nats)"),
    }
    ref = curves[0]
    D = ref.distortion
    for c in curves:
        color, ls, label = styles[c.notion]
        ax.plot(c.distortion, c.eps, color=color, ls=ls, lw=2, label=label, marker="o", ms=2.5)
    ax.plot(D, np.maximum(ref.h_inv, 0), "k:", lw=1.2, label=r"$h^{-1}(D)$")
    if math.isfinite(ref.eps_X) and ref.eps_X > 0:
        ax.plot(
            D,
            ref.lower_dp,
            color="0.5",
            ls=(0, (3, 1, 1, 1)),
            lw=1,
            label=r"$\max\{h^{-1}(D)-\epsilon_X,0\}$",
        )
        ax.axhline(ref.eps_X, color="0.6", lw=0.8, ls="--")
        ax.text(D[-1], ref.eps_X, r" $\epsilon_X$", va="bottom", ha="right", color="0.4")
    if math.isfinite(ref.eps_tilde):
        x = h(ref.eps_tilde, ref.n, ref.m)
        ax.axvline(x, color="0.6", lw=0.8, ls=":")
        ax.text(x, ax.get_ylim()[1] * 0.95, r" $h(\tilde\epsilon_X)$", va="top", color="0.4")
    top = np.nanmax([np.nanmax(np.where(np.isfinite(c.eps), c.eps, np.nan)) for c in curves])
    ax.set_ylim(0, min(top * 1.1 + 0.1, 12))
    ax.set_xlim(0, ref.n)
    ax.set_xlabel("distortion D (expected Hamming distance)")
    ax.set_ylabel(r"privacy level $\epsilon$ (nats)")
    ax.set_title(title or f"n = {ref.n}, m = {ref.m}, prior: {ref.prior_name}")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return save_figure(fig, stem)


def plot_h(n: int, m: int, stem: str | Path, *, eps_max: float = 6.0) -> list[Path]:
    """h(ε) = n/(1 + e^ε/(m−1)), the R-PD optimum (Lemma 1)."""
    eps = np.linspace(0, eps_max, 400)
    fig, ax = _subplots(figsize=(5.6, 3.8))
    ax.plot(eps, h(eps, n, m), lw=2)
    ax.axhline(n * (m - 1) / m, color="0.6", ls=":", lw=0.8)
    ax.set_xlabel(r"$\epsilon$ (nats)")
    ax.set_ylabel(r"$h(\epsilon)$ (rows)")
    ax.set_title(rf"$h(\epsilon)$ for n = {n}, m = {m}")
    ax.grid(alpha=0.3)
    return save_figure(fig, stem)
