r"""One point of a sweep: build its program, solve, and return one row of the table.

:func:`run_point` is a pure function of its :class:`~problems.sweep.grid.Point` (only the ``worker`` and
``solve_time`` cells differ between runs), so Dask may run it anywhere and run it again after a worker is
lost.  It never raises: an infeasible program is a result (``status: infeasible``), and any other error is
recorded in the row (``status: failed``, ``error``) so that one bad point does not stop a study.

:func:`estimate_bytes` is the memory estimate used to size workers and to refuse oversized points before
they are sent (``status: refused``).
"""

from __future__ import annotations

import math
import time
import traceback
from typing import Any

import numpy as np

from ..database import DatabaseSpace
from ..errors import InfeasibleProgramError, InvalidInputError, PrivacyToolkitError, ProblemTooLargeError
from ..lp.status import decide_status
from ..prior_spec import SYMMETRIC_SPECS, spec_kind
from ..resources import BASE_MEMORY, BYTES_PER_REDUCED_VARIABLE, dense_lp_memory, reduced_lp_variables
from .grid import Point

__all__ = ["COLUMNS", "run_point", "estimate_bytes", "build_prior", "refused_row", "failed_row"]

#: Columns of the sweep table, in order.  ``error`` is empty unless the point failed or was refused.
COLUMNS = (
    "program",
    "n",
    "m",
    "prior",
    "eps",
    "distortion",
    "status",
    "certified",
    "value",
    "lower",
    "upper",
    "solver",
    "iterations",
    "solve_time",
    "worker",
    "key",
    "error",
)


def _reduced_path(point: Point) -> bool:
    if point.formulation == "dense" or point.program in ("design", "c1-dp", "model"):
        return False
    return spec_kind(point.prior) in SYMMETRIC_SPECS or point.program == "r-pd"


def build_prior(point: Point, *, dense: bool):  # noqa: ANN201
    """The prior of ``point``: a SymmetricPrior (never the mⁿ pmf) unless ``dense`` is asked for."""
    from ..dispatch import prior_from_spec
    from ..priors import from_pmf

    if spec_kind(point.prior) == "dirichlet":
        space = DatabaseSpace(point.n, point.m)
        space.require_dense()
        _, a, s = point.prior.split(":")
        pmf = np.random.default_rng(int(s)).dirichlet(np.full(space.size, float(a)))
        return from_pmf(space, pmf, name=point.prior)
    return prior_from_spec(point.prior, point.n, point.m, dense=dense)


def estimate_bytes(point: Point) -> int:
    """A rough upper estimate of the peak memory of ``point`` (bytes), from its size alone.

    The library's own estimates (:mod:`problems.resources`): dense ratio LPs by their N²·n(m−1) ratio rows,
    reduced LPs by their C(n+m²−1, m²−1) joint types (6 kB each, measured at n = 200); the design and C₁
    programs by their N×N joint.  R-PD, and PD-DP, PD-I and PD-MIP of a uniform or i.i.d. prior on the reduced
    path (unless the LP is asked for), are single-letter or closed forms (tiny).
    """
    n, m = point.n, point.m
    if point.program == "r-pd" or (point.program == "pd-mip" and _reduced_path(point)):
        return BASE_MEMORY
    if _reduced_path(point) and point.method != "lp" and spec_kind(point.prior) in ("uniform", "iid"):
        return BASE_MEMORY  # PD-DP, PD-I and ε*(D) of an i.i.d. prior: n × the one-row program (orbit.product_prior)
    if point.program == "model":
        return 2 * BASE_MEMORY  # dense models are validated against their own limits when built
    if _reduced_path(point):
        return int(BASE_MEMORY + BYTES_PER_REDUCED_VARIABLE * reduced_lp_variables(n, m))
    if point.program in ("design", "c1-dp"):
        return int(BASE_MEMORY + 4000 * (float(m) ** n) ** 2)
    return int(dense_lp_memory(n, m))


def _worker() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "local"


def _row(point: Point, **cells: Any) -> dict:
    row: dict[str, Any] = {
        "program": point.program,
        "n": point.n,
        "m": point.m,
        "prior": point.prior,
        "eps": point.eps,
        "distortion": point.distortion,
        "status": "failed",
        "certified": False,
        "value": None,
        "lower": None,
        "upper": None,
        "solver": None,
        "iterations": None,
        "solve_time": None,
        "worker": _worker(),
        "key": point.key,
        "error": "",
    }
    row.update(cells)
    for name in ("value", "lower", "upper"):  # tables hold finite numbers or null
        v = row[name]
        row[name] = float(v) if v is not None and math.isfinite(float(v)) else None
    return row


def refused_row(point: Point, reason: str) -> dict:
    """The row of a point refused before it was sent (too large for a worker)."""
    return _row(point, status="refused", worker="", error=reason)


def failed_row(point: Point, error: str) -> dict:
    """The row of a point whose task raised (recorded; the sweep goes on)."""
    return _row(point, status="failed", worker="", error=error)


def _from_result(point: Point, res, seconds: float, value=None, bounds=None) -> dict:  # noqa: ANN001
    b = res.bounds if bounds is None else bounds
    stats = res.stats
    return _row(
        point,
        status=str(res.status),
        certified=bool(res.certified),
        value=res.value if value is None else value,
        lower=b.lower if b is not None else None,
        upper=b.upper if b is not None else None,
        solver=getattr(stats, "solver", None),
        iterations=getattr(stats, "iterations", None),
        solve_time=seconds,
    )


def _solve_program(point: Point) -> tuple[Any, Any]:
    """Build and solve a pd-dp / pd-i / r-pd / pd-mip point through the library's dispatch.

    The point's ``formulation`` and ``method`` are the sweep spec's solve choice (:mod:`problems.dispatch`).
    """
    from ..dispatch import make_program, solve_spec

    value = point.distortion if point.program == "pd-mip" else point.eps
    assert value is not None  # Point requires ε or D for its program
    formulation, method = point.formulation, point.method
    if spec_kind(point.prior) != "dirichlet":
        if point.program == "pd-mip" and method != "auto":
            raise InvalidInputError(
                f"method={method!r} does not apply to pd-mip (it has no theorem path); use method='auto' "
                "(formulation auto, dense or reduced)"
            )
        built, res = solve_spec(
            point.program,
            point.prior,
            point.n,
            point.m,
            value,
            formulation=formulation,
            method=method,
            solver=point.solver,
        )
        return built.program, res
    prog = make_program(point.program, build_prior(point, dense=True), "dense", solver=point.solver)
    return prog, (prog.solve(value) if point.program == "pd-mip" else prog.solve(value, method=method))


def _inverse(point: Point) -> dict:
    """ε*(D) by inversion of PD-DP (``eps-d``) or PD-I (``eps-i``); bounds are the final bracket."""
    from ..dispatch import make_program
    from ..inverse import privacy_for_distortion
    from ..orbit.scale import eps_star_curve

    name = "pd-dp" if point.program == "eps-d" else "pd-i"
    dense = point.formulation == "dense" or not _reduced_path(point)
    prior = build_prior(point, dense=dense)
    prog = make_program(name, prior, "dense" if dense else "reduced", solver=point.solver)
    t0 = time.perf_counter()
    assert point.distortion is not None  # Point requires D for eps-d / eps-i
    D = float(point.distortion)
    if dense:
        inv = privacy_for_distortion(prog, D)
        seconds = time.perf_counter() - t0
        if inv.result is None:  # D = 0: ε* = ∞ exactly (no finite level gives distortion 0)
            status = decide_status(math.inf, math.inf)
            return _row(point, status=str(status), certified=status.certified, value=None, solve_time=seconds)
        lo, hi = inv.bracket
        row = _from_result(point, inv.result, seconds, value=inv.eps)
        row.update(lower=float(lo), upper=float(inv.eps), iterations=inv.solves)
        return _at_boundary(row, prog, D, inv.eps)
    log: list[dict] = []
    eps_min = getattr(prog, "eps_X", 0.0)
    (eps,) = eps_star_curve(prog, point.n, [D / point.n], eps_min=eps_min, m=point.m, log=log)
    seconds = time.perf_counter() - t0
    if not math.isfinite(eps):
        return _row(point, status="failed", error="ε*(D) not reached on [ε_min, 12]", solve_time=seconds)
    at = [e for e in log if e["eps"] == eps]
    res = at[-1]["result"]
    below = [e["eps"] for e in log if e["value"] > D and e["eps"] < eps]
    row = _from_result(point, res, seconds, value=eps)
    row.update(lower=max(below, default=eps_min), upper=eps)
    row["iterations"] = len(log)
    return _at_boundary(row, prog, D, eps)


def _at_boundary(row: dict, prog, D: float, eps: float) -> dict:  # noqa: ANN001
    """ε*_i(D) = ε_X is proved by Lemma 3 and the constant mechanism, whatever the LP at ε_X could certify."""
    from ..inverse import boundary_proof

    if row["status"] != "optimal" and eps == getattr(prog, "eps_X", None):
        proof = boundary_proof(prog, D)
        if proof is not None:
            status = decide_status(eps, eps)
            row.update(status=str(status), certified=status.certified, lower=eps, upper=eps, error=proof)
    return row


def _design(point: Point) -> dict:
    from ..design import design_mechanism, design_problem

    space = DatabaseSpace(point.n, point.m)
    prior = None if point.prior == "uniform" else build_prior(point, dense=True)
    problem = design_problem(space, point.query, prior=prior)
    t0 = time.perf_counter()
    assert point.eps is not None  # Point requires ε for design
    res = design_mechanism(problem, point.eps, solver=point.solver)
    return _from_result(point, res, time.perf_counter() - t0)


def _c1_dp(point: Point) -> dict:
    """C₁ (nats, Theorem 2 of Wu (2019b)) of the optimal ε-DP mechanism of PD-DP at ``point.eps``."""
    from ..information.individual import individual_capacity

    t0 = time.perf_counter()
    _, res = _solve_program(Point("pd-dp", point.n, point.m, point.prior, eps=point.eps, formulation="dense"))
    W = np.asarray(res.mechanism.matrix, dtype=float)
    cap = individual_capacity(W.reshape((point.m,) * point.n + (W.shape[1],)))
    return _row(
        point,
        status=str(cap.status),
        certified=bool(cap.certified),
        value=cap.c1,
        lower=cap.lower_bound,
        upper=cap.upper_bound,
        solver=f"{res.stats.solver} + vertex channels",
        solve_time=time.perf_counter() - t0,
    )


def _fill(obj, value: float):  # noqa: ANN001, ANN202
    """Replace every ``"sweep"`` string in a parsed TOML spec by ``value``."""
    if isinstance(obj, dict):
        return {k: _fill(v, value) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_fill(v, value) for v in obj]
    return value if obj == "sweep" else obj


def _model(point: Point) -> dict:
    """The optimum of the model spec ``point.prior = "model:PATH"`` with ``"sweep"`` fields set to ε."""
    import tomllib
    from pathlib import Path

    from ..model.cli import model_from_spec

    path = Path(point.prior.split(":", 1)[1])
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidInputError(f"model spec {str(path)!r} cannot be read as TOML: {exc}") from exc
    t0 = time.perf_counter()
    assert point.eps is not None  # Point requires ε for a model
    res = model_from_spec(_fill(spec, float(point.eps))).solve(solver=point.solver)
    return _from_result(point, res, time.perf_counter() - t0)


def _worker_memory_budget() -> None:
    """Inside a Dask worker with a memory limit, the library's memory guard uses that limit.

    The sweep sizes workers and refuses points against the workers' limits; without this, the guard would
    compare with half of the machine's available memory, which the other workers' points are using.
    """
    import os

    from ..resources import MEMORY_LIMIT_ENV

    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):
        return
    manager = getattr(worker, "memory_manager", None)  # distributed ≥ 2022.6 keeps the limit there
    limit = getattr(manager, "memory_limit", None) or getattr(worker, "memory_limit", None)
    if limit and MEMORY_LIMIT_ENV not in os.environ:
        os.environ[MEMORY_LIMIT_ENV] = str(int(limit))


def run_point(point: Point) -> dict:
    """Solve one point and return its row (see :data:`COLUMNS`).  Never raises."""
    _worker_memory_budget()
    t0 = time.perf_counter()
    try:
        if point.program in ("eps-d", "eps-i"):
            return _inverse(point)
        if point.program == "design":
            return _design(point)
        if point.program == "c1-dp":
            return _c1_dp(point)
        if point.program == "model":
            return _model(point)
        _, res = _solve_program(point)
        return _from_result(point, res, time.perf_counter() - t0)
    except InfeasibleProgramError as exc:
        status = decide_status(math.nan, math.nan, infeasible_proof=exc.reason or str(exc))
        return _row(
            point, status=str(status), certified=True, solve_time=time.perf_counter() - t0, error=exc.reason
        )
    except ProblemTooLargeError as exc:
        return _row(point, status="refused", solve_time=time.perf_counter() - t0, error=str(exc))
    except PrivacyToolkitError as exc:
        return _row(
            point, status="failed", solve_time=time.perf_counter() - t0, error=f"{type(exc).__name__}: {exc}"
        )
    except Exception as exc:  # noqa: BLE001 — recorded, the sweep goes on
        tail = traceback.format_exc(limit=3).strip().splitlines()[-1]
        return _row(
            point,
            status="failed",
            solve_time=time.perf_counter() - t0,
            error=f"{type(exc).__name__}: {exc} ({tail})",
        )
