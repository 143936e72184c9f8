"""An independent rate–distortion reference for the PD-MIP tests: Blahut (1972) written from its definition.

Nothing here imports :mod:`problems`.  ``rd_point`` finds R(D) on a finite alphabet by bisection on the slope
s of Blahut's iteration; the iteration's own gap bound (max_y ln T − Σ q ln T ≥ R_s − R(D_s)) must be below
1e-10.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["hamming", "mutual_information", "ba_at_slope", "rd_point"]


def hamming(n: int, m: int) -> np.ndarray:
    """d(x, y) on {0..m−1}ⁿ in itertools.product order."""
    xs = np.array(list(itertools.product(range(m), repeat=n)))
    return (xs[:, None, :] != xs[None, :, :]).sum(axis=2).astype(float)


def mutual_information(W: np.ndarray, p: np.ndarray) -> float:
    """I(X;Y) in nats for the input pmf p and the channel W (rows p(y|x)), from the definition."""
    J = p[:, None] * W
    outer = p[:, None] * J.sum(axis=0)[None, :]
    pos = (J > 0) & (outer > 0)  # outer = 0 < J only by underflow of terms below 1e-300
    return float(np.sum(J[pos] * np.log(J[pos] / outer[pos])))


def ba_at_slope(p, d, s, q=None, tol=1e-13, max_iter=200_000):  # noqa: ANN001, ANN201
    """Blahut (1972) at slope s: (D_s, R_s, gap, q, W); ``gap`` = max_y ln T − Σ q ln T ≥ R_s − R(D_s)."""
    A = np.exp(-s * d)
    q = np.full(d.shape[1], 1.0 / d.shape[1]) if q is None else q
    for _ in range(max_iter):
        c = 1.0 / (A @ q)  # c(x) = 1 / Σ_y q(y) e^{−s d(x,y)}
        T = (p * c) @ A  # T(y) = Σ_x p(x) c(x) e^{−s d(x,y)}
        gap = math.log(T.max()) - float(q @ np.log(np.where(T > 0, T, 1.0)))
        q = q * T
        if gap < tol:
            break
    W = q[None, :] * A
    W /= W.sum(axis=1, keepdims=True)
    return float(np.sum(p[:, None] * W * d)), mutual_information(W, p), gap, q, W


def rd_point(p, d, D, s_hi=60.0):  # noqa: ANN001, ANN201
    """R(D) by bisection on the slope s until D_s = D (to 1e-12 in s): (R, s, W, gap)."""
    lo, hi, q = 0.0, s_hi, None
    while hi - lo > 1e-12:
        s = 0.5 * (lo + hi)
        Ds, _R, _g, q, _W = ba_at_slope(p, d, s, q)
        lo, hi = (s, hi) if Ds > D else (lo, s)
    Ds, R, gap, _q, W = ba_at_slope(p, d, hi, q)
    assert abs(Ds - D) <= 1e-9 and gap <= 1e-10
    return R, hi, W, gap
