"""Work over a ratio LP's rows by one of their sides: sums in slices of the rows, and the rows sorted by a side.

A reduced LP has about four ratio rows per variable (m = 2, n = 200: 5.4 M rows, 41 MiB per vector over them).
``np.bincount(spec.src, weights=rk * lam)`` makes two such temporaries (the weights, and the 32-bit side widened
to the platform's integers); :func:`side_sums` makes none over more than :data:`ROW_SLICE` rows.  It adds the
rows in their order with ``np.add.at``, which accumulates each bin in index order as ``np.bincount`` does, so
the sums are bitwise the same (tested).  :func:`rows_by` sorts the rows by one side (CSR form), and
:func:`rows_of` and :func:`rows_at` list the rows at some entries: the repairs' and the lower bound's sweeps work
on those rows only once few entries change.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..indexing import index_dtype
from .spec import RatioLPSpec

__all__ = ["ROW_SLICE", "side_sums", "row_slices", "collect", "rows_by", "rows_of", "rows_at"]

#: rows per slice
ROW_SLICE = 1 << 19


def row_slices(rows: int) -> list[slice]:
    """Consecutive slices of at most :data:`ROW_SLICE` rows covering ``range(rows)``."""
    return [slice(start, start + ROW_SLICE) for start in range(0, rows, ROW_SLICE)]


def collect(
    rows: int, pick: Callable[[slice | np.ndarray], tuple[np.ndarray, ...]], only: np.ndarray | None = None
) -> tuple[np.ndarray, ...]:
    """``pick(part)`` over the rows ``only`` (an index array), or over every one of ``rows`` rows in slices,
    each of its arrays concatenated over the slices (with no rows: ``pick`` of an empty slice)."""
    parts = [pick(part) for part in ([only] if only is not None else row_slices(rows) or [slice(0, 0)])]
    return tuple(np.concatenate(arrays) for arrays in zip(*parts))


def side_sums(
    side: np.ndarray, size: int, weights: np.ndarray, scale: np.ndarray | None = None
) -> np.ndarray:
    """Σ_p [side_p = j] · scale_p · weights_p for j < ``size`` (``scale`` omitted: 1).

    Bitwise ``np.bincount(side, weights=scale * weights, minlength=size)``, with temporaries over one slice of
    the rows only.
    """
    out = np.zeros(size)
    for rows in row_slices(side.size):
        w = weights[rows] if scale is None else scale[rows] * weights[rows]
        np.add.at(out, side[rows], w)
    return out


def rows_of(order: np.ndarray, start: np.ndarray, entries: np.ndarray) -> np.ndarray:
    """The rows listed in CSR form (``order`` sorted by one side, ``start`` its pointers) for ``entries``."""
    lo, hi = start[entries], start[entries + 1]
    counts = hi - lo
    return order[np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))]


def rows_at(order: np.ndarray, start: np.ndarray, marked: np.ndarray, changed: np.ndarray) -> np.ndarray:
    """The rows at the entries ``changed`` (each entry once), by :func:`rows_of`; ``marked`` is an all-False scratch
    mask, left so (marking, not sorting: np.unique spent 74 of 525 s at m = 2, n = 200 in a repair's cascades)."""
    marked[changed] = True
    entries = np.flatnonzero(marked)
    marked[entries] = False
    return rows_of(order, start, entries)


def rows_by(spec: RatioLPSpec, side: str) -> tuple[np.ndarray, np.ndarray]:
    """The ratio rows sorted by one side (``"src"``, the large side, or ``"dst"``, the small side), stably, and
    the start of each variable's run (CSR pointers).  Not cached: a reduced LP's sides are a few sorted runs
    (m = 2, n = 200: 20 ms per side), and a cache on the spec held 51 MiB through the block method's iterations."""
    ends = getattr(spec, side)
    index = index_dtype(spec.K, spec.P)
    order = np.argsort(ends, kind="stable").astype(index)
    start = np.zeros(spec.K + 1, dtype=index)
    np.cumsum(np.bincount(ends, minlength=spec.K), out=start[1:])
    return order, start
