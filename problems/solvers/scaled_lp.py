r"""The ratio LP in scaled columns: the common form of the sparse back ends (:mod:`problems.solvers.backends`).

**Scaling for large ε.**  The optimal z has entries of size e^{−ε·d}.  For ε ≥ :data:`~problems.solvers.settings.SCALE_MIN_EPS` the
sparse back ends solve the LP in :math:`v = z / s` with :math:`s` the exponential mechanism E_d at ε
(``spec.log_profile``; for the ``HIGHS-MASS`` back end raised for rows of negligible prior mass,
:func:`mass_floor`), so every variable is O(1) at the optimum; the objective is divided by its largest
coefficient and every ratio row by :math:`\sqrt{s_{s_p}\,e^\epsilon\kappa_p\,s_{d_p}}` (its two coefficients
become :math:`e^{\pm\ell_p}`).  The multipliers are mapped back to the spec's rows exactly; the safe bounds
are computed on the unscaled LP.  Where the ratio rows imply z ≥ 0 (:func:`nonneg_implied`) those rows are
left out (:func:`drop_nonneg`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..lp.spec import RatioLPSpec
from .settings import (
    IMPLIED_NONNEG_MIN_EPS,
    LOOSE_ROW_LOG,
    RECIPROCAL_KAPPA_TOL,
    SCALE_FLOOR_LOG,
    SCALE_MIN_EPS,
)

__all__ = ["ScaledLP", "scaled_lp", "stacked", "scales", "mass_floor", "nonneg_implied", "drop_nonneg"]


def scales(spec: RatioLPSpec, eps: float) -> bool:
    """Whether the programs solve ``spec`` at ε in E_d-scaled columns (ε − ε_min ≥ the scaling threshold)."""
    return max(0.0, eps - spec.eps_min) >= min(SCALE_MIN_EPS, spec.scale_from)


def mass_floor(spec: RatioLPSpec, level: float) -> np.ndarray:
    """ln of the least column scale of each variable: min(b_g, e^{−level}/p_g) for a variable of normalisation
    row g of prior mass p_g (``spec.log_group_mass``).

    A row whose mass is below e^{−level} costs under e^{−level} per unit of distortion, however its mechanism
    looks; the optimum may give such rows any shape that lets the heavy rows do better, and at large ε it does:
    for the contagious prior the rows next to the point masses x = (a, …, a) give up their own accuracy so
    that the point masses' rows become almost deterministic (at n = 60, ε = 30, entries 1e13 times E_d's).
    Scaled by E_d alone those entries are out of any solver's reach (the back ends returned E_d itself, 6 %
    above the optimum); with this floor they are O(1) or below."""
    assert spec.log_group_mass is not None
    floor = np.minimum(np.log(spec.b), -float(level) - spec.log_group_mass)
    return floor[spec.group]


def nonneg_implied(spec: RatioLPSpec) -> bool:
    """True if the ratio rows imply z ≥ 0 for ε > 0: every variable is the source of a row whose reverse
    exists with κ_p κ_p' = 1 (then z_s ≤ rκ z_d ≤ r² z_s, so z_s ≥ 0 when r > 1)."""
    if "nonneg_implied" not in spec.cache:
        from ..ipm.rows import reverse_pairs

        ok = spec.P > 0 and bool(np.all(np.isfinite(spec.log_kappa)))
        if ok:
            rev, has = reverse_pairs(spec.src, spec.dst, spec.K)
            paired = has & (np.abs(spec.log_kappa + spec.log_kappa[rev]) <= RECIPROCAL_KAPPA_TOL)
            covered = np.zeros(spec.K, dtype=bool)
            covered[spec.src[paired]] = True
            ok = bool(covered.all())
        spec.cache["nonneg_implied"] = ok
    return spec.cache["nonneg_implied"]


@dataclass(frozen=True)
class ScaledLP:
    """The LP in v = z/s: objective ω c∘s, equalities A diag(s), balanced ratio rows, and the way back."""

    s: np.ndarray
    q: np.ndarray  # objective
    eq_data: np.ndarray  # coefficient of v_j in its group row (= s_j)
    a_src: np.ndarray  # coefficient of v[src_p] in row p
    a_dst: np.ndarray  # coefficient of v[dst_p] in row p (negative)
    rho: np.ndarray  # original row = rho_p · balanced row
    omega: float
    keep: np.ndarray  # indices of the ratio rows given to the back end

    def unscale(self, v: np.ndarray, nu_s: np.ndarray, lam_s: np.ndarray) -> tuple:
        lam = np.zeros(self.rho.size)
        lam[self.keep] = lam_s / (self.omega * self.rho[self.keep])
        return self.s * v, nu_s / self.omega, lam

    @property
    def all_rows(self) -> bool:
        return self.keep.size == self.rho.size


def scaled_lp(
    spec: RatioLPSpec,
    eps: float,
    scale: bool | None = None,
    loosen: bool = True,
    alternative: bool = False,
    mass: bool = False,
) -> ScaledLP:
    """The LP at ε in E_d-scaled columns (``scale``; by default where :func:`scales`; with ``mass`` floored by
    the rows' prior mass, :func:`mass_floor`), in the program's own columns (``alternative``,
    ``spec.alt_log_scale``), or unscaled; ``loosen`` leaves out the rows that cannot bind at an O(1) point."""
    level = max(0.0, eps - spec.eps_min)  # PD-I: the profile of the slack ε − ε_X, not of ε
    if alternative and spec.alt_log_scale is not None:  # the program's own scaling, at every ε
        ls = np.maximum(np.asarray(spec.alt_log_scale(eps), dtype=float), SCALE_FLOOR_LOG)
        scale = True
    else:
        if scale is None:
            scale = scales(spec, eps)
        ls = (
            np.maximum(np.asarray(spec.log_profile(level), dtype=float), SCALE_FLOOR_LOG)
            if scale
            else np.zeros(spec.K)
        )
        if scale and mass and spec.log_group_mass is not None:
            np.maximum(ls, mass_floor(spec, level), out=ls)
    s = np.exp(ls)
    x = eps + spec.log_kappa
    ell = 0.5 * (ls[spec.src] - x - ls[spec.dst])
    rho = np.exp(0.5 * (ls[spec.src] + x + ls[spec.dst]))
    q = spec.c * s
    top = float(q.max(initial=0.0))
    omega = 1.0 / top if top > 0 else 1.0
    # rows v_src ≤ e^{−2ℓ} v_dst with a huge factor cannot bind at an O(1) point: left out (a relaxation; the
    # exact repair restores them and the safe bound holds for the relaxation's multipliers)
    keep = np.flatnonzero(-2.0 * ell <= LOOSE_ROW_LOG) if (scale and loosen) else np.arange(spec.P)
    return ScaledLP(s, q * omega, s, np.exp(ell[keep]), -np.exp(-ell[keep]), rho, omega, keep)


def stacked(spec: RatioLPSpec, sc: ScaledLP, drop: bool) -> tuple[sp.csc_matrix, np.ndarray, int, int]:
    """``[A diag(s); balanced ratio rows; −I]`` in CSC, its right-hand side, #equalities, #inequalities."""
    K, G = spec.K, spec.G
    P = sc.keep.size
    rows = [spec.group, G + np.arange(P), G + np.arange(P)]
    cols = [np.arange(K), spec.src[sc.keep], spec.dst[sc.keep]]
    vals = [sc.eq_data, sc.a_src, sc.a_dst]
    n_ineq = P
    if not drop:
        rows.append(G + P + np.arange(K))
        cols.append(np.arange(K))
        vals.append(-np.ones(K))
        n_ineq += K
    M = sp.csc_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(G + n_ineq, K)
    )
    M.sum_duplicates()
    M.sort_indices()
    rhs = np.concatenate([spec.b, np.zeros(n_ineq)])
    return M, rhs, G, n_ineq


def drop_nonneg(spec: RatioLPSpec, eps: float, sc: ScaledLP | None = None) -> bool:
    """Whether the rows z ≥ 0 are left out at ε: implied by the ratio rows (:func:`nonneg_implied`) from
    :data:`~problems.solvers.settings.IMPLIED_NONNEG_MIN_EPS` on, and every ratio row kept in ``sc``."""
    if sc is not None and not sc.all_rows:
        return False
    return eps >= IMPLIED_NONNEG_MIN_EPS and nonneg_implied(spec)
