"""Integer widths of the LPs' index arrays, and keys of index pairs.

Index arrays (the ratio rows' ends, normalisation rows, row orders) are kept in 32 bits where the sizes allow:
at m = 2, n = 200 a 64-bit P-vector of them is 41 MiB.  A key ``a·size + b`` of two such indices exceeds 2³¹ as
soon as size > 46 341, so keys are always formed in 64 bits (:func:`pair_keys`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["index_dtype", "pair_keys"]


def index_dtype(*sizes: int) -> type[np.signedinteger]:
    """``np.int32`` for indices below every one of ``sizes`` when the largest fits in 32 bits, else ``np.int64``."""
    return np.int32 if max(sizes, default=0) < 2**31 - 1 else np.int64


def pair_keys(a: np.ndarray, b: np.ndarray, size: int) -> np.ndarray:
    """The 64-bit keys ``a·size + b`` of the index pairs (a, b), b < size: distinct pairs, distinct keys, in the
    lexicographic order of the pairs."""
    return np.asarray(a).astype(np.int64, copy=False) * int(size) + np.asarray(b).astype(np.int64, copy=False)
