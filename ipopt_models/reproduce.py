r"""The balance-function figure (Wu, Xia & He 2020, Definition 11): ``reproduce_section(out_dir, progress)``.

Writes ``balance_function.png``, ``balance_function.svg`` and ``balance_function.csv`` to ``out_dir``: for each
channel of :data:`~ipopt_models.balance.BENCHMARK_CHANNELS` the upper bound on δ(b) (multistart) and the
certified lower bound (branch and bound), in nats, with Lemma 1's ceiling :math:`C_1`.
"""

from __future__ import annotations

import csv
import io
import pathlib
from collections.abc import Callable

from .balance import BENCHMARK_CHANNELS, BalanceCurve, balance_curve

__all__ = ["reproduce_section", "balance_curves", "balance_figure", "joint_checks"]


def balance_curves(*, points: int = 20, starts: int = 10, seed: int = 0) -> list[BalanceCurve]:
    """The three bracketed curves of the figure."""
    return [
        balance_curve(make(), points=points, starts=starts, seed=seed, name=name, cert_tol=1e-6)
        for name, make in BENCHMARK_CHANNELS.items()
    ]


def balance_figure(curves: list[BalanceCurve]):
    """One panel per channel on a new ``matplotlib.figure.Figure``: the bracket on δ(b) and the ceiling C₁."""
    from problems.plotting import new_figure

    fig, axes = new_figure(1, len(curves), figsize=(4.2 * len(curves), 3.9), squeeze=False)
    axes = axes[0]
    for ax, c in zip(axes, curves):
        ax.fill_between(c.b, c.delta_lower, c.delta_upper, color="C0", alpha=0.25, lw=0)
        ax.plot(c.b, c.delta_upper, "C0-", marker="o", ms=3, label="δ upper bound (multistart IPOPT)")
        ax.plot(c.b, c.delta_lower, "C1--", label="δ lower bound (certified branch and bound)")
        ax.axhline(c.c1_lower, color="0.5", lw=0.8, ls=":", label="C₁ (ceiling of δ, Lemma 1)")
        ax.set_title(c.name, fontsize=9)
        ax.set_xlabel("entropy floor b (nats): H(X) ≥ b")
        ax.set_ylabel("δ(b) = C₁ − C₁ᵇ (nats)")
        ax.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8)
    fig.suptitle(
        "Balance function of Wu, Xia & He (2020) (Def. 11), two binary records, |X| = 4", fontsize=10
    )
    return fig


def joint_checks(*, channels: int = 3, starts: int = 20, seed: int = 0) -> list[dict]:
    """C₁ by Theorem 2 against multistart IPOPT over the full joint (Definition 5) on random channels."""
    import numpy as np

    from .capacity import joint_capacity

    rng = np.random.default_rng(seed)
    rows = []
    for k, shape in enumerate([(2, 2, 3), (3, 2, 3), (2, 2, 2, 2)][:channels]):
        W = rng.dirichlet(np.ones(shape[-1]), size=shape[:-1])
        r = joint_capacity(W, starts=starts, seed=seed)
        rows.append(
            {
                "channel": f"random {shape[:-1]} -> {shape[-1]} #{k}",
                "theorem2_lower": r.extras["theorem2_lower"],
                "theorem2_upper": r.extras["theorem2_upper"],
                "joint_multistart": r.value,
                "starts_reaching": r.n_reached_reference,
                "starts": r.n_starts,
            }
        )
    return rows


def reproduce_section(
    out_dir: pathlib.Path,
    progress: Callable[[str], None] | None = None,
    *,
    points: int = 20,
    report=None,
) -> list[pathlib.Path]:
    """Compute the balance-function curves and write the figure (PNG, SVG) and the data (CSV).

    With ``report`` (a :class:`problems.report.Section`) also checks C₁ of Theorem 2 against the full joint
    (Definition 5, multistart IPOPT) and records the checks and the prose of the report section.
    """
    from problems.export import atomic_write_text
    from problems.plotting import save_figure

    say = progress or (lambda _msg: None)
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    say("ipopt_models: bracketing the balance function δ(b) of three channels (Wu, Xia & He 2020, Def. 11)")
    curves = balance_curves(points=points)
    paths = save_figure(balance_figure(curves), out_dir / "balance_function")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
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
    paths.append(atomic_write_text(out_dir / "balance_function.csv", buf.getvalue()))
    if report is not None:
        import numpy as np

        say("ipopt_models: C₁ over the full joint (Definition 5) against Theorem 2")
        rows = joint_checks()
        report.say(
            "**C₁ over the full joint.** Theorem 2 of Wu, Xia & He (2020) reduces Definition 5 — the maximum of I(X_i; Y) "
            "over *every* joint distribution of the database — to the capacities of finitely many vertex "
            "channels. Multistart IPOPT (20 starts) attacks Definition 5 directly on random channels; no start "
            "may exceed the Theorem 2 value and the best start should reach it:"
        )
        report.table(
            ["channel", "Theorem 2 (lower)", "Theorem 2 (upper)", "full joint (IPOPT)", "starts reaching"],
            [
                [
                    r["channel"],
                    r["theorem2_lower"],
                    r["theorem2_upper"],
                    r["joint_multistart"],
                    f"{r['starts_reaching']}/{r['starts']}",
                ]
                for r in rows
            ],
            digits=10,
        )
        report.check(
            "C₁ by Theorem 2 = max over the full joint (Def. 5)",
            "Wu, Xia & He (2020) Theorem 2",
            "max |IPOPT best − Theorem 2|, nats",
            max(abs(r["joint_multistart"] - r["theorem2_lower"]) for r in rows),
            1e-6,
        )
        report.say(
            "**Balance function** δ(b) = C₁ − C₁ᵇ (Definition 11), bracketed between a multistart upper bound "
            "and a certified branch-and-bound lower bound, in nats. Checked: the bracket is consistent and δ "
            "never exceeds its ceiling C₁."
        )
        report.figure(paths[0], "δ(b) for three channels: shaded, the certified bracket.")
        bad = max(float(np.max(c.delta_lower - c.delta_upper)) for c in curves)
        over = max(float(np.max(c.delta_lower - c.c1_lower)) for c in curves)
        report.check(
            "balance function bracket: certified lower ≤ upper ≤ C₁",
            "Wu, Xia & He (2020) Def. 11, Lemma 1",
            "max bracket violation, nats",
            max(0.0, bad, over),
            1e-6,
        )
    for p in paths:
        say(f"  wrote {p}")
    return paths
