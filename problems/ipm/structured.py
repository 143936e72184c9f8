r"""A structure-exploiting primal–dual interior-point method for the row-normalised ratio LP.

The LP (:class:`~problems.lp.spec.RatioLPSpec` of a dense program with row sums) is, in :math:`Z\in\mathbb{R}^{N\times N}`,

.. math::

    \min_Z \langle C, Z\rangle \quad\text{s.t.}\quad
    Z(i_p,y) - r\kappa_p Z(j_p,y) \le 0\ \ (p = 1..P,\ y = 1..N),\qquad
    \textstyle\sum_y Z(x,y) = b_x,\qquad Z \ge 0 .

**Block structure.**  Write :math:`z_y = Z(\cdot,y)` for column y.  The ratio constraints act on each column
separately with the *same* matrix :math:`G_0\in\mathbb{R}^{P\times N}` (row p has :math:`+1` at :math:`i_p`
and :math:`-r\kappa_p` at :math:`j_p`), and the row sums are :math:`\sum_y z_y = b`.  So the LP is
block-angular: N independent blocks coupled only by N linking equalities :math:`\sum_y I\,z_y = b`.

**Method.**  Mehrotra's predictor–corrector infeasible primal–dual method on

.. math::

    G z + w = 0,\ w \ge 0,\quad A z = b,\quad z \ge 0;\qquad
    c + A^\top\nu + G^\top\lambda - s = 0,\ \lambda, s \ge 0,

with :math:`\lambda\circ w = s\circ z = \sigma\mu`.  Eliminating :math:`\Delta s, \Delta w, \Delta\lambda`
leaves the normal equations :math:`H\Delta z + A^\top\Delta\nu = f`, :math:`A\Delta z = g` with
:math:`H = G^\top D G + E` (:math:`D = \Lambda W^{-1}`, :math:`E = S Z^{-1}` diagonal), which is
**block diagonal**: :math:`H_y = G_0^\top D_y G_0 + E_y` (N×N, SPD).  Then
:math:`\Delta z_y = H_y^{-1}(f_y - \Delta\nu)` and the linking rows give the dense N×N Schur complement

.. math::

    \Big(\sum_y H_y^{-1}\Big)\,\Delta\nu = \sum_y H_y^{-1} f_y - g .

Per iteration: N dense Cholesky factorisations and inversions of N×N matrices (LAPACK ``potrf``/``potri``,
:math:`\approx N^4` flops in total), one N×N Cholesky, and batched matrix–vector products.  A general sparse
LDLᵀ of the whole KKT system (Clarabel/QDLDL) does the same elimination without dense kernels and is ~10–30×
slower here.  The iteration (predictor, corrector, Gondzio centrality correctors sharing one factorisation,
iterative refinement on the unreduced KKT residual) is :func:`~problems.ipm.iteration.solve_block_angular`,
shared with the orbit-reduced block methods; this module supplies the dense block system it runs on.

**Parallelism.**  The blocks are factorised on one Python thread per core (at most 4) calling LAPACKE through
ctypes (which releases the GIL; :func:`~problems.ipm.lapack.lapack_kernels`), and each Newton solve works on chunks of columns on
a thread pool (NumPy releases the GIL in its kernels).  OpenBLAS's own threads are held at one meanwhile.

**Degeneracy.**  Near the optimum the blocks :math:`H_y` have near-null directions (connected sets of tight
ratio rows) that Cholesky resolves only by cancellation, and :math:`\sum_y H_y^{-1}` becomes singular to
working precision.  These directions are deflated (:func:`_deflation`) and the Schur complement is replaced by
a bordered system (:class:`_BlockFactor`), so that no huge quantity is ever formed.

**Exactness.**  Nothing is approximated: the method solves the same LP, and its output is checked by the
toolkit's rigorous bounds (:mod:`problems.lp.bounds`, through the chain of :mod:`problems.lp`) computed from the returned
:math:`(z, \nu, \lambda, s)` in exactly the layout and sign convention of the CVXPY path
(:math:`c + A^\top\nu + G^\top\lambda - s = 0`, :math:`\lambda` ordered ``p*N + y``).

**Scaling.**  Internally the cost is divided by :math:`\max|C|` and each ratio row by
:math:`\max(1, r\kappa_p)` (this does not change the feasible set); the multipliers are mapped back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import cast

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.linalg import lapack

from ..errors import ProblemTooLargeError
from .iteration import (  # noqa: F401 - the iteration's names, re-exported for the dense method's callers
    BLAS_THREADS,
    ENOUGH_GAP,
    REFINE_CONTRACTION,
    REFINE_STEPS,
    SOLVER_NAME,
    BlockSystem,
    solve_block_angular,
)
from .lapack import BlasThreads, lapack_kernels
from .rows import abs_product, reverse_pairs, scaled_ratio_rows  # noqa: F401 - reverse_pairs re-exported
from .schur import schur_cholesky
from .shift import TRIES, shifted

__all__ = ["solve_ratio_lp_structured", "StructuredIPMData", "SOLVER_NAME"]

#: leave out the rows Z ≥ 0 when the ratio rows imply them (ε ≥ IMPLIED_BOUNDS_MIN_EPS): s ≡ 0
DROP_IMPLIED_BOUNDS = True
IMPLIED_BOUNDS_MIN_EPS = 0.05
#: a near-null direction u of H_y is deflated when uᵀH_yu < DEFLATION_CUTOFF · max diag(H_y)
DEFLATION_CUTOFF = 1e-7
#: largest N³ buffer of block inverses (bytes); above it the method refuses (N = 512 needs 1.07 GB)
MAX_BUFFER_BYTES = 4e9


class StructuredIPMData:
    r"""Per-column data of the block-angular LP at a fixed :math:`r = e^\epsilon`.

    Parameters
    ----------
    cost:
        ``(N, N)`` cost C (row x, column y).
    b:
        ``(N,)`` row sums.
    pi, pj, kappa:
        Ordered neighbour pairs and per-pair factors κ_p (length P).
    r:
        :math:`e^{\epsilon}`.
    """

    def __init__(
        self,
        cost: np.ndarray,
        b: np.ndarray,
        pi: np.ndarray,
        pj: np.ndarray,
        kappa: np.ndarray,
        r: float,
        *,
        bounded: bool = True,
    ) -> None:
        N = cost.shape[0]
        self.bounded = bool(bounded)
        self.refine_steps = REFINE_STEPS
        self.refine_contraction = REFINE_CONTRACTION
        need = 8.0 * N**3
        if need > MAX_BUFFER_BYTES:
            raise ProblemTooLargeError(
                f"the structured method needs an N³ buffer of {need / 1e9:.1f} GB at N = {N} "
                f"(limit {MAX_BUFFER_BYTES / 1e9:.1f} GB)",
                size=N,
            )
        self._hinv_buffer: np.ndarray | None = None
        P = pi.size
        self.N, self.P = N, P
        self.pi, self.pj = np.asarray(pi, dtype=np.intp), np.asarray(pj, dtype=np.intp)
        self.r = float(r)
        rows = scaled_ratio_rows(self.pi, self.pj, kappa, self.r, N)
        self.row_scale, self.a_i, self.a_j, self.G0T, self.G0sqT, self.offprod, self.rev = rows
        self.cost_scale = float(np.max(np.abs(cost))) or 1.0
        # block layout: index [y, x]
        self.ct = np.ascontiguousarray(cost.T) / self.cost_scale
        self.b = np.asarray(b, dtype=float)

    # --- the block-system protocol used by solve_block_angular (also implemented by
    # problems.ipm.block.RaggedBlockSystem) ---
    def start(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Starting point (z, w, λ, s, ν): z uniform in each row (Az = b), slacks and multipliers positive."""
        N, P = self.N, self.P
        zt = np.broadcast_to(self.b / N, (N, N)).copy()
        w = np.maximum(-self.G(zt), 0.0) + 1.0 / N
        s = np.ones((N, N)) if self.bounded else np.zeros((N, N))
        return zt, w, np.ones((N, P)), s, np.zeros(N)

    def bounds_implied(self) -> bool:
        """True if Z ≥ 0 follows from the ratio rows: every pair has its reverse with κ_p κ_p' = 1 and r > 1."""
        return self.r > 1.0 and bool(
            np.allclose(self.a_j * self.a_j[self.rev], self.r**2 * self.a_i * self.a_i[self.rev])
        )

    def A(self, zt: np.ndarray) -> np.ndarray:
        """The linking rows A z = Σ_y z_y (also on a chunk of blocks: its partial sum)."""
        return zt.sum(axis=0)

    def AT(self, nu: np.ndarray) -> np.ndarray:
        """Aᵀν in block layout (broadcast over the blocks)."""
        return nu[None, :]

    def chunks(self, k: int) -> list[slice]:
        """At most k slices of the blocks (first axis), for the Newton solves on a thread pool."""
        edges = np.linspace(0, self.N, k + 1).astype(int)
        return [slice(int(lo), int(hi)) for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo]

    def factor(
        self,
        diag: np.ndarray,
        off: np.ndarray,
        threads: int,
        deflation: dict | None,
        pool=None,  # noqa: ANN001
    ) -> _BlockFactor:
        """Factorisation of the reduced Newton system (:class:`_BlockFactor`; it uses its own threads)."""
        return _BlockFactor(self, diag, off, threads, deflation)

    def deflation(self, zt, w, r_g, D, E, diag) -> dict:  # noqa: ANN001
        """Near-null directions of the blocks (:func:`_deflation`)."""
        return _deflation(
            self, zt, w, r_g, D, E, diag, cutoff=DEFLATION_CUTOFF, floor=0.0 if self.bounded else 1.0
        )

    # --- operators in block layout (arrays indexed [y, ·]) ---
    def G(self, zt: np.ndarray) -> np.ndarray:
        """(G z) as an (N_y, P) array: scaled ratio rows of every column."""
        return zt[:, self.pi] * self.a_i + zt[:, self.pj] * self.a_j

    def GT(self, v: np.ndarray) -> np.ndarray:
        """Gᵀ v for v of shape (N_y, P); result (N_y, N_x)."""
        return np.asarray((self.G0T @ v.T).T)

    def GT_abs(self, v: np.ndarray) -> np.ndarray:
        """|G|ᵀ v (the sizes of the terms of Gᵀv), same layout as :meth:`GT`."""
        return np.asarray(abs_product(self.G0T, v.T).T)

    def H_parts(self, D: np.ndarray, E: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Diagonal (N_y, N) and pair-indexed off-diagonal (N_y, P) entries of H_y = G0ᵀ D_y G0 + E_y."""
        diag = np.asarray((self.G0sqT @ D.T).T) + E
        off = self.offprod * D
        off = off + off[:, self.rev]
        return diag, off


class _BlockFactor:
    r"""Factorisation of the reduced Newton system :math:`H_y\Delta z_y + \Delta\nu = f_y`, :math:`\sum_y\Delta z_y = g`.

    Without deflation: explicit inverses :math:`H_y^{-1}` (LAPACK ``potrf``/``potri``) and the Cholesky factor of
    the Schur complement :math:`S = \sum_y H_y^{-1}`.

    With deflation (see :func:`_deflation`): :math:`H_y^{-1} = \hat H_y^{-1} + V_y\,C_y\,V_y^\top` with
    :math:`C_y = \tau M_y^{-1}` huge.  Writing :math:`t_y = C_y V_y^\top(f_y - \Delta\nu)` (moderate: the
    step along the near-null directions) gives the bordered system

    .. math::

        \hat S\,\Delta\nu - W t = \textstyle\sum_y \hat H_y^{-1} f_y - g,\qquad
        W^\top\Delta\nu + C^{-1} t = W^\top f,

    with :math:`\hat S = \sum_y \hat H_y^{-1}`, :math:`W = [V_y]` (zero outside block y's own rows of f) and
    :math:`C^{-1} = \operatorname{diag}(M_y/\tau)` small and accurately computed; it is solved through the
    K×K matrix :math:`T = W^\top\hat S^{-1}W + C^{-1}` (K = number of near-null directions).  No huge
    number is formed, so the step is accurate where the plain Schur complement is singular to working precision.
    Then :math:`\Delta z_y = \hat H_y^{-1}(f_y - \Delta\nu) + V_y t_y`.

    ``Hinv`` is the data object's reusable N³ buffer, so a new factorisation of the same data overwrites the
    previous one (the iteration uses one at a time).
    Each block is factorised in place in ``Hinv[y]`` (the C-order array is the Fortran-order transpose, and
    :math:`H_y` is symmetric).  A block that is not numerically positive definite is retried alone with a
    growing diagonal shift relative to each entry (:mod:`problems.ipm.shift`; the refinement on the unreduced
    residual absorbs the perturbation).  The blocks
    are split over ``threads`` Python threads when LAPACK can be called without holding the GIL
    (:func:`_lapack_kernels`).
    """

    def __init__(
        self,
        data: StructuredIPMData,
        diag: np.ndarray,
        off: np.ndarray,
        threads: int,
        deflation: dict[int, tuple[np.ndarray, float, np.ndarray]] | None = None,
    ) -> None:
        N = data.N
        deflation = deflation or {}
        self.N = N
        # one N³ buffer per LP, reused by every iteration (a fresh 8N³-byte array is mapped and page-faulted
        # anew each time: 134 MB at N = 256)
        if data._hinv_buffer is None or data._hinv_buffer.shape != (N, N, N):
            data._hinv_buffer = np.empty((N, N, N))
        self.Hinv = data._hinv_buffer
        pi, pj = data.pi, data.pj
        idx = np.arange(N)
        failed: list[int] = []
        border: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        lower = np.tri(N, k=-1, dtype=bool)
        kernels = lapack_kernels()
        self.shifted = 0

        def factor(out: np.ndarray) -> tuple[np.ndarray | None, int]:
            """Cholesky factor of the symmetric ``out`` in place; returns (factor for potrs, info)."""
            if kernels is not None:
                return out, kernels.potrf(out)
            c, info = lapack.dpotrf(out.T, lower=1, clean=0, overwrite_a=1)
            if not np.shares_memory(c, out):
                out[...] = c.T
            return out, info

        def invert(out: np.ndarray) -> int:
            if kernels is not None:
                return kernels.potri(out)
            inv, info = lapack.dpotri(out.T, lower=1, overwrite_c=1)
            if not np.shares_memory(inv, out):
                out[...] = inv.T
            return info

        def fill(out: np.ndarray, y: int, delta: float) -> None:
            out.fill(0.0)
            out[pi, pj] = off[y]
            out[idx, idx] = shifted(diag[y], delta)
            dfl = deflation.get(y)
            if dfl is not None:
                U, tau, _ = dfl
                out += tau * (U @ U.T)

        def work(ys: range) -> np.ndarray:
            S_loc = np.zeros((N, N))
            for y in ys:
                out = self.Hinv[y]
                for delta in TRIES:
                    fill(out, y, delta)
                    _, info = factor(out)
                    if info == 0:
                        break
                if info != 0:
                    failed.append(y)
                    return S_loc
                if delta:
                    self.shifted += 1
                dfl = deflation.get(y)
                if dfl is not None:
                    U, tau, HU = dfl
                    # out holds the factor in its Fortran-order lower triangle: potrs on out.T
                    V, _ = lapack.dpotrs(out.T, U, lower=1)
                    M = HU.T @ V
                    border[y] = (np.ascontiguousarray(V), 0.5 * (M + M.T) / tau)
                if invert(out) != 0:
                    failed.append(y)
                    return S_loc
                # the inverse is in the C-order upper triangle; mirror it into the lower one
                np.copyto(out, out.T, where=lower)
                S_loc += out
            return S_loc

        if threads > 1 and N >= 64 and kernels is not None:
            chunks = [range(k, N, threads) for k in range(threads)]
            with ThreadPoolExecutor(threads) as ex:
                parts = list(ex.map(work, chunks))
            S = cast(np.ndarray, sum(parts))
        else:
            S = work(range(N))
        if failed:
            raise np.linalg.LinAlgError(f"block {failed[0]} of the normal equations is not positive definite")
        self.S_cho = schur_cholesky(S)
        self.blocks = sorted(border)
        if self.blocks:
            self.V = [border[y][0] for y in self.blocks]
            self.sizes = [v.shape[1] for v in self.V]
            self.W = np.hstack(self.V)  # (N, K)
            Cinv = sla.block_diag(*[border[y][1] for y in self.blocks])
            SiW = sla.cho_solve(self.S_cho, self.W, check_finite=False)
            T = self.W.T @ SiW + Cinv
            self.T_lu = sla.lu_factor(0.5 * (T + T.T), check_finite=False)
            self.bounds = np.cumsum([0] + self.sizes)

    def hinv(self, v: np.ndarray, rows: slice = slice(None)) -> np.ndarray:
        """Block-wise Ĥ_y⁻¹ v_y for the blocks ``rows`` (v of shape (len(rows), N_x))."""
        return np.matmul(self.Hinv[rows], v[:, :, None])[:, :, 0]

    def hinv_common(self, u: np.ndarray, rows: slice = slice(None)) -> np.ndarray:
        """Ĥ_y⁻¹ u for one vector u and every block in ``rows``: one matrix–vector product."""
        H = self.Hinv[rows]
        return (H.reshape(-1, self.N) @ u).reshape(H.shape[0], self.N)

    def forward(self, fc: np.ndarray, c: slice, work: np.ndarray) -> np.ndarray:
        """First half of a Newton solve on the blocks ``c``: keeps Ĥ⁻¹f in ``work``, returns its part of AĤ⁻¹f."""
        work[c] = self.hinv(fc, c)
        return work[c].sum(axis=0)

    def backward(self, fc: np.ndarray, dnu: np.ndarray, c: slice, work: np.ndarray) -> np.ndarray:
        """Second half: Δz = Ĥ⁻¹(f − AᵀΔν) on the blocks ``c`` (before the bordered directions)."""
        return work[c] - self.hinv_common(dnu, c)

    def coupling(self, rhs1: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        r"""Δν (and the bordered coefficients t) from :math:`\sum_y \hat H_y^{-1} f_y - g` = ``rhs1``."""
        if not self.blocks:
            return sla.cho_solve(self.S_cho, rhs1, check_finite=False), None
        Wf = np.concatenate([V.T @ f[y] for V, y in zip(self.V, self.blocks)])
        Sr = sla.cho_solve(self.S_cho, rhs1, check_finite=False)
        tt = sla.lu_solve(self.T_lu, Wf - self.W.T @ Sr, check_finite=False)
        return Sr + sla.cho_solve(self.S_cho, self.W @ tt, check_finite=False), tt

    def border(self, dz: np.ndarray, tt: np.ndarray | None) -> None:
        """Add the deflated directions V_y t_y to Δz (in place)."""
        if tt is None:
            return
        for k, y in enumerate(self.blocks):
            dz[y] += self.V[k] @ tt[self.bounds[k] : self.bounds[k + 1]]

    def solve(self, f: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""Solve :math:`H_y\Delta z_y + \Delta\nu = f_y`, :math:`\sum_y \Delta z_y = g`."""
        Hf = self.hinv(f)
        dnu, tt = self.coupling(Hf.sum(axis=0) - g, f)
        dz = Hf - self.hinv_common(dnu)
        self.border(dz, tt)
        return dz, dnu


def _deflation(
    data: StructuredIPMData,
    zt: np.ndarray,
    w: np.ndarray,
    r_g: np.ndarray,
    D: np.ndarray,
    E: np.ndarray,
    diag: np.ndarray,
    ratio: float = 1e3,
    cutoff: float = DEFLATION_CUTOFF,
    floor: float = 0.0,
) -> dict[int, tuple[np.ndarray, float, np.ndarray]]:
    r"""Near-null subspaces of the blocks :math:`H_y`, to be factorised without cancellation.

    Late in the method, a ratio row p of column y is *tight* (:math:`D_p \gg E` at both ends).  On a connected
    set K of tight rows the big part :math:`G_0^\top D G_0` nearly annihilates :math:`u = z_y|_K` (because
    :math:`G_0 z_y = r_g - w` and :math:`D w = \lambda`), so :math:`u^\top H_y u` is tiny while
    :math:`\|H_y\| \sim \max D`: Cholesky would compute that pivot by cancellation.  With U the normalised
    such vectors (disjoint supports, so orthonormal), :math:`\hat H = H_y + \tau UU^\top` (well conditioned)
    and :math:`V = \hat H^{-1}U`, Woodbury's identity and :math:`U^\top V = \tau^{-1}(I - (H_yU)^\top V)` give

    .. math:: H_y^{-1} = \hat H^{-1} + \tau\, V\,\big((H_yU)^\top V\big)^{-1} V^\top ,

    exact for any U; :math:`H_yU` is formed with sparse products using :math:`D_p(G_0u)_p = D_p(r_g-w)_p/\|z_K\|`
    on rows inside K, so no large cancelling terms appear.  Returns ``{y: (U, τ, H_yU)}``.
    """
    from scipy.sparse.csgraph import connected_components

    N = data.N
    # a row is tight when D dominates E at both ends (and exceeds ``floor``: without bounds E = 0)
    tight = D > np.maximum(ratio * np.maximum(E[:, data.pi], E[:, data.pj]), floor)
    yy, pp = np.nonzero(tight)
    if yy.size == 0:
        return {}
    graph = sp.csr_matrix(
        (np.ones(yy.size), (yy * N + data.pi[pp], yy * N + data.pj[pp])), shape=(N * N, N * N)
    )
    _, labels = connected_components(graph, directed=False)
    sizes = np.bincount(labels)
    # nodes (y, x) -> flat y*N + x in components of at least two nodes; compact component ids
    nodes = np.flatnonzero(sizes[labels] >= 2)
    comp_label, cid_nodes = np.unique(labels[nodes], return_inverse=True)
    C = comp_label.size
    comp_y = np.empty(C, dtype=np.intp)
    comp_y[cid_nodes] = nodes // N
    # columns with too many components are left to the plain factorisation (bordered system stays small)
    per_col = np.bincount(comp_y, minlength=N)
    ok = per_col[comp_y] <= 64
    cid = np.full(N * N, -1, dtype=np.intp)
    cid[nodes] = np.where(ok[cid_nodes], cid_nodes, -1)
    zf = zt.ravel()
    norms = np.sqrt(np.bincount(cid_nodes, weights=zf[nodes] ** 2, minlength=C))
    u = np.zeros(N * N)
    u[nodes] = zf[nodes] / norms[cid_nodes]
    # rows (y, p) of the ratio constraints touching a component
    cid2 = cid.reshape(N, N)
    ci_all, cj_all = cid2[:, data.pi], cid2[:, data.pj]  # (N_y, P)
    Y, p = np.nonzero((ci_all >= 0) | (cj_all >= 0))
    ci, cj = ci_all[Y, p], cj_all[Y, p]
    ni, nj = Y * N + data.pi[p], Y * N + data.pj[p]
    Dyp = D[Y, p]
    inside = (ci >= 0) & (ci == cj)
    # g = (G0 u_c)_p for c = ci (both ends when inside: exactly (r_g − w)_p/‖z_K‖) and for c = cj
    m1 = ci >= 0
    m2 = (cj >= 0) & ~inside
    g1 = np.where(inside, (r_g[Y, p] - w[Y, p]) / norms[np.maximum(ci, 0)], data.a_i[p] * u[ni])[m1]
    g2 = (data.a_j[p] * u[nj])[m2]
    rows = np.concatenate([np.flatnonzero(m1), np.flatnonzero(m2)])
    comps = np.concatenate([ci[m1], cj[m2]])
    g = np.concatenate([g1, g2])
    Dg = Dyp[rows] * g
    member = nodes[cid[nodes] >= 0]
    Eu = E.ravel()[member] * u[member]
    # Rayleigh quotients uᵀH_yu = Σ_p D_p (G0u)_p² + Σ E u²
    rq = np.bincount(comps, weights=Dg * g, minlength=C) + np.bincount(
        cid[member], weights=Eu * u[member], minlength=C
    )
    tau_y = np.max(diag, axis=1)
    # only directions whose Rayleigh quotient Cholesky would resolve to worse than ~eps/cutoff are deflated;
    # the rest are left to the plain factorisation (keeps the bordered system small)
    keep = ok & (rq < cutoff * tau_y[comp_y])
    kept = np.flatnonzero(keep)
    if kept.size == 0:
        return {}
    order = kept[np.argsort(comp_y[kept], kind="stable")]
    slot = np.full(C, -1, dtype=np.intp)
    slot[order] = np.arange(order.size)
    K = order.size
    # H_yU = G0ᵀ (D G0 U) + E U for the kept components only, accumulated on (x, slot)
    sel = slot[comps] >= 0
    r_s, k_s, v_s = rows[sel], slot[comps[sel]], Dg[sel]
    ps = p[r_s]
    flat = np.concatenate([data.pi[ps] * K + k_s, data.pj[ps] * K + k_s])
    vals = np.concatenate([data.a_i[ps] * v_s, data.a_j[ps] * v_s])
    msel = slot[cid[member]] >= 0
    mk = member[msel]
    flat = np.concatenate([flat, (mk % N) * K + slot[cid[mk]]])
    vals = np.concatenate([vals, Eu[msel]])
    HUd = np.bincount(flat, weights=vals, minlength=N * K).reshape(N, K)
    Ud = np.zeros((N, K))
    Ud[mk % N, slot[cid[mk]]] = u[mk]
    out: dict[int, tuple[np.ndarray, float, np.ndarray]] = {}
    ys = comp_y[order]
    bounds = np.flatnonzero(np.diff(np.concatenate([[-1], ys, [N + 1]])))
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        y = int(ys[lo])
        out[y] = (np.ascontiguousarray(Ud[:, lo:hi]), float(tau_y[y]), np.ascontiguousarray(HUd[:, lo:hi]))
    return out


def solve_ratio_lp_structured(
    cost: np.ndarray,
    b: np.ndarray,
    pi: np.ndarray,
    pj: np.ndarray,
    kappa: np.ndarray,
    eps: float,
    *,
    program: str = "ratio-lp",
    tol: float = 1e-9,
    max_iter: int = 100,
    threads: int | None = None,
    time_limit: float | None = None,
    enough: Callable[[np.ndarray, np.ndarray, np.ndarray], bool] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, float]:
    r"""Solve the row-normalised ratio LP (``cost`` N×N, row sums ``b``, pairs (pi, pj) with factors κ) at ε.

    Returns ``(z, nu, lam, s, iterations, seconds)``: ``z`` is ``Z.ravel()`` (index ``x*N + y``), ``nu`` the
    (N,) row-sum multipliers, ``lam`` the (P·N,) ratio multipliers (row ``p*N + y``, for
    ``Z[pi_p, y] − rκ_p Z[pj_p, y] ≤ 0``), ``s`` the (N²,) multipliers of ``z ≥ 0``, with
    :math:`c + A^\top\nu + G^\top\lambda - s = 0`.  ``enough(z, ν, λ)`` (in these outputs' layout) may end the
    iteration early (:func:`solve_block_angular`).

    Raises
    ------
    SolverFailedError
        If the method does not reach ``tol`` within ``max_iter`` iterations or ``time_limit`` seconds.
    ProblemTooLargeError
        If the N³ buffer would exceed :data:`MAX_BUFFER_BYTES`.
    """
    t0 = time.perf_counter()
    r = float(np.exp(eps))
    data = StructuredIPMData(np.asarray(cost, dtype=float), b, pi, pj, kappa, r)
    if DROP_IMPLIED_BOUNDS and eps >= IMPLIED_BOUNDS_MIN_EPS and data.bounds_implied():
        data.bounded = False
    cs = data.cost_scale

    def unscaled(zt, nu, lam, s) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # noqa: ANN001
        z = np.ascontiguousarray(zt.T).ravel()
        # scaled row p = g_p·(original row p)  ⇒  original multiplier = g_p · scaled multiplier
        lam_out = (lam * data.row_scale[None, :] * cs).T.ravel()  # (P, N) -> p*N + y
        return z, nu * cs, lam_out, np.ascontiguousarray(s.T).ravel() * cs

    def stop(zt, nu, lam, s) -> bool:  # noqa: ANN001 - the caller's test, on the unscaled iterate
        assert enough is not None  # passed only when given
        return bool(enough(*unscaled(zt, nu, lam, s)[:3]))

    with BlasThreads(BLAS_THREADS):
        zt, nu, lam, s, iters = solve_block_angular(
            data,
            tol=tol,
            max_iter=max_iter,
            threads=threads,
            program=program,
            time_limit=time_limit,
            enough=None if enough is None else stop,
        )
    return (*unscaled(zt, nu, lam, s), iters, time.perf_counter() - t0)
