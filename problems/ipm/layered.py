r"""Layered blocks: the joint-type LP with m = 2 factorised as banded matrices, one LAPACK call per block.

For m = 2 the orbit-reduced PD-DP / PD-I LP (:mod:`problems.orbit.programs`) in u[k, a, b] has one block per
output weight j = a + b, and inside a block the variables form a 2-D grid of (j+1)(n−j+1) joint types.  The
linking rows are the row sums Σ u[k, ·, ·] = 1, one per input weight k, and a move flips one coordinate of x,
so it changes k by exactly one.  With the variables of a block ordered by their *layer* k, the block of the
normal matrix

.. math::

    H_b = G_b^\top D G_b + \operatorname{diag}(s/u)

is block tridiagonal (no ratio row joins two variables of one layer), hence **banded** with half-bandwidth
about min(j, n − j) + 1, and the linking matrix :math:`A_b^\top` has one column of ones per layer.

**Factorisation.**  Each block is factorised by LAPACK's banded Cholesky ``dpbtrf``
(:math:`K_b w_b^2` flops, :math:`K_b w_b` memory, instead of the :math:`K_b^3` and :math:`K_b^2` of a dense
factor); this is exactly the dense Cholesky factor without the zeros outside the band, so its accuracy is that of
the dense block method.  Late in the iteration the near-null directions of the blocks (connected sets of tight
ratio rows) are pinned first (:mod:`problems.ipm.band_deflation`: one diagonal entry raised per direction, which
keeps the band, and a bordered system of one unknown per direction beside the Schur complement), so that the
factors stay accurate where H_b is singular to working precision.  A block that is still not numerically
positive definite is retried with its diagonal multiplied by 1 + δ, δ growing from 1e-14
(:mod:`problems.ipm.shift`: relative to each entry, as Cholesky's rounding is invariant under a symmetric
diagonal scaling); the iterative refinement on the unreduced KKT residual absorbs the shift.

**Schur complement.**  :math:`S = \sum_b A_bH_b^{-1}A_b^\top = \sum_b X_b^\top X_b` with
:math:`X_b = L_b^{-1}A_b^\top` (``dtbtrs``, banded triangular solves with one right-hand side per layer) and one
GEMM per block.  Column k of :math:`A_b^\top` starts at layer k, so the solves for a group of columns run only
on the trailing part of the band that they reach.  With the CBLAS kernels (:func:`~problems.ipm.lapack.level3_kernels`)
:math:`X_b` is computed by level-3 tiles instead (:func:`_tiled_solve`: one GEMM and one triangular solve per tile
of rows, on the band factor read as a dense matrix); measured on one factorisation at m = 2 (one thread, CPU
time): n = 100, 0.25 → 0.22 s; n = 200, 5.2 → 3.9 s.

**Newton solves.**  :math:`H^{-1}f` is one ``dpbtrs`` per block, in place: the block system keeps its variables
in band order (blocks, then layers), so no permutation is needed.  On a thread pool the blocks go out as a few
contiguous groups of about equal work per thread (:meth:`Layers.solve_groups`), and the block system splits its
products with G and Gᵀ at a block boundary over two threads (:meth:`~problems.ipm.block.RaggedBlockSystem.use_pool`).

The iteration (Mehrotra predictor–corrector, Gondzio correctors, iterative refinement) is
:func:`~problems.ipm.iteration.solve_block_angular`, shared with the dense and the ragged block methods; the
answer is certified by the toolkit's bounds, never by this module.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.linalg.lapack import dpbtrf, dpbtrs, dtbtrs

from .band_deflation import PinnedBorder
from .elementwise import with_errstate
from .lapack import BandKernels, Level3Kernels, band_kernels, level3_kernels
from .schur import SchurFactor, schur_cholesky
from .shift import SHIFTS, shifted

__all__ = [
    "Layers",
    "fill_band",
    "tiled_schur",
    "tile_plan",
    "layers_of",
    "LayeredFactor",
    "COLUMN_GROUP",
    "TILE_ROWS",
    "SOLVE_GROUPS_PER_THREAD",
]

#: Tasks per thread of one banded solve over all blocks (:meth:`Layers.solve_groups`): measured at m = 2,
#: n = 80, one task per block spent 0.75 s of 12 s in the thread pool's hand-over.
SOLVE_GROUPS_PER_THREAD = 3
#: Columns of A_bᵀ solved together on the trailing part of the band (the staircase of X_b).
COLUMN_GROUP = 16
#: Rows per tile of the level-3 solve X_b = L_b⁻¹A_bᵀ (:func:`_tiled_solve`), as a multiple of the half-bandwidth
#: plus one (0: banded triangular solves, ``dtbtrs``, one right-hand side at a time)
TILE_ROWS = 2


def layers_of(var_layer: np.ndarray, block: np.ndarray, src: np.ndarray, dst: np.ndarray) -> bool:
    """True when every ratio row joins adjacent layers (|Δℓ| = 1), so the blocks are block tridiagonal."""
    return bool(src.size == 0 or np.all(np.abs(var_layer[src] - var_layer[dst]) == 1))


class Layers:
    """The banded layout of a block system whose blocks are block tridiagonal along their layers.

    Parameters are in the block system's variable order, which must be the *band order* — blocks contiguous,
    layer-major inside each block (:class:`~problems.ipm.block.RaggedBlockSystem` sorts its variables so, and the
    banded solves then work on the iteration's vectors in place): ``var_layer[i]`` the layer of variable i (its
    linking row, unless ``link`` is given), ``block[i]`` its block, ``src``/``dst`` the ratio rows in the
    factorisation's row order.  ``link[i]``, when given, is the linking row of variable i, and every layer of a
    block must lie in one linking row: a whole block (the pricing LP of :mod:`problems.lp.active_blocks`:
    Σ_{t ∈ b} u_t = 1 per block, a diagonal Schur complement), or layers k and n − k (an LP folded by its mirror,
    :mod:`problems.lp.fold`).
    """

    def __init__(
        self,
        var_layer: np.ndarray,
        block: np.ndarray,
        nblocks: int,
        E: int,
        src,  # noqa: ANN001
        dst,  # noqa: ANN001
        link: np.ndarray | None = None,
    ) -> None:
        K = var_layer.size
        self.K, self.E, self.nblocks = K, E, nblocks
        if K > 1 and not np.all((np.diff(block) > 0) | ((np.diff(block) == 0) & (np.diff(var_layer) >= 0))):
            raise ValueError("the variables of a layered system must be in band order (blocks, then layers)")
        starts = np.searchsorted(block, np.arange(nblocks + 1))
        self.starts = starts
        hi = np.maximum(src, dst)
        lo = np.minimum(src, dst)
        rblock = block[src]
        kd = np.zeros(nblocks, dtype=np.int64)
        np.maximum.at(kd, rblock, hi - lo)
        self.kd = kd
        sizes = np.diff(starts)
        self.sizes = sizes
        self.largest_first = [int(b) for b in np.argsort(-(sizes * (kd + 1)), kind="stable")]
        store = (kd + 1) * sizes
        self.store_offsets = np.concatenate([[0], np.cumsum(store)])
        # flat positions (Fortran band storage, lower: ab[r, c] = H[c + r, c]) of the diagonal and of each row's
        # off-diagonal entry (one per unordered pair: the row whose source comes later in the band order)
        local = np.arange(K) - starts[block]  # local column of banded position
        diag_pos = self.store_offsets[block] + local * (kd[block] + 1)
        small = self.store_offsets[-1] < 2**31 - 1
        self.diag_pos = diag_pos.astype(np.int32) if small else diag_pos
        keep = np.flatnonzero(src > dst)
        col = dst[keep] - starts[rblock[keep]]
        self.off_rows = keep
        off_pos = self.store_offsets[rblock[keep]] + col * (kd[rblock[keep]] + 1) + (hi - lo)[keep]
        # 32-bit positions where the band storage allows (a P/2-vector: 11 MB instead of 22 at m = 2, n = 200)
        self.off_pos = off_pos.astype(np.int32) if small else off_pos
        # where each block's off-diagonal entries start in off_pos (grouped by block when the rows are in block
        # order, as the block systems keep them; otherwise ``off_order`` groups them)
        off_block = rblock[keep]
        grouped = bool(np.all(off_block[1:] >= off_block[:-1]))
        self.off_order = None if grouped else np.argsort(off_block, kind="stable")
        self.off_starts = np.searchsorted(
            off_block if grouped else off_block[self.off_order], np.arange(nblocks + 1)
        )
        self._groups: dict[int, list[range]] = {}
        self._tiles: dict[tuple[int, int], list[tuple[int, ...]]] = {}
        # per block: the layer of each local variable and where each layer starts (for A_bᵀ and the staircase)
        rows_of = (var_layer if link is None else link).astype(np.int32)  # linking rows < E: 32 bits
        self.block_layers = []
        # per block: None, or the linking row of each present layer where the linking rows merge layers (a folded
        # LP, problems.lp.fold): the staircase then runs over the layers and the block's part of the Schur
        # complement is summed into their linking rows
        self.block_links: list[np.ndarray | None] = []
        for b in range(nblocks):
            s0, s1 = starts[b], starts[b + 1]
            lb = rows_of[s0:s1]
            present, first = np.unique(lb, return_index=True)
            links = None
            if link is not None and present.size > 1:
                lb = var_layer[s0:s1].astype(np.int32)
                present, first = np.unique(lb, return_index=True)
                links = rows_of[s0:s1][first]
                if np.any(rows_of[s0:s1] != links[np.searchsorted(present, lb)]):
                    raise ValueError(
                        "with separate linking rows, every layer of a block must lie in one of them"
                    )
            self.block_layers.append((lb, present, first))
            self.block_links.append(links)

    def tile_plan(self, b: int) -> list[tuple[int, ...]]:
        """Block b's tiles for :func:`_tiled_solve` at the current :data:`TILE_ROWS` (computed once per layout)."""
        kd = int(self.kd[b])
        nb = _tile_height(kd)
        plan = self._tiles.get((b, nb))
        if plan is None:
            plan = self._tiles[(b, nb)] = tile_plan(int(self.sizes[b]), kd, nb, self.block_layers[b][2])
        return plan

    def solve_groups(self, threads: int) -> list[range]:
        """The blocks cut into :data:`SOLVE_GROUPS_PER_THREAD` · ``threads`` contiguous ranges of about equal
        banded-solve work (Σ n_b (kd_b + 1)), the tasks of one solve over all blocks."""
        if threads not in self._groups:
            work = np.cumsum(self.sizes * (self.kd + 1), dtype=float)
            k = max(1, min(self.nblocks, SOLVE_GROUPS_PER_THREAD * int(threads)))
            cuts = np.searchsorted(work, work[-1] * np.arange(1, k) / k) + 1
            edges = np.unique(np.concatenate([[0], np.clip(cuts, 0, self.nblocks), [self.nblocks]]))
            self._groups[threads] = [range(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]
        return self._groups[threads]


class LayeredFactor(SchurFactor):
    """Banded Cholesky factors of every block and the Cholesky factor of the Schur complement.

    With the GIL-free kernels (:func:`~problems.ipm.lapack.band_kernels`) the blocks are factorised and solved
    on ``pool``'s threads, largest first; otherwise SciPy's wrappers run them one after another.
    """

    def __init__(
        self, lay: Layers, diag: np.ndarray, off: np.ndarray, A_rows, A_cols, pool=None, pinned=None
    ) -> None:  # noqa: ANN001
        self.lay = lay
        if pinned is not None:  # the pinned directions' diagonal entries raised (problems.ipm.band_deflation)
            diag = diag.copy()
            diag[pinned.pins] += pinned.tau
        self.A_rows, self._AT = A_rows, A_cols  # u ↦ A u and ν ↦ Aᵀν
        self.kernels = band_kernels()
        self.level3 = level3_kernels() if self.kernels is not None else None
        self.pool = pool if self.kernels is not None else None
        E = lay.E
        self.shifted = 0
        # the band storage of every block, each filled by the thread that factorises it (a storage kept from one
        # factor to the next was measured: 1–2 s faster at m = 2, n = 100, but 26 MiB more at the peak, where it
        # stays alive beside the next iteration's normal equations)
        buf = np.empty(int(lay.store_offsets[-1]))
        self.buf = buf
        self.factors: list[np.ndarray] = [np.empty((0, 0))] * lay.nblocks

        def refill(b: int) -> None:
            fill_band(lay, b, diag, off, buf[lay.store_offsets[b] : lay.store_offsets[b + 1]])

        def work(b: int) -> tuple[np.ndarray, np.ndarray]:
            n_b, kd = int(lay.sizes[b]), int(lay.kd[b])
            refill(b)
            ab = buf[lay.store_offsets[b] : lay.store_offsets[b + 1]].reshape((kd + 1, n_b), order="F")
            c = _band_cholesky(ab, self, lambda: refill(b))
            self.factors[b] = c
            lb, present, first = lay.block_layers[b]
            L = present.size
            if self.level3 is not None and TILE_ROWS > 0:
                return _merged(lay.block_links[b], present, tiled_schur(self.level3, lay, b, c))
            Sb = np.empty((L, L))
            # X_b = L⁻¹ A_bᵀ: column groups solved on the trailing band from their first layer on
            X = np.zeros((n_b, L), order="F")
            for g0 in range(0, L, COLUMN_GROUP):
                cols = present[g0 : g0 + COLUMN_GROUP]
                g1 = g0 + cols.size
                r0 = int(first[g0])
                B = (lb[r0:, None] == cols[None, :]).astype(float).copy(order="F")
                _tbtrs(self.kernels, c[:, r0:], B)
                X[r0:, g0:g1] = B
                # the staircase: the group's columns of X vanish above row r0, so its column of blocks of XᵀX
                # needs only the rows from r0 on (with symmetry, about a sixth of the full product's flops)
                blk = X[r0:, :g1].T @ B
                Sb[:g1, g0:g1] = blk
                Sb[g0:g1, :g0] = blk[:g0].T
            return _merged(lay.block_links[b], present, Sb)

        S = np.zeros((E, E))
        for present, Sb in self._results(work):
            S[np.ix_(present, present)] += Sb
        if not np.all(np.isfinite(S)):
            raise np.linalg.LinAlgError("the Schur complement of the layered blocks is not finite")
        self.S_cho = schur_cholesky(S)
        self.border_part = (
            None if pinned is None else PinnedBorder(pinned, lay.starts, E, self._solve_block, self.S_cho)
        )

    def _solve_block(self, b: int, rhs: np.ndarray) -> None:
        """H_b⁻¹ rhs in place (of the factorised, possibly pinned, block; a Fortran-order array of one or more
        columns)."""
        if self.kernels is not None:
            info = self.kernels.pbtrs(self.factors[b], rhs)
        else:
            x, info = dpbtrs(self.factors[b], rhs if rhs.ndim == 2 else rhs[:, None], lower=1)
            rhs[...] = x.reshape(rhs.shape)
        if info != 0:
            raise np.linalg.LinAlgError(f"banded Cholesky solve failed (info {info})")

    def _results(self, fn):  # noqa: ANN001, ANN202
        """``fn`` of every block, largest first, on the pool's threads: the list of its results."""
        order = self.lay.largest_first
        if self.pool is None:
            return [fn(b) for b in order]
        return list(self.pool.map(with_errstate(fn), order))

    def hinv(self, f: np.ndarray, overwrite: bool = False) -> np.ndarray:
        """H⁻¹ f (all blocks): one banded Cholesky solve per block; ``overwrite``: solved in f itself (a
        contiguous float array the caller no longer needs)."""
        lay = self.lay
        out = f if overwrite else np.array(f, dtype=float)  # solved in place, block by block

        def one(b: int) -> None:
            self._solve_block(b, out[lay.starts[b] : lay.starts[b + 1]])  # a contiguous view: solved in place

        if self.pool is None:
            for b in range(lay.nblocks):
                one(b)
        else:  # a few tasks of many blocks each: one task per block cost more than the smaller solves

            def group(g: range) -> None:
                for b in g:
                    one(b)

            list(self.pool.map(group, lay.solve_groups(self.pool._max_workers)))
        return out

    # --- protocol of solve_block_angular (one chunk: the whole vector)
    # With pinned directions (:class:`~problems.ipm.band_deflation.PinnedBorder`) the three steps of one Newton
    # solve share two small vectors: forward keeps Qᵀf = (Ĥ⁻¹f) at the pins for coupling, and coupling keeps t for
    # backward, which solves Ĥ(Δu) = f − AᵀΔν + Et (Q itself is not kept).  The iteration calls them in this order,
    # one solve at a time.
    def forward(self, fc: np.ndarray, c: slice, work: np.ndarray) -> np.ndarray:
        """A H⁻¹ f."""
        x = self.hinv(fc)
        if self.border_part is not None:
            self._qtf = x[self.border_part.pins]
        return self.A_rows(x)

    def coupling(self, rhs1: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, None]:
        if self.border_part is not None:
            dnu, self._t = self.border_part.coupling(rhs1, self._qtf)
            return dnu, None
        return super().coupling(rhs1, f)

    def backward(self, fc: np.ndarray, dnu: np.ndarray, c: slice, work: np.ndarray) -> np.ndarray:
        """H⁻¹(f − Aᵀ Δν) (with pins: Ĥ⁻¹(f − AᵀΔν + Et))."""
        g = fc - self._AT(dnu)
        if self.border_part is not None:
            g[self.border_part.pins] += self._t
        return self.hinv(g, overwrite=True)


def fill_band(lay: Layers, b: int, diag: np.ndarray, off: np.ndarray, region: np.ndarray) -> None:
    """Block b's band storage ``region`` (Fortran, lower, (kd + 1) × n_b flattened): its diagonal and off-diagonal
    entries (``off``: one per unordered pair of ratio rows, in the order of ``lay.off_pos``), zeros elsewhere."""
    lo = int(lay.store_offsets[b])
    region[:] = 0.0
    s0, s1 = int(lay.starts[b]), int(lay.starts[b + 1])
    region[lay.diag_pos[s0:s1] - lo] = diag[s0:s1]
    at = slice(int(lay.off_starts[b]), int(lay.off_starts[b + 1]))
    mine = at if lay.off_order is None else lay.off_order[at]
    region[lay.off_pos[mine] - lo] = off[mine]


def tiled_schur(k3: Level3Kernels, lay: Layers, b: int, c: np.ndarray) -> np.ndarray:
    """Block b's part of the Schur complement over its layers, X_bᵀX_b with X_b = L_b⁻¹A_bᵀ by level-3 tiles
    (:func:`_tiled_solve`), the product in column groups of :data:`COLUMN_GROUP` on the staircase (a group's
    columns of X vanish above its first layer's row); ``c`` is the block's band factor."""
    lb, present, first = lay.block_layers[b]
    L = present.size
    Sb = np.empty((L, L))
    X = _tiled_solve(k3, c, lb, present, lay.tile_plan(b))
    for g0 in range(0, L, COLUMN_GROUP):
        g1 = min(L, g0 + COLUMN_GROUP)
        r0 = int(first[g0])
        blk = X[r0:, :g1].T @ X[r0:, g0:g1]
        Sb[:g1, g0:g1] = blk
        Sb[g0:g1, :g0] = blk[:g0].T
    return Sb


def _merged(links: np.ndarray | None, present: np.ndarray, Sb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A block's part of the Schur complement over its layers ``present``, summed into the linking rows ``links``
    of those layers (S = Mᵀ S_layers M with M the layers' 0/1 membership); as it is when ``links`` is None."""
    if links is None:
        return present, Sb
    rows, inv = np.unique(links, return_inverse=True)
    M = np.zeros((present.size, rows.size))
    M[np.arange(present.size), inv] = 1.0
    return rows, M.T @ Sb @ M


def _tiled_solve(
    k3: Level3Kernels,
    c: np.ndarray,
    lb: np.ndarray,
    present: np.ndarray,
    tiles: list[tuple[int, ...]],
) -> np.ndarray:
    r"""X = L⁻¹A_bᵀ for the lower band factor ``c`` ((kd+1) × n Fortran band storage) by level-3 tiles.

    Column q of :math:`A_b^\top` is the indicator of layer ``present[q]`` (the rows of that layer).
    The factor is copied into band storage with ``nb`` extra zero rows, which read with leading dimension
    kd + nb is the dense column-major L (every entry of a tile below the band reads a zero).  Tile rows
    :math:`[r_0, r_1)` of height nb = :data:`TILE_ROWS`·(kd+1) then take one GEMM
    :math:`X_t \mathrel{-}= L[r_0{:}r_1,\ r_0-kd{:}r_0]\,X[r_0-kd{:}r_0]` and one triangular solve with
    :math:`L[r_0{:}r_1, r_0{:}r_1]`, both restricted to the columns not yet zero there (the staircase).  Same
    arithmetic as ``dtbtrs`` up to the order of the sums; measured 2–4× faster at m = 2, n = 100.  ``tiles``: the
    block's :func:`tile_plan` (``Layers.tile_plan``, for tiles of nb rows).
    """
    kd1, n = c.shape
    kd = kd1 - 1
    nb = _tile_height(kd)
    ld = kd + nb
    padded = np.zeros((kd1 + nb, n), order="F")
    padded[:kd1] = c
    L = present.size
    X = np.zeros((n, L), order="F")
    X[np.arange(n), np.searchsorted(present, lb)] = 1.0
    k3.run_tiles(padded.ctypes.data, ld, X.ctypes.data, n, tiles)
    return X


def _tile_height(kd: int) -> int:
    """Rows per tile of :func:`_tiled_solve` for half-bandwidth kd (:data:`TILE_ROWS` bandwidths)."""
    return max(1, TILE_ROWS * (kd + 1))


def tile_plan(n: int, kd: int, nb: int, first: np.ndarray) -> list[tuple[int, ...]]:
    """The tiles of :func:`_tiled_solve` for a block of n variables, half-bandwidth kd, tiles of nb rows and
    layers starting at ``first``, as :meth:`~problems.ipm.lapack.Level3Kernels.run_tiles` takes them (byte
    offsets into the padded factor, leading dimension kd + nb, and into X, leading dimension n).

    Tile rows [r0, r1): the GEMM with the kd rows above (columns j < j0, those with a non-zero above r0) and the
    triangular solve (columns j < j1, those with a non-zero above r1)."""
    ld = kd + nb
    r0 = np.arange(0, n, nb, dtype=np.int64)
    r1 = np.minimum(n, r0 + nb)
    lo = np.maximum(0, r0 - kd)
    j0 = np.searchsorted(first, r0)
    j1 = np.searchsorted(first, r1)
    cols = np.stack(
        [r1 - r0, j0, r0 - lo, 8 * (r0 + lo * ld), 8 * lo, 8 * r0, j1, 8 * (r0 + r0 * ld), 8 * r0]
    )
    return [tuple(t) for t in cols.T.tolist()]


def _tbtrs(kernels: BandKernels | None, c: np.ndarray, B: np.ndarray) -> None:
    """B ← L⁻¹B in place for the lower band factor ``c`` (Fortran order)."""
    if kernels is not None:
        info = kernels.tbtrs(c, B)
    else:
        X, info = dtbtrs(c, B, uplo="L", trans="N", diag="N", overwrite_b=1)
        B[...] = X
    if info != 0:
        raise np.linalg.LinAlgError(f"banded triangular solve failed (info {info})")


def _band_cholesky(ab: np.ndarray, owner: LayeredFactor, refill: Callable[[], None]) -> np.ndarray:
    """The banded Cholesky factor of one block, in place in ``ab``; a block that is not numerically positive
    definite is rebuilt by ``refill`` and factorised with its diagonal times 1 + δ for δ in
    :data:`~problems.ipm.shift.SHIFTS` (no copy of the band is kept for this rare retry)."""
    kernels = owner.kernels

    def factor(a: np.ndarray) -> int:
        if kernels is not None:
            return kernels.pbtrf(a)
        c, info = dpbtrf(a, lower=1, overwrite_ab=1)
        if info == 0 and c is not a:
            a[...] = c
        return info

    if factor(ab) == 0:
        return ab
    for delta in SHIFTS:
        refill()  # the failed factorisation overwrote the band
        ab[0] = shifted(ab[0], delta)
        if factor(ab) == 0:
            owner.shifted += 1
            return ab
    raise np.linalg.LinAlgError("a block of the banded normal equations is not positive definite")
