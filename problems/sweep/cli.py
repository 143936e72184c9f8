"""``python -m problems sweep``: a study from flags or a TOML spec, on a LocalCluster or a cluster.

Exit codes: 0 — every point certified (``optimal``) or proved infeasible; 3 — some point is not certified
or failed (its row says why); 4 — some point was refused as too large for the workers; 2 — bad input.
"""

from __future__ import annotations

import sys

from ..errors import InvalidInputError
from ..lp.status import EXIT_CODES
from ..solve_choice import FORMULATIONS, LEGACY_PATHS, METHODS

__all__ = ["register"]


def _split(values: list[str] | None, cast, what: str) -> list:  # noqa: ANN001
    from ..priors import split_items

    out = []
    for v in values or []:
        for t in split_items(str(v), f"--{what}"):
            try:
                out.append(cast(t))
            except ValueError as exc:
                kind = "integers" if cast is int else "numbers"
                raise InvalidInputError(f"--{what}: expected {kind}, got {t!r}") from exc
    return out


def _spec(args):  # noqa: ANN001, ANN202
    from dataclasses import fields

    from .grid import SweepSpec, load_spec

    flags = {
        "programs": tuple(args.program or ()),
        "priors": tuple(args.prior or ()),
        "n": tuple(_split(args.n, int, "n")),
        "m": tuple(_split(args.m, int, "m")),
        "eps": tuple(_split(args.eps, float, "eps")),
        "distortion": tuple(_split(args.distortion, float, "distortion")),
        "queries": tuple(args.query or ()),
        "models": tuple(args.model or ()),
    }
    if args.spec:
        base = load_spec(args.spec)
        given = {k: v for k, v in flags.items() if v}  # flags extend/override the file
        kw = {f.name: getattr(base, f.name) for f in fields(base)}
        kw.update(given)
    else:
        kw = {k: v for k, v in flags.items() if v}
    if args.solver:
        kw["solver"] = args.solver
    for name in ("formulation", "method"):
        if getattr(args, name):
            kw[name] = getattr(args, name)
    if args.path:  # deprecated (a note on stderr): its value is a formulation or a method
        from ..solve_choice import split_path

        formulation, method = split_path(args.path)
        kw.update({"formulation": formulation} if method == "auto" else {"method": method})
    if not kw.get("programs"):
        raise InvalidInputError("give at least one --program (or a spec file with programs = [...])")
    return SweepSpec(**kw)


def _cmd_sweep(args) -> int:  # noqa: ANN001
    from .runner import run_sweep

    if args.workers is not None and args.workers < 1:
        raise InvalidInputError(f"--workers must be ≥ 1, got {args.workers}")
    if args.memory_limit is not None and not args.memory_limit > 0:
        raise InvalidInputError(f"--memory-limit is in GiB and must be > 0, got {args.memory_limit}")
    if args.solver:
        from ..cli_common import check_solver_name

        check_solver_name(args.solver)
    from .runner import check_scheduler

    check_scheduler(args.scheduler)
    spec = _spec(args)
    if args.path:  # one line, before the sweep's own output
        new = "--method" if args.path in ("lp", "theorem") else "--formulation"
        print(
            f"note: --path is deprecated and will be removed in the next release; use {new}", file=sys.stderr
        )
    summary = run_sweep(
        spec,
        args.out,
        scheduler=args.scheduler,
        workers=args.workers,
        memory_limit=None if args.memory_limit is None else int(args.memory_limit * 2**30),
        progress=not args.quiet,
        figures=not args.no_figures,
    )
    if args.json:
        from ..cli_common import print_json

        print_json(summary.to_dict())
    else:
        print(
            f"{summary.points} points: {summary.computed} computed, {summary.skipped} skipped (finished "
            f"before), {summary.failed} failed — {summary.scheduler}, {summary.seconds:.1f} s"
        )
        print(f"  table   {summary.table}\n          {summary.csv}")
        for f in summary.figures:
            print(f"  figure  {f}")
    statuses = [r["status"] for r in summary.rows]
    if "refused" in statuses:
        return EXIT_CODES["too-large"]
    if any(s not in ("optimal", "infeasible") for s in statuses):
        return EXIT_CODES["inaccurate"]
    return EXIT_CODES["optimal"]


def register(subparsers) -> None:  # noqa: ANN001
    p = subparsers.add_parser(
        "sweep",
        help="a study: programs × priors × n, m × ε or D, on Dask (resumable; table in DIR)",
        description="Solve every point of a grid on a Dask LocalCluster (default) or a cluster "
        "(--scheduler). Finished points are kept in DIR/points and skipped on a re-run. See docs/sweeps.md.",
    )
    p.add_argument(
        "spec", nargs="?", help="a TOML spec file (flags given on the command line override its values)"
    )
    p.add_argument(
        "--program", action="append", help="pd-dp, pd-i, r-pd, pd-mip, eps-d, eps-i, design (repeat)"
    )
    p.add_argument(
        "--prior", action="append", help="a prior spec (repeat), e.g. uniform, iid:0.3,0.7, dirichlet:1:0"
    )
    p.add_argument("--n", action="append", help="rows (repeat or comma-separated)")
    p.add_argument("--m", action="append", help="domain size of a row (repeat or comma-separated)")
    p.add_argument("--eps", action="append", help="privacy levels in nats, comma-separated (ε programs)")
    p.add_argument(
        "--distortion", action="append", help="distortions D in [0, n], comma-separated (D programs)"
    )
    p.add_argument("--query", action="append", help="design: query name (repeat)")
    p.add_argument(
        "--model", action="append", help='program model: a model TOML spec whose "sweep" fields take ε'
    )
    p.add_argument("--solver", help="back end tried first on every point")
    p.add_argument("--formulation", choices=FORMULATIONS, help="as for solve: auto, dense or reduced")
    p.add_argument("--method", choices=METHODS, help="as for solve: auto, lp or theorem")
    p.add_argument("--path", choices=LEGACY_PATHS, help="deprecated: --formulation or --method")
    p.add_argument("--out", required=True, help="results directory (created; finished points are kept)")
    p.add_argument("--scheduler", help="tcp://HOST:PORT of a running dask scheduler, or 'synchronous'")
    p.add_argument("--workers", type=int, help="local workers (default: the machine's cores)")
    p.add_argument(
        "--memory-limit", type=float, help="GiB per local worker (default: from the points' estimates)"
    )
    p.add_argument("--json", action="store_true", help="print the summary and the table as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--no-figures", action="store_true", help="do not draw DIR/figures/*.png")
    p.set_defaults(func=_cmd_sweep)
