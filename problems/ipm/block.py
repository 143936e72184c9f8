r"""The block-angular interior-point method for the orbit-reduced LPs: blocks of different sizes.

The reduced LPs of :mod:`problems.orbit.reduced_lp` have the same shape as the dense ratio LP of
:mod:`problems.ipm.structured`:

.. math::

    \min_u c^\top u \quad\text{s.t.}\quad A u = b,\qquad G u \le 0,\qquad u \ge 0,

with the ratio rows :math:`G` (one per move, :math:`u_s - r\kappa_p u_d`) *block diagonal*: a move changes
the type of x but never the type of y (it changes one row of x while y stays), so every move stays inside the
set of joint types with one column-sum vector t(y).  The blocks are the connected components of the move graph
(found here, not assumed): for PD-DP/PD-I with m = 3, n = 10 there are 66 of them, of 66 to 1 500 joint
types.  The E linking rows :math:`Au = b` (one per x-type) couple the blocks.

Eliminating the slacks as in :mod:`~problems.ipm.structured` leaves
:math:`H\Delta u + A^\top\Delta\nu = f`, :math:`A\Delta u = g` with :math:`H = G^\top DG + \mathrm{diag}(s/u)`
block diagonal.  Per iteration and block b this module forms :math:`H_b` densely (its Cholesky factor is
nearly dense anyway: each block is a product of m simplex lattices), factorises it (``potrf``), and solves
for the linking columns, :math:`Y_b = H_b^{-1}A_b^\top` (``potrs`` with e_b ≤ E right-hand sides), which gives
the E×E Schur complement :math:`S = \sum_b A_bY_b`.  A Newton solve then costs one product
:math:`Y_b^\top f_b` (the right-hand side :math:`AH^{-1}f`) and one ``potrs`` per block,
:math:`\Delta u_b = H_b^{-1}(f_b - A_b^\top\Delta\nu)`.  Blocks are spread over one Python thread per
available core, at most 4; the LAPACK calls go through ctypes and release the GIL
(:func:`~problems.ipm.lapack.lapack_kernels`).

Blocks of more than :data:`SPARSE_MIN_BLOCK` variables, or dense factors above :data:`MAX_BLOCK_BYTES`, switch
the whole system to the sparse factors of :mod:`problems.ipm.sparse_block` (SuperLU with a minimum-degree
order; blocks below its ``SPARSE_MIN_SIZE`` stay dense there), which keep memory near the factors' fill instead
of Σ 8n_b² bytes.

Where the rows u ≥ 0 are implied by the ratio rows (``bounded=False``, see :class:`~problems.orbit.reduced_lp.ReducedLP`)
they are left out: s ≡ 0, :math:`H_b = G_b^\top DG_b` (positive definite for e^ε > 1) and the dual equation is
refined explicitly.  In the last iterations the blocks become singular to working precision (their near-null
directions are the tight components).  Layered blocks pin those directions (:mod:`problems.ipm.band_deflation`:
one raised diagonal entry each, and a small bordered system); otherwise a per-block diagonal shift (relative
to each diagonal entry, :mod:`problems.ipm.shift`) and longer iterative refinement
(:data:`REFINE_STEPS_BLOCKS`) handle that, and an answer whose certificate is not good enough goes back to
Clarabel (``docs/orbit_reduction.md`` §10).

The iteration itself — Mehrotra predictor–corrector with Gondzio correctors and iterative refinement on the
unreduced KKT residual — is :func:`~problems.ipm.iteration.solve_block_angular`, shared with the
dense method; :class:`RaggedBlockSystem` is the block system it runs on.  The result is certified by the
toolkit's own KKT check of the reduced LP (:meth:`ReducedLP.certificate
<problems.orbit.reduced_lp.ReducedLP.certificate>`), exactly as for the Clarabel back end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..errors import InvalidInputError, ProblemTooLargeError, SolverFailedError
from ..indexing import index_dtype
from . import iteration
from .band_deflation import DEFLATE_BELOW, PIN_AFTER_REFINEMENT, BandDeflation, band_deflation, row_ends
from .elementwise import map_parts, with_errstate
from .iteration import BLAS_THREADS, SOLVER_NAME, solve_block_angular
from .lapack import BlasThreads, lapack_kernels, trim_heap
from .layered import LayeredFactor, Layers, layers_of
from .rows import abs_product, scaled_ratio_rows
from .schur import SchurFactor, schur_cholesky
from .shift import TRIES, shifted
from .sparse_block import SparseBlockFactor, SparseBlockPattern

try:  # SciPy's kernel of csc_matrix @ vector, which writes into a given array (Half.G)
    from scipy.sparse._sparsetools import csc_matvec as _csc_matvec
except ImportError:  # pragma: no cover - another SciPy layout: the products allocate
    _csc_matvec = None

__all__ = ["RaggedBlockSystem", "solve_block_lp", "BLOCK_SOLVER_NAME", "MAX_BLOCK_SIZE", "MAX_BLOCK_BYTES"]

BLOCK_SOLVER_NAME = SOLVER_NAME + "-blocks"
#: Largest block (joint types with one y-type) factorised densely: 8 000² doubles = 512 MB.
MAX_BLOCK_SIZE = 8_000
#: iterative refinement of the Newton solves: at most this many steps, continued while each step reduces the
#: error by at least this factor (the dense method: 8 steps, factor 0.5)
REFINE_STEPS_BLOCKS = 20
REFINE_CONTRACTION_BLOCKS = 0.9
#: Blocks that are block tridiagonal along their linking rows (m = 2) use :mod:`problems.ipm.layered` once the
#: largest has more than this many variables (below it the dense factor is as fast).
LAYERED_MIN_BLOCK = 0
#: A layered system returns its best iterate once the KKT measure is below this (the chain certifies it).
LAYERED_ACCEPT = 1e-5
#: Largest total memory of the dense block factors Σ n_b² · 8 bytes (m = 3, n = 12: 2.0 GB).
MAX_BLOCK_BYTES = 4e9
#: Blocks that are not layered (m ≥ 3) are factorised sparsely (:mod:`problems.ipm.sparse_block`) once the
#: largest has more than this many variables, or when the dense factors are refused.
SPARSE_MIN_BLOCK = 2_000
#: layered systems pin their near-null directions late in the iteration (:mod:`problems.ipm.band_deflation`)
BAND_DEFLATION = True
#: False keeps every non-layered block dense (refused above MAX_BLOCK_SIZE / MAX_BLOCK_BYTES)
SPARSE_BLOCKS = True


class Half(NamedTuple):
    """Half of a layered system's blocks: variables ``z``, ratio rows ``w``, ``G(u, out=None)`` = G u (into
    ``out`` when given) and ``GT(v)`` = Gᵀ v on them."""

    z: slice
    w: slice
    G: Callable[..., np.ndarray]
    GT: Callable[[np.ndarray], np.ndarray]


def _product_into(M: sp.spmatrix) -> Callable[..., np.ndarray]:
    """u ↦ M u for a CSC matrix M, written into ``out`` when given: by SciPy's own kernel of ``M @ u``
    (``csc_matvec``, which adds M u to a zeroed result: the same sums in the same order), so a Newton solve's
    Δw is formed in its place without a temporary of half the ratio rows (44 MB at m = 2, n = 200)."""

    def product(u: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            return M @ u
        if _csc_matvec is None or M.format != "csc" or u.dtype != M.data.dtype:  # pragma: no cover - fallback
            out[...] = M @ u
            return out
        out.fill(0.0)
        _csc_matvec(M.shape[0], M.shape[1], M.indptr, M.indices, M.data, u, out)
        return out

    return product


def _matmul(M: sp.spmatrix, x: np.ndarray) -> np.ndarray:
    return M @ x


class RaggedBlockSystem:
    r"""The LP ``min c'u, Au = b, u[src] − rκ u[dst] ≤ 0, u ≥ 0`` as a block system for
    :func:`~problems.ipm.iteration.solve_block_angular`.

    Variables are renumbered so that each block (connected component of the moves) is contiguous; all
    arrays the iteration sees are flat vectors in that order (u and s of length K, w and λ of length P).
    Internally the cost is divided by max|c| and each ratio row by max(1, rκ_p) (the feasible set is the
    same); :meth:`unscale` maps a solution back to the caller's order and scaling.
    """

    def __init__(
        self,
        c: np.ndarray,
        A: sp.spmatrix,
        b: np.ndarray,
        src: np.ndarray,
        dst: np.ndarray,
        kappa: np.ndarray | None,
        r: float,
        *,
        bounded: bool = True,
        max_block: int = MAX_BLOCK_SIZE,
        layered: bool | None = None,
        sparse: bool | None = None,
        band_layer: np.ndarray | None = None,
        log_kappa: np.ndarray | None = None,
    ) -> None:
        # κ, or ln κ (``kappa=None``): a layered system then keeps the caller's ln κ and forms κ where it needs
        # it (memory: κ is a P-vector, 41 MiB at m = 2, n = 200; NumPy's exp gives each entry the same value on
        # a subset as on the whole array)
        if kappa is None and log_kappa is None:
            raise InvalidInputError("the block system needs the rows' κ or ln κ")
        self._kappa = None if kappa is None else np.asarray(kappa, dtype=float)
        self._log_kappa = None if kappa is not None else np.asarray(log_kappa, dtype=float)
        c = np.asarray(c, dtype=float)
        K = c.size
        src = np.asarray(src, dtype=np.intp)
        dst = np.asarray(dst, dtype=np.intp)
        P = src.size
        graph = sp.csr_matrix((np.ones(P), (src, dst)), shape=(K, K))
        nblocks, label = connected_components(graph, directed=False)
        order = np.argsort(label, kind="stable")  # new position -> old variable
        sizes = np.bincount(label, minlength=nblocks)
        pos = np.empty(K, dtype=np.intp)
        pos[order] = np.arange(K)
        Ap = sp.csc_matrix(A)[:, order]
        self.layers: Layers | None = None
        if layered is not False:
            # every variable in one linking row (its layer) and every ratio row between adjacent layers: the
            # blocks are block tridiagonal (m = 2 joint types), factorised by problems.ipm.layered
            C = sp.csc_matrix(Ap)
            one_each = C.shape[0] > 0 and np.array_equal(np.diff(C.indptr), np.ones(K, dtype=C.indptr.dtype))
            if one_each and np.all(C.data == 1.0):
                link = C.indices.astype(np.intp)
                # the layers of the band: the linking rows, or the caller's (a system with one linking row per
                # block, the pricing LP of problems.lp.active_blocks, keeps the band of the joint-type layers)
                var_layer = link if band_layer is None else np.asarray(band_layer, dtype=np.intp)[order]
                if layers_of(var_layer, label[order], pos[src], pos[dst]) and (
                    layered or sizes.max() > LAYERED_MIN_BLOCK
                ):
                    # the variables in band order (blocks, then layers inside each block): the banded factors
                    # then read and write the iteration's vectors in place, without a gather and a scatter per
                    # solve
                    band = np.lexsort((np.arange(K), var_layer, label[order]))
                    order = order[band]
                    pos[order] = np.arange(K)
                    Ap = Ap[:, band]
                    var_layer = var_layer[band]
                    ro = np.argsort(label[src], kind="stable")  # the row order of the factorisation
                    self.layers = Layers(
                        var_layer,
                        label[order],
                        nblocks,
                        C.shape[0],
                        pos[src][ro],
                        pos[dst][ro],
                        link=None if band_layer is None else link[band],
                    )
        if layered and self.layers is None:
            raise InvalidInputError("the layered block method needs ratio rows between adjacent linking rows")
        need = float(np.sum(sizes.astype(float) ** 2)) * 8.0
        Cs = sp.csc_matrix(Ap)
        unit = Cs.shape[0] > 0 and np.array_equal(np.diff(Cs.indptr), np.ones(K, dtype=Cs.indptr.dtype))
        unit = unit and bool(np.all(Cs.data == 1.0))  # every variable in one linking row, coefficient 1
        if sparse and not unit:
            raise InvalidInputError("the sparse block method needs every variable in one linking row")
        # sparse block factors (problems.ipm.sparse_block): asked for, or where the dense ones are refused or
        # the largest block has more than SPARSE_MIN_BLOCK variables
        self.sparse = (
            unit
            and self.layers is None
            and (
                bool(sparse)
                if sparse is not None
                else SPARSE_BLOCKS
                and (sizes.max() > min(max_block, SPARSE_MIN_BLOCK) or need > MAX_BLOCK_BYTES)
            )
        )
        if self.layers is None and not self.sparse:
            if sizes.max() > max_block:
                raise ProblemTooLargeError(
                    f"the largest block has {int(sizes.max())} variables; the block method factorises blocks "
                    f"densely and accepts at most {max_block}",
                    size=int(sizes.max()),
                    limit=max_block,
                )
            if need > MAX_BLOCK_BYTES:
                raise ProblemTooLargeError(
                    f"the dense block factors need {need / 1e9:.1f} GB; the block method accepts at most "
                    f"{MAX_BLOCK_BYTES / 1e9:.1f} GB (MAX_BLOCK_BYTES)",
                    size=int(need),
                    limit=int(MAX_BLOCK_BYTES),
                )
        self.K, self.P, self.nblocks = K, P, nblocks
        # layered blocks keep the rows u ≥ 0 even where the ratio rows imply them: their s/u terms condition H_b
        # (measured, m = 2, n = 50, mixture prior, PD-DP ε = 0.5: safe lower bound 6.7e-4 below the optimum
        # without them, 1.6e-10 with them, in 60 iterations instead of 55)
        self.bounded = bool(bounded) or self.layers is not None
        # longer iterative refinement than the dense method's default: in the last iterations the blocks are
        # singular to working precision (per-block shifts) and refinement contracts slowly; measured at m = 3,
        # n = 9 on a skewed prior, this takes the certificate from 3.5e-8 to 4.3e-9 for ~5 % more time
        self.refine_steps = REFINE_STEPS_BLOCKS
        self.refine_contraction = REFINE_CONTRACTION_BLOCKS
        # layered blocks refine by flexible GMRES (problems.ipm.krylov.refine)
        self.krylov = self.layers is not None
        self.order, self.pos = order, pos
        self.offsets = np.concatenate([[0], np.cumsum(sizes)])
        # ratio rows in block order
        rblock = label[src]
        rorder = np.argsort(rblock, kind="stable")
        del rblock
        self.roffsets = np.concatenate([[0], np.cumsum(np.bincount(label[src], minlength=nblocks))])
        pi, pj = pos[src[rorder]], pos[dst[rorder]]
        self.r = float(r)
        lay = self.layers
        try:
            rows = scaled_ratio_rows(pi, pj, self._kappa_at(rorder), self.r, K, squares=lay is None)
        except ValueError as exc:
            raise InvalidInputError(f"{exc} (u_s ≤ … u_d and u_d ≤ … u_s)") from None
        self.row_scale, self.a_i, self.a_j, self.G0T, self.G0sqT, self.offprod, self.rev = rows
        # P-sized index arrays in 32 bits where the sizes allow (the unscaling's row order)
        index = index_dtype(K, P)
        self.rorder = rorder.astype(index)
        del rorder
        if lay is None:
            self.pi, self.pj = pi, pj
        else:
            # layered blocks keep only what their iteration reads (memory: at m = 2, n = 200 a P-vector is 44 MB):
            # G u = (Gᵀ)ᵀu, diag(GᵀDG) from the squares of Gᵀ's entries, and H's off-diagonal entries at the rows
            # that fill the band (``Layers.off_rows``) with their reverse rows
            r1 = lay.off_rows
            r2 = self.rev[r1]
            self._off_rows = (r1.astype(index), r2.astype(index))
            lay.off_rows = None  # type: ignore[assignment]  # read once, above; freed
            # the row scaling g_p = 1/max(1, rκ_p) is recomputed from the caller's κ (or ln κ) when unscaling
            self.row_scale = self.a_i = self.a_j = self.offprod = self.rev = None  # type: ignore[assignment]
            del pi, pj, r1, r2
        # linking rows: layered blocks have one unit entry per variable, in the row ``_layer[i]`` (A u is a
        # bincount, Aᵀν a gather: the same sums in the same order as the sparse products, without the matrices)
        self.E = Ap.shape[0]
        if lay is None:
            self.Acsr = Ap.tocsr()
            self.AcscT = Ap.T.tocsr()
        else:
            self._layer = Cs.indices.astype(index)
            self.order, self.pos = order.astype(index), pos.astype(index)
            # runs of variables in one linking row (the band order keeps a block's layers contiguous): Aᵀν
            # repeats each run's ν (the same values as the gather ν[_layer], in a third of its time at n = 100)
            run = np.flatnonzero(np.diff(self._layer)) + 1
            self._run_row = self._layer[np.concatenate([[0], run])] if self._layer.size else self._layer
            self._run_len = np.diff(np.concatenate([[0], run, [self._layer.size]]))
        self.b = np.asarray(b, dtype=float)
        self.cost_scale = float(np.max(np.abs(c))) or 1.0
        self.ct = c[order] / self.cost_scale
        # per block: the linking rows it touches and A_b restricted to them (dense e_b × n_b, C order)
        self.block_rows: list[np.ndarray] = []
        self.block_A: list[np.ndarray] = []
        for k in range(nblocks if self.layers is None and not self.sparse else 0):
            lo, hi = self.offsets[k], self.offsets[k + 1]
            sub = Ap[:, lo:hi].tocoo()
            rws = np.unique(sub.row)
            Ab = np.zeros((rws.size, hi - lo))
            Ab[np.searchsorted(rws, sub.row), sub.col] = sub.data
            self.block_rows.append(rws)
            self.block_A.append(Ab)
        if self.layers is None:  # the dense block factors' local indices (layered blocks use Layers)
            self.local_i = self.pi - self.offsets[label[order][self.pi]] if P else self.pi
            self.local_j = self.pj - self.offsets[label[order][self.pj]] if P else self.pj
        self.sizes = sizes  # the factorisation hands blocks to the threads largest first
        dense = self.layers is None and not self.sparse
        self._buffers = [np.empty((int(n), int(n))) for n in sizes] if dense else []
        self._live: SparseBlockFactor | None = None
        self._pinning = False  # set once a block needed a shift or a refinement failed (:meth:`deflation`)
        self._pool = None
        self._halves: list[tuple] | None = self._split_rows() if self.layers is not None else None
        self.sparse_pattern = (
            SparseBlockPattern(
                self.offsets, self.roffsets, self.local_i, self.local_j, Cs.indices.astype(np.intp)
            )
            if self.sparse
            else None
        )

    # --- protocol of solve_block_angular
    def start(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """u spread over each linking row (Au = b when every column has one entry), slacks and multipliers 1."""
        if self.layers is not None:
            row_len = np.bincount(self._layer, minlength=self.E).astype(float)
            col_row = self._layer
        else:
            row_len = np.asarray(np.abs(self.Acsr).sum(axis=1)).ravel()
            col_row = np.asarray(self.AcscT.argmax(axis=1)).ravel()
        u = np.abs(self.b[col_row]) / np.maximum(row_len[col_row], 1e-300)
        u = np.where(u > 0, u, 1.0 / self.K)
        w = np.maximum(-self.G(u), 0.0) + float(np.mean(u))
        s = np.ones(self.K) if self.bounded else np.zeros(self.K)
        return u, w, np.ones(self.P), s, np.zeros(self.E)

    def A(self, u: np.ndarray) -> np.ndarray:
        if self.layers is not None:
            return np.bincount(self._layer, weights=u, minlength=self.E)
        return self.Acsr @ u

    def AT(self, nu: np.ndarray) -> np.ndarray:
        if self.layers is not None:
            return np.repeat(nu[self._run_row], self._run_len)
        return self.AcscT @ nu

    def halves(self) -> list[Half] | None:
        """The two halves of a layered system's blocks (:meth:`use_pool`), each with its variables, its ratio
        rows and its products with G and Gᵀ: the iteration's Newton solves work on each on its own thread."""
        if self._halves is None or self._pool is None:
            return None
        return [
            Half(slice(r0, r1), slice(p0, p1), _product_into(MT), M.__matmul__)
            for r0, r1, p0, p1, M, MT in self._halves
        ]

    def chunks(self, k: int) -> list[slice]:
        """One chunk: the flat layout does not split into aligned z- and w-chunks; threads work per block."""
        return [slice(None)]

    def use_pool(self, pool) -> None:  # noqa: ANN001 - a ThreadPoolExecutor or None
        """Threads for the products with G and Gᵀ of a layered system (the iteration hands over its pool): the
        two halves of its blocks (:meth:`_split_rows`) run on two threads (SciPy's sparse products release the
        GIL); without a pool they run one after the other."""
        self._pool = pool

    def _split_rows(self) -> list[tuple] | None:
        """Gᵀ cut at a block boundary near K/2 into its two diagonal pieces, each a CSR matrix that owns its
        entries; Gᵀ itself is then released (``G0T`` is None).

        G is block diagonal and its rows are in block order, so each piece holds its blocks' variables and ratio
        rows, and the products over the pieces are row by row the same sums in the same order as the whole
        product.  The pieces own their arrays because SciPy copies a CSR matrix's entries when they are a view
        of less than half of a larger array: pieces as views of Gᵀ kept a second copy of half its entries
        (m = 2, n = 200: 61 MiB) beside Gᵀ."""
        if self.nblocks < 2:
            return None
        G = self.G0T
        b = int(np.clip(np.searchsorted(self.offsets, self.K // 2), 1, self.nblocks - 1))
        r, p = int(self.offsets[b]), int(self.roffsets[b])
        e = int(G.indptr[r])
        first = sp.csr_matrix(
            (G.data[:e].copy(), G.indices[:e].copy(), G.indptr[: r + 1].copy()), shape=(r, p), copy=False
        )
        second = sp.csr_matrix(
            (
                G.data[e:].copy(),
                G.indices[e:] - G.indices.dtype.type(p),
                G.indptr[r:] - G.indptr.dtype.type(e),
            ),
            shape=(self.K - r, self.P - p),
            copy=False,
        )
        self.G0T = None
        return [(0, r, 0, p, first, first.T), (r, self.K, p, self.P, second, second.T)]

    def G(self, u: np.ndarray) -> np.ndarray:
        if self.layers is not None:  # the same two products per row, summed in column order
            return self._half_products(_matmul, u, transpose=True)
        return u[self.pi] * self.a_i + u[self.pj] * self.a_j

    def GT(self, v: np.ndarray) -> np.ndarray:
        return self._half_products(_matmul, v)

    def GT_abs(self, v: np.ndarray) -> np.ndarray:
        """|G|ᵀ v (the sizes of the terms of Gᵀv)."""
        return self._half_products(abs_product, v)

    def _half_products(self, product: Callable, x: np.ndarray, transpose: bool = False) -> np.ndarray:
        """``product(M, x)`` for M = Gᵀ (x a P-vector), or for M = G = (Gᵀ)ᵀ with ``transpose`` (x a K-vector):
        one half of the blocks per thread when the system is split (:meth:`use_pool`), row by row the same sums
        as the whole product."""
        if self._halves is None:
            return product(self.G0T.T if transpose else self.G0T, x)
        out = np.empty(self.P if transpose else self.K)

        def part(h: tuple) -> None:
            r0, r1, p0, p1, M, MT = h
            if transpose:
                out[p0:p1] = product(MT, x[r0:r1])
            else:
                out[r0:r1] = product(M, x[p0:p1])

        if self._pool is None:
            for h in self._halves:
                part(h)
        else:
            list(self._pool.map(with_errstate(part), self._halves))
        return out

    def H_parts(self, D: np.ndarray, E: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """diag(H) and H's off-diagonal entries: one per ratio row (``off[p]`` at (pi_p, pj_p)), or for layered
        blocks one per unordered pair, in the order of ``Layers.off_pos``."""
        if self.layers is not None:
            diag = self._half_products(
                lambda M, x: sp.csr_matrix((M.data**2, M.indices, M.indptr), shape=M.shape) @ x, D
            )
            diag += E
            r1, r2 = self._off_rows
            off = np.empty(r1.size)

            def part(c: slice) -> None:
                off[c] = self._offprod(r1[c]) * D[r1[c]] + self._offprod(r2[c]) * D[r2[c]]

            map_parts(self._pool, r1.size, part)
            return diag, off
        diag = self.G0sqT @ D + E
        off = self.offprod * D
        return diag, off + off[self.rev]

    def _kappa_at(self, rows: np.ndarray | slice) -> np.ndarray:
        """κ of the caller's ``rows``: the caller's κ, or exp of its ln κ."""
        if self._kappa is not None:
            return self._kappa[rows]
        assert self._log_kappa is not None  # one of the two is kept (__init__)
        return np.exp(self._log_kappa[rows])

    def _offprod(self, rows: np.ndarray) -> np.ndarray:
        """a_i a_j = g · (−rκ g) of the scaled ratio rows ``rows`` (system order), as scaled_ratio_rows has it."""
        coef = -self.r * self._kappa_at(self.rorder[rows])
        g = 1.0 / np.maximum(1.0, np.abs(coef))
        return g * (coef * g)

    def factor(self, diag, off, threads, deflation, pool=None):  # noqa: ANN001, ANN201
        if self.layers is not None:
            # the previous iteration's temporaries, before the largest allocation
            if iteration.TRIM_EACH_ITERATION:
                trim_heap()
            pinned = deflation if isinstance(deflation, BandDeflation) else None
            fac = LayeredFactor(self.layers, diag, off, self.A, self.AT, pool, pinned)
            self._pinning = self._pinning or fac.shifted > 0  # a shifted block: pin from the next iterate on
            return fac
        if self.sparse:
            if self._live is not None:  # the previous iteration's factors are no longer used: free them first
                self._live.release()
            self._live = None
            self._live = SparseBlockFactor(self, diag, off, pool)
            return self._live
        return _RaggedFactor(self, diag, off, pool)

    def note_refinement(self, err: float) -> None:
        """The largest error an iteration's refinement left (its measure): above PIN_AFTER_REFINEMENT a layered
        system pins its near-null directions from then on."""
        self._pinning = self._pinning or err > PIN_AFTER_REFINEMENT

    def deflation(self, u, w, r_g, D, E, diag) -> BandDeflation | dict:  # noqa: ANN001
        """A layered system's near-null directions to pin (:mod:`problems.ipm.band_deflation`); others: none."""
        if self.layers is None or not BAND_DEFLATION or not self._pinning:
            return {}
        pieces = (
            [(h[0], h[2], h[4]) for h in self._halves] if self._halves is not None else [(0, 0, self.G0T)]
        )
        ends = row_ends(pieces, self.P)
        found = None if ends is None else band_deflation(ends, self.layers.starts, self._layer, u, D, E, diag)
        return {} if found is None else found

    # --- results
    def unscale(
        self, u: np.ndarray, nu: np.ndarray, lam: np.ndarray, s: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(u, ν, λ, s) in the caller's variable and row order, for the unscaled rows u_s − rκ u_d ≤ 0."""
        cs = self.cost_scale
        u_out = np.empty(self.K)
        u_out[self.order] = u
        s_out = np.empty(self.K)
        s_out[self.order] = s * cs
        lam_out = np.empty(self.P)
        if self.row_scale is None:  # g_p in the caller's row order, as scaled_ratio_rows computes it
            lam_out[self.rorder] = lam
            lam_out *= 1.0 / np.maximum(1.0, np.abs(-self.r * self._kappa_at(slice(None))))
            lam_out *= cs
        else:
            lam_out[self.rorder] = lam * self.row_scale * cs
        return u_out, nu * cs, lam_out, s_out


class _RaggedFactor(SchurFactor):
    """Dense Cholesky factors of the blocks H_b, Y_b = H_b⁻¹A_bᵀ and the factorised Schur complement."""

    def __init__(self, sysm: RaggedBlockSystem, diag: np.ndarray, off: np.ndarray, pool) -> None:  # noqa: ANN001
        kernels = lapack_kernels()
        if kernels is None:
            raise SolverFailedError("reduced-lp", [(BLOCK_SOLVER_NAME, "GIL-free LAPACK kernels not found")])
        self.sysm, self.kernels, self.pool = sysm, kernels, pool
        E = sysm.E
        self.Y: list[np.ndarray] = [np.empty(0)] * sysm.nblocks
        self.shifted = 0
        failed: list[int] = []

        def work(k: int) -> np.ndarray:
            lo, hi = sysm.offsets[k], sysm.offsets[k + 1]
            rlo, rhi = sysm.roffsets[k], sysm.roffsets[k + 1]
            H = sysm._buffers[k]
            n = hi - lo
            d = diag[lo:hi]
            li, lj = sysm.local_i[rlo:rhi], sysm.local_j[rlo:rhi]
            for delta in TRIES:
                H.fill(0.0)
                H[li, lj] = off[rlo:rhi]
                H[np.arange(n), np.arange(n)] = shifted(d, delta)
                info = kernels.potrf(H)
                if info == 0:
                    break
            if info != 0:
                failed.append(k)
                return np.zeros((0, 0))
            if delta:
                self.shifted += 1
            Ab = sysm.block_A[k]
            Y = np.array(Ab)  # C-order (e_b, n_b) = column-major n_b × e_b right-hand sides
            kernels.potrs(H, Y)
            self.Y[k] = Y
            return Ab @ Y.T

        ks = list(np.argsort(-sysm.sizes, kind="stable"))
        parts = list(pool.map(work, ks)) if pool is not None else [work(k) for k in ks]
        if failed:
            raise np.linalg.LinAlgError(f"block {failed[0]} of the normal equations is not positive definite")
        S = np.zeros((E, E))
        for k, Sb in zip(ks, parts):
            rws = sysm.block_rows[k]
            S[np.ix_(rws, rws)] += Sb
        self.S_cho = schur_cholesky(S)
        self._order = ks

    def forward(self, fc: np.ndarray, c: slice, work: np.ndarray) -> np.ndarray:
        """A H⁻¹ f = Σ_b Y_bᵀ f_b."""
        sysm = self.sysm
        out = np.zeros(sysm.E)
        for k in range(sysm.nblocks):
            lo, hi = sysm.offsets[k], sysm.offsets[k + 1]
            out[sysm.block_rows[k]] += self.Y[k] @ fc[lo:hi]
        return out

    def backward(self, fc: np.ndarray, dnu: np.ndarray, c: slice, work: np.ndarray) -> np.ndarray:
        """Δu_b = H_b⁻¹(f_b − A_bᵀΔν) for every block (potrs on the blocks' factors, in parallel)."""
        sysm = self.sysm
        out = fc - sysm.AT(dnu)

        def one(k: int) -> None:
            lo, hi = sysm.offsets[k], sysm.offsets[k + 1]
            seg = np.ascontiguousarray(out[lo:hi])
            self.kernels.potrs(sysm._buffers[k], seg)
            out[lo:hi] = seg

        self._map(one)
        return out


def solve_block_lp(
    c: np.ndarray,
    A: sp.spmatrix,
    b: np.ndarray,
    src: np.ndarray,
    dst: np.ndarray,
    kappa: np.ndarray | None,
    r: float,
    *,
    tol: float = 1e-9,
    max_iter: int = 150,
    threads: int | None = None,
    program: str = "reduced-lp",
    bounded: bool = True,
    time_limit: float | None = None,
    layered: bool | None = None,
    sparse: bool | None = None,
    enough: Callable[[np.ndarray, np.ndarray, np.ndarray], bool] | None = None,
    probe: Callable[[np.ndarray, np.ndarray, np.ndarray, int], bool] | None = None,
    band_layer: np.ndarray | None = None,
    log_kappa: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, float]:
    """Solve the block LP; returns ``(u, ν, λ, s, iterations, seconds)`` for rows ``u_s − rκ u_d ≤ 0``.

    Sign convention of :meth:`ReducedLP.certificate`: c + Aᵀν + Gᵀλ − s = 0, λ, s ≥ 0.  With
    ``bounded=False`` the rows u ≥ 0 are left out (the caller asserts that the ratio rows imply them, see
    :class:`~problems.orbit.reduced_lp.ReducedLP`); then s = 0 and H_b = G_bᵀDG_b, positive definite because
    every variable has a reverse pair of rows with r > 1.  ``enough(u, ν, λ)`` and ``probe(u, ν, λ, iteration)``
    (caller's order and scaling) may end the iteration early: see
    :func:`~problems.ipm.iteration.solve_block_angular`.  ``band_layer`` (one per variable) orders the banded
    factors of a system whose linking rows are not its layers (one linking row per block: see
    :class:`~problems.ipm.layered.Layers`).  ``kappa=None`` with ``log_kappa``: the rows' ln κ instead, kept by a
    layered system in place of a P-vector of κ.
    """
    t0 = time.perf_counter()
    trim_heap()
    sysm = RaggedBlockSystem(
        c,
        A,
        b,
        src,
        dst,
        kappa,
        r,
        bounded=bounded,
        layered=layered,
        sparse=sparse,
        band_layer=band_layer,
        log_kappa=log_kappa,
    )

    def stop(u, nu, lam, s) -> bool:  # noqa: ANN001 - the caller's test, on the unscaled iterate
        assert enough is not None  # passed only when given
        return bool(enough(*sysm.unscale(u, nu, lam, s)[:3]))

    def look(u, nu, lam, s, it: int) -> bool:  # noqa: ANN001 - the caller's probe, on the unscaled iterate
        assert probe is not None  # passed only when given
        if getattr(probe, "finished", False):  # a probe that will not propose again: no unscaled iterate
            return False
        return bool(probe(*sysm.unscale(u, nu, lam, s)[:3], it))

    # overflow/invalid values end the iteration ("non-finite iterate") and the caller falls back to Clarabel
    with BlasThreads(BLAS_THREADS), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        u, nu, lam, s, iters = solve_block_angular(
            sysm,
            tol=tol,
            max_iter=max_iter,
            threads=threads,
            program=program,
            deflate_below=DEFLATE_BELOW if sysm.layers is not None else 0.0,
            time_limit=time_limit,
            enough=None if enough is None else stop,
            probe=None if probe is None else look,
            # layered systems stall at a KKT measure of ~1e-7 (the rounding floor of their normal equations) while
            # their multipliers already prove the value: the best iterate goes to the certificate, which decides
            accept=LAYERED_ACCEPT if sysm.layers is not None else 1e-7,
        )
    return (*sysm.unscale(u, nu, lam, s), iters, time.perf_counter() - t0)
