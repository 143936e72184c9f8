"""Command line: ``python -m ipopt_models {bilinear-pd,capacity,balance,pd-mip} … [--starts K] [--seed S] [--json]``.

Examples::

    python -m ipopt_models bilinear-pd --program pd-i --n 3 --m 2 --prior iid:0.6,0.4 --eps 1.0
    python -m ipopt_models capacity --channel W.npy --starts 50
    python -m ipopt_models capacity --random 3,2:3 --seed 1
    python -m ipopt_models balance --channel-kind rr --points 20
    python -m ipopt_models pd-mip --n 2 --m 2 --distortion 0.3 --json

The options, units, JSON shape and exit codes are those of ``python -m problems`` (:mod:`problems.cli_common`,
``docs/cli.md``).  ``-n``/``-m`` are accepted as well as ``--n``/``--m``.  An IPOPT multistart returns local
optima: a value is **certified** (exit 0) only when a proved bound of the toolkit meets it by the toolkit's status
rule, 1e-6 relative or 1e-12 absolute (:func:`problems.lp.status.decide_status`; the exponential-cone dual bound for PD-MIP, the LP's bounds for PD-I/R-PD, Theorem 2's bracket for C₁, the
branch-and-bound bracket for δ(b)); otherwise the answer is printed and the exit code is 3.  Exit codes do not
depend on ``--json``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from problems.cli_common import (
    EXIT_CODES,
    Parser,
    add_json_option,
    add_seed_option,
    add_space_options,
    add_unit_option,
    add_version,
    distortion_level,
    parse_args,
    positive_int,
    print_json,
    privacy_level,
    reject_option,
    resolve_unit,
    run,
)
from problems.lp.status import RELATIVE_GAP as _RULE_RELATIVE_GAP
from problems.lp.status import decide_status

__all__ = ["main", "build_parser", "proof"]

#: Relative gap under which a proved bound certifies a multistart value: the toolkit's status rule
#: (:func:`problems.lp.status.decide_status`, docs/certificates.md), which also has an absolute tolerance.
RELATIVE_GAP = _RULE_RELATIVE_GAP


def build_parser() -> argparse.ArgumentParser:
    ap = Parser(
        prog="python -m ipopt_models",
        description="IPOPT models (multistart). Exit codes: 0 certified by a proved bound, 2 bad input, "
        "3 not certified (local optimum), 4 too large (docs/cli.md).",
    )
    add_version(ap, "python -m ipopt_models")
    sub = ap.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, starts: int, info: bool = True) -> None:
        p.add_argument(
            "--starts", type=positive_int, default=starts, help=f"number of starts, ≥ 1 (default {starts})"
        )
        add_seed_option(p)
        add_json_option(p)
        add_unit_option(p, "information quantities" if info else "information quantities (none here)")

    p = sub.add_parser(
        "bilinear-pd", help="PD-I / R-PD in (p_{X|Y}, p_Y) against the LP (Wang, Ying & Zhang 2016)"
    )
    p.add_argument("--program", choices=["pd-i", "r-pd"], default="pd-i")
    add_space_options(p, default_n=2, default_m=2, short=True)
    p.add_argument("--eps", type=privacy_level, required=True, help="privacy level ε in nats")
    common(p, 20, info=False)

    p = sub.add_parser("capacity", help="C1 over the full joint against Theorem 2 (Wu, Xia & He 2020)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--channel", help=".npy array: one axis per individual, output axis last")
    src.add_argument("--random", metavar="SIZES:K", help="random Dirichlet channel, e.g. 3,2:3 (seeded)")
    common(p, 50)

    p = sub.add_parser("balance", help="bracket the balance function δ(b) (Wu, Xia & He 2020, Def. 11)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--channel", help=".npy channel array")
    src.add_argument("--channel-kind", choices=["rr", "exponential", "gaussian"], default="rr")
    p.add_argument("--points", type=positive_int, default=20, help="grid points in b, ≥ 1 (default 20)")
    p.add_argument("--no-certify", action="store_true", help="skip the branch-and-bound lower bound on δ")
    common(p, 10)

    p = sub.add_parser("pd-mip", help="PD-MIP as a smooth NLP against the exponential-cone program")
    add_space_options(p, default_n=2, default_m=2, short=True)
    p.add_argument("--distortion", type=distortion_level, required=True, help="distortion bound D in [0, n]")
    common(p, 5)
    return ap


# ------------------------------------------------------------------------------------------------ proof
def proof(res) -> tuple[bool, float | None, float | None, str | None]:  # noqa: ANN001
    """``(certified, lower, upper, basis)`` of a multistart result, all in nats.

    A minimisation's value is a proved upper bound (a feasible point evaluated in NumPy); a maximisation's a
    proved lower bound.  The other side comes from the toolkit's certified programs when they ran.
    """
    x = res.extras
    if res.sense == "min":
        upper = float(res.value)
        if "conic_lower_bound" in x:
            lower, basis = float(x["conic_lower_bound"]), "exponential-cone dual bound (problems.PDMIP)"
        elif "reference_lower" in x:
            lower, basis = float(x["reference_lower"]), f"proved lower bound of the {res.reference_name}"
        else:
            return False, None, upper, None
    else:
        lower = float(res.value)
        if "theorem2_upper" in x:
            upper, basis = (
                float(x["theorem2_upper"]),
                "Theorem 2 of Wu, Xia & He (2020) (certified vertex capacities)",
            )
        else:
            return False, lower, None, None
    return decide_status(lower, upper).certified, lower, upper, basis


def _convert(d: dict, unit: str, keys: Sequence[str]) -> dict:
    from problems.units import to_unit

    out = dict(d)
    for k in keys:
        v = out.get(k)
        if isinstance(v, list):
            out[k] = [None if e is None else float(to_unit(e, unit)) for e in v]
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out[k] = float(to_unit(v, unit))
    return out


_INFO_KEYS = ("value", "tolerance", "reference", "excess_over_reference", "values")
_INFO_EXTRAS = ("conic_lower_bound", "theorem2_lower", "theorem2_upper")


def _result_json(res, unit: str, info: bool) -> dict:  # noqa: ANN001
    ok, lower, upper, basis = proof(res)
    d = res.to_dict()
    d["ipopt_status"] = d.pop("status")
    d["status"] = "optimal" if ok else "inaccurate"
    d["certified"] = ok
    d["bounds"] = {"lower": lower, "upper": upper}
    d["bounds_basis"] = basis
    if info:
        from problems.units import to_unit

        d = _convert(d, unit, _INFO_KEYS)
        d["extras"] = _convert(d["extras"], unit, _INFO_EXTRAS)
        d["bounds"] = {k: None if v is None else float(to_unit(v, unit)) for k, v in d["bounds"].items()}
        d["unit"] = unit
    else:
        d["unit"] = "expected Hamming distortion (rows); ε in nats"
    return d


def _summary(res, unit: str, info: bool) -> str:  # noqa: ANN001
    from problems.units import to_unit

    conv = (lambda v: float(to_unit(v, unit))) if info else (lambda v: v)
    ok, lower, upper, basis = proof(res)
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
    if lower is not None and upper is not None:
        lines.append(f"proved bounds  [{conv(lower):.10g}, {conv(upper):.10g}]  ({basis})")
    lines.append(f"status         {'optimal (certified)' if ok else 'NOT CERTIFIED (local optimum)'}")
    lines.append(f"time           {res.solve_time:.2f} s")
    return "\n".join(lines)


def _code(certified: bool) -> int:
    return EXIT_CODES["optimal"] if certified else EXIT_CODES["inaccurate"]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(build_parser(), argv)
    if isinstance(args, int):
        return args
    return run(_run, args)


#: The most multistarts a command runs (each is an IPOPT solve of seconds): more is refused as too large.
MAX_STARTS = 10_000


def _run(args: argparse.Namespace) -> int:
    unit = resolve_unit(args)
    if getattr(args, "starts", 0) > MAX_STARTS:
        from problems.errors import ProblemTooLargeError

        raise ProblemTooLargeError(
            f"--starts {args.starts} would run {args.starts} IPOPT solves; at most {MAX_STARTS} are accepted",
            size=args.starts,
            limit=MAX_STARTS,
        )
    if args.command == "bilinear-pd":
        reject_option(
            f"--unit {unit}",
            args.unit is not None and unit != "nats",
            "bilinear-pd",
            "its value is an expected Hamming distortion, not an information quantity",
        )
        from problems.database import DatabaseSpace

        space = DatabaseSpace(args.n, args.m)
        space.require_dense()
        if args.program == "r-pd":
            reject_option("--prior", args.prior != "uniform", "--program r-pd", "R-PD has no prior")
        from problems.priors import parse_prior

        prior = parse_prior(args.prior, space) if args.program == "pd-i" else None
        from .bilinear_pd import bilinear_pd_i, bilinear_r_pd

        if prior is not None:  # pd-i
            res = bilinear_pd_i(prior, args.eps, starts=args.starts, seed=args.seed)
        else:
            res = bilinear_r_pd(space, args.eps, starts=args.starts, seed=args.seed)
        return _emit(res, args, unit, info=False)
    if args.command == "pd-mip":
        from problems.database import DatabaseSpace

        if args.distortion > args.n:
            from problems.errors import InvalidDistortionError

            raise InvalidDistortionError(
                f"--distortion must lie in [0, n] = [0, {args.n}], got {args.distortion:g}"
            )
        space = DatabaseSpace(args.n, args.m)
        space.require_dense()
        from problems.priors import parse_prior

        prior = parse_prior(args.prior, space)
        from .pd_mip import pd_mip_nlp

        res = pd_mip_nlp(prior, args.distortion, starts=args.starts, seed=args.seed)
        return _emit(res, args, unit, info=True)
    channel = _channel(args)
    if args.command == "capacity":
        from .capacity import joint_capacity

        res = joint_capacity(channel, starts=args.starts, seed=args.seed)
        code = _emit(res, args, unit, info=True)
        if not args.json:
            from problems.units import to_unit

            lo, up = res.extras["theorem2_lower"], res.extras["theorem2_upper"]
            print(f"Theorem 2      [{to_unit(lo, unit):.10g}, {to_unit(up, unit):.10g}] {unit}")
        return code
    from .balance import balance_curve

    curve = balance_curve(
        channel,
        points=args.points,
        starts=args.starts,
        seed=args.seed,
        certify=not args.no_certify,
        name=getattr(args, "channel", None) or args.channel_kind,
    )
    import numpy as np

    brackets = zip(
        np.asarray(curve.delta_lower, float).tolist(), np.asarray(curve.delta_upper, float).tolist()
    )
    ok = bool(curve.certified) and all(decide_status(lo, up).certified for lo, up in brackets)
    if args.json:
        d = curve.to_dict(unit)
        d["status"] = "optimal" if ok else "inaccurate"
        d["certified_bracket"] = d.pop("certified")
        d["certified"] = ok
        print_json(d, unit=unit)
        return _code(ok)
    from problems.units import to_unit

    u = unit
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
    print(
        f"status {'optimal (bracket within 1e-6 relative or 1e-12 absolute)' if ok else 'NOT CERTIFIED (bracket wider)'}"
    )
    print(f"time {curve.solve_time:.2f} s")
    return _code(ok)


def _emit(res, args: argparse.Namespace, unit: str, *, info: bool) -> int:  # noqa: ANN001
    if args.json:
        print_json(_result_json(res, unit, info))
    else:
        print(_summary(res, unit, info))
    return _code(proof(res)[0])


def _channel(args: argparse.Namespace):
    import numpy as np

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
        from problems.resources import require_memory

        require_memory(
            8.0 * float(np.prod(sizes, dtype=float)) * k * 50,
            f"a random channel of shape {sizes} → {k} outputs and its joint model",
            "Use fewer or smaller records.",
        )
        return np.random.default_rng(args.seed).dirichlet(np.ones(k), size=sizes)
    from .balance import exponential_array, quantised_gaussian_array, randomized_response_array

    return {
        "rr": randomized_response_array,
        "exponential": exponential_array,
        "gaussian": quantised_gaussian_array,
    }[args.channel_kind]()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
