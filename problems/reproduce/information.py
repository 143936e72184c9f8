"""The information-privacy section of the reproduction report: tables, the calibration figure and checks.

:func:`reproduce_section` writes CSV + markdown tables (reference capacities, calibrated basic channels,
Theorem 1 of Wu, Xia & He (2020), dependent sources, composition, the Gaussian noise comparison) and the figure
``info_calibration.{png,svg}`` (:func:`~problems.reproduce.figures.calibration_figure`); it records the claims
it checks and the prose of the report section in a :class:`~problems.reproduce.report.Section`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..export import atomic_write_text
from ..information.basic_channels import (
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
from ..information.capacity import blahut_arimoto, capacity_conic
from ..information.composition import (
    basic_composition,
    cross_capacity,
    group_capacity,
    parallel_composition_example,
)
from ..information.dependent import contagious_example
from ..information.individual import individual_capacity
from ..information.max_information_privacy import max_information_independent
from ..measures import dp_level
from ..plotting import save_figure
from .figures import calibration_figure
from .report import Section
from .runner import Context
from .tables import write_table

__all__ = ["information_section", "reproduce_section", "calibration_data"]


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


def _reference_capacities(out: Path, sec: Section) -> list[Path]:
    """Blahut–Arimoto and the exponential-cone program against four published capacities."""
    ln2 = math.log(2)
    h25 = -(0.25 * math.log2(0.25) + 0.75 * math.log2(0.75))
    refs = [
        ("BSC(0.25)", np.array([[0.75, 0.25], [0.25, 0.75]]), 1 - h25),
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
    sec.say(
        "**Capacity solvers.** The certified Blahut–Arimoto iteration and the exponential-cone program "
        "against the published capacities of four textbook channels (bits):"
    )
    header = ["channel", "published_bits", "BA_bits", "conic_bits", "BA_gap_nats", "conic_gap_nats"]
    written = write_table(out, "info_reference_capacities", [*header, "|BA-conic|_nats"], rows, sec)
    sec.check(
        "channel capacity of reference channels = published value",
        "textbook (BSC, BEC, Z)",
        "max |C(BA) − published| (bits)",
        max(max(abs(r[2] - r[1]), abs(r[3] - r[1])) for r in rows),
        1e-9,
    )
    return written


def _calibrated_rows(eps: float) -> list[list[Any]]:
    """The five calibrated basic channels at level ``eps`` and their C₁ (Theorem 2)."""
    rr = calibrate_randomized_response(eps)
    ch = randomized_response_channel([2, 2, 2], lambda x: int(sum(x) >= 2), rr.value)
    rows: list[list[Any]] = [
        ["randomized-response (n=3, majority)", eps, "p*", rr.value, individual_capacity(ch).c1]
    ]
    ex = calibrate_exponential(eps, 4)
    ch = exponential_channel([2, 2, 2], lambda x: int(sum(x)), 4, ex.value)
    rows.append(["exponential (n=3, count, k=4)", eps, "lambda", ex.value, individual_capacity(ch).c1])
    exc = calibrate_exponential(eps, 3)
    ch = exponential_channel([3], lambda x: int(x[0]), 3, exc.value, distortion=lambda y, a: (y - a) % 3)
    di = data_independent_bound(ch)
    name = f"exponential (cyclic, k=3, weakly symmetric={di.weakly_symmetric})"
    rows.append([name, eps, "lambda", exc.value, individual_capacity(ch).c1])
    g = calibrate_gaussian(eps, 1.0)
    rows.append(["gaussian (T=1), bound (115)", eps, "N", g.value, g.capacity_bound])
    amplitude = gaussian_amplitude_capacity(g.value, 1.0)
    rows.append(["gaussian (T=1), amplitude-constrained", eps, "N", g.value, amplitude])
    return rows


def _calibrated_channels(out: Path, sec: Section) -> list[Path]:
    """Each basic channel calibrated to ε by the paper's formula; its C₁ computed independently."""
    rows = [r for eps in (0.1, 0.3, 0.5) for r in _calibrated_rows(eps)]
    sec.say(
        "**Calibrated basic channels** (Wu, Xia & He 2020, §4–5; Wu 2019b). Each channel is calibrated to the level ε by "
        "the paper's formula — p* of (57), λ of (83), N of (117) — and its C₁ is then computed independently "
        "by Theorem 2. The claim: C₁ ≤ ε, with equality for randomized response and the weakly symmetric "
        "exponential channel:"
    )
    header = ["channel", "eps", "parameter", "value", "C1_nats"]
    written = write_table(out, "info_calibrated_channels", header, rows, sec)
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
    return written


def _gaussian_noise(out: Path, sec: Section) -> list[Path]:
    """The noise scales of the Laplace, (ε, δ)-DP Gaussian and Gaussian privacy channel (§5.2)."""
    rows = []
    for eps in (0.1, 0.5, 1.0):
        c = gaussian_noise_comparison(eps, T=1.0, sensitivity=1.0, delta=1e-5)
        rows.append([eps, c.laplace_scale, c.gaussian_dp_scale, c.gaussian_channel_scale, c.laplace_std])
    sec.say(
        "**Noise scales** of the Laplace, (ε, δ)-DP Gaussian and Gaussian privacy channel (Wu, Xia & He 2020, §5.2):"
    )
    header = [
        "eps",
        "laplace_scale",
        "gaussian_dp_scale(delta=1e-5)",
        "gaussian_channel_sqrtN",
        "laplace_std",
    ]
    return write_table(out, "info_gaussian_noise_comparison", header, rows, sec)


def _theorem1(out: Path, sec: Section, rng: np.random.Generator) -> list[Path]:
    """Max-information privacy equals the DP level under independent records (Theorem 1)."""
    rows: list[list[Any]] = []
    for t in range(3):
        W = rng.dirichlet(np.ones(3) * 2, size=(2, 2))
        mi = max_information_independent(W)
        rows.append([f"random (2,2)->3 #{t}", dp_level(W), mi.sequence[-1][1], individual_capacity(W).c1])
    sec.say(
        "**Theorem 1 of Wu, Xia & He (2020)**: under independent records, max-information privacy equals the DP level "
        "of the channel (the max-information is computed at δ = 1e-8):"
    )
    header = ["channel", "dp_level", "I_inf_at_delta_1e-8", "C1_all_priors"]
    written = write_table(out, "info_theorem1", header, rows, sec)
    sec.check(
        "max-information privacy = ε-DP level under independence",
        "Wu, Xia & He (2020) Theorem 1",
        "max |I∞ − DP level|, nats",
        max(abs(r[2] - r[1]) for r in rows),
        1e-6,
    )
    return written


def _dependent(out: Path, sec: Section) -> list[Path]:
    """Example 2 (contagious disease): the log-ratio (9) tends to 2ε."""
    rows = []
    for p1 in (0.1, 0.01, 1e-4, 1e-6):
        example = contagious_example(0.5, p1)
        rows.append([p1, example.dp_level, example.log_ratio, example.limit])
    sec.say(
        "**Dependent sources** (Wu, Xia & He 2017, Example 2, contagious disease): an ε-DP mechanism (ε = 0.5) leaks "
        "a log-ratio (9) that tends to 2ε as the infection probability tends to 0:"
    )
    header = ["p_infected", "dp_level", "log_ratio_(9)", "limit_2eps"]
    written = write_table(out, "info_contagious_example", header, rows, sec)
    sec.check(
        "dependent records: log-ratio (9) → 2ε (Example 2)",
        "Wu, Xia & He (2017) Example 2",
        "|log-ratio − 2ε| at p = 1e-6, nats",
        abs(rows[-1][2] - rows[-1][3]),
        1e-5,
    )
    return written


def _composition(out: Path, sec: Section, rng: np.random.Generator) -> list[Path]:
    """Basic composition (138) and parallel composition (Def. 21, Prop. 7) of Wu (2019a)."""
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
    sec.say(
        "**Composition** (Wu 2019a): the C₁ of the basic composition of two random channels is at most the "
        "sum of the parts (138); a parallel composition can exceed one part's C₁ by τ (Prop. 7):"
    )
    written = write_table(out, "info_composition", ["quantity", "nats"], rows, sec)
    sec.check(
        "basic composition: C₁(composite) ≤ C₁(part 1) + C₁(part 2)",
        "Wu (2019a) (138)",
        "max(0, C₁ composite − sum of parts), nats",
        max(0.0, bc.composite - sum(bc.parts)),
        1e-9,
    )
    return written


def _calibration(out: Path, sec: Section) -> list[Path]:
    """The calibration figure and its two checks."""
    data = calibration_data()
    written = save_figure(calibration_figure(data), out / "info_calibration")
    sec.figure(
        out / "info_calibration.png",
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
    excess = max(
        0.0,
        np.max(data["gauss_amplitude"] - data["gauss_bound"]),
        np.max(data["gauss_bound"] - data["gauss_eps"]),
    )
    sec.check(
        "Gaussian channel: amplitude-constrained C₁ ≤ bound (115) ≤ ε",
        "Wu, Xia & He (2020) (115), (117)",
        "max violation, nats",
        float(excess),
        1e-9,
    )
    return written


def reproduce_section(
    out_dir: Path, progress: Callable[[str], None] = print, *, report: Section | None = None
) -> list[Path]:
    """Write the information-privacy results into ``out_dir`` and return the paths written.

    Tables (CSV + markdown): reference capacities (BA vs conic), calibrated basic channels with their C₁,
    Theorem 1 (DP level vs max-information), dependent sources (Example 2), composition; figure: C₁ of the
    randomized-response channel against ε with the calibration curve, and the Gaussian bound vs the
    amplitude-constrained capacity (PNG + SVG).  With ``report``, records the checks and the prose there.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sec = report if report is not None else Section("information privacy")
    progress("information privacy: reference capacities")
    written = _reference_capacities(out, sec)
    progress("information privacy: calibrated basic channels")
    written += _calibrated_channels(out, sec)
    progress("information privacy: Gaussian noise comparison (section 5.2)")
    written += _gaussian_noise(out, sec)
    progress("information privacy: Theorem 1, dependent sources, composition")
    rng = np.random.default_rng(3)  # Theorem 1 draws first, then the composition: one stream, in this order
    written += _theorem1(out, sec, rng)
    written += _dependent(out, sec)
    written += _composition(out, sec, rng)
    progress("information privacy: figure")
    written += _calibration(out, sec)
    meta = {"written": [p.name for p in written], "unit": "nats"}
    written.append(atomic_write_text(out / "info_summary.json", json.dumps(meta, indent=2)))
    return written


def information_section(sec: Section, ctx: Context) -> None:
    """The report section of Wu, Xia & He (2017, 2020) and Wu (2019a, 2019b)."""
    sec.paths += reproduce_section(ctx.out, ctx.progress, report=sec)
