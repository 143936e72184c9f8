"""Command-line interface and reproduction of the information-privacy results.

``register(subparsers)`` adds two subcommands to the toolkit's ``argparse`` parser:

``capacity --channel PATH.npy [--bits] [--json] [--tol TOL] [--no-prune]``
    Individual channel capacity C₁ (paper 000 Def. 5 / Theorem 2) of the channel array saved with ``numpy.save``:
    one axis per individual (record universe sizes may differ), the output on the last axis, each fibre along
    the last axis a pmf, ``W[x_1, ..., x_n, y] = p(y | x)``.  The JSON reports ``individual`` 1-based.

``calibrate {randomized-response,exponential,gaussian} --eps E [--k K] [--T T] [--json]``
    Parameter giving C₁ ≤ ε: p* of (57), λ = 1/N of (83) (needs ``--k``, the number of outputs), N of (117)
    (needs ``--T``, the output range being [-T, T]).  ε in nats.

``reproduce_section(out_dir, progress)`` writes the section's tables and figure and returns the paths.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ..cli_common import (
    add_json_option,
    add_unit_option,
    finite_float,
    positive_float,
    print_json,
    resolve_unit,
)
from ..errors import PrivacyToolkitError

__all__ = ["register", "reproduce_section"]


def register(subparsers) -> None:
    """Add the ``capacity`` and ``calibrate`` subcommands to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "capacity",
        help="individual channel capacity C1 of a privacy channel (.npy array, output on the last axis)",
        description=(
            "Individual channel capacity C1 (Wu-Xia-He Def. 5, Theorem 2). The .npy file holds an array with one "
            "axis per individual and the output on the last axis: W[x_1, ..., x_n, y] = p(y | x). "
            "JSON: 'individual' is 1-based; record values in 'vertex' are 0-based array indices."
        ),
    )
    p.add_argument("--channel", required=True, type=Path, help="path to a .npy channel array")
    add_unit_option(p, "capacity C1")
    add_json_option(p)
    p.add_argument(
        "--tol", type=positive_float, default=1e-10, help="certified gap per vertex channel (nats)"
    )
    p.add_argument("--no-prune", action="store_true", help="evaluate every distinct vertex channel")
    p.set_defaults(func=_cmd_capacity)

    c = subparsers.add_parser("calibrate", help="calibrate a basic privacy channel to C1 <= eps (nats)")
    c.add_argument("mechanism", choices=["randomized-response", "exponential", "gaussian"])
    c.add_argument("--eps", required=True, type=finite_float, help="privacy level in nats")
    c.add_argument("--k", type=int, default=None, help="number of outputs |Y| (exponential channel)")
    c.add_argument("--T", type=finite_float, default=None, help="output range [-T, T] (gaussian channel)")
    add_json_option(c)
    c.set_defaults(func=_cmd_calibrate)


def _fail(msg: str | PrivacyToolkitError) -> int:
    from ..errors import InvalidInputError, ProblemTooLargeError
    from ..lp.status import EXIT_CODES

    print(f"error: {msg}", file=sys.stderr)
    if isinstance(msg, ProblemTooLargeError):
        return EXIT_CODES["too-large"]
    if isinstance(msg, PrivacyToolkitError) and not isinstance(msg, InvalidInputError):
        return EXIT_CODES["failed"]
    return EXIT_CODES["bad-input"]


def _cmd_capacity(args: argparse.Namespace) -> int:
    import numpy as np

    from .channel import load_channel

    unit = resolve_unit(args)
    try:
        ch = load_channel(args.channel)  # validated before the solvers are imported
        from .individual_capacity import individual_capacity

        res = individual_capacity(ch, tol=args.tol, prune=not args.no_prune)
    except PrivacyToolkitError as exc:
        return _fail(exc)
    d = res.to_dict(unit)
    if args.json:
        print_json(d, unit=unit)
    else:
        print(
            f"C1 = {d['C1']:.10g} {unit}  (certified in [{d['lower_bound']:.10g}, {d['upper_bound']:.10g}])"
        )
        print(f"worst individual (1-based): {d['individual']}")
        print(f"worst vertex: x_(i) chosen for each value of x_i: {d['vertex']}")
        print(f"capacity-achieving p(x_i): {np.array2string(res.input_distribution, precision=6)}")
        print(
            f"vertex channels: {d['total_vertices']} total, {d['distinct_vertices']} distinct, "
            f"{d['evaluated_vertices']} evaluated, {d['pruned_vertices']} pruned"
        )
    return 0 if res.certified else 3  # the exit codes of docs/certificates.md


def _cmd_calibrate(args: argparse.Namespace) -> int:
    if args.mechanism == "exponential" and args.k is None:
        return _fail("calibrate exponential needs --k K (the number of outputs |Y|, K >= 2)")
    if args.mechanism == "gaussian" and args.T is None:
        return _fail("calibrate gaussian needs --T T (outputs lie in [-T, T], T > 0)")
    from .basic_channels import calibrate_exponential, calibrate_gaussian, calibrate_randomized_response

    try:
        if args.mechanism == "randomized-response":
            cal = calibrate_randomized_response(args.eps)
        elif args.mechanism == "exponential":
            if args.k is None:
                return _fail("calibrate exponential needs --k K (the number of outputs |Y|, K >= 2)")
            cal = calibrate_exponential(args.eps, args.k)
        else:
            if args.T is None:
                return _fail("calibrate gaussian needs --T T (outputs lie in [-T, T], T > 0)")
            cal = calibrate_gaussian(args.eps, args.T)
    except PrivacyToolkitError as exc:
        return _fail(exc)
    d = cal.to_dict()
    if args.json:
        print_json(d, unit="nats")
    else:
        print(
            f"{cal.mechanism}: {cal.parameter} = {cal.value:.12g}  (C1 bound {cal.capacity_bound:.6g} nats)"
        )
        print(f"solves {cal.equation}")
    return 0


# --- reproduction ------------------------------------------------------------------------------------------
def _write_table(out_dir: Path, name: str, header: list[str], rows: list[list], written: list[str]) -> None:
    csv_path = out_dir / f"{name}.csv"
    with csv_path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    md_path = out_dir / f"{name}.md"
    fmt = [[f"{v:.6g}" if isinstance(v, float) else str(v) for v in r] for r in rows]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in fmt]
    md_path.write_text("\n".join(lines) + "\n")
    written += [str(csv_path), str(md_path)]


def reproduce_section(out_dir: Path, progress: Callable[[str], None]) -> list[str]:
    """Write the information-privacy results into ``out_dir`` and return the paths written.

    Tables (CSV + markdown): reference capacities (BA vs conic), calibrated basic channels with their C₁,
    Theorem 1 (DP level vs max-information), dependent sources (Example 2), composition; figure: C₁ of the
    randomized-response channel against ε with the calibration curve, and the Gaussian bound vs the
    amplitude-constrained capacity (PNG + SVG).
    """
    import numpy as np
    from matplotlib.figure import Figure  # no pyplot: the global matplotlib state is left alone

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
    from .individual_capacity import individual_capacity
    from .max_information import dp_level, max_information_independent

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
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
    rows = []
    for name, W, ref in refs:
        ba, cc = blahut_arimoto(W), capacity_conic(W)
        rows.append(
            [name, ref, ba.capacity / ln2, cc.capacity / ln2, ba.gap, cc.gap, abs(ba.capacity - cc.capacity)]
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
    _write_table(
        out_dir,
        "info_calibrated_channels",
        ["channel", "eps", "parameter", "value", "C1_nats"],
        rows,
        written,
    )

    progress("information privacy: Gaussian noise comparison (section 5.2)")
    rows = []
    for eps in (0.1, 0.5, 1.0):
        c = gaussian_noise_comparison(eps, T=1.0, sensitivity=1.0, delta=1e-5)
        rows.append([eps, c.laplace_scale, c.gaussian_dp_scale, c.gaussian_channel_scale, c.laplace_std])
    _write_table(
        out_dir,
        "info_gaussian_noise_comparison",
        ["eps", "laplace_scale", "gaussian_dp_scale(delta=1e-5)", "gaussian_channel_sqrtN", "laplace_std"],
        rows,
        written,
    )

    progress("information privacy: Theorem 1, dependent sources, composition")
    rng = np.random.default_rng(3)
    rows = []
    for t in range(3):
        W = rng.dirichlet(np.ones(3) * 2, size=(2, 2))
        mi = max_information_independent(W)
        rows.append([f"random (2,2)->3 #{t}", dp_level(W), mi.sequence[-1][1], individual_capacity(W).c1])
    _write_table(
        out_dir,
        "info_theorem1",
        ["channel", "dp_level", "I_inf_at_delta_1e-8", "C1_all_priors"],
        rows,
        written,
    )
    rows = []
    for p1 in (0.1, 0.01, 1e-4, 1e-6):
        ex = contagious_example(0.5, p1)
        rows.append([p1, ex.dp_level, ex.log_ratio, ex.limit])
    _write_table(
        out_dir,
        "info_contagious_example",
        ["p_infected", "dp_level", "log_ratio_(9)", "limit_2eps"],
        rows,
        written,
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
    _write_table(out_dir, "info_composition", ["quantity", "nats"], rows, written)

    progress("information privacy: figure")
    eps_grid = np.linspace(0.02, 0.68, 34)
    p_star = [calibrate_randomized_response(e).value for e in eps_grid]
    c1 = []
    for p in p_star:
        ch = randomized_response_channel([2, 2], lambda x: int(x[0] ^ x[1]), p)
        c1.append(individual_capacity(ch).c1)
    T = 1.0
    gauss_eps = np.linspace(0.05, 1.0, 12)
    gb, ga = [], []
    for e in gauss_eps:
        N = calibrate_gaussian(e, T).value
        gb.append(gaussian_capacity_bound(N, T))
        ga.append(gaussian_amplitude_capacity(N, T, n_inputs=21, n_outputs=401))
    fig = Figure(figsize=(10, 4))
    ax = fig.subplots(1, 2)
    ax[0].plot(eps_grid, eps_grid, "k--", lw=1, label="C1 = eps")
    ax[0].plot(eps_grid, c1, "o", ms=4, label="C1 of RR(p*) (Theorem 2)")
    ax[0].set_xlabel("eps (nats)")
    ax[0].set_ylabel("C1 (nats)")
    ax[0].set_title("Randomized response calibrated by (57)")
    ax[0].legend()
    ax[1].plot(gauss_eps, gauss_eps, "k--", lw=1, label="eps")
    ax[1].plot(gauss_eps, gb, "s-", ms=4, label="(115) at N of (117)")
    ax[1].plot(gauss_eps, ga, "o-", ms=4, label="amplitude-constrained C1 (discretised)")
    ax[1].set_xlabel("eps (nats)")
    ax[1].set_title("Gaussian privacy channel, T = 1")
    ax[1].legend()
    fig.tight_layout()
    for ext in ("png", "svg"):
        path = out_dir / f"info_calibration.{ext}"
        fig.savefig(path, dpi=120)
        written.append(str(path))
    meta = out_dir / "info_summary.json"
    meta.write_text(json.dumps({"written": written, "unit": "nats", "time": time.time()}, indent=2))
    written.append(str(meta))
    return written
