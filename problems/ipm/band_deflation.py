r"""Pinned deflation of the layered blocks: Newton directions that stay accurate where the blocks are singular.

Late in the layered block method (:mod:`problems.ipm.layered`) a connected set C of *tight* ratio rows
(:math:`D_p \gg s/u` at both ends) makes :math:`u_C`, the iterate restricted to C, a near-null direction of its
block :math:`H_b = G_b^\top DG_b + \operatorname{diag}(s/u)`: the rows are homogeneous, so
:math:`G_bu_C = r_g - w` on the rows inside C, and :math:`u_C^\top H_bu_C` is about the complementarity of those
rows, against entries of :math:`\max D \approx \lambda^2/\mu`.  Cholesky then forms that pivot by cancellation,
and the Newton directions lose their accuracy (m = 2, n = 150: iterative refinement left errors of 1e-5 to 1e-2,
the dual step collapsed and the bounds stalled 1.3e-6 apart).

The dense method adds :math:`\tau u_Cu_C^\top` to its blocks (:func:`problems.ipm.structured._deflation`); in a
band that rank-one term fills the band.  Here each such direction is *pinned* instead: one diagonal entry
(its largest node r) is raised by :math:`\tau` = the largest diagonal entry of H on C, which leaves the band
as it is:

.. math:: \hat H = H + E\,T E^\top, \qquad E = [e_{r_1}, \dots, e_{r_k}],\quad T = \operatorname{diag}(\tau_i).

:math:`\hat H` is well conditioned on C, and with :math:`Q = \hat H^{-1}E` (one banded solve per pin),
Woodbury's identity gives :math:`H^{-1} = \hat H^{-1} + Q\,(T^{-1} - E^\top Q)^{-1}Q^\top`.  The small matrix
:math:`T^{-1} - E^\top Q = T^{-1}M` is formed without cancellation from the *known* near-null vectors
U = [u_{C_i}/‖u_{C_i}‖] (disjoint supports): :math:`\hat HQ = E` gives :math:`U^\top HQ = U^\top E\,M`, so

.. math:: (T^{-1}M)_{ij} = \frac{(Hu_i)^\top Q_j}{\tau_i\,u_i(r_i)},

with :math:`Hu_i = G^\top(D\,Gu_i) + \operatorname{diag}(s/u)\,u_i`, where :math:`Gu_i` on the rows inside C,
whose two terms nearly cancel, is computed with error-free products and sums (Dekker 1971, Knuth), so that
:math:`D\,Gu_i` is accurate to about one rounding of its own size.  The Newton system
with the linking rows is then solved as the bordered system of the dense method
(:class:`problems.ipm.structured._BlockFactor`): with :math:`\hat S = \sum_b A_b\hat H_b^{-1}A_b^\top`,
:math:`W = AQ` and :math:`C^{-1} = T^{-1}M`,

.. math::

    \hat S\,\Delta\nu - W t = r_1,\qquad W^\top\Delta\nu + C^{-1}t = Q^\top f,\qquad
    \Delta u = \hat H^{-1}(f - A^\top\Delta\nu) + Q t,

through the k×k matrix :math:`C^{-1} + W^\top\hat S^{-1}W`.  Nothing is approximated: in exact arithmetic this
is the same Newton direction, computed without the huge pivots.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

__all__ = [
    "BandDeflation",
    "band_deflation",
    "PinnedBorder",
    "symmetric_solver",
    "row_ends",
    "DEFLATE_BELOW",
    "PIN_AFTER_REFINEMENT",
    "DEFLATION_CUTOFF",
    "TIGHT_RATIO",
    "MAX_DIRECTIONS",
]

#: the layered iteration looks for near-null directions once μ (scaled) is below this, and only after a sign that
#: its factors lose accuracy: a block that needed the diagonal shift, or a Newton solve whose refinement ended
#: above PIN_AFTER_REFINEMENT (in its measure); m = 2, n = 100: pins from μ < 1e-9 on cost 8–80 % more time where
#: the factors stayed accurate, and they are needed from n = 150 on (``docs/benchmarks.md``)
DEFLATE_BELOW = 1e-9
PIN_AFTER_REFINEMENT = 1e-8
#: a direction u_C is pinned when u_Cᵀ H u_C < DEFLATION_CUTOFF · max diag(H) on C
DEFLATION_CUTOFF = 1e-7
#: a ratio row is tight when D_p exceeds this multiple of s/u at both of its ends
TIGHT_RATIO = 1e3
#: at most this many directions (the most nearly singular first): the bordered system is dense k × k
MAX_DIRECTIONS = 3000


@dataclass
class BandDeflation:
    """The pinned directions of one iterate, sorted by block: pin (band order), τ, the direction's entry at its
    pin, its block, and H u (one row per direction, over the variables)."""

    pins: np.ndarray
    tau: np.ndarray
    upin: np.ndarray
    block: np.ndarray
    hu: sp.csr_matrix
    link: np.ndarray  # the linking row of every variable (A u = bincount(link, u))


def row_ends(pieces: list[tuple[int, int, sp.csr_matrix]], P: int) -> tuple[np.ndarray, ...] | None:
    """The two variables and coefficients of every ratio row, (i, j, a_i, a_j), from the diagonal pieces of Gᵀ
    (``(first variable, first row, CSR piece)``); None if a row does not have exactly two entries."""
    i = np.empty(P, dtype=np.intp)
    j = np.empty(P, dtype=np.intp)
    ai = np.empty(P)
    aj = np.empty(P)
    for r0, p0, M in pieces:
        C = sp.csc_matrix(M)
        C.sort_indices()
        if not np.all(np.diff(C.indptr) == 2):
            return None
        rows = slice(p0, p0 + C.shape[1])
        i[rows] = C.indices[0::2] + r0
        j[rows] = C.indices[1::2] + r0
        ai[rows] = C.data[0::2]
        aj[rows] = C.data[1::2]
    return i, j, ai, aj


def band_deflation(
    ends: tuple[np.ndarray, ...],
    starts: np.ndarray,
    link: np.ndarray,
    u: np.ndarray,
    D: np.ndarray,
    E: np.ndarray,
    diag: np.ndarray,
) -> BandDeflation | None:
    """The near-null directions u_C to pin at this iterate (module docstring), or None."""
    i, j, ai, aj = ends
    K = u.size
    tight = np.flatnonzero(D > TIGHT_RATIO * np.maximum(E[i], E[j]))
    if tight.size == 0:
        return None
    graph = sp.csr_matrix((np.ones(tight.size), (i[tight], j[tight])), shape=(K, K))
    _, labels = connected_components(graph, directed=False)
    sizes = np.bincount(labels)
    nodes = np.flatnonzero(sizes[labels] >= 2)
    if nodes.size == 0:
        return None
    _, cn = np.unique(labels[nodes], return_inverse=True)
    ncomp = int(cn.max()) + 1
    cid = np.full(K, -1, dtype=np.intp)
    cid[nodes] = cn
    norms = np.sqrt(np.bincount(cn, weights=u[nodes] ** 2, minlength=ncomp))
    uval = np.zeros(K)
    uval[nodes] = u[nodes] / norms[cn]
    # the rows touching a component, with (G u_C)_p for the component at each end
    ci, cj = cid[i], cid[j]
    p = np.flatnonzero((ci >= 0) | (cj >= 0))
    ci, cj = ci[p], cj[p]
    inside = (ci >= 0) & (ci == cj)
    m1 = ci >= 0
    m2 = (cj >= 0) & ~inside
    g1 = np.where(
        inside, _pair_sum(ai[p], u[i[p]], aj[p], u[j[p]]) / norms[np.maximum(ci, 0)], ai[p] * uval[i[p]]
    )[m1]
    g2 = (aj[p] * uval[j[p]])[m2]
    rows = np.concatenate([p[m1], p[m2]])
    comps = np.concatenate([ci[m1], cj[m2]])
    Dg = D[rows] * np.concatenate([g1, g2])
    rq = np.bincount(comps, weights=Dg * np.concatenate([g1, g2]), minlength=ncomp)
    rq += np.bincount(cn, weights=E[nodes] * uval[nodes] ** 2, minlength=ncomp)
    dmax = np.zeros(ncomp)
    np.maximum.at(dmax, cn, diag[nodes])
    ratio = rq / dmax
    keep = np.flatnonzero(ratio < DEFLATION_CUTOFF)
    if keep.size == 0:
        return None
    if keep.size > MAX_DIRECTIONS:
        keep = keep[np.argsort(ratio[keep], kind="stable")[:MAX_DIRECTIONS]]
    # pins: each kept component's largest entry
    by_u = nodes[np.argsort(uval[nodes], kind="stable")]
    pin_of = np.empty(ncomp, dtype=np.intp)
    pin_of[cid[by_u]] = by_u  # the last (largest) wins
    block_of = np.searchsorted(starts, pin_of[keep], side="right") - 1
    order = keep[np.argsort(block_of, kind="stable")]
    k = order.size
    slot = np.full(ncomp, -1, dtype=np.intp)
    slot[order] = np.arange(k)
    pins = pin_of[order]
    # H u_C = Gᵀ(D G u_C) + E u_C for the kept components, one CSR row each
    sel = slot[comps] >= 0
    r_s, k_s, v_s = rows[sel], slot[comps[sel]], Dg[sel]
    member = nodes[slot[cn] >= 0]
    hu = sp.csr_matrix(
        (
            np.concatenate([ai[r_s] * v_s, aj[r_s] * v_s, E[member] * uval[member]]),
            (
                np.concatenate([k_s, k_s, slot[cid[member]]]),
                np.concatenate([i[r_s], j[r_s], member]),
            ),
        ),
        shape=(k, K),
    )
    return BandDeflation(
        pins, dmax[order], uval[pins], np.searchsorted(starts, pins, side="right") - 1, hu, link
    )


_SPLIT = 134217729.0  # 2**27 + 1 (Veltkamp's splitting of a double into two halves of 26 bits)


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, e) with p = fl(a b) and p + e = a b exactly (Dekker), elementwise."""
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _pair_sum(a: np.ndarray, x: np.ndarray, b: np.ndarray, y: np.ndarray) -> np.ndarray:
    """a x + b y to about one rounding of the *result* (compensated: Dekker's products, Knuth's sum), where the
    two products nearly cancel (a tight row's G u, which plain floating point gets to ε|a x| only)."""
    p, e = _two_product(a, x)
    q, f = _two_product(b, y)
    s = p + q
    z = s - p
    return s + (((p - (s - z)) + (q - z)) + (e + f))


def symmetric_solver(build: Callable[[], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """r ↦ T⁻¹r for the bordered system's k×k matrix T = ``build()`` (Fortran order, its lower triangle read):
    Cholesky in T's own storage (it is positive definite in exact arithmetic), or, where rounding leaves it
    indefinite, LU of T built again and symmetrised (peak memory: one k×k array, about 70 MB at k = 3 000)."""
    try:
        cho = sla.cho_factor(build(), lower=True, overwrite_a=True, check_finite=False)
        return lambda r: sla.cho_solve(cho, r, check_finite=False)
    except np.linalg.LinAlgError:
        T = build()
        k = T.shape[0]
        for c0 in range(0, k, _SYMMETRISE_COLUMNS):  # the upper triangle from the lower, a strip at a time
            c1 = min(k, c0 + _SYMMETRISE_COLUMNS)
            T[c0:c1, c1:] = T[c1:, c0:c1].T
            T[c0:c1, c0:c1] = np.tril(T[c0:c1, c0:c1]) + np.tril(T[c0:c1, c0:c1], -1).T
        lu = sla.lu_factor(T, overwrite_a=True, check_finite=False)
        return lambda r: sla.lu_solve(lu, r, check_finite=False)


_SYMMETRISE_COLUMNS = 512


class PinnedBorder:
    """The bordered part of a layered factorisation with pinned directions (module docstring): W = AQ, the k×k
    matrix C⁻¹ + WᵀŜ⁻¹W factorised, and Ŝ⁻¹W.

    Q = Ĥ⁻¹E is formed block by block for W and C⁻¹ and not kept (peak memory: Σ_b n_b k_b doubles, 111 MiB at
    m = 2, n = 150): a Newton solve needs only Qᵀf = (Ĥ⁻¹f) at the pins, which its forward solve computes, and
    Δu = Ĥ⁻¹(f − AᵀΔν) + Qt = Ĥ⁻¹(f − AᵀΔν + Et), its backward solve with t added at the pins
    (:class:`problems.ipm.layered.LayeredFactor`)."""

    def __init__(self, defl: BandDeflation, starts: np.ndarray, E: int, solve_block, S_cho) -> None:  # noqa: ANN001
        k = defl.pins.size
        self.pins = defl.pins
        W = np.zeros((E, k), order="F")
        blocks: list[tuple[int, int, np.ndarray]] = []  # C⁻¹ is block diagonal: one k_b × k_b part per block
        bounds = np.flatnonzero(np.diff(np.concatenate([[-1], defl.block, [np.iinfo(np.intp).max]])))
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            b = int(defl.block[lo])
            s0, s1 = int(starts[b]), int(starts[b + 1])
            Q = np.zeros((s1 - s0, hi - lo), order="F")
            Q[defl.pins[lo:hi] - s0, np.arange(hi - lo)] = 1.0
            solve_block(b, Q)
            A_b = sp.csr_matrix(
                (np.ones(s1 - s0), (defl.link[s0:s1], np.arange(s1 - s0))), shape=(E, s1 - s0)
            )
            W[:, lo:hi] = A_b @ Q
            Cb = (defl.hu[lo:hi, s0:s1] @ Q) / (defl.tau[lo:hi] * defl.upin[lo:hi])[:, None]
            blocks.append((lo, hi, 0.5 * (Cb + Cb.T)))
            del Q
        # WᵀŜ⁻¹W = VᵀV with V = L⁻¹W (Ŝ = LLᵀ): exactly symmetric, one triangle formed (BLAS syrk)
        L = S_cho[0]
        V = sla.solve_triangular(L, W, lower=True, check_finite=False)
        self.SW = sla.solve_triangular(L, V, lower=True, trans="T", check_finite=False)

        def build() -> np.ndarray:
            T = sla.blas.dsyrk(1.0, V, trans=1, lower=1)
            for lo, hi, Cb in blocks:
                T[lo:hi, lo:hi] += np.tril(Cb)
            return T

        self._solve_T = symmetric_solver(build)
        self.W, self.S_cho = W, S_cho

    def coupling(self, rhs1: np.ndarray, qtf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(Δν, t) of the bordered system, from r₁ and Qᵀf = (Ĥ⁻¹f) at the pins."""
        y = sla.cho_solve(self.S_cho, rhs1, check_finite=False)
        t = self._solve_T(qtf - self.W.T @ y)
        return y + self.SW @ t, t
