r"""The rigorous feasibility test of a ratio LP's point and the upper bound on its objective.

A float point z of a :class:`~problems.lp.spec.RatioLPSpec` stands for its *exact normalisation*
:math:`z'' = z\,b_g/s_g`, :math:`s_g` the exact sum of its group g.  :func:`verify` proves that z'' satisfies every
ratio row :math:`z''_{s_p} \le e^\epsilon\kappa_p z''_{d_p}` exactly: the float test holds with margins for every
rounding (the row sums bracketed by their summation error, the product :math:`e^\epsilon\kappa_p`, the stored
ln κ up to :data:`~problems.lp.spec.LOG_KAPPA_ERROR`, and an absolute margin below the normal range).
:func:`upper_bound` bounds :math:`c^\top z''` from above.  The test runs over the rows in slices of
:data:`VERIFY_ROWS` (its temporaries are a few vectors of that length, not of the number of rows: at m = 2,
n = 200 a vector of all 5.4 M rows is 41 MiB); every row's test is the same elementwise arithmetic either way.
"""

from __future__ import annotations

import numpy as np

from .spec import RatioLPSpec
from .status import UNIT_ROUNDOFF

__all__ = ["verify", "upper_bound", "VERIFY_ROWS"]

_U = UNIT_ROUNDOFF

#: rows per slice of :func:`verify`
VERIFY_ROWS = 1 << 19

#: Absolute margin of :func:`verify` per unit of normalisation factor: sixteen smallest subnormal steps (2^-1074),
#: more than the rounding of the four products of a row's right-hand side and the two of its left-hand side.
_SUBNORMAL_MARGIN = 2.0**-1070


def _gamma(k):  # noqa: ANN001, ANN202 - int or array
    """A generous bound (2(k+2)u) on the relative error of a k-term float sum or product chain."""
    return 2.0 * (np.asarray(k, dtype=float) + 2.0) * _U


def _group_sums(spec: RatioLPSpec, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sums = np.bincount(spec.group, weights=z, minlength=spec.G)
    counts = spec.cache.get("group_counts")
    if counts is None:
        counts = spec.cache["group_counts"] = np.bincount(spec.group, minlength=spec.G)
    return sums, counts


def _rk(spec: RatioLPSpec, eps: float, rows: slice = slice(None)) -> tuple[np.ndarray, np.ndarray]:
    """fl(e^ε κ_p) and a bound on its relative error (ε + ln κ rounding, exp, stored ln κ), on ``rows``."""
    x = eps + spec.log_kappa[rows]
    rk = np.exp(x)
    rel = (2.0 * np.abs(x) + 6.0) * _U + 1.01 * spec.log_kappa_error
    return rk, rel


def _rk_all(spec: RatioLPSpec, eps: float) -> tuple[np.ndarray, float]:
    """fl(e^ε κ_p) over all rows and the largest of :func:`_rk`'s error bounds (bitwise the same: that bound is
    monotone in |ε + ln κ_p|), with no temporary over the rows beside the result."""
    x = eps + spec.log_kappa
    if x.size == 0:
        return x, 0.0
    largest = max(float(x.max()), -float(x.min()))
    rel = (2.0 * largest + 6.0) * _U + 1.01 * spec.log_kappa_error
    return np.exp(x, out=x), float(rel)


def verify(spec: RatioLPSpec, z: np.ndarray, eps: float) -> bool:
    """True if the exact normalisation z·b_g/s_g of the float vector z is feasible at ε (rigorous test)."""
    if z.shape != (spec.K,) or not np.all(np.isfinite(z)) or np.any(z < 0):
        return False
    sums, counts = _group_sums(spec, z)
    g = _gamma(counts)
    s_lo, s_hi = sums * (1 - g), sums * (1 + g)
    if np.any(s_lo <= 0):
        return False
    # the margins below are relative; below the normal range (2^-1022) rounding is absolute, up to half a
    # subnormal step per product, so a row with z[s_p] > 0 also needs an absolute margin (it matters only there)
    tiny = _SUBNORMAL_MARGIN * max(1.0, float(np.max(spec.b / s_lo)))
    for start in range(0, spec.P, VERIFY_ROWS):
        rows = slice(start, start + VERIFY_ROWS)
        src, dst = spec.src[rows], spec.dst[rows]
        gs, gd = spec.group[src], spec.group[dst]
        rk, rel = _rk(spec, eps, rows)
        zs = z[src]
        lhs = zs * (spec.b[gs] / s_lo[gs]) * (1 + 8 * _U)
        rhs = rk * (1 - rel) * z[dst] * (spec.b[gd] / s_hi[gd]) * (1 - 8 * _U)
        if not np.all((zs == 0.0) | (lhs + tiny <= rhs)):
            return False
    return True


def upper_bound(spec: RatioLPSpec, z: np.ndarray) -> float:
    """An upper bound on c'z'' for the exact normalisation z'' of z (call after :func:`verify`)."""
    sums, counts = _group_sums(spec, z)
    s_lo = sums * (1 - _gamma(counts))
    per_group = np.bincount(spec.group, weights=spec.c * z, minlength=spec.G)
    total = float(np.sum(per_group * (spec.b / s_lo)))
    return total * (1 + float(_gamma(int(counts.max()) + spec.G + 8))) if total > 0 else 0.0
