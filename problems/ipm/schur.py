r"""The factorised Schur complement that couples the blocks of a block-angular Newton system.

Every block factorisation of the toolkit (:class:`problems.ipm.block._RaggedFactor`,
:class:`problems.ipm.sparse_block.SparseBlockFactor`, :class:`problems.ipm.layered.LayeredFactor`) eliminates
its blocks :math:`H_b` and is left with the small system :math:`S\,\Delta\nu = r` in the linking rows, with
:math:`S = \sum_b A_b H_b^{-1} A_b^\top`.  This module factorises S (:func:`schur_cholesky`) and holds the steps
of the solve protocol of :func:`problems.ipm.iteration.solve_block_angular` that they share
(:class:`SchurFactor`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg as sla

__all__ = ["schur_cholesky", "SchurFactor"]


def schur_cholesky(S: np.ndarray) -> tuple[np.ndarray, bool]:
    """Cholesky factor (``scipy.linalg.cho_factor``) of the symmetrised Schur complement, with a 1e-14 relative
    diagonal shift if it is not numerically positive definite (refinement absorbs the perturbation)."""
    S = 0.5 * (S + S.T)
    try:
        return sla.cho_factor(S, lower=True, check_finite=False)
    except np.linalg.LinAlgError:
        S[np.diag_indices(S.shape[0])] += 1e-14 * np.max(np.abs(np.diag(S)))
        return sla.cho_factor(S, lower=True, check_finite=False)


class SchurFactor:
    """What the block factorisations share: the coupling solve :math:`\\Delta\\nu = S^{-1} r` on
    :attr:`S_cho`, no border term, and work over the blocks in :attr:`_order` (largest first) on
    :attr:`pool`'s threads, or one after another without a pool."""

    S_cho: tuple[np.ndarray, bool]
    pool: ThreadPoolExecutor | None
    _order: list[int]

    def _map(self, fn: Callable[[int], object]) -> None:
        if self.pool is not None:
            list(self.pool.map(fn, self._order))
        else:
            for k in self._order:
                fn(k)

    def coupling(self, rhs1: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, None]:
        """Δν = S⁻¹ r (``f`` is not needed: the blocks' part is in :meth:`backward`)."""
        return sla.cho_solve(self.S_cho, rhs1, check_finite=False), None

    def border(self, dz: np.ndarray, tt: None) -> None:
        """Nothing to add to Δz (a factorisation with bordered unknowns, the layered one's pins, adds their part
        in its ``backward``)."""
        return None
