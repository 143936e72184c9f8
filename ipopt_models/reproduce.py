r"""The balance-function figure (paper 000, Definition 11): ``reproduce_section(out_dir, progress)``.

Writes ``balance_function.png``, ``balance_function.svg`` and ``balance_function.csv`` to ``out_dir``: for each
channel of :data:`~ipopt_models.balance.BENCHMARK_CHANNELS` the upper bound on δ(b) (multistart) and the
certified lower bound (branch and bound), in nats, with Lemma 1's ceiling :math:`C_1`.
"""

from __future__ import annotations

import csv
import pathlib
from collections.abc import Callable

from .balance import BENCHMARK_CHANNELS, BalanceCurve, balance_curve

__all__ = ["reproduce_section", "balance_curves"]


def balance_curves(*, points: int = 20, starts: int = 10, seed: int = 0) -> list[BalanceCurve]:
    """The three bracketed curves of the figure."""
    return [
        balance_curve(make(), points=points, starts=starts, seed=seed, name=name, cert_tol=1e-6)
        for name, make in BENCHMARK_CHANNELS.items()
    ]


def reproduce_section(
    out_dir: pathlib.Path, progress: Callable[[str], None] | None = None, *, points: int = 20
) -> list[pathlib.Path]:
    """Compute the balance-function curves and write the figure (PNG, SVG) and the data (CSV)."""
    from matplotlib.figure import Figure  # no pyplot: the global matplotlib state is left alone

    say = progress or (lambda _msg: None)
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    say("ipopt_models: bracketing the balance function δ(b) of three channels (paper 000, Def. 11)")
    curves = balance_curves(points=points)
    fig = Figure(figsize=(4.2 * len(curves), 3.6))
    axes = fig.subplots(1, len(curves), sharey=False)
    for ax, c in zip(axes, curves):
        ax.fill_between(c.b, c.delta_lower, c.delta_upper, color="C0", alpha=0.25, lw=0)
        ax.plot(c.b, c.delta_upper, "C0-", marker="o", ms=3, label="δ upper (multistart IPOPT)")
        ax.plot(c.b, c.delta_lower, "C1--", label="δ lower (certified B&B)")
        ax.axhline(c.c1_lower, color="0.5", lw=0.8, ls=":", label="C₁ (Lemma 1 ceiling)")
        ax.set_title(c.name, fontsize=9)
        ax.set_xlabel("b  [nats]  (H(X) ≥ b)")
        ax.set_ylabel("δ(b) = C₁ − C₁ᵇ  [nats]")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle("Balance function of paper 000 (Def. 11), two binary records, |X| = 4", fontsize=10)
    fig.tight_layout()
    paths = [out_dir / "balance_function.png", out_dir / "balance_function.svg"]
    for p in paths:
        fig.savefig(p, dpi=150)
    csv_path = out_dir / "balance_function.csv"
    with csv_path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(
            [
                "channel",
                "b_nats",
                "C1_lower",
                "C1b_lower_multistart",
                "C1b_upper_certified",
                "delta_upper",
                "delta_lower_certified",
            ]
        )
        for c in curves:
            for k in range(c.b.size):
                w.writerow(
                    [
                        c.name,
                        f"{c.b[k]:.10g}",
                        f"{c.c1_lower:.10g}",
                        f"{c.c1b_lower[k]:.10g}",
                        f"{c.c1b_upper[k]:.10g}",
                        f"{c.delta_upper[k]:.10g}",
                        f"{c.delta_lower[k]:.10g}",
                    ]
                )
    paths.append(csv_path)
    for p in paths:
        say(f"  wrote {p}")
    return paths
