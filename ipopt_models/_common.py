r"""Shared machinery of the IPOPT models: the CasADi import, solver options, the multistart loop and its result.

Every model here is a smooth non-linear program solved by IPOPT (bundled in CasADi's wheels, exact first and
second derivatives by CasADi's algorithmic differentiation).  IPOPT returns a *local* optimum, so each model
is run from ``K`` deterministic starting points drawn from a seeded :class:`numpy.random.Generator`; the
best local optimum, the number of starts, and how many starts reached it (within a tolerance) are reported
in a :class:`MultistartResult`.

Honesty of a multistart value.  Every reported value is re-evaluated **in numpy** at a point that is
feasible for the model (simplex variables clipped and renormalised; an entropy constraint repaired by
mixing with the uniform distribution, see :func:`repair_entropy`).  So for a maximisation the value is a
certified *lower* bound on the true maximum, for a minimisation a certified *upper* bound on the true
minimum — and nothing more: a multistart never proves global optimality.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from problems.errors import InvalidInputError, PrivacyToolkitError

__all__ = [
    "MultistartResult",
    "StartOutcome",
    "CasadiUnavailableError",
    "require_casadi",
    "ipopt_options",
    "run_multistart",
    "check_starts",
    "entropy",
    "repair_entropy",
    "project_simplex",
    "DEFAULT_REACH_TOL",
]

#: Two local optima closer than this (absolute, in the model's units) count as the same.
DEFAULT_REACH_TOL = 1e-6


class CasadiUnavailableError(PrivacyToolkitError, ImportError):
    """CasADi (which bundles IPOPT) is not installed; install the ``ipopt`` extra: ``pip install .[ipopt]``."""


def require_casadi():
    """Import and return :mod:`casadi`, or raise :class:`CasadiUnavailableError` with the fix."""
    try:
        import casadi
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise CasadiUnavailableError(
            "the IPOPT models need CasADi (its wheels bundle IPOPT): pip install 'privacy-problems[ipopt]' "
            "or pip install 'casadi>=3.6'"
        ) from exc
    return casadi


def ipopt_options(*, tol: float = 1e-9, max_iter: int = 3000, extra: Mapping[str, Any] | None = None) -> dict:
    """IPOPT options used by every model: silent, exact Hessian, bounds not relaxed (logs stay finite)."""
    opts: dict[str, Any] = {
        "print_time": False,
        "ipopt.print_level": 0,
        "ipopt.sb": "yes",
        "ipopt.tol": tol,
        "ipopt.max_iter": max_iter,
        # IPOPT relaxes bounds by 1e-8 by default; a probability then may go negative and x·log x is NaN.
        "ipopt.bound_relax_factor": 0.0,
        "ipopt.honor_original_bounds": "yes",
    }
    if extra:
        opts.update(extra)
    return opts


def check_starts(starts: int, seed: int) -> tuple[int, int]:
    """Validate the multistart parameters (``starts ≥ 1``, ``seed ≥ 0``)."""
    if isinstance(starts, bool) or not isinstance(starts, (int, np.integer)) or starts < 1:
        raise InvalidInputError(f"the number of starts must be an integer ≥ 1, got {starts!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidInputError(f"the seed must be an integer ≥ 0, got {seed!r}")
    return int(starts), int(seed)


# ------------------------------------------------------------------------------------------------ numerics
def entropy(p: np.ndarray) -> float:
    """Shannon entropy :math:`H(p) = -\\sum p \\ln p` in nats (0 ln 0 = 0)."""
    p = np.asarray(p, dtype=float).ravel()
    nz = p[p > 0]
    return float(-np.sum(nz * np.log(nz)))


def project_simplex(p: np.ndarray) -> np.ndarray:
    """Clip to ≥ 0 and renormalise (IPOPT's iterates satisfy the simplex only to its tolerance)."""
    p = np.clip(np.asarray(p, dtype=float), 0.0, None)
    s = p.sum()
    if not np.isfinite(s) or s <= 0:
        return np.full(p.shape, 1.0 / p.size)
    return p / s


def repair_entropy(p: np.ndarray, b: float) -> np.ndarray:
    r"""A point of :math:`\{H \ge b\}` next to ``p``: :math:`(1-t)p + t\,u` with the smallest certified ``t``.

    By concavity :math:`H((1-t)p + tu) \ge (1-t)H(p) + t\log|\mathcal X|`, so
    :math:`t = (b - H(p))/(\log|\mathcal X| - H(p))` suffices; returned unchanged when already feasible.
    """
    p = project_simplex(p)
    h, hmax = entropy(p), math.log(p.size)
    if h >= b:
        return p
    t = min(1.0, (b - h) / max(hmax - h, 1e-300) * (1 + 1e-12) + 1e-15)
    return (1 - t) * p + t / p.size


# ------------------------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class StartOutcome:
    """One IPOPT run: its return status, iteration count, success flag and the (numpy-evaluated) value."""

    status: str
    iterations: int
    success: bool
    value: float


@dataclass(frozen=True, eq=False)
class MultistartResult:
    """Outcome of a deterministic multistart of one IPOPT model.

    Attributes
    ----------
    model:
        Model name (``"pd-i-bilinear"``, ``"r-pd-bilinear"``, ``"c1-joint"``, ``"c1b-joint"``, ``"pd-mip-nlp"``).
    sense:
        ``"min"`` or ``"max"``.
    value:
        Best local optimum, evaluated in numpy at a feasible point (nats for information quantities; expected
        distortion for the PD programs).  A certified *bound* on the true optimum (upper for ``min``, lower
        for ``max``), never a proof of global optimality.
    status, iterations:
        IPOPT return status and iteration count of the start that gave ``value``.
    n_starts, n_success:
        Number of starts run, and how many IPOPT reported as successful (``Solve_Succeeded`` or
        ``Solved_To_Acceptable_Level``).
    n_reached:
        Starts whose value is within ``tolerance`` of ``value``.
    tolerance:
        The absolute tolerance used for ``n_reached`` (and ``n_reached_reference``).
    reference, reference_name:
        The exact (convex or Theorem 2) optimum this model is checked against, when supplied.
    n_reached_reference:
        Starts whose value is within ``tolerance`` of ``reference``.
    solution:
        The best point (arrays keyed by name, e.g. ``"p_x"``, ``"p_y"``, ``"posterior"``, ``"mechanism"``).
    values:
        Per-start values in run order.
    status_counts:
        How many starts ended with each IPOPT status.
    seed, solve_time:
        The generator seed and the wall time of all starts (build included).
    extras:
        Model-specific numbers (constraint residuals, ε, b, …).
    """

    model: str
    sense: str
    value: float
    status: str
    iterations: int
    n_starts: int
    n_success: int
    n_reached: int
    tolerance: float
    reference: float | None
    reference_name: str | None
    n_reached_reference: int | None
    solution: Mapping[str, np.ndarray]
    values: tuple[float, ...]
    status_counts: Mapping[str, int]
    seed: int
    solve_time: float
    extras: Mapping[str, Any] = field(default_factory=dict)

    @property
    def excess(self) -> float | None:
        """How far the best local optimum goes *beyond* the reference (> 0 would contradict the reference).

        ``reference − value`` for a minimisation, ``value − reference`` for a maximisation.
        """
        if self.reference is None:
            return None
        return self.reference - self.value if self.sense == "min" else self.value - self.reference

    def to_dict(self, *, include_solution: bool = True) -> dict:
        """JSON-ready dictionary (arrays as lists)."""
        out: dict[str, Any] = {
            "model": self.model,
            "sense": self.sense,
            "value": self.value,
            "bound_kind": "upper bound on the minimum"
            if self.sense == "min"
            else "lower bound on the maximum",
            "status": self.status,
            "iterations": self.iterations,
            "n_starts": self.n_starts,
            "n_success": self.n_success,
            "n_reached": self.n_reached,
            "tolerance": self.tolerance,
            "reference": self.reference,
            "reference_name": self.reference_name,
            "n_reached_reference": self.n_reached_reference,
            "excess_over_reference": self.excess,
            "values": list(self.values),
            "status_counts": dict(self.status_counts),
            "seed": self.seed,
            "solve_time": self.solve_time,
            "extras": {k: _jsonable(v) for k, v in self.extras.items()},
        }
        if include_solution:
            out["solution"] = {k: _jsonable(v) for k, v in self.solution.items()}
        return out


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (np.floating, np.integer)):
        return v.item()
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


_SUCCESS = {"Solve_Succeeded", "Solved_To_Acceptable_Level"}


def run_multistart(
    *,
    model: str,
    sense: str,
    solver: Any,
    starts: list[np.ndarray],
    bounds: dict[str, Any],
    evaluate: Callable[[np.ndarray], tuple[float, dict[str, np.ndarray]]],
    seed: int,
    t_start: float,
    reference: float | None = None,
    reference_name: str | None = None,
    tolerance: float = DEFAULT_REACH_TOL,
    extras: Mapping[str, Any] | None = None,
    parameters: list[np.ndarray] | None = None,
) -> MultistartResult:
    """Run ``solver`` (a CasADi ``nlpsol``) from each start; keep the best numpy-evaluated feasible value.

    ``evaluate(x)`` maps IPOPT's primal vector to ``(value, solution arrays)`` after making it feasible.
    A start whose evaluation fails (non-finite) is recorded with value ``nan``.  ``parameters[k]`` (if
    given) is the CasADi parameter vector of start ``k``.
    """
    if sense not in ("min", "max"):
        raise InvalidInputError(f"sense must be 'min' or 'max', got {sense!r}")
    sign = 1.0 if sense == "min" else -1.0
    outcomes: list[StartOutcome] = []
    best: tuple[float, int, dict[str, np.ndarray]] | None = None
    for k, x0 in enumerate(starts):
        kw = dict(bounds)
        if parameters is not None:
            kw["p"] = parameters[k]
        sol = solver(x0=x0, **kw)
        st = solver.stats()
        status = str(st.get("return_status", "unknown"))
        iters = int(st.get("iter_count", -1))
        x = np.asarray(sol["x"], dtype=float).ravel()
        try:
            value, arrays = evaluate(x)
        except (FloatingPointError, ValueError, ZeroDivisionError):
            value, arrays = float("nan"), {}
        if not math.isfinite(value):
            value = float("nan")
        outcomes.append(StartOutcome(status, iters, status in _SUCCESS, value))
        if math.isfinite(value) and (best is None or sign * value < sign * best[0]):
            best = (value, k, arrays)
    if best is None:
        from problems.errors import SolverFailedError

        raise SolverFailedError(model, [("ipopt", o.status) for o in outcomes[:5]])
    value, k, arrays = best
    vals = np.array([o.value for o in outcomes])
    finite = np.isfinite(vals)
    n_reached = int(np.sum(finite & (np.abs(vals - value) <= tolerance)))
    n_ref = None
    if reference is not None:
        n_ref = int(np.sum(finite & (np.abs(vals - reference) <= tolerance)))
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    return MultistartResult(
        model=model,
        sense=sense,
        value=float(value),
        status=outcomes[k].status,
        iterations=outcomes[k].iterations,
        n_starts=len(outcomes),
        n_success=sum(o.success for o in outcomes),
        n_reached=n_reached,
        tolerance=tolerance,
        reference=None if reference is None else float(reference),
        reference_name=reference_name,
        n_reached_reference=n_ref,
        solution=arrays,
        values=tuple(float(v) for v in vals),
        status_counts=counts,
        seed=seed,
        solve_time=time.perf_counter() - t_start,
        extras=dict(extras or {}),
    )
