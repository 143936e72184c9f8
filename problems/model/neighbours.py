r"""Neighbour relations of a mechanism-design model: which pairs of inputs a privacy constraint protects.

A relation is given as

* a :class:`~problems.database.DatabaseSpace` — *bounded* neighbours: databases of n rows at Hamming
  distance 1 (one row changes value), as in Wang, Ying & Zhang (2016);
* an :class:`UnboundedSpace` — *unbounded* neighbours: databases of every size 0..n, neighbours when one is
  obtained from the other by adding or removing one row;
* ``"all"`` — every pair of distinct inputs (local differential privacy);
* any user graph as a ``(k, 2)`` integer array of input indices.

:func:`resolve_pairs` turns any of them into ordered pairs ``(i, j)``, both directions, without duplicates
or self-pairs: a privacy constraint on a symmetric relation constrains both ratios.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..database import DatabaseSpace
from ..errors import InvalidInputError, ShapeMismatchError

__all__ = ["UnboundedSpace", "resolve_pairs", "pair_count", "require_model_memory", "describe"]


@dataclass(frozen=True)
class UnboundedSpace:
    """Databases of every size ``0..n`` over rows in ``{0..m−1}``, with add/remove-one-row neighbours.

    Databases are ordered by size, then in :func:`itertools.product` order within a size: index
    ``Σ_{L<|x|} m^L + Σ_k x_k m^{|x|−1−k}``.  There are ``Σ_{L=0}^n m^L`` of them.  Two databases are
    neighbours when deleting one row of the longer gives the shorter (unbounded differential privacy,
    Dwork 2006; Kifer & Machanavajjhala 2011).

    Parameters
    ----------
    n:
        Largest number of rows, ``n ≥ 1``.
    m:
        Domain size of a row, ``m ≥ 1``.
    """

    n: int
    m: int

    def __post_init__(self) -> None:
        for name, value, low in (("n", self.n, 1), ("m", self.m, 1)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise InvalidInputError(f"{name} must be an integer ≥ {low}, got {value!r}")

    @cached_property
    def offsets(self) -> np.ndarray:
        """``offsets[L]`` is the index of the first database of size L (length n + 2)."""
        return np.concatenate([[0], np.cumsum([self.m**L for L in range(self.n + 1)])]).astype(np.int64)

    @property
    def size(self) -> int:
        return int(self.offsets[-1])

    @cached_property
    def databases(self) -> list[tuple[int, ...]]:
        """Every database as a tuple of rows, in index order."""
        out: list[tuple[int, ...]] = []
        for L in range(self.n + 1):
            out.extend(itertools.product(range(self.m), repeat=L))
        return out

    @cached_property
    def labels(self) -> list[str]:
        return [",".join(map(str, x)) if x else "∅" for x in self.databases]

    @cached_property
    def sizes(self) -> np.ndarray:
        """Number of rows of every database."""
        return np.repeat(np.arange(self.n + 1), [self.m**L for L in range(self.n + 1)])

    @cached_property
    def neighbour_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Ordered add/remove pairs, both directions: ``(i, j)`` with one of them one row longer."""
        longer, shorter = [], []
        for L in range(1, self.n + 1):
            idx = np.arange(self.m**L)
            powers = self.m ** np.arange(L - 1, -1, -1)
            rows = (idx[:, None] // powers[None, :]) % self.m  # (m^L, L)
            for k in range(L):  # delete row k (loops over rows, not over pairs)
                rest = np.delete(rows, k, axis=1)
                sub = rest @ (self.m ** np.arange(L - 2, -1, -1)) if L > 1 else np.zeros(idx.size, np.int64)
                longer.append(self.offsets[L] + idx)
                shorter.append(self.offsets[L - 1] + sub)
        a, b = np.concatenate(longer), np.concatenate(shorter)
        pairs = np.unique(np.stack([np.concatenate([a, b]), np.concatenate([b, a])], axis=1), axis=0)
        return pairs[:, 0].astype(np.int64), pairs[:, 1].astype(np.int64)


def _from_array(pairs, N: int) -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(pairs)
    if arr.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ShapeMismatchError(f"neighbours must be a (k, 2) array of input indices, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise InvalidInputError("neighbour pairs must be integer input indices")
        arr = arr.astype(np.int64)
    bad = (arr < 0) | (arr >= N)
    if bad.any():
        k = int(np.flatnonzero(bad.any(axis=1))[0])
        raise InvalidInputError(
            f"neighbour pair {arr[k].tolist()} (row {k}) has an index outside 0..{N - 1} (the model has {N} inputs)"
        )
    return arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64)


def resolve_pairs(neighbours, N: int) -> tuple[np.ndarray, np.ndarray]:
    """Ordered neighbour pairs ``(i, j)`` (both directions, no self-pairs, sorted, unique) on ``N`` inputs."""
    if isinstance(neighbours, str):
        if neighbours != "all":
            raise InvalidInputError(
                f"neighbours must be 'all', a DatabaseSpace, an UnboundedSpace or a (k, 2) array, got {neighbours!r}"
            )
        i, j = np.divmod(np.arange(N * N, dtype=np.int64), N)
    elif isinstance(neighbours, (DatabaseSpace, UnboundedSpace)):
        if neighbours.size != N:
            raise ShapeMismatchError(
                f"{neighbours} has {neighbours.size} databases; the model has {N} inputs"
            )
        i, j = neighbours.neighbour_pairs
    else:
        i, j = _from_array(neighbours, N)
    keep = i != j
    i, j = np.concatenate([i[keep], j[keep]]), np.concatenate([j[keep], i[keep]])
    if i.size == 0:
        return i, j
    code = np.unique(i * N + j)
    return code // N, code % N


def pair_count(neighbours, N: int) -> int:
    """An upper bound on the number of ordered neighbour pairs on ``N`` inputs, without building them.

    ``"all"``: N(N−1); a :class:`~problems.database.DatabaseSpace`: N·n(m−1); an :class:`UnboundedSpace`:
    2·Σ_L L·m^L; an array of k pairs: 2k.  The models' memory guard multiplies it by the number of outputs.
    """
    if isinstance(neighbours, str):
        return N * (N - 1)
    if isinstance(neighbours, DatabaseSpace):
        return N * neighbours.n * (neighbours.m - 1)
    if isinstance(neighbours, UnboundedSpace):
        return 2 * sum(L * neighbours.m**L for L in range(1, neighbours.n + 1))
    shape = getattr(neighbours, "shape", None)
    return 2 * int(shape[0]) if shape else N * (N - 1)


def require_model_memory(name: str, N: int, K: int, rows: int) -> None:
    """Refuse (ProblemTooLargeError) a model of N inputs, K outputs and ``rows`` ratio rows over the budget.

    The estimate is that of the dense programs: 150 MB + 512 B per mechanism entry + 800 B per ratio row
    (:data:`problems.resources.BYTES_PER_RATIO_ROW`).  Used by :meth:`MechanismModel.add` and, before the
    loss is built, by the model spec reader.
    """
    from ..resources import BASE_MEMORY, BYTES_PER_RATIO_ROW, as_bytes, require_memory

    require_memory(
        BASE_MEMORY + as_bytes(512, N, K) + as_bytes(BYTES_PER_RATIO_ROW, rows),
        f"the model {name!r} ({N} inputs × {K} outputs, {rows} ratio rows)",
        "Use fewer inputs or outputs, a sparser neighbour relation, or the reduced programs "
        "(python -m problems solve … --formulation reduced) for PD-DP/PD-I with a symmetric prior.",
    )


def describe(neighbours) -> str:
    """A short text for messages and JSON."""
    if isinstance(neighbours, str):
        return neighbours
    if isinstance(neighbours, DatabaseSpace):
        return f"bounded (Hamming 1) on DatabaseSpace(n={neighbours.n}, m={neighbours.m})"
    if isinstance(neighbours, UnboundedSpace):
        return f"unbounded (add/remove one row) on UnboundedSpace(n={neighbours.n}, m={neighbours.m})"
    return "user graph"
