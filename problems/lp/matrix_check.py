r"""Exact feasibility of a dense mechanism matrix, and its repair by mixing (for lifted and closed-form answers).

A mechanism W (N×N, rows x, columns y) is returned with the promise that its *exact row normalisation*
:math:`W''(x, \cdot) = W(x, \cdot)/s_x` (:math:`s_x` the exact row sum) satisfies every ratio row

.. math::  W''(x, y) \le e^{\epsilon}\kappa_{xx'}\,W''(x', y)\qquad (x \sim x',\ \text{all } y),

with κ = 1 (PD-DP; R-PD with a uniform input marginal) or :math:`p_X(x')/p_X(x)` (PD-I).  A matrix computed
from a reduced point (W = u[T]/c(T|t)) or from a closed form whose rows are tight (E_d, E_i) breaks rows by
round-off (~1e-15 relative).

:func:`verify_matrix` tests every row in logarithms (so e^ε is never formed), with the row sums bracketed by
their summation error and a margin of :data:`MARGIN` relative on the logarithms, above their rounding; a
pass proves the exact statement.  :func:`repair_matrix` mixes W with a strictly feasible reference R (rows
:math:`(1-t)W + tR`), t from the largest violation and doubled until :func:`verify_matrix` passes.
:func:`matrix_value_bound` bounds :math:`\sum_{x,y} C(x,y)W''(x,y)` from above.
"""

from __future__ import annotations

import math

import numpy as np

from ..database import DatabaseSpace
from ..solvers.settings import UNIT_ROUNDOFF as _U

__all__ = ["MARGIN", "verify_matrix", "close_matrix", "repair_matrix", "matrix_value_bound"]

_CHUNK = 4096
#: Relative margin on the logarithms of the test: each of its four logarithms is within 2 ulp (4.4e-16
#: relative) and the sums add as much again; 1e-14 is five times that.
MARGIN = 1e-14
#: Relative slack of every ratio row that the mixing estimate of :func:`repair_matrix` aims for.
ESTIMATE_SLACK = 2e-11


def _row_sums(W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = W.sum(axis=1)
    g = 2.0 * (W.shape[1] + 2) * _U
    return s * (1 - g), s * (1 + g)


def _pairs(space: DatabaseSpace, pair_log_kappa: np.ndarray | None):  # noqa: ANN202
    i, j = space.neighbour_pairs
    lk = np.zeros(i.size) if pair_log_kappa is None else np.asarray(pair_log_kappa, dtype=float)
    return i, j, lk


def _violations(
    W: np.ndarray,
    space: DatabaseSpace,
    eps: float,
    pair_log_kappa: np.ndarray | None,
    margin: float,
    lk_error: float = 0.0,
) -> float:
    """The largest ln-excess of a ratio row over its margin (≤ 0 when every row holds with the margin)."""
    if W.ndim != 2 or W.shape[0] != space.size or not np.all(np.isfinite(W)) or np.any(W < 0):
        return math.inf
    s_lo, s_hi = _row_sums(W)
    if np.any(s_lo <= 0):
        return math.inf
    with np.errstate(divide="ignore"):
        logW = np.log(W)
    i, j, lk = _pairs(space, pair_log_kappa)
    worst = -math.inf
    for start in range(0, i.size, _CHUNK):
        a, b = i[start : start + _CHUNK], j[start : start + _CHUNK]
        lhs = logW[a] - np.log(s_lo[a])[:, None]
        rest = (lk[start : start + _CHUNK] - lk_error)[:, None]
        rest = rest + logW[b] - np.log(s_hi[b])[:, None]
        with np.errstate(invalid="ignore"):
            need = lhs - rest  # the row holds iff need ≤ ε (nan only where W[x, y] = 0, masked below)
        live = np.isfinite(lhs)  # W[x, y] = 0: nothing to prove
        # identical rows (a constant mechanism, ε = 0) have identical exact sums: the row holds iff e^ε κ ≥ 1
        same = np.all(W[a] == W[b], axis=1)
        if same.any():
            lks = lk[start : start + _CHUNK][same]
            if np.any(eps + lks - lk_error < 0):
                return math.inf
            live[same] = False
        if not live.any():
            continue
        tol = margin * (1 + np.abs(lhs[live]) + np.abs(np.where(np.isfinite(rest[live]), rest[live], 0.0)))
        excess = need[live] + tol - eps * (1 - 4 * _U)
        worst = max(worst, float(np.max(excess)))
    return worst


def verify_matrix(
    W: np.ndarray,
    space: DatabaseSpace,
    eps: float,
    pair_log_kappa: np.ndarray | None = None,
    log_kappa_error: float = 0.0,
) -> bool:
    """True if the exact row normalisation of W satisfies every ratio row at ε (see the module docstring).

    ``log_kappa_error`` bounds the absolute error of the given ln κ (0 for κ = 1)."""
    W = np.asarray(W, dtype=float)
    return _violations(W, space, float(eps), pair_log_kappa, MARGIN, log_kappa_error) <= 0


def repair_matrix(
    W: np.ndarray,
    reference: np.ndarray,
    space: DatabaseSpace,
    eps: float,
    pair_log_kappa: np.ndarray | None = None,
    log_kappa_error: float = 0.0,
    *,
    default_start: float | None = 1e-16,
) -> tuple[np.ndarray | None, float]:
    """``(W, 0)`` if W verifies, else the smallest verified mixture ``((1 − t)W + tR, t)`` found by raising t
    from the linear estimate (:func:`_mixing_estimate`, which covers the margins of :func:`verify_matrix`; a
    reference far above W where its rows are tight needs a t far below 1e-16), or from ``default_start`` where
    the estimate sees no row to repair (``None``: give up there); ``(None, nan)`` when not even R verifies."""
    W = np.asarray(W, dtype=float)
    if verify_matrix(W, space, eps, pair_log_kappa, log_kappa_error):
        return W, 0.0
    closed = close_matrix(W, space, eps, pair_log_kappa)
    if closed is not None and verify_matrix(closed, space, eps, pair_log_kappa, log_kappa_error):
        return closed, 0.0
    R = np.asarray(reference, dtype=float)
    Wn = W / W.sum(axis=1, keepdims=True)
    Rn = R / R.sum(axis=1, keepdims=True)
    t = _mixing_estimate(Wn, Rn, space, eps, pair_log_kappa)
    if t == 0.0:
        if default_start is None:
            return None, math.nan
        t = default_start
    for _ in range(200):
        Z = (1.0 - t) * Wn + t * Rn
        if verify_matrix(Z, space, eps, pair_log_kappa, log_kappa_error):
            return Z, t
        if t >= 1.0:
            break
        t = min(1.0, (2.0 if t >= 1e-16 else 1e3) * t)  # doubling; by 1e3 while t is below 1e-16
    return None, math.nan


def close_matrix(
    W: np.ndarray,
    space: DatabaseSpace,
    eps: float,
    pair_log_kappa: np.ndarray | None = None,
    rounds: int = 6,
    sweeps: int = 40,
) -> np.ndarray | None:
    """The largest Z ≤ W whose rows hold with twice the slack :data:`ESTIMATE_SLACK` (the large side of a broken row
    lowered, propagated over the columns), rows renormalised; None if a row loses all its mass.

    A lifted reduced point breaks rows by round-off only (~1e-15 relative), so lowering their large sides moves
    the value by that order, where a mixture pays for the reference's worst relative slack anywhere: at m = 2,
    n = 10, contagious (0.9; 0.3, 0.7) PD-I at ε_X + 0.3, mixing with E_d cost 0.65 % of the value.  The
    renormalisation scales each row by its own factor and can break rows again by the factors' spread, so the
    lowering repeats; :func:`verify_matrix` decides.
    """
    i, j, lk = _pairs(space, pair_log_kappa)
    rho = np.exp(np.minimum(eps + lk, 700.0)) * (1 - 2 * ESTIMATE_SLACK)
    Z = W / W.sum(axis=1, keepdims=True)
    for _round in range(rounds):
        for _ in range(sweeps):
            lowered = False
            for start in range(0, i.size, _CHUNK):
                a, b = i[start : start + _CHUNK], j[start : start + _CHUNK]
                cap = rho[start : start + _CHUNK, None] * Z[b]
                bad = Z[a] > cap
                if bad.any():
                    rows, cols = np.nonzero(bad)
                    np.minimum.at(Z, (a[rows], cols), cap[rows, cols])
                    lowered = True
            if not lowered:
                break
        sums = Z.sum(axis=1, keepdims=True)
        if not np.all(sums > 0):
            return None
        Z /= sums
        if not lowered:
            break
    return Z


def _mixing_estimate(
    Wn: np.ndarray, Rn: np.ndarray, space: DatabaseSpace, eps: float, pair_log_kappa: np.ndarray | None
) -> float:
    """The smallest t with (1 − t)v_p ≤ t w_p on every violated row, v_p the violation of W and w_p the slack
    of R (ρ = e^ε κ lowered by :data:`ESTIMATE_SLACK` relative, above the largest margin of
    :func:`verify_matrix`: 1e-14 · (1 + 2·745) on the logarithms); a starting point for the verified doubling."""
    i, j, lk = _pairs(space, pair_log_kappa)
    t = 0.0
    for start in range(0, i.size, _CHUNK):
        a, b = i[start : start + _CHUNK], j[start : start + _CHUNK]
        rho = np.exp(np.minimum(eps + lk[start : start + _CHUNK], 700.0))[:, None] * (1 - ESTIMATE_SLACK)
        v = Wn[a] - rho * Wn[b]
        w = rho * Rn[b] - Rn[a]
        bad = v > 0
        if not bad.any():
            continue
        if np.any(w[bad] <= 0):
            return 1.0
        t = max(t, float(np.max(v[bad] / (v[bad] + w[bad]))))
    return min(1.0, t * (1 + 1e-6))


def matrix_value_bound(W: np.ndarray, cost: np.ndarray) -> float:
    """An upper bound on Σ C(x, y) W''(x, y) for the exact row normalisation W'' of W (C ≥ 0)."""
    W = np.asarray(W, dtype=float)
    s_lo, _ = _row_sums(W)
    per_row = np.sum(np.asarray(cost, dtype=float) * W, axis=1) / s_lo
    total = float(np.sum(per_row))
    return total * (1 + 4.0 * (W.shape[1] + W.shape[0] + 8) * _U) if total > 0 else 0.0
