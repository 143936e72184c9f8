"""The database space Dⁿ: n rows, each with a value in {0, …, m−1} (Wang, Ying & Zhang 2016, §2).

Databases are enumerated in :func:`itertools.product` order (the last row varies fastest), so the database
with rows ``(x_1, …, x_n)`` has index ``Σ_k x_k m^{n−k}``.  Two databases are neighbours when their Hamming
distance is 1.  Everything here is vectorised; no loop runs over the N² pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .errors import InvalidInputError, ProblemTooLargeError

__all__ = ["DatabaseSpace", "DENSE_LIMIT", "MAX_ROWS", "MAX_DOMAIN"]

#: Largest N = mⁿ for which dense N×N objects (distance matrix, mechanism) are built by default.
DENSE_LIMIT = 4096
#: Largest n and m of any database space: the reduced and theorem paths hold O(n) and O(m) vectors (n = 10⁶
#: answers in ~2 s); beyond, even those vectors are out of reach, so the space itself is refused.
MAX_ROWS = 10**6
MAX_DOMAIN = 2**16


@dataclass(frozen=True)
class DatabaseSpace:
    """The set Dⁿ of databases with ``n`` rows over a domain of size ``m``.

    Parameters
    ----------
    n:
        Number of rows (individuals), ``n ≥ 1``.
    m:
        Domain size of a row, ``m ≥ 2``.
    """

    n: int
    m: int

    def __post_init__(self) -> None:
        for name, value, low in (("n", self.n, 1), ("m", self.m, 2)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
                raise InvalidInputError(f"{name} must be an integer ≥ {low}, got {value!r}")
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "m", int(self.m))
        for name, value, top in (("n", self.n, MAX_ROWS), ("m", self.m, MAX_DOMAIN)):
            if value > top:
                raise ProblemTooLargeError(
                    f"{name} = {value} is beyond what any path of the toolkit can hold (vectors of length "
                    f"{name}); it accepts {name} ≤ {top}",
                    size=min(value, 2**62),
                    limit=top,
                )

    # ------------------------------------------------------------------ sizes
    @property
    def size(self) -> int:
        """N = mⁿ, the number of databases."""
        return self.m**self.n

    @property
    def shape(self) -> tuple[int, ...]:
        """``(m,)*n``: the tensor shape of a function on Dⁿ."""
        return (self.m,) * self.n

    def require_dense(self, limit: int = DENSE_LIMIT) -> None:
        """Raise :class:`ProblemTooLargeError` if N exceeds ``limit`` (dense N×N objects would be built)."""
        if self.size > limit:
            from .resources import format_count

            N = format_count(self.size)
            raise ProblemTooLargeError(
                f"the dense path builds N×N arrays, N = {self.m}^{self.n} = {N}, for n = {self.n}, m = {self.m}; "
                f"it accepts N ≤ {limit}. Use a symmetric (i.i.d./exchangeable) prior with the reduced "
                "programs, or raise the limit explicitly if you have the memory",
                size=min(self.size, 2**62),
                limit=limit,
            )

    # ------------------------------------------------------------- elements
    @cached_property
    def elements(self) -> np.ndarray:
        """``(N, n)`` integer array; row ``k`` is the k-th database in itertools.product order."""
        idx = np.arange(self.size)
        powers = self.m ** np.arange(self.n - 1, -1, -1)
        return (idx[:, None] // powers[None, :]) % self.m

    def index(self, database) -> int:
        """Index of a database given as a sequence of ``n`` row values."""
        x = np.asarray(database, dtype=int)
        if x.shape != (self.n,) or np.any(x < 0) or np.any(x >= self.m):
            raise InvalidInputError(f"a database is {self.n} values in 0..{self.m - 1}, got {database!r}")
        return int(x @ (self.m ** np.arange(self.n - 1, -1, -1)))

    @cached_property
    def labels(self) -> list[str]:
        """String labels ``"0,1,1"`` of the databases, in enumeration order."""
        return [",".join(map(str, row)) for row in self.elements]

    # ------------------------------------------------------------- distance
    def hamming_matrix(self) -> np.ndarray:
        """``(N, N)`` Hamming distances d(x, y) (float).  Built in O(N² n) time, one row axis at a time."""
        self.require_dense()
        e = self.elements
        d = np.zeros((self.size, self.size))
        for k in range(self.n):  # loop over the n rows of a database, not over pairs
            d += e[:, k][:, None] != e[:, k][None, :]
        return d

    def distance_counts(self) -> np.ndarray:
        """``N_l = C(n, l)(m−1)^l``: how many databases lie at distance ``l`` from any given one, l = 0..n."""
        from math import comb

        return np.array([comb(self.n, l) * (self.m - 1) ** l for l in range(self.n + 1)], dtype=float)

    @cached_property
    def neighbour_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Ordered neighbour pairs ``(i, j)`` with d(x_i, x_j) = 1, as two index arrays of length N·n·(m−1).

        Built by changing one row at a time: for row k and shift s ∈ {1..m−1}, ``j = i`` with row k replaced by
        ``(x_k + s) mod m``.  Both orders (i, j) and (j, i) appear.
        """
        e = self.elements
        idx = np.arange(self.size)
        firsts, seconds = [], []
        for k in range(self.n):
            weight = self.m ** (self.n - 1 - k)
            for s in range(1, self.m):
                new = (e[:, k] + s) % self.m
                firsts.append(idx)
                seconds.append(idx + (new - e[:, k]) * weight)
        return np.concatenate(firsts), np.concatenate(seconds)
