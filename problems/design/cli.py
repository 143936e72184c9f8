"""Command line for optimal information-private mechanism design (figures: :mod:`problems.reproduce.design`).

``design --query {identity,count,sum,max,min} --n N --m M --eps E [--distortion {hamming,absolute,squared}]
[--outputs K] [--prior SPEC] [--factor-through-query] [--worst-case] [--method {auto,full,cg}]
[--unit {nats,bits}] [--json] [--export PATH]``

ε is always given in nats; ``--unit bits`` (or ``--bits``) reports ε, C1 and the duals in bits.

Importing this module is cheap: the numerical modules are imported inside the handlers.
"""

from __future__ import annotations

import sys

__all__ = ["register"]

_QUERIES = ("identity", "count", "sum", "max", "min")


def register(subparsers) -> None:
    """Add the ``design`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "design",
        help="optimal mechanism under eps-information privacy (C1 <= eps), minimising the distortion",
        description=(
            "Minimise the expected (or worst-case) distortion d(f(x), y) over mechanisms p(y|x) subject to "
            "C(B) <= eps for every vertex channel B of every individual (Wu, Xia & He 2020, Theorem 2)."
        ),
    )
    from ..cli_common import (
        add_export_option,
        add_json_option,
        add_space_options,
        add_unit_option,
        positive_int,
        privacy_level,
    )

    p.add_argument("--query", choices=_QUERIES, default="count")
    add_space_options(p, default_m=2)
    p.add_argument("--eps", type=privacy_level, required=True, help="privacy level ε in nats")
    p.add_argument("--distortion", choices=("hamming", "absolute", "squared"), default="hamming")
    p.add_argument(
        "--outputs", type=positive_int, default=None, help="K evenly spaced outputs (scalar queries)"
    )
    p.add_argument("--factor-through-query", action="store_true", help="restrict to p(y|x) = w(y|f(x))")
    p.add_argument("--worst-case", action="store_true", help="minimise max_x E[d | x] instead of E[d]")
    p.add_argument("--method", choices=("auto", "full", "cg"), default="auto")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_unit_option(p, "privacy level ε and the capacities C1")
    add_json_option(p)
    add_export_option(p)
    p.set_defaults(func=_cmd_design)


def _cmd_design(args) -> int:
    from ..cli_common import check_output_file, print_json, resolve_unit
    from ..database import DatabaseSpace
    from ..errors import InvalidInputError, PrivacyToolkitError
    from ..lp.status import EXIT_CODES

    unit = resolve_unit(args)
    export = check_output_file(args.export, suffixes=(".npy", ".csv", ".json")) if args.export else None
    if args.outputs is not None and args.query == "identity":
        raise InvalidInputError(
            "--outputs does not apply to the identity query (its outputs are the databases)"
        )
    space = DatabaseSpace(args.n, args.m)
    space.require_dense()  # the design programs are over all N = mⁿ databases
    from ..export import export_mechanism
    from ..priors import parse_prior
    from ..progress import TICK_SECONDS, Progress
    from ..units import to_unit
    from .problem import check_design_memory, design_problem

    prior = parse_prior(args.prior, space)
    problem = design_problem(space, args.query, outputs=args.outputs, distortion=args.distortion, prior=prior)
    check_design_memory(problem, factor=args.factor_through_query)  # before the solver is imported
    from .program import IPDesign

    design = IPDesign(
        problem,
        factor=args.factor_through_query,
        objective="worst" if args.worst_case else "expected",
        method=args.method,
    )
    with Progress(
        design.max_iterations, "design (constraint generation)", quiet=args.quiet, heartbeat=TICK_SECONDS
    ) as bar:
        design.progress = bar if design.method == "cg" else None
        res = design.solve(float(to_unit(args.eps, unit)), unit=unit)  # ε given in nats, reported in unit
    x = res.extras
    out = {
        "status": str(res.status),
        "certified": res.certified,
        "bounds": res.bounds.to_dict(),
        "value": res.value,
        "objective": x["objective"],
        "expected_distortion": x["expected_distortion"],
        "worst_case_distortion": x["worst_case_distortion"],
        "C1": x["C1"],
        "C1_upper": x["C1_upper"],
        "eps": res.eps,
        "unit": unit,
        "iterations": x["iterations"],
        "method": x["method"],
        "factor_through_query": x["factor_through_query"],
        "constraint_set_size": x["constraint_set_size"],
        "active_vertices": [{"rows": v["rows"], "dual": v["dual"]} for v in x["active_vertices"]],
        "lower_bound": x["lower_bound"],
        "repair_theta": x["repair_theta"],
        "certificate": res.certificate.to_dict(),
        "solver": res.stats.to_dict(),
        "problem": x["problem"],
    }
    export_error = None
    if export is not None:
        try:
            out["export"] = str(
                export_mechanism(
                    res.mechanism, export, metadata={k: out[k] for k in out if k != "active_vertices"}
                )
            )
        except (PrivacyToolkitError, OSError) as exc:  # the result is printed anyway
            export_error = exc
    if args.json:
        print_json(out, unit=unit)
    else:
        print(
            f"{problem.query} query, n = {args.n}, m = {args.m}, {args.distortion} distortion, prior {prior.name}"
        )
        print(
            f"  {x['objective']} distortion = {res.value:.9g}  (Lagrangian lower bound {x['lower_bound']:.9g})"
        )
        print(
            f"  C1 = {x['C1']:.9g} {unit} <= eps = {res.eps:.9g}   [{x['iterations']} iteration(s), "
            f"{x['constraint_set_size']} vertex channels in the program, {len(x['active_vertices'])} active]"
        )
        print(
            f"  status {res.status}: bounds [{res.bounds.lower:.9g}, {res.bounds.upper:.9g}], "
            f"max KKT residual {res.certificate.max_residual:.2e}"
        )
        if "export" in out:
            print(f"  mechanism written to {out['export']}")
    if export_error is not None:
        print(f"error: the result above was not exported to {str(export)!r}: {export_error}", file=sys.stderr)
        return EXIT_CODES["bad-input"]
    return EXIT_CODES["optimal"] if res.certified else EXIT_CODES["inaccurate"]


if __name__ == "__main__":  # pragma: no cover
    from ..cli import main

    sys.exit(main(["design", *sys.argv[1:]]))
