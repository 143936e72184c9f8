"""Command line: ``python -m problems {solve,constants,curve,reproduce,capacity,calibrate,design,sweep,model}``.

Exit codes (the same with and without ``--json``; ``docs/cli.md``, ``docs/certificates.md``):

* 0 — a certified optimum (status ``optimal``: rigorous bounds within 1e-6 relative or 1e-12 absolute);
* 1 — the program is proved infeasible (Wang, Ying & Zhang 2016, Lemma 3); ``--json`` prints ``"status": "infeasible"``;
* 2 — bad input: the message names the value and what is valid;
* 3 — not certified: status ``inaccurate`` or ``failed``; the answer and its valid bounds are still printed;
* 4 — the problem is too large for the chosen path (the message gives the estimate and the alternative).

The options, units and JSON shape shared with ``python -m ipopt_models`` live in :mod:`problems.cli_common`.
Input is validated before the numerical modules (CVXPY, SciPy) are imported, so a bad input is refused in
well under a second.  The solve choice (``--formulation``, ``--method``, ``--solver``) is the library's
(:mod:`problems.dispatch`).
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cli_common import (
    EXIT_CODES,
    PRIOR_HELP_SYMMETRIC,
    Parser,
    add_export_option,
    add_json_option,
    add_solver_option,
    add_space_options,
    add_unit_option,
    add_version,
    check_output_dir,
    check_output_file,
    check_solver_name,
    distortion_level,
    parse_args,
    positive_int,
    print_json,
    privacy_level,
    reject_options,
    run,
)
from .errors import InfeasibleProgramError, InvalidInputError, PrivacyToolkitError
from .solve_choice import FORMULATIONS, LEGACY_PATHS, METHODS

if TYPE_CHECKING:
    from .orbit.symmetric_prior import SymmetricPrior
    from .priors import Prior

__all__ = ["main", "build_parser", "result_exit_code", "SUBCOMMAND_MODULES"]

PROGRAMS = ("pd-i", "pd-dp", "r-pd", "pd-mip")
EXPORT_FORMATS = (".npy", ".csv", ".json")
#: Modules that add subcommands with ``register(subparsers)``; a module that fails to import is not dropped:
#: its subcommands are listed and end with an error that names the import failure.
SUBCOMMAND_MODULES = {
    "problems.information.cli": ("capacity", "calibrate"),
    "problems.design.cli": ("design",),
    "problems.sweep.cli": ("sweep",),
    "problems.model.cli": ("model",),
}


def result_exit_code(res) -> int:  # noqa: ANN001
    """0 for a certified optimum, 3 otherwise (the answer was printed with its bounds)."""
    return EXIT_CODES["optimal"] if res.certified else EXIT_CODES["inaccurate"]


# ------------------------------------------------------------------------------------------------ solve
def _check_solve_options(args) -> str:
    """Options that do not apply to the chosen program are bad input (never silently ignored); the output
    unit of the result."""
    if args.program == "pd-mip":
        if args.distortion is None:
            raise InvalidInputError("pd-mip takes --distortion D (it minimises I(X;Y) subject to E d ≤ D)")
        if args.distortion > args.n:
            raise InvalidInputError(
                f"--distortion must lie in [0, n] = [0, {args.n}] (expected Hamming distortion), "
                f"got {args.distortion:g}"
            )
        not_applying = [("--eps", args.eps is not None, "it takes --distortion D, not a privacy level")]
    else:
        if args.eps is None:
            raise InvalidInputError(f"{args.program} takes --eps E (the privacy level, in nats)")
        not_applying = [
            (
                "--distortion",
                args.distortion is not None,
                "it minimises the distortion at the privacy level --eps; --distortion is PD-MIP's bound",
            ),
            (
                f"--unit {args.unit}",
                args.unit is not None and args.unit != "nats",
                "its value is an expected Hamming distortion (rows), not an information quantity; ε is always "
                "nats",
            ),
        ]
    not_applying.append(
        ("--export-level types", args.export_level == "types" and not args.export, "it needs --export")
    )
    reject_options(args.program, not_applying)
    return args.unit or "nats"


def _export(res, built, args) -> tuple[Any, dict]:  # noqa: ANN001
    """The mechanism to write and its metadata; database level unless --export-level types."""
    import numpy as np

    from .database import DENSE_LIMIT
    from .mechanism import Mechanism

    space = built.space
    prior = built.prior
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
        "path": built.formulation,
    }
    level = str(res.extras.get("mechanism_level", "database"))
    mechanism = res.mechanism
    if args.export_level == "types":
        meta["mechanism_level"] = level
        return mechanism, meta
    if not level.startswith("database"):
        if (
            level.startswith("row") or res.extras.get("reduction") == "single-letter"
        ) and space.size <= DENSE_LIMIT:
            W1 = np.asarray(mechanism.matrix, dtype=float)  # the m×m channel; the mechanism is W1^{⊗n}
            from .closed_forms import kron_power

            mechanism = Mechanism.on_space(kron_power(W1, space.n), space)
        else:
            raise InvalidInputError(
                f"the {built.formulation} path returned a {level}-level mechanism (N = {space.m}^{space.n} "
                f"databases is above the {DENSE_LIMIT} of a database-level W[x, y]); pass --export-level types "
                "to write it as it is (the file records the level)"
            )
    meta["mechanism_level"] = "database"
    return mechanism, meta


def _solve_choice(args) -> tuple[str, str]:
    """``(formulation, method)`` of ``--formulation``/``--method``, or of the deprecated ``--path``."""
    formulation, method = args.formulation or "auto", args.method or "auto"
    flag = f"--method {method}"
    if args.path is not None:
        new = "--method" if args.path in ("lp", "theorem") else "--formulation"
        given = args.method if new == "--method" else args.formulation
        if given is not None and given != args.path and args.path != "auto":
            raise InvalidInputError(f"--path {args.path} and {new} {given} disagree; give {new} only")
        if args.path in ("lp", "theorem"):
            method, flag = args.path, f"--path {args.path}"
        elif args.path != "auto":
            formulation = args.path
    if args.program == "pd-mip" and method != "auto":
        hint = "use auto, dense or reduced" if flag.startswith("--path") else "use --method auto"
        raise InvalidInputError(f"{flag} does not apply to pd-mip (it has no theorem path); {hint}")
    return formulation, method


def _cmd_solve(args) -> int:
    unit = _check_solve_options(args)
    from .database import DENSE_LIMIT

    export = None
    if args.export:
        from .database import DatabaseSpace

        export = check_output_file(args.export, suffixes=EXPORT_FORMATS)
        if args.export_level == "database" and DatabaseSpace(args.n, args.m).size > DENSE_LIMIT:
            raise InvalidInputError(
                f"--export writes the database-level W[x, y] (N×N, N ≤ {DENSE_LIMIT}); here N = "
                f"{args.m}^{args.n}. Pass --export-level types to write the reduced (type-level) mechanism "
                "(the file records the level)"
            )
    if args.solver is not None and args.program != "pd-mip":
        check_solver_name(args.solver)  # bad input before any work, whichever path answers
    formulation, method = _solve_choice(args)
    from .dispatch import solve_spec

    # database: lift every reduced answer that fits; types: the reduced program's own mechanism, never lifted
    lift = None if export is None else (DENSE_LIMIT if args.export_level == "database" else 0)
    value = args.distortion if args.program == "pd-mip" else args.eps
    try:
        built, res = solve_spec(
            args.program,
            args.prior,
            args.n,
            args.m,
            value,
            formulation=formulation,
            method=method,
            unit=unit,
            solver=args.solver,
            lift_limit=lift,
        )
    except InfeasibleProgramError as exc:
        if args.json:
            print_json(
                {
                    "program": args.program,
                    "status": "infeasible",
                    "certified": True,
                    "reason": exc.reason,
                    "bounds": {"lower": None, "upper": None},
                    "note": "proved infeasible: the optimum is +∞ (no feasible point), so no finite bounds",
                    "value": None,
                    "unit": unit if args.program == "pd-mip" else "rows",
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
    export_error: PrivacyToolkitError | OSError | None = None
    if export is not None:
        try:
            from .export import export_mechanism

            mechanism, meta = _export(res, built, args)
            export_mechanism(mechanism, export, metadata=meta)
        except (PrivacyToolkitError, OSError) as exc:  # the result is printed anyway
            export_error = exc
    _print_solve(res, built, args, export if export_error is None else None)
    if export_error is not None:
        print(f"error: the result above was not exported to {str(export)!r}: {export_error}", file=sys.stderr)
        return EXIT_CODES["bad-input"]
    return result_exit_code(res)


def _print_solve(res, built, args, exported: Path | None) -> None:  # noqa: ANN001
    if args.json:
        out = res.to_dict()
        out["path"] = built.formulation
        if exported is not None:
            out["exported_to"] = str(exported)
        print_json(out, unit=res.unit)
        return
    c = res.certificate
    space = built.space
    what = f"ε = {res.eps:g}" if res.eps is not None else f"D = {res.distortion:g}"
    prior_text = getattr(built.prior, "name", args.prior)
    if (
        res.program == "r-pd"
    ):  # prior-free: the input marginal is optimised (Wang, Ying & Zhang 2016, (20)–(24))
        prior_text = "not used (R-PD optimises the input marginal)"
    print(
        f"{res.program} (n = {space.n}, m = {space.m}, prior {prior_text}, "
        f"{what}, {built.formulation} path): {res.status}"
    )
    certified = res.certified
    label = "optimal value" if certified else "value (NOT CERTIFIED)"
    print(f"  {label:16s} {res.value:.12g} {res.unit}")
    b = res.bounds
    print(f"  bounds           [{b.lower:.12g}, {b.upper:.12g}] (proved; {c.basis})")
    print(
        f"  KKT residuals    primal {c.primal_residual:.2e}, dual {c.dual_residual:.2e}, "
        f"compl. slackness {c.complementary_slackness:.2e}, gap {c.duality_gap:.2e}"
    )
    print(f"  solver           {res.stats.solver}, {res.stats.solve_time:.3f} s")
    if not certified:
        for name, what in res.stats.attempts:
            print(f"  attempt          {name}: {what}")
    if exported is not None:
        print(f"  mechanism written to {exported}")


# -------------------------------------------------------------------------------------------- constants
def _cmd_constants(args) -> int:
    from .database import DatabaseSpace
    from .prior_spec import is_symmetric_spec

    space = DatabaseSpace(args.n, args.m)
    symmetric = is_symmetric_spec(args.prior)
    note = None
    prior: Prior | SymmetricPrior
    if symmetric:  # never the mⁿ pmf: the constants from the rows of the prior
        from .orbit.symmetric_prior import parse_symmetric_prior
        from .prior_constants import symmetric_constants

        prior = parse_symmetric_prior(args.prior, args.n, args.m)
        consts = symmetric_constants(prior)
        eX, eT, note = consts["eps_X"], consts["eps_tilde"], consts.get("note")
    else:
        from .prior_constants import eps_tilde, eps_X
        from .priors import parse_prior
        from .resources import as_bytes, pmf_memory, require_memory

        require_memory(
            pmf_memory(args.n, args.m, copies=4) + as_bytes(16, space.size, args.n, args.m - 1),
            f"ε_X and ε̃_X of an explicit prior on {args.m}^{args.n} databases",
            "Use a uniform, iid or contagious prior (computed from its rows, any n).",
        )
        prior = parse_prior(args.prior, space)
        eX, eT = eps_X(prior), eps_tilde(prior)
    from .closed_forms import h

    out = {
        "n": space.n,
        "m": space.m,
        "prior": prior.name,
        "eps_X": eX,
        "eps_tilde": eT,
        "h_at_eps_tilde": None if eT is None else (h(eT, space.n, space.m) if math.isfinite(eT) else 0.0),
        "unit": "nats",
    }
    if note:
        out["note"] = note
    if not math.isfinite(eX):
        out["note"] = "the prior has zero-mass databases: ε_X = ∞ and PD-I is infeasible for every ε"
    if args.json:
        print_json(out)
    else:
        for k, v in out.items():
            print(f"{k:16s} {v}")
    return 0


# ------------------------------------------------------------------------------------------------ curve
def _cmd_curve(args) -> int:
    from .curves import require_points
    from .dispatch import prior_from_spec
    from .orbit.symmetric_prior import iid_row_pmf

    out, exists = check_output_dir(args.out)
    require_points(args.points)
    prior = prior_from_spec(args.prior, args.n, args.m)  # symmetric: the reduced programs, never the mⁿ pmf
    if args.notion == "m" and not hasattr(prior, "pmf") and iid_row_pmf(prior) is None:
        raise InvalidInputError(
            "curve --notion m with an exchangeable (non-i.i.d.) prior needs the dense PD-MIP; "
            "use --prior uniform or iid:… (the reduced PD-MIP), or --notion i / d"
        )
    check_solver_name(args.solver)
    if args.workers is not None and args.workers < 1:
        raise InvalidInputError(f"--workers must be ≥ 1, got {args.workers}")
    if args.scheduler is not None:
        from .sweep.runner import check_scheduler

        check_scheduler(args.scheduler)
    if not exists:
        out.mkdir(parents=True)
        print(f"created directory {out}", file=sys.stderr)
    from .curves import default_grid
    from .plotting import plot_privacy_distortion
    from .sweep.studies import curve_via_sweep

    # one sweep point per D (docs/sweeps.md): in this process by default, on Dask with --workers/--scheduler;
    # finished points are kept in OUT/curve_<notion>_points, so an interrupted curve resumes
    scheduler = args.scheduler or ("synchronous" if args.workers is None else None)
    curve = curve_via_sweep(
        args.prior,
        args.n,
        args.m,
        args.notion,
        default_grid(args.n, args.points),
        out / f"curve_{args.notion}_points",
        solver=args.solver,
        scheduler=scheduler,
        workers=args.workers,
        progress=not args.quiet,
    )
    paths = [curve.to_csv(out / f"curve_{args.notion}.csv")]
    paths += plot_privacy_distortion([curve], out / f"curve_{args.notion}")
    for p in paths:
        print(p)
    status = curve.extras.get("status", [])
    refused = [f"D={D:.4g}" for D, st in zip(curve.distortion, status) if st == "refused"]
    if refused:
        print(
            f"error: {len(refused)} point(s) refused as too large for the memory budget ({', '.join(refused[:5])}); "
            f"the estimates are in the error column of {out / f'curve_{args.notion}_points' / 'results.csv'}. "
            "Use a smaller n, --notion i, or a larger budget "
            "($PRIVACY_PROBLEMS_MEMORY_LIMIT)",
            file=sys.stderr,
        )
        return EXIT_CODES["too-large"]
    bad = [
        f"D={D:.4g}: {st}" for D, st in zip(curve.distortion, status) if st not in ("optimal", "infeasible")
    ]
    if bad:
        print(f"note: {len(bad)} point(s) not certified ({'; '.join(bad[:5])}); see the CSV", file=sys.stderr)
        return EXIT_CODES["inaccurate"]
    return EXIT_CODES["optimal"]


def _cmd_reproduce(args) -> int:
    from .reproduce import reproduce

    check_output_dir(args.out)
    if args.workers is not None and args.workers < 1:
        raise InvalidInputError(f"--workers must be ≥ 1, got {args.workers}")
    result = reproduce(
        args.out,
        progress=lambda s: print(s, file=sys.stderr, flush=True),
        quick=args.quick,
        full=args.full,
        workers=args.workers,
        scheduler=args.scheduler,
    )
    print(result.report)
    # a section failed or a claim check failed (see the verdict table): not certified
    return EXIT_CODES["optimal"] if result.ok else EXIT_CODES["failed"]


# ----------------------------------------------------------------------------------------------- parser
def _unavailable(module: str, exc: BaseException):
    def handler(args) -> int:  # noqa: ANN001
        print(
            f"error: the {args.command} subcommand is unavailable: importing {module} failed "
            f"({type(exc).__name__}: {exc})",
            file=sys.stderr,
        )
        return EXIT_CODES["failed"]

    return handler


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; with ``command``, the modules of other subcommands are not imported
    (they get a placeholder), so a command's input is validated without loading the others' solvers."""
    parser = Parser(
        prog="python -m problems",
        description="Convex programs for information-theoretic data privacy. Inputs in nats; --unit bits "
        "converts information quantities on output. Exit codes: 0 certified, 1 infeasible, 2 bad input, "
        "3 not certified, 4 too large (docs/cli.md).",
    )
    add_version(parser, "python -m problems")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("solve", help="solve PD-I, PD-DP, R-PD or PD-MIP (Wang, Ying & Zhang 2016)")
    p.add_argument("program", choices=PROGRAMS)
    add_space_options(p, prior_help=PRIOR_HELP_SYMMETRIC)
    p.add_argument("--eps", type=privacy_level, help="privacy level ε in nats (PD-I, PD-DP, R-PD)")
    p.add_argument("--distortion", type=distortion_level, help="distortion bound D in [0, n] (PD-MIP)")
    add_solver_option(
        p,
        "back end tried first (clarabel, highs, scs, cvxpy, structured, block; PD-MIP: a CVXPY conic "
        "solver); the others are tried if it fails. An unknown name is bad input (exit 2)",
    )
    add_unit_option(p, "PD-MIP value (mutual information)")
    add_json_option(p)
    add_export_option(p)
    p.add_argument(
        "--export-level",
        choices=("database", "types"),
        default="database",
        help="database: the N×N matrix W[x, y] (N ≤ 4096; reduced results are lifted); types: the reduced "
        "program's own mechanism (type- or row-level), recorded in the file's metadata",
    )
    p.add_argument(
        "--formulation",
        choices=FORMULATIONS,
        default=None,
        help="auto (default): orbit-reduced for uniform/iid/contagious/mixture priors, dense N×N otherwise; "
        "dense or reduced: that program",
    )
    p.add_argument(
        "--method",
        choices=METHODS,
        default=None,
        help="auto (default): a closed form of Wang, Ying & Zhang (2016) where one applies, else the LP; "
        "lp: always the LP; theorem: only the closed form (bad input where none applies); PD-MIP: auto only",
    )
    p.add_argument(
        "--path",
        choices=LEGACY_PATHS,
        default=None,
        help="deprecated: dense/reduced is --formulation, lp/theorem is --method",
    )
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("constants", help="ε_X, ε̃_X and h(ε̃_X) of a prior")
    add_space_options(p, prior_help=PRIOR_HELP_SYMMETRIC)
    add_json_option(p)
    p.set_defaults(func=_cmd_constants)

    p = sub.add_parser("curve", help="privacy–distortion curve ε*(D) as CSV and PNG/SVG")
    add_space_options(p, prior_help=PRIOR_HELP_SYMMETRIC)
    p.add_argument("--notion", choices=("i", "d", "m"), required=True)
    p.add_argument("--points", type=positive_int, default=30, help="grid points in (0, n], ≥ 1 (default 30)")
    p.add_argument("--out", required=True, help="output directory (created if missing, and said so)")
    add_solver_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--workers", type=int, help="solve the points on a local Dask cluster of K workers")
    p.add_argument("--scheduler", help="solve the points on a running Dask scheduler (tcp://HOST:PORT)")
    p.set_defaults(func=_cmd_curve)

    p = sub.add_parser("reproduce", help="regenerate the papers' figures and checks into DIR")
    p.add_argument("--out", required=True)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="smaller instances (for smoke tests)")
    mode.add_argument(
        "--full",
        action="store_true",
        help="also recompute the n = 200 orbit-scale curve as a resumable sweep (about half a minute)",
    )
    p.add_argument("--workers", type=int, help="--full: local Dask workers for the n = 200 sweep")
    p.add_argument("--scheduler", help="--full: a running Dask scheduler (tcp://HOST:PORT) for the sweep")
    p.set_defaults(func=_cmd_reproduce)

    for module, commands in SUBCOMMAND_MODULES.items():
        if command is not None and command not in commands:
            for name in commands:  # listed, parsed only when asked for
                sub.add_parser(name, help=f"(python -m problems {name} --help)", add_help=False)
            continue
        try:
            mod = importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - reported, never silently dropped
            for command in commands:
                q = sub.add_parser(command, help=f"(unavailable: {type(exc).__name__} importing {module})")
                q.set_defaults(func=_unavailable(module, exc))
            continue
        mod.register(sub)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option), if any."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(build_parser(_command(argv)), argv)
    if isinstance(args, int):
        return args
    from .progress import enable_ticker

    enable_ticker()  # long solves say on stderr, every 10 s, which attempt runs and why
    code = run(args.func, args)
    if args.command == "solve" and args.path is not None:  # after the answer or the error: one line
        new = "--method" if args.path in ("lp", "theorem") else "--formulation"
        print(
            f"note: --path is deprecated and will be removed in the next release; use {new}", file=sys.stderr
        )
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
