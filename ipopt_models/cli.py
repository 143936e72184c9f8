"""Command line: ``python -m ipopt_models {bilinear-pd,capacity,balance,pd-mip} … [--starts K] [--seed S] [--json]``.

Examples::

    python -m ipopt_models bilinear-pd --program pd-i -n 3 -m 2 --prior iid:0.6,0.4 --eps 1.0
    python -m ipopt_models capacity --channel W.npy --starts 50
    python -m ipopt_models capacity --random 3,2:3 --seed 1
    python -m ipopt_models balance --channel-kind rr --points 20
    python -m ipopt_models pd-mip -n 2 -m 2 --distortion 0.3 --json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import numpy as np

from problems.errors import PrivacyToolkitError
from problems.units import to_unit

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m ipopt_models", description="IPOPT models (multistart).")
    sub = ap.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, starts: int) -> None:
        p.add_argument("--starts", type=int, default=starts, help=f"number of starts (default {starts})")
        p.add_argument("--seed", type=int, default=0, help="numpy Generator seed (default 0)")
        p.add_argument("--json", action="store_true", help="print the full result as JSON")
        p.add_argument("--unit", choices=["nats", "bits"], default="nats", help="information unit on output")

    p = sub.add_parser("bilinear-pd", help="PD-I / R-PD in (p_{X|Y}, p_Y) against the LP (paper 002)")
    p.add_argument("--program", choices=["pd-i", "r-pd"], default="pd-i")
    p.add_argument("-n", type=int, default=2)
    p.add_argument("-m", type=int, default=2)
    p.add_argument("--prior", default="uniform", help="prior spec as parsed by problems.priors.parse_prior")
    p.add_argument("--eps", type=float, required=True)
    common(p, 20)

    p = sub.add_parser("capacity", help="C1 over the full joint against Theorem 2 (paper 000)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--channel", help=".npy array: one axis per individual, output axis last")
    src.add_argument("--random", metavar="SIZES:K", help="random Dirichlet channel, e.g. 3,2:3 (seeded)")
    common(p, 50)

    p = sub.add_parser("balance", help="bracket the balance function δ(b) (paper 000, Def. 11)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--channel", help=".npy channel array")
    src.add_argument("--channel-kind", choices=["rr", "exponential", "gaussian"], default="rr")
    p.add_argument("--points", type=int, default=20)
    p.add_argument("--no-certify", action="store_true", help="skip the branch-and-bound lower bound on δ")
    common(p, 10)

    p = sub.add_parser("pd-mip", help="PD-MIP as a smooth NLP against the exponential-cone program")
    p.add_argument("-n", type=int, default=2)
    p.add_argument("-m", type=int, default=2)
    p.add_argument("--prior", default="uniform")
    p.add_argument("--distortion", type=float, required=True)
    common(p, 5)
    return ap


def _summary(res, unit: str, info: bool) -> str:
    conv = (lambda v: float(to_unit(v, unit))) if info else (lambda v: v)
    lines = [
        f"model          {res.model} ({'max' if res.sense == 'max' else 'min'})",
        f"best value     {conv(res.value):.10g}{' ' + unit if info else ''}  "
        f"({'lower' if res.sense == 'max' else 'upper'} bound on the true optimum)",
        f"IPOPT          {res.status}, {res.iterations} iterations (best start)",
        f"starts         {res.n_starts}: {res.n_success} succeeded, {res.n_reached} reached the best "
        f"(±{res.tolerance:g})",
    ]
    if res.reference is not None:
        lines.append(f"reference      {conv(res.reference):.10g}  [{res.reference_name}]")
        lines.append(f"excess         {conv(res.excess):.3g}  (> tolerance would contradict the reference)")
        lines.append(f"reached ref.   {res.n_reached_reference} of {res.n_starts} starts")
    lines.append(f"time           {res.solve_time:.2f} s")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except PrivacyToolkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from problems.database import DatabaseSpace
    from problems.priors import parse_prior

    if args.command == "bilinear-pd":
        from .bilinear_pd import bilinear_pd_i, bilinear_r_pd

        space = DatabaseSpace(args.n, args.m)
        if args.program == "pd-i":
            res = bilinear_pd_i(parse_prior(args.prior, space), args.eps, starts=args.starts, seed=args.seed)
        else:
            res = bilinear_r_pd(space, args.eps, starts=args.starts, seed=args.seed)
        print(json.dumps(res.to_dict(), indent=2) if args.json else _summary(res, args.unit, False))
        return 0
    if args.command == "pd-mip":
        from .pd_mip import pd_mip_nlp

        space = DatabaseSpace(args.n, args.m)
        res = pd_mip_nlp(parse_prior(args.prior, space), args.distortion, starts=args.starts, seed=args.seed)
        print(json.dumps(res.to_dict(), indent=2) if args.json else _summary(res, args.unit, True))
        return 0
    channel = _channel(args)
    if args.command == "capacity":
        from .capacity import joint_capacity

        res = joint_capacity(channel, starts=args.starts, seed=args.seed)
        if args.json:
            print(json.dumps(res.to_dict(), indent=2))
        else:
            print(_summary(res, args.unit, True))
            lo, up = res.extras["theorem2_lower"], res.extras["theorem2_upper"]
            print(
                f"Theorem 2      [{to_unit(lo, args.unit):.10g}, {to_unit(up, args.unit):.10g}] {args.unit}"
            )
        return 0
    from .balance import balance_curve

    curve = balance_curve(
        channel,
        points=args.points,
        starts=args.starts,
        seed=args.seed,
        certify=not args.no_certify,
        name=getattr(args, "channel", None) or args.channel_kind,
    )
    if args.json:
        print(json.dumps(curve.to_dict(args.unit), indent=2))
        return 0
    u = args.unit
    print(
        f"balance function of {curve.name}, |X| = {int(np.prod(curve.record_sizes))}, "
        f"C1 ∈ [{to_unit(curve.c1_lower, u):.6g}, {to_unit(curve.c1_upper, u):.6g}] {u}"
    )
    print(f"δ(b) = 0 exactly for b ≤ {to_unit(curve.zero_below, u):.6g} (entropy of the Theorem 2 adversary)")
    print(f"{'b':>10} {'δ lower (cert.)':>16} {'δ upper (IPOPT)':>16} {'reached':>8}")
    for k in range(curve.b.size):
        print(
            f"{to_unit(curve.b[k], u):10.4f} {to_unit(curve.delta_lower[k], u):16.8f} "
            f"{to_unit(curve.delta_upper[k], u):16.8f} {curve.n_reached[k]:>5}/{curve.n_starts[k]}"
        )
    print(f"time {curve.solve_time:.2f} s")
    return 0


def _channel(args: argparse.Namespace) -> np.ndarray:
    from problems.errors import InvalidInputError

    if getattr(args, "channel", None):
        from problems.information.channel import load_channel

        return np.asarray(load_channel(args.channel).array)
    if getattr(args, "random", None):
        try:
            sizes_s, k_s = args.random.split(":")
            sizes = tuple(int(s) for s in sizes_s.split(","))
            k = int(k_s)
        except ValueError as exc:
            raise InvalidInputError(f"--random takes SIZES:K such as 3,2:3, got {args.random!r}") from exc
        if any(s < 1 for s in sizes) or k < 1:
            raise InvalidInputError(f"--random sizes and K must be ≥ 1, got {args.random!r}")
        return np.random.default_rng(args.seed).dirichlet(np.ones(k), size=sizes)
    from .balance import exponential_array, quantised_gaussian_array, randomized_response_array

    return {
        "rr": randomized_response_array,
        "exponential": exponential_array,
        "gaussian": quantised_gaussian_array,
    }[args.channel_kind]()
