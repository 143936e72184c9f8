r"""Flexible GMRES refinement of the Newton directions of the block-angular interior-point iteration
(:class:`problems.ipm.iteration._Newton`), for the systems whose residual lives in equations (5) and (2)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg as sla

if TYPE_CHECKING:
    from .iteration import _Newton

__all__ = ["refine", "residual", "slack_of"]


def residual(
    newton: _Newton, d: list[np.ndarray], r_p: np.ndarray | None, r_s: np.ndarray
) -> list[np.ndarray]:
    """Residuals (e5, e2) of equations (5) and (2) at the direction ``d`` (with the bounds z ≥ 0 the other
    equations hold by construction)."""
    dz, ds = d[0], d[4]
    e2 = -newton.data.A(dz) if r_p is None else -r_p - newton.data.A(dz)
    e5 = newton.s * dz  # r_s − (s∘Δz + z∘Δs), formed in place (one temporary, the same operations)
    t = newton.zt * ds
    e5 += t
    del t
    np.subtract(r_s, e5, out=e5)
    return [e5, e2]


def refine(
    newton: _Newton,
    d: list[np.ndarray],
    r_p: np.ndarray | None,
    r_s: np.ndarray,
    scale_s: np.ndarray,
    dim: int,
) -> tuple[np.ndarray, ...]:
    r"""Refine ``d`` by restarted flexible GMRES (Saad 1993) on the unreduced residual; ``dim`` corrections per
    cycle (:data:`problems.ipm.iteration.KRYLOV_DIM`).

    With the bounds z ≥ 0 the residual lives in equations (5) and (2): the unrefined solve
    (:meth:`~problems.ipm.iteration._Newton.raw`) imposes the others.  The preconditioner is that solve,
    :math:`M^{-1}` on a residual e.  It is not a fixed linear map (its error is mostly rounding, which scales
    with e), so the *flexible* variant keeps the computed corrections :math:`c_j = M^{-1}v_j` (their Δz and Δν;
    Δs, Δw and Δλ follow from them linearly: :func:`slack_of`) and the exact products :math:`Kc_j`
    (:math:`Kc = e - e'`, e' the residual c leaves on e); the combination :math:`\sum_j y_jc_j` then minimises
    the weighted 2-norm of the residual over their span (weights of the refinement test:
    :math:`1/\max(|r_s|, \mu)` on (5), :math:`1/\|b\|` on (2)).  Richardson refinement takes one correction
    per step and keeps the last; here a cycle of at most ``dim`` corrections keeps their best combination.  A
    cycle ends at the refinement tolerance (estimated), or when a correction reduces the estimated residual by
    less than the contraction factor (as Richardson refinement would stop); refinement stops at the tolerance
    (max norm, measured), when a cycle reduces the error by less than the contraction factor, or after
    ``refine_steps`` solves.  ``d[1]`` and ``d[3]`` (Δw, Δλ) may be None: the caller then forms them from the
    refined Δz.
    """
    nz = newton.zt.size
    inv_s = 1.0 / scale_s

    def pack(e5: np.ndarray, e2: np.ndarray) -> np.ndarray:
        out = np.empty(nz + e2.size)  # written in place: no temporaries beside it
        np.multiply(e5, inv_s, out=out[:nz])
        np.divide(e2, newton.bnorm, out=out[nz:])
        return out

    solves = 0
    err_old = np.inf
    while True:
        r = pack(*residual(newton, d, r_p, r_s))
        err = float(np.max(np.abs(r)))
        if (
            err < newton.refine_tol
            or err > newton.refine_contraction * err_old
            or solves >= newton.refine_steps
        ):
            newton.unrefined = max(newton.unrefined, err)
            break
        err_old = err
        beta = float(np.linalg.norm(r))
        # the 2-norm reduction that would bring the max-norm below the tolerance (if both shrink alike)
        goal = 0.5 * beta * newton.refine_tol / err
        m = min(dim, newton.refine_steps - solves)
        r /= beta
        V = [r]
        del r
        Z: list[list[np.ndarray | None]] = []
        H = np.zeros((m + 1, m))
        g = np.zeros(m + 1)
        g[0] = beta
        cs, sn = np.zeros(m), np.zeros(m)
        k = 0
        for j in range(m):
            e5, e2 = V[j][:nz] * scale_s, V[j][nz:] * newton.bnorm
            c = newton.raw(None, -e2, None, e5, None, keep_dw=False)  # Δw, Δλ follow from Δz
            solves += 1
            Z.append([c[0], c[2]])  # Δz, Δν (Δs follows from them: slack_of)
            left5, left2 = residual(newton, c, -e2, e5)
            del c, e5, e2
            wv = pack(left5, left2)
            del left5, left2
            np.subtract(V[j], wv, out=wv)  # K c_j in the weights
            for i in range(j + 1):  # modified Gram–Schmidt
                H[i, j] = float(V[i] @ wv)
                wv -= H[i, j] * V[i]
            hn = float(np.linalg.norm(wv))
            H[j + 1, j] = hn
            for i in range(j):  # the previous Givens rotations
                t = cs[i] * H[i, j] + sn[i] * H[i + 1, j]
                H[i + 1, j] = -sn[i] * H[i, j] + cs[i] * H[i + 1, j]
                H[i, j] = t
            den = float(np.hypot(H[j, j], H[j + 1, j]))
            cs[j], sn[j] = (1.0, 0.0) if den == 0.0 else (H[j, j] / den, H[j + 1, j] / den)
            H[j, j] = den
            H[j + 1, j] = 0.0
            before = abs(g[j])  # the residual estimate before this correction
            g[j + 1] = -sn[j] * g[j]
            g[j] = cs[j] * g[j]
            k = j + 1
            if abs(g[j + 1]) <= goal or hn == 0.0 or den == 0.0:
                break
            if abs(g[j + 1]) > newton.refine_contraction * before:
                break  # stagnating: a correction that gains less than a Richardson step ends the cycle
            wv /= hn
            V.append(wv)
        y = sla.solve_triangular(H[:k, :k], g[:k], check_finite=False)
        del V, wv  # the basis is not needed for the combination (peak memory: the cycle's largest moment)
        dnu, dz = _combine(Z, y, 1), _combine(Z, y, 0)
        del Z
        ds = slack_of(newton, dz, dnu)
        d[0] += dz
        d[2] += dnu
        d[4] += ds
        del ds, dnu
        if d[1] is not None:  # Δw and Δλ of the combination (else formed by the caller from the refined Δz)
            dw = newton.data.G(dz)
            np.negative(dw, out=dw)
            d[1] += dw
            dw *= newton.lam  # λΔw/w, in place
            dw /= newton.w
            d[3] -= dw
            del dw
        del dz
    return tuple(d)


def slack_of(newton: _Newton, dz: np.ndarray, dnu: np.ndarray) -> np.ndarray:
    r"""Δs of a correction with zero residuals in (1), (3) and (4): :math:`G^\top(\Lambda W^{-1}G\Delta z) +
    A^\top\Delta\nu`, as :meth:`~problems.ipm.iteration._Newton.raw` forms it (the cycle keeps Δz and Δν
    only: at m = 2, n = 200 six Δs are 63 MiB at its largest moment)."""
    data, lam, w = newton.data, newton.lam, newton.w
    ds = np.empty_like(dz)

    def part(zs: slice, ws: slice, G: Callable, GT: Callable, at: np.ndarray) -> None:
        t = G(dz[zs])
        t *= lam[ws]
        t /= w[ws]
        dsc = GT(t)
        del t
        dsc += at
        ds[zs] = dsc

    at = data.AT(dnu)
    if newton.halves is None:
        newton._map(lambda c: part(c, c, data.G, data.GT, at), newton.chunks)
    else:
        newton._map(lambda h: part(h.z, h.w, h.G, h.GT, at[h.z]), newton.halves)
    return ds


def _combine(Z: list[list[np.ndarray | None]], y: np.ndarray, t: int) -> np.ndarray:
    """Σ_j y_j Z_j[t], summed into Z_0[t]'s array in the order of ``sum`` (the same rounding), each Z_j[t] freed
    once added."""
    out = Z[0][t]
    assert out is not None
    out *= y[0]
    Z[0][t] = None
    for j in range(1, len(Z)):
        out += y[j] * Z[j][t]
        Z[j][t] = None
    return out
