"""The one result type every program returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np

from .certificate import Certificate
from .lp.bounds import Bounds
from .lp.solution import LPSolution
from .lp.status import Status, decide_status
from .mechanism import Mechanism
from .solvers.stats import SolverStats

__all__ = ["SolveResult", "DUAL_JSON_LIMIT"]

#: Dual arrays with more entries than this are summarised (not listed) in :meth:`SolveResult.to_dict`.
DUAL_JSON_LIMIT = 20_000


def _jsonable(value: Any, limit: int) -> Any:
    if isinstance(value, np.ndarray):
        if value.size <= limit:
            return value.tolist()
        return {
            "shape": list(value.shape),
            "min": float(value.min()),
            "max": float(value.max()),
            "sum": float(value.sum()),
            "active": int(np.sum(np.abs(value) > 1e-9)),
            "note": f"{value.size} entries; summarised (use the Python API or --export for the full array)",
        }
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    return value


@dataclass(frozen=True, eq=False)
class SolveResult:
    """Outcome of one solve of a privacy program.

    Attributes
    ----------
    program:
        ``"pd-dp"``, ``"pd-i"``, ``"r-pd"``, ``"pd-mip"``, … .
    status:
        :class:`~problems.lp.status.Status`, decided by :func:`~problems.lp.status.decide_status`: ``optimal``
        only when the certificate proves it (bounds agree to 1e-6 relative or 1e-12 absolute),
        ``inaccurate`` or ``failed`` otherwise.  Proved-infeasible programs raise
        :class:`~problems.errors.InfeasibleProgramError`.
    bounds:
        Rigorous ``lower ≤ optimum ≤ upper`` (:class:`~problems.lp.bounds.Bounds`), in :attr:`unit`.
    value:
        Optimal value (expected distortion for the LPs; I(X;Y) in :attr:`unit` for PD-MIP).
    mechanism:
        The optimal p_{Y|X} as a labelled row-stochastic :class:`~problems.mechanism.Mechanism`.
    eps, distortion:
        The privacy level given (LPs) or the distortion bound given (PD-MIP); the other is ``None``.
    duals:
        Multipliers keyed by constraint family (e.g. ``"ratio"``, ``"normalisation"``, ``"nonnegativity"``,
        ``"distortion"``), with CVXPY's sign convention (inequality multipliers ≥ 0).
    certificate:
        KKT residuals computed by the toolkit from the primal and dual values.
    stats:
        Which solver ran, how long, and what was tried before it.
    p_y, posterior:
        Output pmf p_Y and posterior ``posterior[x, y] = p_{X|Y}(x|y)`` where defined.
    unit:
        ``"nats"`` or ``"bits"`` for information-valued programs; ``"rows"`` (Hamming distortion) for the LPs.
    extras:
        Program-specific values (for example the R-PD input marginal), JSON-serialisable where possible.
    """

    program: str
    status: Status
    value: float
    mechanism: Mechanism
    eps: float | None
    distortion: float | None
    duals: dict[str, Any]
    certificate: Certificate
    stats: SolverStats
    p_y: np.ndarray | None = None
    posterior: np.ndarray | None = None
    unit: str = "rows"
    extras: dict[str, Any] = field(default_factory=dict)
    bounds: Bounds = field(default_factory=lambda: Bounds(-np.inf, np.inf))

    def __post_init__(self) -> None:
        status = Status(self.status)  # the toolkit's four words only (a solver's: Status.from_solver_word)
        if status is Status.OPTIMAL and not self.certificate.ok:
            # never "optimal" unless the toolkit's certificate passes: the point counts as not proved
            status = decide_status(self.bounds.lower, self.bounds.upper, feasible=False)
        object.__setattr__(self, "status", status)

    @classmethod
    def from_mechanism(
        cls,
        program: str,
        mechanism: Mechanism,
        p_x: np.ndarray | None,
        *,
        status: Status,
        value: float,
        certificate: Certificate,
        stats: SolverStats,
        bounds: Bounds,
        eps: float | None = None,
        distortion: float | None = None,
        duals: dict[str, Any] | None = None,
        unit: str = "rows",
        extras: dict[str, Any] | None = None,
    ) -> Self:
        """The result of a mechanism under the input law ``p_x``: :attr:`p_y` = p_X W and :attr:`posterior`
        come from :meth:`Mechanism.output_distribution` and :meth:`Mechanism.posterior` (neither when ``p_x``
        is ``None``, e.g. a mechanism on types rather than databases)."""
        p_y = posterior = None
        if p_x is not None:
            p_y = np.clip(mechanism.output_distribution(p_x), 0.0, None)
            posterior = mechanism.posterior(p_x)
        return cls(
            program=program,
            status=status,
            value=value,
            mechanism=mechanism,
            eps=eps,
            distortion=distortion,
            duals={} if duals is None else duals,
            certificate=certificate,
            stats=stats,
            p_y=p_y,
            posterior=posterior,
            unit=unit,
            extras={} if extras is None else extras,
            bounds=bounds,
        )

    @classmethod
    def from_lp(
        cls,
        program: str,
        sol: LPSolution,
        mechanism: Mechanism,
        p_x: np.ndarray | None,
        *,
        extras: dict[str, Any] | None = None,
        status: Status | None = None,
        value: float | None = None,
        bounds: Bounds | None = None,
        certificate: Certificate | None = None,
    ) -> Self:
        """The result of a ratio LP (dense or orbit-reduced): :meth:`from_mechanism` with the LP's status,
        value, bounds, certificate and multipliers (``ratio``, ``normalisation``, ``nonnegativity``); a
        program that changed the point after the LP (an exact lift) passes the new status, value, bounds and
        certificate."""
        return cls.from_mechanism(
            program,
            mechanism,
            p_x,
            status=sol.status if status is None else status,
            value=sol.value if value is None else value,
            certificate=sol.certificate if certificate is None else certificate,
            stats=sol.stats,
            bounds=sol.bounds if bounds is None else bounds,
            eps=sol.eps,
            duals=sol.duals,
            unit="rows",
            extras=extras,
        )

    @property
    def certified(self) -> bool:
        """True when :attr:`status` is ``optimal`` (the toolkit proved the value by its status rule)."""
        return self.status is Status.OPTIMAL

    @property
    def matrix(self) -> np.ndarray:
        """The mechanism matrix p_{Y|X} (rows: inputs, columns: outputs)."""
        return self.mechanism.matrix

    def to_dict(self, *, include_mechanism: bool = False, dual_limit: int = DUAL_JSON_LIMIT) -> dict:
        """JSON-serialisable summary (large dual arrays summarised)."""
        d = {
            "program": self.program,
            "status": self.status.value,
            "certified": self.certified,
            "bounds": self.bounds.to_dict(),
            "value": float(self.value) if np.isfinite(self.value) else None,
            "unit": self.unit,
            "eps": self.eps,
            "distortion": self.distortion,
            "duals": {k: _jsonable(v, dual_limit) for k, v in self.duals.items()},
            "certificate": self.certificate.to_dict(),
            "solve_time": self.stats.solve_time,
            "solver": self.stats.to_dict(),
            "extras": {k: _jsonable(v, dual_limit) for k, v in self.extras.items()},
        }
        if include_mechanism:
            d["mechanism"] = self.mechanism.matrix.tolist()
        return d

    def _repr_html_(self) -> str:
        """Jupyter's view: status, value, rigorous bounds, solver and a small table of the mechanism."""
        from .notebook import result_html

        return result_html(self)
