"""Ratio rows shared by the interior-point methods: reverse pairs and the O(1)-scaled rows."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from ..indexing import pair_keys

__all__ = ["reverse_pairs", "ScaledRatioRows", "scaled_ratio_rows", "abs_product"]


def reverse_pairs(src: np.ndarray, dst: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For every pair p = (src_p, dst_p) of indices below ``size``: the index of the reversed pair
    (dst_p, src_p), and whether it exists (where it does not, the index is arbitrary)."""
    key = pair_keys(src, dst, size)
    rkey = pair_keys(dst, src, size)
    order = np.argsort(key)
    pos = np.clip(np.searchsorted(key[order], rkey), 0, max(src.size - 1, 0))
    rev = order[pos]
    return rev, key[rev] == rkey


class ScaledRatioRows(NamedTuple):
    """Ratio rows ``z[pi_p] − rκ_p z[pj_p] ≤ 0`` scaled by g_p = 1/max(1, rκ_p) (same feasible set, O(1)
    coefficients), with what the normal matrix H = GᵀDG + E needs."""

    row_scale: np.ndarray  # g_p
    a_i: np.ndarray  # coefficient of z[pi_p] in scaled row p (= g_p)
    a_j: np.ndarray  # coefficient of z[pj_p] (= −rκ_p g_p)
    GT: sp.csr_matrix  # Gᵀ (ncols × P)
    GsqT: sp.csr_matrix | None  # (G∘G)ᵀ: diag(GᵀDG) = GsqT @ D
    offprod: np.ndarray  # a_i a_j: row p's contribution to H[pi_p, pj_p] per unit D_p
    rev: np.ndarray  # index of the reversed row (pj_p, pi_p); both share the off-diagonal entry of H


def scaled_ratio_rows(
    pi: np.ndarray, pj: np.ndarray, kappa: np.ndarray, r: float, ncols: int, *, squares: bool = True
) -> ScaledRatioRows:
    """:class:`ScaledRatioRows` of the rows (pi, pj, κ) at r = e^ε; every row must have its reverse.

    ``squares=False`` leaves ``GsqT`` out (None): its entries are the squares of ``GT``'s, in the same order.
    """
    P = pi.size
    coef_j = -float(r) * np.asarray(kappa, dtype=float)
    g = 1.0 / np.maximum(1.0, np.abs(coef_j))
    a_j = coef_j * g
    rows = np.concatenate([np.arange(P), np.arange(P)])
    cols = np.concatenate([pi, pj])
    vals = np.concatenate([g, a_j])
    GT = sp.csr_matrix((vals, (cols, rows)), shape=(ncols, P))
    del rows, cols, vals
    GsqT = sp.csr_matrix((GT.data**2, GT.indices, GT.indptr), shape=(ncols, P)) if squares else None
    rev, found = reverse_pairs(pi, pj, ncols)
    if not np.all(found):
        raise ValueError("the ratio rows must come in reverse pairs (i, j) and (j, i)")
    return ScaledRatioRows(g, g, a_j, GT, GsqT, g * a_j, rev)


def abs_product(M: sp.csr_matrix, v: np.ndarray) -> np.ndarray:
    """|M| v (entrywise absolute values of the sparse M): the size of the terms summed in M v, whose rounding
    error is at most a small multiple of the unit roundoff times it.  The absolute values live only during the
    product (they share M's index arrays)."""
    absM = sp.csr_matrix((np.abs(M.data), M.indices, M.indptr), shape=M.shape)
    return absM @ v
