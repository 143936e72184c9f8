r"""Types and joint types of databases, enumerated without loops over databases.

For x ∈ Dⁿ the *type* t(x) ∈ ℕ^m counts the rows with each value; for a pair (x, y) the *joint type*
T(x, y) ∈ ℕ^{m×m} counts the rows k with (x_k, y_k) = (a, b).  The symmetric group S_n acts on pairs by
permuting the rows of x and y together; its orbits are exactly the joint types (two pairs are in one orbit iff
they have the same joint type).  There are C(n+m²−1, m²−1) joint types and C(n+m−1, m−1) types.

Quantities used by the reduced programs (``docs/orbit_reduction.md``):

* row sums of T = t(x), column sums = t(y), d(x, y) = n − trace T (Hamming distortion);
* c(T | t) = Π_a t_a! / Π_{a,b} T_ab! = number of y with T(x, y) = T for a fixed x of type t;
* a *move* (a → a', column b): change one row of x with (x_k, y_k) = (a, b) to a'; it maps
  T to T' = T − e_ab + e_a'b, t to t' = t − e_a + e_a', and c(T|t)/c(T'|t') = (t_a/(t_a'+1))·((T_a'b+1)/T_ab).

Enumeration order is lexicographic in the flattened (row-major) matrix, which is also the ascending order of
the integer key Σ_i T_i (n+1)^{M−1−i} (M = m², T flattened); look-ups use :func:`numpy.searchsorted`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.special import gammaln

from ..errors import InvalidInputError, ProblemTooLargeError

__all__ = ["compositions", "composition_keys", "arrange", "JointTypes", "Moves", "MAX_JOINT_TYPES"]

#: Largest number of joint types enumerated by default (m = 2, n = 200 has 1 373 701).
MAX_JOINT_TYPES = 3_000_000


def compositions(n: int, parts: int) -> np.ndarray:
    """All vectors of ``parts`` non-negative integers summing to ``n``, in lexicographic order.

    Vectorised: one numpy step per part (no loop over the C(n+parts−1, parts−1) results).
    """
    if parts < 1 or n < 0:
        raise InvalidInputError(f"compositions need n ≥ 0 and parts ≥ 1, got n={n}, parts={parts}")
    if parts == 1:
        return np.array([[n]], dtype=np.int64)
    arr = np.arange(n + 1, dtype=np.int64)[:, None]
    for _ in range(parts - 2):
        counts = n - arr.sum(axis=1) + 1
        rep = np.repeat(arr, counts, axis=0)
        offsets = np.repeat(np.cumsum(counts) - counts, counts)
        ramp = np.arange(int(counts.sum()), dtype=np.int64) - offsets
        arr = np.hstack([rep, ramp[:, None]])
    return np.hstack([arr, (n - arr.sum(axis=1))[:, None]])


def arrange(x: np.ndarray, T: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One database y per joint type in ``T`` (``(size, m, m)``) with T(x, y) = T: for each value a the rows with
    x_k = a receive the values b with counts T_ab in a uniformly random arrangement.  Returns ``(size, n)``."""
    size, m = T.shape[0], T.shape[1]
    y = np.empty((size, x.size), dtype=np.int64)
    for a in range(m):
        pos = np.flatnonzero(x == a)
        if pos.size == 0:
            continue
        cum = np.cumsum(T[:, a, :], axis=1)  # (size, m)
        labels = (np.arange(pos.size)[None, :, None] >= cum[:, None, :]).sum(axis=2)  # value b of each slot
        perm = np.argsort(rng.random((size, pos.size)), axis=1)
        y[:, pos] = np.take_along_axis(labels, perm, axis=1)
    return y


def composition_keys(vectors: np.ndarray, n: int) -> np.ndarray:
    """Integer key Σ_i v_i (n+1)^{P−1−i}, increasing in lexicographic order (P = number of parts)."""
    v = np.asarray(vectors, dtype=np.int64)
    parts = v.shape[-1]
    if (n + 1) ** parts >= 2**62:
        raise ProblemTooLargeError(
            f"joint types with {parts} cells and n = {n} do not fit 64-bit keys; this size is far beyond "
            "what an LP can hold anyway"
        )
    weights = (n + 1) ** np.arange(parts - 1, -1, -1, dtype=np.int64)
    return v @ weights


@dataclass(frozen=True)
class Moves:
    """All moves T → T' (one row of x changed from a to a' while that row of y is b), as arrays.

    ``src``/``dst`` index joint types; ``log_kappa`` is ln[(t_a/(t_a'+1))·((T_a'b+1)/T_ab)] = ln c(T|t)/c(T'|t');
    ``x_src``/``x_dst`` index the types of x and x'.
    """

    src: np.ndarray
    dst: np.ndarray
    log_kappa: np.ndarray
    x_src: np.ndarray
    x_dst: np.ndarray

    @property
    def size(self) -> int:
        return int(self.src.size)


class JointTypes:
    """The joint types of pairs in Dⁿ × Dⁿ and the types of Dⁿ, with the index maps the programs need."""

    def __init__(self, n: int, m: int, *, limit: int = MAX_JOINT_TYPES) -> None:
        from math import comb

        from ..resources import format_count

        if n < 1 or m < 2:
            raise InvalidInputError(f"joint types need n ≥ 1 and m ≥ 2, got n={n}, m={m}")
        count = comb(n + m * m - 1, m * m - 1)
        if count > limit:
            raise ProblemTooLargeError(
                f"n = {n}, m = {m} has {format_count(count)} joint types; the reduced path accepts at most {limit}",
                size=min(count, 2**62),
                limit=limit,
            )
        self.n, self.m = int(n), int(m)
        flat = compositions(n, m * m)  # (K, m²), T flattened row-major: cell a*m + b
        # counts T_ab ≤ n in 16 bits where n allows (m = 2, n = 200: 11 MB instead of 44 MB); sums and products of
        # them promote to 64 bits or floats
        self.flat = flat.astype(np.int16) if n < 2**15 else flat
        del flat
        self.x_types = compositions(n, m)  # (Kx, m)
        self.x_keys = composition_keys(self.x_types, n)
        rows = self.T.sum(axis=2)
        self.x_index = np.searchsorted(self.x_keys, composition_keys(rows, n)).astype(np.int32)

    # ------------------------------------------------------------------ basics
    @property
    def size(self) -> int:
        """Number of joint types K."""
        return int(self.flat.shape[0])

    @property
    def T(self) -> np.ndarray:
        """``(K, m, m)`` joint type matrices (a view)."""
        return self.flat.reshape(-1, self.m, self.m)

    @property
    def keys(self) -> np.ndarray:
        """The joint types' keys (:func:`composition_keys`), increasing: formed at each use, not kept (m = 2,
        n = 200: 11 MB for the whole solve, against about 10 ms per use)."""
        return composition_keys(self.flat, self.n)

    @cached_property
    def distance(self) -> np.ndarray:
        """d(x, y) = n − trace T for every joint type."""
        return self.n - np.trace(self.T, axis1=1, axis2=2).astype(float)

    @cached_property
    def y_types(self) -> np.ndarray:
        """Column sums of each T (the type of y), in the counts' own width (:attr:`flat`)."""
        return self.T.sum(axis=1).astype(self.flat.dtype)

    @cached_property
    def log_count_given_x(self) -> np.ndarray:
        """ln c(T | t) = ln Π_a t_a! − ln Π_{a,b} T_ab!."""
        t = self.x_types[self.x_index].astype(float)
        return gammaln(t + 1.0).sum(axis=1) - gammaln(self.flat + 1.0).sum(axis=1)

    def index(self, flat_types: np.ndarray) -> np.ndarray:
        """Indices of joint types given flattened ``(…, m²)``; ``-1`` where a vector is not a joint type."""
        keys, known = composition_keys(flat_types, self.n), self.keys
        idx = np.searchsorted(known, keys)
        idx = np.clip(idx, 0, self.size - 1)
        return np.where(known[idx] == keys, idx, -1)

    def mirror(self) -> np.ndarray:
        """The index of each joint type's mirror image, both databases' alphabet reversed (a ↦ m − 1 − a): with
        cells a·m + b, the cells in reverse order.  An involution; a symmetry of the LP when the prior is invariant
        under it (:mod:`problems.lp.fold`)."""
        return self.index(self.flat[:, ::-1])

    def x_type_index(self, types: np.ndarray) -> np.ndarray:
        """Indices of x-types (``(…, m)`` counts)."""
        return np.searchsorted(self.x_keys, composition_keys(types, self.n))

    # ------------------------------------------------------------------ moves
    @cached_property
    def moves(self) -> Moves:
        """Every move T → T' = T − e_ab + e_a'b (a ≠ a', T_ab ≥ 1), vectorised over T (loop over (a, a', b))."""
        m = self.m
        src_l, dst_l, lk_l = [], [], []
        t = self.x_types[self.x_index]
        for a in range(m):
            for a2 in range(m):
                if a2 == a:
                    continue
                for b in range(m):
                    ab, a2b = a * m + b, a2 * m + b
                    sel = np.flatnonzero(self.flat[:, ab] >= 1)
                    new = self.flat[sel].copy()
                    new[:, ab] -= 1
                    new[:, a2b] += 1
                    dst = self.index(new)
                    lk = (
                        np.log(t[sel, a].astype(float))
                        - np.log(t[sel, a2] + 1.0)
                        + np.log(self.flat[sel, a2b] + 1.0)
                        - np.log(self.flat[sel, ab].astype(float))
                    )
                    src_l.append(sel)
                    dst_l.append(dst)
                    lk_l.append(lk)
        src = np.concatenate(src_l)
        dst = np.concatenate(dst_l)
        return Moves(src, dst, np.concatenate(lk_l), self.x_index[src], self.x_index[dst])

    # ----------------------------------------------------------- databases
    def pair_index(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """Joint-type index of every pair (X[i], Y[j]): ``(len(X), len(Y))`` int array (loop over rows only)."""
        X = np.asarray(X, dtype=np.int64)
        Y = np.asarray(Y, dtype=np.int64)
        M = self.m * self.m
        w = (self.n + 1) ** np.arange(M - 1, -1, -1, dtype=np.int64)
        keys = np.zeros((X.shape[0], Y.shape[0]), dtype=np.int64)
        for k in range(self.n):
            keys += w[X[:, k][:, None] * self.m + Y[:, k][None, :]]
        return np.searchsorted(self.keys, keys)
