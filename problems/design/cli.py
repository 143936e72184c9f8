"""Command line for optimal information-private mechanism design (figures: :mod:`problems.design.figures`).

``design --query {identity,count,sum,max,min} --n N --m M --eps E [--distortion {hamming,absolute,squared}]
[--outputs K] [--prior SPEC] [--factor-through-query] [--worst-case] [--method {auto,full,cg}] [--bits]
[--json] [--export PATH]``

Importing this module is cheap: the numerical modules are imported inside the handlers.
"""

from __future__ import annotations

import json
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
            "C(B) <= eps for every vertex channel B of every individual (paper 000, Theorem 2)."
        ),
    )
    p.add_argument("--query", choices=_QUERIES, default="count")
    p.add_argument("--n", type=int, required=True, help="number of records")
    p.add_argument("--m", type=int, default=2, help="values per record")
    p.add_argument("--eps", type=float, required=True, help="privacy level (nats; bits with --bits)")
    p.add_argument("--distortion", choices=("hamming", "absolute", "squared"), default="hamming")
    p.add_argument("--outputs", type=int, default=None, help="K evenly spaced outputs (scalar queries)")
    p.add_argument(
        "--prior", default="uniform", help="uniform | iid:P0,P1,.. | pmf:.. | file:PATH | contagious:W"
    )
    p.add_argument("--factor-through-query", action="store_true", help="restrict to p(y|x) = w(y|f(x))")
    p.add_argument("--worst-case", action="store_true", help="minimise max_x E[d | x] instead of E[d]")
    p.add_argument("--method", choices=("auto", "full", "cg"), default="auto")
    p.add_argument("--bits", action="store_true", help="eps and C1 in bits")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--export", help="write the mechanism to PATH (.npy, .csv or .json)")
    p.set_defaults(func=_cmd_design)


def _cmd_design(args) -> int:
    from ..database import DatabaseSpace
    from ..export import export_mechanism
    from ..priors import parse_prior
    from .problem import design_problem
    from .program import IPDesign

    unit = "bits" if args.bits else "nats"
    space = DatabaseSpace(args.n, args.m)
    prior = parse_prior(args.prior, space)
    problem = design_problem(space, args.query, outputs=args.outputs, distortion=args.distortion, prior=prior)
    design = IPDesign(
        problem,
        factor=args.factor_through_query,
        objective="worst" if args.worst_case else "expected",
        method=args.method,
    )
    res = design.solve(args.eps, unit=unit)
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
    if args.export:
        out["export"] = str(
            export_mechanism(
                res.mechanism, args.export, metadata={k: out[k] for k in out if k != "active_vertices"}
            )
        )
    if args.json:
        print(json.dumps(out, indent=1))
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
        if args.export:
            print(f"  mechanism written to {out['export']}")
    return 0 if res.certified else 3  # the exit codes of docs/certificates.md


if __name__ == "__main__":  # pragma: no cover
    from ..cli import main

    sys.exit(main(["design", *sys.argv[1:]]))
