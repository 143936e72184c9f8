"""Command line: ``python -m problems {solve,constants,curve,reproduce,…}``.

Exit codes (the same with and without ``--json``; ``docs/certificates.md``):

* 0 — a certified optimum (status ``optimal``: rigorous bounds within 1e-6 relative);
* 1 — the program is proved infeasible (paper 002, Lemma 3); ``--json`` prints ``"status": "infeasible"``;
* 2 — bad input: the message names the value and what is valid;
* 3 — not certified: status ``inaccurate`` or ``failed``; the answer and its valid bounds are still printed;
* 4 — the problem is too large for the chosen path.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from .database import DENSE_LIMIT, DatabaseSpace
from .errors import (
    InfeasibleProgramError,
    InvalidInputError,
    PrivacyToolkitError,
    ProblemTooLargeError,
    SolverFailedError,
)
from .lp.status import EXIT_CODES
from .priors import parse_prior

__all__ = ["main", "build_parser"]

PROGRAMS = ("pd-i", "pd-dp", "r-pd", "pd-mip")


def _json_safe(obj):
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    return obj


def _print_json(obj) -> None:
    print(json.dumps(_json_safe(obj), indent=1, ensure_ascii=False))


def _space_and_prior(args):
    space = DatabaseSpace(args.n, args.m)
    return space, parse_prior(args.prior, space)


def _add_space_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--n", type=int, required=True, help="number of rows (individuals)")
    p.add_argument("--m", type=int, required=True, help="domain size of a row")
    p.add_argument(
        "--prior",
        default="uniform",
        help="uniform | iid:P0,P1,… | pmf:P0,…,P(N-1) | file:PATH(.npy/.csv/.json) | contagious:W[:P0,P1,…]",
    )


def _symmetric_spec(spec: str) -> bool:
    """Whether a --prior spec describes a row-permutation-invariant prior (uniform, iid, contagious)."""
    return spec.split(":", 1)[0].strip().lower() in ("uniform", "iid", "contagious")


def _cmd_solve(args) -> int:
    from .export import export_mechanism
    from .orbit import make_program, parse_symmetric_prior, product_channel, resolve_path
    from .programs import PDDP, PDI, PDMIP, RPD

    space = DatabaseSpace(args.n, args.m)
    if args.solver is not None and args.program != "pd-mip":
        from .lp.backends import check_solver

        check_solver(args.solver)  # bad input before any work, whichever path answers
    method = args.path if args.path in ("lp", "theorem") else "auto"  # theorem path or LP
    path = "auto" if args.path in ("lp", "theorem") else args.path  # dense or reduced
    if path != "dense" and _symmetric_spec(args.prior):
        prior = parse_symmetric_prior(args.prior, args.n, args.m)  # never builds the m^n pmf
    else:
        prior = parse_prior(args.prior, space)
    chosen = resolve_path(args.program, space if args.program == "r-pd" else prior, path)
    if args.program == "pd-mip":
        if args.distortion is None:
            raise InvalidInputError("pd-mip takes --distortion D (it minimises I(X;Y) subject to E d ≤ D)")
    elif args.eps is None:
        raise InvalidInputError(f"{args.program} takes --eps E (the privacy level, in nats)")
    if chosen == "dense" and not hasattr(prior, "pmf"):
        prior = parse_prior(args.prior, space)
    try:
        if args.program == "pd-mip":
            unit = "bits" if args.bits else "nats"
            if chosen == "reduced":  # i.i.d. prior: single-letterisation, any n
                res = make_program("pd-mip", prior, path="reduced", solver=args.solver).solve(
                    args.distortion, unit=unit
                )
            else:
                res = PDMIP(prior, solver=args.solver).solve(args.distortion, unit=unit)
        elif chosen == "reduced":
            target = space if args.program == "r-pd" else prior
            prog = make_program(args.program, target, path="reduced", solver=args.solver)
            res = prog.solve(args.eps, path=method)
        elif args.program == "r-pd":
            res = RPD(space, solver=args.solver).solve(args.eps, path=method)
        else:
            prog = {"pd-dp": PDDP, "pd-i": PDI}[args.program](prior, solver=args.solver)
            res = prog.solve(args.eps, path=method)
    except InfeasibleProgramError as exc:
        if args.json:
            _print_json(
                {
                    "program": args.program,
                    "status": "infeasible",
                    "certified": True,
                    "reason": exc.reason,
                    "bounds": {"lower": None, "upper": None},
                    "note": "proved infeasible: the optimum is +∞ (no feasible point), so no finite bounds",
                    "value": None,
                    "eps": args.eps,
                    "distortion": args.distortion,
                    "duals": None,
                    "certificate": None,
                    "solve_time": None,
                }
            )
        else:
            print(f"{args.program} is infeasible: {exc.reason}")
        return EXIT_CODES["infeasible"]
    if args.export:
        meta = {
            "program": res.program,
            "n": space.n,
            "m": space.m,
            "prior": prior.to_dict() if hasattr(prior, "to_dict") else args.prior,
            "eps": res.eps,
            "distortion": res.distortion,
            "value": res.value,
            "unit": res.unit,
            "certificate": res.certificate.to_dict(),
        }
        mechanism = res.mechanism
        if res.extras.get("reduction") == "single-letter" and space.size <= DENSE_LIMIT:
            mechanism = product_channel(res).mechanism()  # reduced PD-MIP: the Kronecker power W^⊗n
            meta["mechanism_level"] = "database"
        elif "mechanism_level" in res.extras:  # reduced results: "database", "type" or "row" (single letter)
            meta["mechanism_level"] = res.extras["mechanism_level"]
        export_mechanism(mechanism, args.export, metadata=meta)
    if args.json:
        out = res.to_dict()
        if args.export:
            out["exported_to"] = str(args.export)
        _print_json(out)
    else:
        c = res.certificate
        what = f"ε = {res.eps:g}" if res.eps is not None else f"D = {res.distortion:g}"
        print(
            f"{res.program} (n = {space.n}, m = {space.m}, prior {getattr(prior, 'name', args.prior)}, {what}, "
            f"{chosen} path): {res.status}"
        )
        label = "optimal value" if res.certified else "value (NOT CERTIFIED)"
        print(f"  {label:16s} {res.value:.12g} {res.unit}")
        b = res.bounds
        print(f"  bounds           [{b.lower:.12g}, {b.upper:.12g}] (proved; {c.basis})")
        print(
            f"  KKT residuals    primal {c.primal_residual:.2e}, dual {c.dual_residual:.2e}, "
            f"compl. slackness {c.complementary_slackness:.2e}, gap {c.duality_gap:.2e}"
        )
        print(f"  solver           {res.stats.solver}, {res.stats.solve_time:.3f} s")
        if not res.certified:
            for name, what in res.stats.attempts:
                print(f"  attempt          {name}: {what}")
        if args.export:
            print(f"  mechanism written to {args.export}")
    return result_exit_code(res)


def result_exit_code(res) -> int:  # noqa: ANN001
    """0 for a certified optimum, 3 otherwise (the answer was printed with its bounds)."""
    return EXIT_CODES["optimal"] if res.certified else EXIT_CODES["inaccurate"]


def _cmd_constants(args) -> int:
    from .closed_forms import h
    from .prior_constants import eps_tilde, eps_X

    space, prior = _space_and_prior(args)
    eX, eT = eps_X(prior), eps_tilde(prior)
    out = {
        "n": space.n,
        "m": space.m,
        "prior": prior.name,
        "eps_X": eX,
        "eps_tilde": eT,
        "h_at_eps_tilde": h(eT, space.n, space.m) if math.isfinite(eT) else 0.0,
    }
    if not math.isfinite(eX):
        out["note"] = "the prior has zero-mass databases: ε_X = ∞ and PD-I is infeasible for every ε"
    if args.json:
        _print_json(out)
    else:
        for k, v in out.items():
            print(f"{k:16s} {v}")
    return 0


def _cmd_curve(args) -> int:
    from .curves import privacy_distortion_curve
    from .plotting import plot_privacy_distortion

    _, prior = _space_and_prior(args)
    out = Path(args.out)
    log = (lambda s: print(s, file=sys.stderr)) if not args.quiet else None
    curve = privacy_distortion_curve(prior, args.notion, points=args.points, progress=log, solver=args.solver)
    paths = [curve.to_csv(out / f"curve_{args.notion}.csv")]
    paths += plot_privacy_distortion([curve], out / f"curve_{args.notion}")
    for p in paths:
        print(p)
    return 0


def _cmd_reproduce(args) -> int:
    from .reproduce import reproduce

    result = reproduce(args.out, progress=lambda s: print(s, file=sys.stderr, flush=True), quick=args.quick)
    print(result.report)
    return 0 if result.ok else 1  # a section failed or a claim check failed (see the verdict table)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m problems",
        description="Convex programs for information-theoretic data privacy (nats unless --bits).",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("solve", help="solve PD-I, PD-DP, R-PD or PD-MIP (paper 002)")
    p.add_argument("program", choices=PROGRAMS)
    _add_space_args(p)
    p.add_argument("--eps", type=float, help="privacy level ε in nats (PD-I, PD-DP, R-PD)")
    p.add_argument("--distortion", type=float, help="distortion bound D in [0, n] (PD-MIP)")
    p.add_argument(
        "--solver",
        help="back end tried first (clarabel, highs, scs, cvxpy, structured, block; PD-MIP: a CVXPY conic "
        "solver); the others are tried if it fails. An unknown name is bad input (exit 2)",
    )
    p.add_argument("--bits", action="store_true", help="report PD-MIP's value in bits")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--export", help="write the mechanism to PATH (.npy, .csv or .json)")
    p.add_argument(
        "--path",
        choices=("auto", "dense", "reduced", "lp", "theorem"),
        default="auto",
        help="auto: a closed form of paper 002 where one applies (theorem path), else the LP, orbit-reduced "
        "for uniform/iid/contagious priors and dense N×N otherwise; dense/reduced: that LP formulation; "
        "lp: always the LP; theorem: only the closed form (bad input where none applies)",
    )
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("constants", help="ε_X, ε̃_X and h(ε̃_X) of a prior")
    _add_space_args(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_constants)

    p = sub.add_parser("curve", help="privacy–distortion curve ε*(D) as CSV and PNG/SVG")
    _add_space_args(p)
    p.add_argument("--notion", choices=("i", "d", "m"), required=True)
    p.add_argument("--points", type=int, default=30)
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--solver")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=_cmd_curve)

    p = sub.add_parser("reproduce", help="regenerate the papers' figures and checks into DIR")
    p.add_argument("--out", required=True)
    p.add_argument("--quick", action="store_true", help="smaller instances (for smoke tests)")
    p.set_defaults(func=_cmd_reproduce)

    for module in (
        "problems.information.cli",
        "problems.design.cli",
        "problems.sweep.cli",
        "problems.model.cli",
    ):
        mod = __import__(module, fromlist=["register"])
        mod.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InvalidInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES["bad-input"]
    except InfeasibleProgramError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES["infeasible"]
    except ProblemTooLargeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES["too-large"]
    except (SolverFailedError, PrivacyToolkitError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES["failed"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
