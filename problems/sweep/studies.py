r"""The toolkit's curves as sweeps: ε*(D) curves and the orbit-scale rows, one keyed point per D.

* :func:`curve_via_sweep` — the :class:`~problems.curves.Curve` of ``python -m problems curve``: one sweep
  point per distortion (``eps-d``, ``eps-i`` by inversion, ``pd-mip`` directly), with Theorem 1's closed-form
  references added.
* :func:`scale_rows_via_sweep` — the rows of the orbit-scale figure (ε*(δn) for δ in the levels, i.i.d.
  prior, reduced LPs) for any n; n = 200 is a few dozen reduced LP solves of 7–30 minutes each, so run it on
  several workers (``python -m problems.sweep.studies scale --ns 200 --workers 2 --out DIR``) — finished
  points are kept in ``DIR`` and a re-run resumes.

Both run on the sweep runner, so they resume, use a LocalCluster or a scheduler, and record every point.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from .grid import Point
from .runner import run_sweep

__all__ = ["curve_via_sweep", "scale_rows_via_sweep", "NOTION_PROGRAM"]

#: Curve notion → sweep program.
NOTION_PROGRAM = {"d": "eps-d", "i": "eps-i", "m": "pd-mip"}


def _fmt(values: Sequence[float]) -> str:
    return ",".join(repr(float(v)) for v in values)


def curve_via_sweep(
    prior_spec: str,
    n: int,
    m: int,
    notion: str,
    distortions: Sequence[float] | np.ndarray,
    out: str | Path,
    *,
    solver: str | None = None,
    scheduler: str | None = "synchronous",
    workers: int | None = None,
    progress: bool = True,
    echo: Callable[[str], object] | None = None,
):  # noqa: ANN201
    """ε*(D) for ``notion`` ∈ {d, i, m} at every D, as a :class:`~problems.curves.Curve` (points kept in ``out``)."""
    from ..closed_forms import h, h_inv
    from ..curves import NOTIONS, Curve, curve_constants
    from ..errors import InvalidInputError
    from .jobs import build_prior

    if notion not in NOTIONS:
        raise InvalidInputError(f"notion must be one of {sorted(NOTIONS)} (i, d, m), got {notion!r}")
    program = NOTION_PROGRAM[notion]
    grid = np.asarray(distortions, dtype=float)
    points = [Point(program, n, m, prior_spec, distortion=float(D), solver=solver) for D in grid]
    summary = run_sweep(
        points, out, scheduler=scheduler, workers=workers, progress=progress, echo=echo, figures=False
    )
    rows = summary.rows
    eps = np.array([math.inf if r["value"] is None else r["value"] for r in rows], dtype=float)
    if notion == "m":
        eps = np.array([math.nan if r["value"] is None else r["value"] for r in rows], dtype=float)
    eX, eT = curve_constants(build_prior(points[0], dense=False))
    hi = np.asarray(h_inv(grid, n, m), dtype=float)
    return Curve(
        notion=notion,
        n=n,
        m=m,
        prior_name=prior_spec,
        distortion=grid,
        eps=eps,
        h_inv=hi,
        lower_dp=np.maximum(hi - eX, 0.0) if math.isfinite(eX) else np.zeros_like(hi),
        lower_i=np.maximum(hi, eX),
        eps_X=eX,
        eps_tilde=eT,
        solves=np.array([r["iterations"] or 0 for r in rows], dtype=int),
        max_residual=np.zeros(grid.size),
        seconds=summary.seconds,
        extras={
            "h_at_eps_tilde": float(h(eT, n, m))
            if math.isfinite(eT)
            else (math.nan if math.isnan(eT) else 0.0),
            "status": [r["status"] for r in rows],
            "certified": [bool(r["certified"]) for r in rows],
            "sweep": summary.to_dict() | {"table": None},
        },
    )


def scale_rows_via_sweep(
    ns: Sequence[int],
    levels: Sequence[float],
    out: str | Path,
    *,
    programs: Sequence[str] = ("dp", "i"),
    row: Sequence[float] = (0.3, 0.7),
    scheduler: str | None = None,
    workers: int | None = None,
    memory_limit: int | None = None,
    progress: bool = True,
    echo: Callable[[str], object] | None = None,
) -> list[dict]:
    """Rows of the orbit-scale figure (:data:`problems.orbit.scale.FIELDS`), one sweep point each."""
    from ..closed_forms import h_inv

    prior = "iid:" + _fmt(row)
    points = [
        Point(
            "eps-d" if name == "dp" else "eps-i", n, 2, prior, distortion=float(d * n), formulation="reduced"
        )
        for n in ns
        for name in programs
        for d in levels
    ]
    summary = run_sweep(
        points,
        out,
        scheduler=scheduler,
        workers=workers,
        memory_limit=memory_limit,
        progress=progress,
        echo=echo,
    )
    deltas = [d for _ in ns for _ in programs for d in levels]  # the levels as given (D = δ·n is rounded)
    rows = []
    for p, r, delta in zip(points, summary.rows, deltas):
        e = math.nan if r["value"] is None else r["value"]
        rows.append(
            {
                "n": p.n,
                "program": "pd-dp" if p.program == "eps-d" else "pd-i",
                "D_over_n": delta,
                "eps_star": e,
                "eps_over_n": e / p.n,
                "h_inv_over_n": float(h_inv(p.distortion, p.n, 2)) / p.n,
                "lp_solves": r["iterations"] or 0,
                "max_kkt": math.nan,
                "uncertified_solves": 0 if r["status"] in ("optimal", "infeasible") else 1,
                "status": r["status"],
                "key": r["key"],
            }
        )
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m problems.sweep.studies scale --ns 200 [--workers K | --scheduler ADDR] --out DIR``."""
    import argparse
    import csv

    from ..export import atomic_write_text
    from ..orbit.scale import DEFAULT_LEVELS

    ap = argparse.ArgumentParser(prog="python -m problems.sweep.studies")
    sub = ap.add_subparsers(dest="what", required=True)
    s = sub.add_parser("scale", help="ε*(δn) rows of the orbit-scale figure, through the sweep")
    s.add_argument("--ns", type=int, nargs="+", required=True)
    s.add_argument("--levels", type=float, nargs="+", default=list(DEFAULT_LEVELS))
    s.add_argument("--programs", nargs="+", choices=["dp", "i"], default=["dp", "i"])
    s.add_argument("--out", required=True)
    s.add_argument("--scheduler")
    s.add_argument("--workers", type=int)
    s.add_argument("--memory-limit", type=float, help="GiB per local worker (default: from the estimate)")
    args = ap.parse_args(argv)
    rows = scale_rows_via_sweep(
        args.ns,
        args.levels,
        args.out,
        programs=args.programs,
        scheduler=args.scheduler,
        workers=args.workers,
        memory_limit=None if args.memory_limit is None else int(args.memory_limit * 2**30),
    )
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    path = atomic_write_text(Path(args.out) / "orbit_scale.csv", buf.getvalue())
    print(path)
    return 0 if all(r["status"] in ("optimal", "infeasible") for r in rows) else 3


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
