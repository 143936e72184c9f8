r"""Loss matrices ``L[x, y]`` for a mechanism-design model (rows: inputs, columns: outputs).

The expected loss of a mechanism W under a prior p is :math:`\sum_{x,y} p(x) W[x,y] L[x,y]`.

* :func:`hamming` — Hamming distance between databases (rows that differ), as in Wang, Ying & Zhang (2016) (PD-DP, PD-I);
* :func:`absolute`, :func:`squared` — :math:`|f(x) - y|` and :math:`(f(x) - y)^2` for a numeric query f;
* :func:`zero_one` — :math:`1[x \ne y]` (identity release);
* :func:`as_loss` — any finite matrix, validated.
"""

from __future__ import annotations

import numpy as np

from ..database import DatabaseSpace
from ..errors import InvalidInputError, ShapeMismatchError

__all__ = ["hamming", "absolute", "squared", "zero_one", "as_loss"]


def as_loss(L, N: int | None = None) -> np.ndarray:
    """``L`` as a finite 2-D float matrix (with ``N`` rows when given); raises typed errors naming the value."""
    if isinstance(L, (str, bytes, bool)):
        raise InvalidInputError(f"a loss is a 2-D matrix of numbers L[x, y], got {L!r}")
    try:
        arr = np.asarray(L, dtype=float)
    except (TypeError, ValueError):
        raise ShapeMismatchError(
            "a loss is a rectangular 2-D matrix of numbers L[x, y] (inputs × outputs); got a ragged or "
            f"non-numeric {type(L).__name__}"
        ) from None
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ShapeMismatchError(f"a loss is a 2-D matrix L[x, y] (inputs × outputs), got shape {arr.shape}")
    if N is not None and arr.shape[0] != N:
        raise ShapeMismatchError(
            f"loss has {arr.shape[0]} rows but the prior has {N} entries; L must be (inputs, outputs) = ({N}, K)"
        )
    if not np.all(np.isfinite(arr)):
        k = int(np.flatnonzero(~np.isfinite(arr.ravel()))[0])
        raise InvalidInputError(
            f"loss entry L{np.unravel_index(k, arr.shape)} = {arr.ravel()[k]!r} is not finite; entries must be finite"
        )
    return arr


def hamming(space: DatabaseSpace) -> np.ndarray:
    """``(N, N)`` Hamming distance between the databases of ``space`` (the distortion of Wang, Ying & Zhang (2016))."""
    if not isinstance(space, DatabaseSpace):
        raise InvalidInputError(f"hamming needs a DatabaseSpace, got {type(space).__name__}")
    return space.hamming_matrix()


def _query(values, outputs) -> tuple[np.ndarray, np.ndarray]:
    f = np.asarray(values, dtype=float).reshape(-1)
    y = np.unique(f) if outputs is None else np.asarray(outputs, dtype=float).reshape(-1)
    if f.size == 0 or y.size == 0 or not (np.all(np.isfinite(f)) and np.all(np.isfinite(y))):
        raise InvalidInputError("query values and outputs must be non-empty and finite")
    return f, y


def absolute(values, outputs=None) -> np.ndarray:
    """``L[x, y] = |f(x) − y_k|`` for query values ``f(x)`` (one per input) and outputs (default: the values)."""
    f, y = _query(values, outputs)
    return np.abs(f[:, None] - y[None, :])


def squared(values, outputs=None) -> np.ndarray:
    """``L[x, y] = (f(x) − y_k)²``."""
    f, y = _query(values, outputs)
    return (f[:, None] - y[None, :]) ** 2


def zero_one(N: int, K: int | None = None) -> np.ndarray:
    """``L[x, y] = 1[x ≠ y]`` on ``N`` inputs and ``K`` outputs (default ``K = N``)."""
    K = N if K is None else K
    if not (isinstance(N, (int, np.integer)) and isinstance(K, (int, np.integer)) and N >= 1 and K >= 1):
        raise InvalidInputError(f"zero_one needs integer sizes ≥ 1, got N = {N!r}, K = {K!r}")
    return 1.0 - np.eye(N, K)
