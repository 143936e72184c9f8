r"""Sparse factors of the blocks of the joint-type LPs with m ≥ 3 (SuperLU with a fill-reducing ordering).

For m ≥ 3 a block of :class:`~problems.ipm.block.RaggedBlockSystem` (the joint types with one y-type
:math:`c = (c_0, \dots, c_{m-1})`) is the product of m simplex lattices: column b of the joint type T is a
composition of :math:`c_b` into m parts, and a ratio row (a move a → a' in column b) joins two joint types that
differ in column b only, by :math:`e_{a'} - e_a`.  So the block's Newton matrix

.. math::

    H_b = G_b^\top D_b G_b + E_b

has a lattice stencil: one entry per ratio row and its reverse, m(m−1)·m neighbours at most (18 for m = 3), on a
lattice of dimension m(m−1) (6 for m = 3) and side about n/m.  The dense Cholesky factor of
:mod:`problems.ipm.block` costs :math:`n_b^3/3` flops and :math:`8n_b^2` bytes per block (m = 3, n = 16: 43 GB
and 1.6·10¹³ flops for all 153 blocks).  Here each block is factorised sparsely instead:

* the symmetric pattern of :math:`H_b` is built once per system, with the positions of its entries among the
  iteration's (diag, off) arrays, so each factorisation only gathers its values;
* the first factorisation of a block orders it with SuperLU's minimum degree on :math:`A + A^\top`
  (``MMD_AT_PLUS_A``, :func:`scipy.sparse.linalg.splu`); that permutation is kept and later factorisations
  run on the permuted matrix with the natural order (no pivoting: ``diag_pivot_thresh = 0``, symmetric mode),
  an :math:`LDL^\top` in LU form;
* the Schur complement of the linking rows, :math:`S = \sum_b A_b H_b^{-1} A_b^\top` (E × E, dense and
  small: E = C(n+m−1, m−1) x-types), is formed from :math:`e_b` block solves per block; the solves
  :math:`H_b^{-1}A_b^\top` are not kept (they would take :math:`8\sum_b n_b e_b` bytes), so a Newton solve
  costs two block solves per block (:math:`A H^{-1} f`, then :math:`H^{-1}(f - A^\top\Delta\nu)`).

Measured fill (m = 3, random positive D, the largest block): nnz(L)/n_b = 206, 415, 822, 1 501 at
n = 10, 12, 14, 16 (n_b = 1 500, 3 375, 6 615, 12 348), i.e. nnz(L) ∝ n_b^1.87 — a lattice of dimension 6 fills
much more than the 2-D grids of m = 2.  :meth:`SparseBlockFactor.predicted_bytes` extrapolates the factors of
all blocks from the largest one (factorised first) with that exponent, and the factorisation stops with
:class:`~problems.errors.ProblemTooLargeError` when they would not fit in the memory budget
(:func:`problems.resources.memory_budget`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl
from scipy.linalg import LinAlgError, lapack

from ..errors import ProblemTooLargeError
from ..resources import format_bytes, memory_budget
from .schur import SchurFactor, schur_cholesky
from .shift import TRIES, shifted

__all__ = [
    "SparseBlockPattern",
    "SparseBlockFactor",
    "FILL_EXPONENT",
    "BYTES_PER_FACTOR_ENTRY",
    "ORDERING",
]

#: SuperLU's fill-reducing column ordering for the first factorisation of each block (symmetric pattern).
ORDERING = "MMD_AT_PLUS_A"
#: Blocks with at most this many variables get a dense Cholesky factor (measured, m = 3: SuperLU takes 22 ms
#: for a block of 600 variables where LAPACK's dense factor takes ~7 ms; at 3 375 SuperLU takes 0.25 s, dense
#: ~1.3 s).
SPARSE_MIN_SIZE = 1_200
#: nnz(L) of a block grows like n_b^FILL_EXPONENT (measured, m = 3, n = 10 … 16; see the module docstring).
FILL_EXPONENT = 1.87
#: SuperLU stores L and U (= DLᵀ), a value and a row index per entry, plus its supernodal bookkeeping: bytes per
#: entry of L + U (``SuperLU.nnz``; m = 3, n = 12: 60 M entries in all blocks)
BYTES_PER_FACTOR_ENTRY = 16


class SparseBlockPattern:
    """The symmetric pattern of every block's H_b in CSC order, and where its entries come from.

    Built once per :class:`~problems.ipm.block.RaggedBlockSystem`.  For block k, ``gather[k]`` indexes the
    concatenation ``[off[rlo:rhi], diag[lo:hi]]`` so that ``values[gather[k]]`` is the CSC data of H_b
    (``indptr[k]``, ``indices[k]``); ``perm[k]`` is the fill-reducing order found at the first factorisation.
    """

    def __init__(
        self,
        offsets: np.ndarray,
        roffsets: np.ndarray,
        local_i: np.ndarray,
        local_j: np.ndarray,
        groups: np.ndarray,
    ) -> None:
        self.offsets, self.roffsets = offsets, roffsets
        nblocks = offsets.size - 1
        self.indptr: list[np.ndarray] = []
        self.indices: list[np.ndarray] = []
        self.gather: list[np.ndarray] = []
        #: linking row of each variable of the block, renumbered 0..e_b−1, and the rows themselves
        self.local_group: list[np.ndarray] = []
        self.block_rows: list[np.ndarray] = []
        self.perm: list[np.ndarray | None] = [None] * nblocks
        for k in range(nblocks):
            lo, hi = int(offsets[k]), int(offsets[k + 1])
            rlo, rhi = int(roffsets[k]), int(roffsets[k + 1])
            n = hi - lo
            q = rhi - rlo
            rows = np.concatenate([local_i[rlo:rhi], np.arange(n)])
            cols = np.concatenate([local_j[rlo:rhi], np.arange(n)])
            # CSC order: by column, then row; each (row, col) occurs once (a move and its reverse are two rows)
            order = np.lexsort((rows, cols))
            r_sorted, c_sorted = rows[order], cols[order]
            if np.any((np.diff(c_sorted) == 0) & (np.diff(r_sorted) == 0)):
                raise ValueError("two ratio rows of one block join the same pair of variables")
            self.indptr.append(np.searchsorted(c_sorted, np.arange(n + 1)).astype(np.int32))
            self.indices.append(r_sorted.astype(np.int32))
            self.gather.append(order)
            rws, loc = np.unique(groups[lo:hi], return_inverse=True)
            self.block_rows.append(rws)
            self.local_group.append(loc.astype(np.intp))
            assert q + n == order.size

    def matrix(self, k: int, values: np.ndarray) -> sp.csc_matrix:
        """H_b of block k from ``values = [off-diagonal entries of its rows, diagonal]``."""
        n = int(self.offsets[k + 1] - self.offsets[k])
        return sp.csc_matrix((values[self.gather[k]], self.indices[k], self.indptr[k]), shape=(n, n))


def _factor(H: sp.csc_matrix, perm: np.ndarray | None):  # noqa: ANN202 - (SuperLU, perm)
    """SuperLU of H without pivoting; ``perm`` None: order by :data:`ORDERING` and return that order."""
    opts = {"SymmetricMode": True}
    if perm is None:
        lu = spl.splu(H, permc_spec=ORDERING, diag_pivot_thresh=0.0, options=opts)
        return lu, np.asarray(lu.perm_c)
    Hp = H[perm][:, perm].tocsc()
    return spl.splu(Hp, permc_spec="NATURAL", diag_pivot_thresh=0.0, options=opts), perm


class _Block:
    """One factorised block: solves H_b x = f through the permuted factor."""

    __slots__ = ("lu", "perm", "inv")

    def __init__(self, lu, perm: np.ndarray, permuted: bool) -> None:  # noqa: ANN001
        self.lu = lu
        # with the natural order on H[perm][:, perm], x = P (Hp⁻¹ (Pᵀ f)); SuperLU's own order is internal
        self.perm = perm if permuted else None
        self.inv = None
        if permuted:
            self.inv = np.empty_like(perm)
            self.inv[perm] = np.arange(perm.size)

    def solve(self, f: np.ndarray) -> np.ndarray:
        if self.perm is None:
            return self.lu.solve(f)
        y = self.lu.solve(np.ascontiguousarray(f[self.perm]))
        return y[self.inv]

    @property
    def nnz(self) -> int:
        return int(self.lu.nnz)


class _DenseBlock:
    """A small block: dense Cholesky (LAPACK ``potrf``/``potrs``), faster than SuperLU below
    :data:`SPARSE_MIN_SIZE` variables."""

    __slots__ = ("c",)

    def __init__(self, H: sp.csc_matrix) -> None:
        c, info = lapack.dpotrf(H.toarray(), lower=1, clean=0, overwrite_a=1)
        if info != 0:
            raise LinAlgError(f"potrf info {info}")
        self.c = c

    def solve(self, f: np.ndarray) -> np.ndarray:
        x, info = lapack.dpotrs(self.c, f, lower=1)
        return x

    @property
    def nnz(self) -> int:
        return int(self.c.shape[0]) * (int(self.c.shape[0]) + 1) // 2


class SparseBlockFactor(SchurFactor):
    """Sparse factors of the blocks H_b and the factorised E × E Schur complement (``forward`` and ``backward``
    here, ``coupling`` and ``border`` of :class:`~problems.ipm.schur.SchurFactor`)."""

    def __init__(self, sysm, diag: np.ndarray, off: np.ndarray, pool) -> None:  # noqa: ANN001
        pat: SparseBlockPattern = sysm.sparse_pattern
        # one thread: SuperLU's allocations from several threads were measured to triple the peak memory
        self.sysm, self.pool, self.pat = sysm, None, pat
        nblocks = sysm.nblocks
        self.blocks: list[_Block | _DenseBlock | None] = [None] * nblocks
        self.shifted = 0
        self.factor_entries = 0
        E = sysm.E
        order = list(np.argsort(-sysm.sizes, kind="stable"))
        self._order = order
        budget = memory_budget()

        def work(k: int) -> np.ndarray:
            lo, hi = int(sysm.offsets[k]), int(sysm.offsets[k + 1])
            rlo, rhi = int(sysm.roffsets[k]), int(sysm.roffsets[k + 1])
            d = diag[lo:hi]
            n = hi - lo
            dense = n <= SPARSE_MIN_SIZE
            for delta in TRIES:
                values = np.concatenate([off[rlo:rhi], shifted(d, delta)])
                try:
                    H = pat.matrix(k, values)
                    blk: _Block | _DenseBlock
                    if dense:
                        blk = _DenseBlock(H)
                        ok = True
                    else:
                        lu, perm = _factor(H, pat.perm[k])
                        piv = lu.U.diagonal()
                        ok = bool(np.all(piv > 0) and np.all(np.isfinite(piv)))
                except (RuntimeError, LinAlgError):  # SuperLU: a zero pivot; LAPACK: not positive definite
                    ok = False
                if ok:
                    break
            if not ok:
                raise LinAlgError(f"block {k} of the normal equations is not positive definite")
            if delta:
                self.shifted += 1
            if not dense:
                permuted = pat.perm[k] is not None
                if not permuted:
                    pat.perm[k] = perm
                blk = _Block(lu, perm, permuted)
            self.blocks[k] = blk
            # S_b = A_b H_b⁻¹ A_bᵀ from e_b solves with the indicator columns of the block's linking rows
            loc = pat.local_group[k]
            e_b = pat.block_rows[k].size
            R = np.zeros((n, e_b))
            R[np.arange(n), loc] = 1.0
            Y = blk.solve(R)
            Ab = sp.csr_matrix((np.ones(n), (loc, np.arange(n))), shape=(e_b, n))
            return np.asarray(Ab @ Y)

        parts: list[np.ndarray] = []
        if order:  # the largest block first: its fill predicts the others' (memory guard)
            parts.append(work(order[0]))
            predicted = self.predicted_bytes(self.blocks[order[0]].nnz, sysm.sizes, int(sysm.sizes[order[0]]))
            if predicted > budget:
                raise ProblemTooLargeError(
                    f"the sparse block factors would need about {format_bytes(predicted)}; the memory budget is "
                    f"{format_bytes(budget)}",
                    size=int(predicted),
                    limit=int(budget),
                )
            rest = order[1:]
            parts += [work(k) for k in rest]
        S = np.zeros((E, E))
        for k, Sb in zip(order, parts):
            rws = pat.block_rows[k]
            S[np.ix_(rws, rws)] += Sb
        self.factor_entries = sum(b.nnz for b in self.blocks if b is not None)
        self.S_cho = schur_cholesky(S)

    @staticmethod
    def predicted_bytes(nnz_largest: int, sizes: np.ndarray, largest: int) -> float:
        """Bytes of all blocks' factors, extrapolated from the largest block's nnz (L + U) with
        :data:`FILL_EXPONENT`."""
        rel = (np.asarray(sizes, dtype=float) / max(largest, 1)) ** FILL_EXPONENT
        return float(BYTES_PER_FACTOR_ENTRY * nnz_largest * np.sum(rel))

    def release(self) -> None:
        """Drop the factors (the next iteration's factorisation is about to replace them)."""
        self.blocks = []

    def forward(self, fc: np.ndarray, c: slice, work: np.ndarray) -> np.ndarray:
        """A H⁻¹ f = Σ_b A_b H_b⁻¹ f_b (one block solve each; the solutions are kept in ``work``)."""
        sysm, pat = self.sysm, self.pat

        def one(k: int) -> None:
            lo, hi = int(sysm.offsets[k]), int(sysm.offsets[k + 1])
            blk = self.blocks[k]
            assert blk is not None  # factored before any solve
            work[lo:hi] = blk.solve(np.ascontiguousarray(fc[lo:hi]))

        self._map(one)
        out = np.zeros(sysm.E)
        for k in range(sysm.nblocks):
            lo, hi = int(sysm.offsets[k]), int(sysm.offsets[k + 1])
            out[pat.block_rows[k]] += np.bincount(
                pat.local_group[k], weights=work[lo:hi], minlength=pat.block_rows[k].size
            )
        return out

    def backward(self, fc: np.ndarray, dnu: np.ndarray, c: slice, work: np.ndarray) -> np.ndarray:
        """Δu_b = H_b⁻¹(f_b − A_bᵀΔν) for every block (one block solve each)."""
        sysm = self.sysm
        out = fc - sysm.AT(dnu)

        def one(k: int) -> None:
            lo, hi = int(sysm.offsets[k]), int(sysm.offsets[k + 1])
            blk = self.blocks[k]
            assert blk is not None  # factored before any solve
            out[lo:hi] = blk.solve(np.ascontiguousarray(out[lo:hi]))

        self._map(one)
        return out
