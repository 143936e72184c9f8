"""The figures of the reproduction that are not library figures, each drawn on a new ``Figure``.

* :func:`calibration_figure` — C₁ of calibrated randomized response and of the Gaussian channel;
* :func:`comparison_figure`, :func:`privacy_distortion_ip_figure` — the mechanism-design section;
* :func:`scale_plot` — ε*(D) against D/n at several n (the orbit-scale section).

Like :mod:`problems.plotting` (whose :func:`~problems.plotting.new_figure` they use), they never touch
matplotlib's global state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..closed_forms import h_inv
from ..orbit.scale import DEFAULT_LEVELS
from ..plotting import new_figure, outside_legend

__all__ = [
    "calibration_figure",
    "comparison_figure",
    "privacy_distortion_ip_figure",
    "scale_plot",
    "BASELINES",
]

#: Key in the comparison table → legend label, matplotlib style, line width.
BASELINES = {
    "optimal_ip": ("optimal mechanism under C₁ ≤ ε", "k-", 2.0),
    "randomized-response": ("randomized response (calibrated)", "C0--", 1.2),
    "exponential": ("exponential channel (calibrated)", "C1--", 1.2),
    "gaussian (quantised)": ("quantised Gaussian (calibrated)", "C2--", 1.2),
    "optimal_dp": ("optimal ε-DP mechanism (LP)", "C3:", 1.5),
}


def calibration_figure(data: dict):
    """Two panels on a new ``Figure``: C₁ of calibrated randomized response, and of the Gaussian channel."""
    fig, ax = new_figure(1, 2, figsize=(10, 4.0))
    e = data["eps"]
    ax[0].plot(e, e, "k--", lw=1, label=r"$C_1 = \epsilon$ (target)")
    ax[0].plot(e, data["rr_c1"], "o", color="C0", ms=4, label=r"$C_1$ of RR($p^*$), Theorem 2")
    ax[0].set_xlabel(r"privacy level $\epsilon$ (nats)")
    ax[0].set_ylabel(r"individual channel capacity $C_1$ (nats)")
    ax[0].set_title("randomized response (XOR of 2 records) calibrated by (57)", fontsize=9)
    ax[0].legend(fontsize=8, loc="upper left")
    g = data["gauss_eps"]
    ax[1].plot(g, g, "k--", lw=1, label=r"$C_1 = \epsilon$ (target)")
    ax[1].plot(g, data["gauss_bound"], "s-", color="C1", ms=4, label="bound (115) at N of (117)")
    ax[1].plot(
        g, data["gauss_amplitude"], "o-", color="C2", ms=4, label="amplitude-constrained C₁ (discretised)"
    )
    ax[1].set_xlabel(r"privacy level $\epsilon$ (nats)")
    ax[1].set_ylabel(r"individual channel capacity $C_1$ (nats)")
    ax[1].set_title(f"Gaussian privacy channel, outputs in [−T, T], T = {data['T']:g}", fontsize=9)
    ax[1].legend(fontsize=8, loc="upper left")
    for a in ax:
        a.grid(alpha=0.3)
        a.set_xlim(0, None)
        a.set_ylim(0, None)
    return fig


def comparison_figure(rows: list[dict], *, title: str = "count of 6 binary records, uniform prior"):
    """Expected distortion against ε for each mechanism of ``rows`` (a comparison table), on a new Figure."""
    fig, ax = new_figure(figsize=(6.4, 4.2))
    e = [r["eps"] for r in rows]
    for key, (label, style, lw) in BASELINES.items():
        if key in rows[0]:
            ax.plot(e, [r.get(key, np.nan) for r in rows], style, lw=lw, label=label)
    ax.set_xlabel(r"privacy level $\epsilon$ (nats)")
    ax.set_ylabel("expected Hamming distortion P[Y ≠ f(X)] (probability)")
    ax.set_title(title, fontsize=10)
    outside_legend(ax)
    ax.grid(alpha=0.3)
    return fig


def privacy_distortion_ip_figure(grid, curves: dict, ip, *, title: str):
    """ε_i*, ε_d*, ε_m* and ε_IP* against D on a new Figure (all in nats)."""
    fig, ax = new_figure(figsize=(6.4, 4.2))
    ax.plot(
        grid,
        curves["i"].eps,
        "C0-o",
        ms=3.5,
        lw=2,
        label=r"$\epsilon_{\rm i}^*(D)$ identifiability",
        zorder=3,
    )
    ax.plot(
        grid,
        curves["d"].eps,
        color="C1",
        ls=(0, (5, 3)),
        marker="s",
        ms=7,
        mfc="none",
        lw=1.5,
        label=r"$\epsilon_{\rm d}^*(D)$ differential privacy",
    )
    ax.plot(grid, curves["m"].eps, "C2-^", ms=3.5, label=r"$\epsilon_{\rm m}^*(D)$ = min I(X;Y)")
    ax.plot(
        grid, ip, "k-D", ms=3, lw=1.5, label=r"$\epsilon_{\rm IP}^*(D)$ = min $C_1$ (information privacy)"
    )
    ax.set_xlabel("distortion D (expected Hamming distance, rows)")
    ax.set_ylabel(r"privacy level $\epsilon$, information (nats)")
    ax.set_xlim(0, None)
    ax.set_ylim(0, None)
    ax.set_title(title, fontsize=10)
    outside_legend(ax)
    ax.grid(alpha=0.3)
    return fig


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
