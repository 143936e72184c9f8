"""Conic solver layer: solve a CVXPY problem (PD-MIP, capacities, design) with one solver, retrying the others.

The ratio linear programs do not come here: they go through the LP core (:mod:`problems.lp`), which repairs
and bounds every answer.  For the conic programs the toolkit never trusts a solver's word alone either: each
program computes its own :class:`~problems.certificate.Certificate` afterwards, and the result's status
follows it.  This module only decides *which* solver runs and records what happened (:class:`SolverStats`,
also used by the LP core).

Order of preference: the solver the caller names, then Clarabel (interior point, exact to ~1e-9 on these
programs), then HiGHS (LPs only, if installed), then SCS (first-order, looser).  A solver that raises, or that
ends with a status other than ``optimal``/``infeasible``, is recorded in ``SolverStats.attempts`` and the
next one is tried.  ``optimal_inaccurate`` is kept as a last resort only if nothing better was found.
The order and the solvers' default options are :data:`~problems.solvers.settings.CONIC_ORDER` and
:data:`~problems.solvers.settings.CONIC_OPTIONS`.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence

import cvxpy as cp

from ..errors import InfeasibleProgramError, InvalidInputError, SolverFailedError
from .attempts import Attempt
from .settings import CONIC_OPTIONS as _DEFAULT_OPTIONS
from .settings import CONIC_ORDER as DEFAULT_ORDER
from .settings import LP_ONLY_SOLVERS as _LP_ONLY
from .stats import SolverStats

__all__ = ["SolverStats", "available_solvers", "solve_with_fallback", "DEFAULT_ORDER"]


def available_solvers(*, lp: bool = False) -> list[str]:
    """Installed solvers the toolkit knows how to use, in order of preference.

    ``lp=True`` includes LP-only solvers (HiGHS); otherwise only conic solvers that handle the exponential cone.
    """
    installed = set(cp.installed_solvers())
    return [s for s in DEFAULT_ORDER if s in installed and (lp or s not in _LP_ONLY)]


def _order(requested: str | None, lp: bool) -> list[str]:
    order = available_solvers(lp=lp)
    if requested is None:
        return order
    name = requested.upper()
    if name not in cp.installed_solvers():
        raise InvalidInputError(
            f"solver {requested!r} is not installed; installed solvers usable here: {', '.join(order)}"
        )
    if name in _LP_ONLY and not lp:
        raise InvalidInputError(f"solver {requested!r} solves only linear programs; use one of {order}")
    return [name] + [s for s in order if s != name]


def solve_with_fallback(
    problem: cp.Problem,
    *,
    program: str,
    solver: str | None = None,
    lp: bool = False,
    infeasible_reason: Callable[[], str] | None = None,
    options: dict[str, dict] | None = None,
    fallback: bool = True,
) -> SolverStats:
    """Solve ``problem`` in place, trying solvers in order until one returns ``optimal``.

    Parameters
    ----------
    problem:
        A CVXPY problem (possibly with Parameters already set).
    program:
        Short program name, used in error messages.
    solver:
        Preferred solver (case-insensitive); the others are tried after it when ``fallback`` is true.
    lp:
        Whether ``problem`` is a linear program (enables LP-only solvers).
    infeasible_reason:
        Called to build the explanation when a solver proves infeasibility.
    options:
        Per-solver keyword arguments overriding the defaults, e.g. ``{"SCS": {"max_iters": 10_000}}``.

    Raises
    ------
    InfeasibleProgramError
        If a solver certifies infeasibility (status ``infeasible``; ``infeasible_inaccurate`` is recorded as an
        attempt and the next solver is tried).
    SolverFailedError
        If no solver returned an optimal (or, as a last resort, optimal-inaccurate) solution.
    """
    order = _order(solver, lp)
    if not fallback:
        order = order[:1]
    attempts: list[Attempt] = []
    inaccurate: tuple[str, float, dict] | None = None
    for name in order:
        opts = dict(_DEFAULT_OPTIONS.get(name, {}))
        opts.update((options or {}).get(name, {}))
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():  # an inaccurate status is recorded in ``attempts`` instead
                warnings.filterwarnings("ignore", message="Solution may be inaccurate")
                problem.solve(solver=name, **opts)
        except (cp.error.SolverError, ArithmeticError, ValueError) as exc:  # solver crashed: try the next
            attempts.append(Attempt(name, f"error: {exc}".splitlines()[0][:200], time.perf_counter() - start))
            continue
        wall = time.perf_counter() - start
        status = problem.status
        attempts.append(Attempt(name, status, wall))
        if status == cp.OPTIMAL:
            return _stats(problem, name, wall, attempts)
        # only a solver's proof counts ("infeasible"); "infeasible (inaccurate)" is no proof: try the next one
        if status == cp.INFEASIBLE:
            reason = infeasible_reason() if infeasible_reason else f"{name} reports status {status!r}"
            raise InfeasibleProgramError(program, reason)
        if status == cp.OPTIMAL_INACCURATE and inaccurate is None:
            inaccurate = (name, wall, {v.id: v.value for v in problem.variables()})
    if inaccurate is not None:
        name, wall, values = inaccurate
        if problem.status != cp.OPTIMAL_INACCURATE or attempts[-1].solver != name:
            problem.solve(solver=name, **{**_DEFAULT_OPTIONS.get(name, {}), **(options or {}).get(name, {})})
        return _stats(problem, name, wall, attempts)
    raise SolverFailedError(program, [a.as_pair() for a in attempts])


def _stats(problem: cp.Problem, name: str, wall: float, attempts: Sequence[Attempt]) -> SolverStats:
    st = problem.solver_stats
    solve_time = st.solve_time if st is not None and st.solve_time is not None else wall
    iters = st.num_iters if st is not None else None
    compile_time = 0.0
    cs = getattr(problem, "compilation_time", None)
    if cs is not None:
        compile_time = float(cs)
    return SolverStats(
        solver=name,
        solve_time=float(solve_time),
        compile_time=compile_time,
        iterations=None if iters is None else int(iters),
        attempts=tuple(a.as_pair() for a in attempts),
    )
