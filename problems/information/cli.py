"""Command-line interface and reproduction of the information-privacy results.

``register(subparsers)`` adds two subcommands to the toolkit's ``argparse`` parser:

``capacity --channel PATH.npy [--bits] [--json] [--tol TOL] [--no-prune]``
    Individual channel capacity C₁ (Wu, Xia & He 2020 Def. 5 / Theorem 2) of the channel array saved with ``numpy.save``:
    one axis per individual (record universe sizes may differ), the output on the last axis, each fibre along
    the last axis a pmf, ``W[x_1, ..., x_n, y] = p(y | x)``.  The JSON reports ``individual`` 1-based.

``calibrate {randomized-response,exponential,gaussian} --eps E [--k K] [--T T] [--json]``
    Parameter giving C₁ ≤ ε: p* of (57), λ = 1/N of (83) (needs ``--k``, the number of outputs), N of (117)
    (needs ``--T``, the output range being [-T, T]).  ε in nats.

The reproduction section (tables and figure) is :func:`problems.reproduce.information.reproduce_section`.
"""

from __future__ import annotations

import argparse
import sys
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

__all__ = ["register"]


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
        from .individual import individual_capacity

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
