r"""Privacy–distortion curves ε_i*(D), ε_d*(D), ε_m*(D) with the bounds of Theorem 1 (Wang, Ying & Zhang 2016).

For a grid of D in (0, n]:

* ``"d"`` — ε_d*(D) by exact inversion of PD-DP (:mod:`problems.inverse`);
* ``"i"`` — ε_i*(D) by exact inversion of PD-I (ε ≥ ε_X);
* ``"m"`` — ε_m*(D) = the PD-MIP optimum (mutual information, nats; a different unit from the other two).

Each :class:`Curve` also carries the closed-form references of Theorem 1: h⁻¹(D), max{h⁻¹(D) − ε_X, 0}
(lower bound for ε_d*), max{h⁻¹(D), ε_X} (lower bound for ε_i* beyond h(ε̃_X)), and the constants ε_X, ε̃_X.
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .closed_forms import h, h_inv
from .dispatch import make_program
from .export import atomic_write_text
from .inverse import privacy_for_distortion
from .prior_constants import eps_tilde, eps_X
from .priors import Prior

__all__ = [
    "Curve",
    "privacy_distortion_curve",
    "curve_constants",
    "NOTIONS",
    "default_grid",
    "require_points",
    "MAX_POINTS",
]

NOTIONS = {"i": "identifiability", "d": "differential privacy", "m": "mutual information"}


@dataclass(frozen=True)
class Curve:
    """A privacy–distortion curve and its references; arrays are aligned with ``distortion``."""

    notion: str
    n: int
    m: int
    prior_name: str
    distortion: np.ndarray
    eps: np.ndarray
    h_inv: np.ndarray
    lower_dp: np.ndarray  # max{h⁻¹(D) − ε_X, 0}
    lower_i: np.ndarray  # max{h⁻¹(D), ε_X}
    eps_X: float
    eps_tilde: float
    solves: np.ndarray
    max_residual: np.ndarray
    seconds: float
    extras: dict = field(default_factory=dict)

    @property
    def unit(self) -> str:
        return "nats" if self.notion == "m" else "privacy level ε (nats)"

    def rows(self) -> list[dict]:
        rows = [
            {
                "D": float(D),
                f"eps_{self.notion}": float(e),
                "h_inv": float(hi),
                "lower_dp": float(ld),
                "lower_i": float(li),
                "solves": int(s),
                "max_kkt_residual": float(r),
            }
            for D, e, hi, ld, li, s, r in zip(
                self.distortion,
                self.eps,
                self.h_inv,
                self.lower_dp,
                self.lower_i,
                self.solves,
                self.max_residual,
            )
        ]
        if "status" in self.extras:  # curves computed through the sweep: each point's status
            for r, st in zip(rows, self.extras["status"]):
                r["status"] = st
        return rows

    def to_csv(self, path: str | Path) -> Path:
        """Write the curve as CSV (atomically); the directory must exist (as for every file export)."""
        from .export import require_directory

        require_directory(path, "Curve.to_csv")
        rows = self.rows()
        import io

        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        return atomic_write_text(path, buf.getvalue())


#: The most grid points a curve takes: each is a solve (or a bisection of solves) and a file of the sweep.
MAX_POINTS = 10_000


def require_points(points: int) -> None:
    """Refuse (ProblemTooLargeError) a curve of more than :data:`MAX_POINTS` points, before any is solved."""
    if points > MAX_POINTS:
        from .errors import ProblemTooLargeError

        raise ProblemTooLargeError(
            f"a curve of {points} points is {points} solves (each a bisection for --notion d and i); it accepts "
            f"at most {MAX_POINTS}. Use fewer --points",
            size=int(points),
            limit=MAX_POINTS,
        )


def default_grid(n: int, points: int) -> np.ndarray:
    """``points`` distortions spread over (0, n]: denser where the curves bend (small D)."""
    u = np.linspace(0.0, 1.0, points + 1)[1:]
    return n * u**1.5


def curve_constants(prior) -> tuple[float, float]:  # noqa: ANN001
    """(ε_X, ε̃_X) of a Prior or a SymmetricPrior (ε̃_X is NaN where it is not computed at this size)."""
    if isinstance(prior, Prior):
        return eps_X(prior), eps_tilde(prior)
    from .prior_constants import symmetric_constants

    consts = symmetric_constants(prior)
    return consts["eps_X"], (math.nan if consts["eps_tilde"] is None else consts["eps_tilde"])


def privacy_distortion_curve(
    prior,  # Prior or problems.orbit.SymmetricPrior (the reduced programs: any n)
    notion: str,
    *,
    points: int = 30,
    distortions: np.ndarray | None = None,
    progress: Callable[[str], None] | None = None,
    solver: str | None = None,
) -> Curve:
    """ε*(D) for ``notion`` in {"i", "d", "m"} on a grid of D (see the module docstring)."""
    if notion not in NOTIONS:
        from .errors import InvalidInputError

        raise InvalidInputError(f"notion must be one of {sorted(NOTIONS)} (i, d, m), got {notion!r}")
    from .errors import InvalidInputError

    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 1:
        raise InvalidInputError(f"points must be an integer ≥ 1, got {points!r}")
    require_points(points)
    if not (isinstance(prior, Prior) or type(prior).__name__ == "SymmetricPrior"):
        raise InvalidInputError(
            f"privacy_distortion_curve takes a Prior or a SymmetricPrior, got {type(prior).__name__}"
        )
    n, m = prior.n, prior.m
    if distortions is None:
        grid = default_grid(n, points)
    else:
        from .closed_forms import check_distortion

        if isinstance(distortions, (str, bytes)):
            raise InvalidInputError(f"distortions must be numbers in [0, n] = [0, {n}], got {distortions!r}")
        try:
            grid = np.asarray(distortions, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"distortions must be numbers in [0, n] = [0, {n}], got {distortions!r}"
            ) from None
        require_points(grid.size)
        for D in grid:
            check_distortion(D, n)
    start = time.perf_counter()
    name = {"d": "pd-dp", "i": "pd-i", "m": "pd-mip"}[notion]
    eX, eT = curve_constants(prior)
    program: Any  # PDDP, PDI or PDMIP, or their orbit-reduced counterparts
    # a dense Prior: the N×N programs; a SymmetricPrior: the orbit-reduced ones, never the mⁿ pmf
    program = make_program(name, prior, "dense" if isinstance(prior, Prior) else "reduced", solver=solver)
    eps = np.empty(grid.size)
    solves = np.zeros(grid.size, dtype=int)
    resid = np.zeros(grid.size)
    cache: dict = {}
    for k, D in enumerate(grid):
        if notion == "m":
            res = program.solve(D)
            eps[k], solves[k], resid[k] = res.value, 1, res.certificate.max_residual
        else:
            inv = privacy_for_distortion(program, D, cache=cache)
            eps[k], solves[k] = inv.eps, inv.solves
            resid[k] = 0.0 if inv.result is None else inv.result.certificate.max_residual
        if progress is not None:
            progress(f"  ε_{notion}*(D={D:.4g}) = {eps[k]:.6g}  [{k + 1}/{grid.size}, {solves[k]} solves]")
    hi = np.asarray(h_inv(grid, n, m), dtype=float)
    return Curve(
        notion=notion,
        n=n,
        m=m,
        prior_name=prior.name,
        distortion=grid,
        eps=eps,
        h_inv=hi,
        lower_dp=np.maximum(hi - eX, 0.0) if math.isfinite(eX) else np.zeros_like(hi),
        lower_i=np.maximum(hi, eX),
        eps_X=eX,
        eps_tilde=eT,
        solves=solves,
        max_residual=resid,
        seconds=time.perf_counter() - start,
        extras={
            "h_at_eps_tilde": float(h(eT, n, m))
            if math.isfinite(eT)
            else (math.nan if math.isnan(eT) else 0.0)
        },
    )
