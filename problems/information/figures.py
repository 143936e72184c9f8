"""The information-privacy section of the reproduction report: tables, the calibration figure and checks.

:func:`reproduce_section` writes CSV + markdown tables (reference capacities, calibrated basic channels,
Theorem 1 of Wu, Xia & He (2020), dependent sources, composition, the Gaussian noise comparison) and the figure
``info_calibration.{png,svg}`` (:func:`calibration_figure`); with a :class:`problems.report.Section` it also
records the claims it checks and the prose of the report section.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..export import atomic_write_text
from ..measures import dp_level
from ..plotting import new_figure, save_figure
from ..report import Section, _cell
from .basic_channels import (
    calibrate_exponential,
    calibrate_gaussian,
    calibrate_randomized_response,
    data_independent_bound,
    exponential_channel,
    gaussian_amplitude_capacity,
    gaussian_capacity_bound,
    gaussian_noise_comparison,
    randomized_response_channel,
)
from .capacity import blahut_arimoto, capacity_conic
from .composition import basic_composition, cross_capacity, group_capacity, parallel_composition_example
from .dependent import contagious_example
from .individual import individual_capacity
from .max_information_privacy import max_information_independent

__all__ = ["reproduce_section", "calibration_figure", "calibration_data"]


def _write_table(
    out_dir: Path, name: str, header: list[str], rows: list[list], written: list[Path], sec: Section | None
) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    written.append(atomic_write_text(out_dir / f"{name}.csv", buf.getvalue()))
    fmt = [[f"{v:.6g}" if isinstance(v, float) else str(v) for v in r] for r in rows]
    lines = ["| " + " | ".join(map(_cell, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(_cell, r)) + " |" for r in fmt]
    written.append(atomic_write_text(out_dir / f"{name}.md", "\n".join(lines) + "\n"))
    if sec is not None:
        sec.lines += lines + [""]


def calibration_data(*, points: int = 34, gauss_points: int = 12) -> dict:
    """C₁ of the randomized-response channel calibrated by (57) and of the Gaussian channel by (117)."""
    eps_grid = np.linspace(0.02, 0.68, points)
    c1 = []
    for e in eps_grid:
        p = calibrate_randomized_response(e).value
        ch = randomized_response_channel([2, 2], lambda x: int(x[0] ^ x[1]), p)
        c1.append(individual_capacity(ch).c1)
    T = 1.0
    gauss_eps = np.linspace(0.05, 1.0, gauss_points)
    gb, ga = [], []
    for e in gauss_eps:
        N = calibrate_gaussian(e, T).value
        gb.append(gaussian_capacity_bound(N, T))
        ga.append(gaussian_amplitude_capacity(N, T, n_inputs=21, n_outputs=401))
    return {
        "eps": eps_grid,
        "rr_c1": np.array(c1),
        "gauss_eps": gauss_eps,
        "gauss_bound": np.array(gb),
        "gauss_amplitude": np.array(ga),
        "T": T,
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


def reproduce_section(
    out_dir: Path, progress: Callable[[str], None] = print, *, report: Section | None = None
) -> list[Path]:
    """Write the information-privacy results into ``out_dir`` and return the paths written.

    Tables (CSV + markdown): reference capacities (BA vs conic), calibrated basic channels with their C₁,
    Theorem 1 (DP level vs max-information), dependent sources (Example 2), composition; figure: C₁ of the
    randomized-response channel against ε with the calibration curve, and the Gaussian bound vs the
    amplitude-constrained capacity (PNG + SVG).  With ``report``, records the checks and the prose.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    sec = report
    ln2 = math.log(2)

    progress("information privacy: reference capacities")
    refs = [
        (
            "BSC(0.25)",
            np.array([[0.75, 0.25], [0.25, 0.75]]),
            1 - (-(0.25 * math.log2(0.25) + 0.75 * math.log2(0.75))),
        ),
        ("[[.8,.2],[.3,.7]]", np.array([[0.8, 0.2], [0.3, 0.7]]), 0.19123813831431799),
        ("BEC(0.3)", np.array([[0.7, 0.3, 0.0], [0.0, 0.3, 0.7]]), 0.7),
        ("Z(0.1)", np.array([[1.0, 0.0], [0.1, 0.9]]), 0.7628482520),
    ]
    rows: list[list[Any]] = []
    for name, W, ref in refs:
        ba, cc = blahut_arimoto(W), capacity_conic(W)
        rows.append(
            [name, ref, ba.capacity / ln2, cc.capacity / ln2, ba.gap, cc.gap, abs(ba.capacity - cc.capacity)]
        )
    if sec:
        sec.say(
            "**Capacity solvers.** The certified Blahut–Arimoto iteration and the exponential-cone program "
            "against the published capacities of four textbook channels (bits):"
        )
    _write_table(
        out_dir,
        "info_reference_capacities",
        [
            "channel",
            "published_bits",
            "BA_bits",
            "conic_bits",
            "BA_gap_nats",
            "conic_gap_nats",
            "|BA-conic|_nats",
        ],
        rows,
        written,
        sec,
    )
    if sec:
        sec.check(
            "channel capacity of reference channels = published value",
            "textbook (BSC, BEC, Z)",
            "max |C(BA) − published| (bits)",
            max(max(abs(r[2] - r[1]), abs(r[3] - r[1])) for r in rows),
            1e-9,
        )

    progress("information privacy: calibrated basic channels")
    rows = []
    for eps in (0.1, 0.3, 0.5):
        rr = calibrate_randomized_response(eps)
        ch = randomized_response_channel([2, 2, 2], lambda x: int(sum(x) >= 2), rr.value)
        rows.append(["randomized-response (n=3, majority)", eps, "p*", rr.value, individual_capacity(ch).c1])
        ex = calibrate_exponential(eps, 4)
        ch = exponential_channel([2, 2, 2], lambda x: int(sum(x)), 4, ex.value)
        rows.append(["exponential (n=3, count, k=4)", eps, "lambda", ex.value, individual_capacity(ch).c1])
        exc = calibrate_exponential(eps, 3)
        ch = exponential_channel([3], lambda x: int(x[0]), 3, exc.value, distortion=lambda y, a: (y - a) % 3)
        di = data_independent_bound(ch)
        rows.append(
            [
                f"exponential (cyclic, k=3, weakly symmetric={di.weakly_symmetric})",
                eps,
                "lambda",
                exc.value,
                individual_capacity(ch).c1,
            ]
        )
        g = calibrate_gaussian(eps, 1.0)
        rows.append(["gaussian (T=1), bound (115)", eps, "N", g.value, g.capacity_bound])
        rows.append(
            [
                "gaussian (T=1), amplitude-constrained",
                eps,
                "N",
                g.value,
                gaussian_amplitude_capacity(g.value, 1.0),
            ]
        )
    if sec:
        sec.say(
            "**Calibrated basic channels** (Wu, Xia & He 2020, §4–5; Wu 2019b). Each channel is calibrated to the level ε by "
            "the paper's formula — p* of (57), λ of (83), N of (117) — and its C₁ is then computed independently "
            "by Theorem 2. The claim: C₁ ≤ ε, with equality for randomized response and the weakly symmetric "
            "exponential channel:"
        )
    _write_table(
        out_dir,
        "info_calibrated_channels",
        ["channel", "eps", "parameter", "value", "C1_nats"],
        rows,
        written,
        sec,
    )
    if sec:
        sec.check(
            "calibrated channels satisfy C₁ ≤ ε",
            "Wu, Xia & He (2020) (57), (83), (115)–(117)",
            "max (C₁ − ε) over 15 channels, nats",
            max(0.0, max(r[4] - r[1] for r in rows)),
            1e-9,
        )
        tight = [r for r in rows if r[0].startswith("randomized") or "weakly symmetric=True" in r[0]]
        sec.check(
            "randomized response (57) and symmetric exponential (83) are tight: C₁ = ε",
            "Wu, Xia & He (2020) (57), (83)",
            "max |C₁ − ε|, nats",
            max(abs(r[4] - r[1]) for r in tight),
            1e-8,
        )

    progress("information privacy: Gaussian noise comparison (section 5.2)")
    rows = []
    for eps in (0.1, 0.5, 1.0):
        c = gaussian_noise_comparison(eps, T=1.0, sensitivity=1.0, delta=1e-5)
        rows.append([eps, c.laplace_scale, c.gaussian_dp_scale, c.gaussian_channel_scale, c.laplace_std])
    if sec:
        sec.say(
            "**Noise scales** of the Laplace, (ε, δ)-DP Gaussian and Gaussian privacy channel (Wu, Xia & He 2020, §5.2):"
        )
    _write_table(
        out_dir,
        "info_gaussian_noise_comparison",
        ["eps", "laplace_scale", "gaussian_dp_scale(delta=1e-5)", "gaussian_channel_sqrtN", "laplace_std"],
        rows,
        written,
        sec,
    )

    progress("information privacy: Theorem 1, dependent sources, composition")
    rng = np.random.default_rng(3)
    rows = []
    for t in range(3):
        W = rng.dirichlet(np.ones(3) * 2, size=(2, 2))
        mi = max_information_independent(W)
        rows.append([f"random (2,2)->3 #{t}", dp_level(W), mi.sequence[-1][1], individual_capacity(W).c1])
    if sec:
        sec.say(
            "**Theorem 1 of Wu, Xia & He (2020)**: under independent records, max-information privacy equals the DP level "
            "of the channel (the max-information is computed at δ = 1e-8):"
        )
    _write_table(
        out_dir,
        "info_theorem1",
        ["channel", "dp_level", "I_inf_at_delta_1e-8", "C1_all_priors"],
        rows,
        written,
        sec,
    )
    if sec:
        sec.check(
            "max-information privacy = ε-DP level under independence",
            "Wu, Xia & He (2020) Theorem 1",
            "max |I∞ − DP level|, nats",
            max(abs(r[2] - r[1]) for r in rows),
            1e-6,
        )
    rows = []
    for p1 in (0.1, 0.01, 1e-4, 1e-6):
        example = contagious_example(0.5, p1)
        rows.append([p1, example.dp_level, example.log_ratio, example.limit])
    if sec:
        sec.say(
            "**Dependent sources** (Wu, Xia & He 2017, Example 2, contagious disease): an ε-DP mechanism (ε = 0.5) leaks "
            "a log-ratio (9) that tends to 2ε as the infection probability tends to 0:"
        )
    _write_table(
        out_dir,
        "info_contagious_example",
        ["p_infected", "dp_level", "log_ratio_(9)", "limit_2eps"],
        rows,
        written,
        sec,
    )
    if sec:
        sec.check(
            "dependent records: log-ratio (9) → 2ε (Example 2)",
            "Wu, Xia & He (2017) Example 2",
            "|log-ratio − 2ε| at p = 1e-6, nats",
            abs(rows[-1][2] - rows[-1][3]),
            1e-5,
        )
    W1 = rng.dirichlet(np.ones(3), size=(2, 2))
    W2 = rng.dirichlet(np.ones(3), size=(2, 2))
    bc = basic_composition(W1, W2)
    par = parallel_composition_example(0.2)
    rows = [
        ["basic composition (138): C1 part 1", bc.parts[0]],
        ["basic composition (138): C1 part 2", bc.parts[1]],
        ["basic composition (138): C1 composite", bc.composite],
        ["group capacity C_2 of part 1", group_capacity(W1, 2).c1],
        ["cross capacity C^{2,1} (Prop. 6), part 1 vs binary records", cross_capacity(W1, (2, 2))],
        ["parallel composition (Def. 21): C1 of each part", par.part_c1],
        ["parallel composition (Def. 21): C1 composite", par.composite_c1],
        ["parallel composition: excess tau (Prop. 7)", par.tau],
    ]
    if sec:
        sec.say(
            "**Composition** (Wu 2019a): the C₁ of the basic composition of two random channels is at most the "
            "sum of the parts (138); a parallel composition can exceed one part's C₁ by τ (Prop. 7):"
        )
    _write_table(out_dir, "info_composition", ["quantity", "nats"], rows, written, sec)
    if sec:
        sec.check(
            "basic composition: C₁(composite) ≤ C₁(part 1) + C₁(part 2)",
            "Wu (2019a) (138)",
            "max(0, C₁ composite − sum of parts), nats",
            max(0.0, bc.composite - sum(bc.parts)),
            1e-9,
        )

    progress("information privacy: figure")
    data = calibration_data()
    written += save_figure(calibration_figure(data), out_dir / "info_calibration")
    if sec:
        sec.figure(
            out_dir / "info_calibration.png",
            "Left: C₁ of randomized response calibrated by (57) lies on C₁ = ε. Right: the Gaussian channel "
            "calibrated by (117) meets its bound (115); the amplitude-constrained capacity lies below it.",
        )
        sec.check(
            "calibration curve: C₁(RR(p*(ε))) = ε on 34 levels",
            "Wu, Xia & He (2020) (57)",
            "max |C₁ − ε|, nats",
            float(np.max(np.abs(data["rr_c1"] - data["eps"]))),
            1e-8,
        )
        sec.check(
            "Gaussian channel: amplitude-constrained C₁ ≤ bound (115) ≤ ε",
            "Wu, Xia & He (2020) (115), (117)",
            "max violation, nats",
            float(
                max(
                    0.0,
                    np.max(data["gauss_amplitude"] - data["gauss_bound"]),
                    np.max(data["gauss_bound"] - data["gauss_eps"]),
                )
            ),
            1e-9,
        )
    meta = out_dir / "info_summary.json"
    written.append(
        atomic_write_text(meta, json.dumps({"written": [p.name for p in written], "unit": "nats"}, indent=2))
    )
    return written
