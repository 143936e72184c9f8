r"""The data of a mechanism-design problem under information privacy, and its vertex channels.

A :class:`DesignProblem` fixes

* the database space :math:`\mathcal X=\mathcal X_1\times\dots\times\mathcal X_n` (``DatabaseSpace(n, m)``),
* a query :math:`f:\mathcal X\to\mathcal A` (``identity`` releases a synthetic database),
* an output alphabet :math:`\mathcal Y` (default: :math:`\mathcal Y=\mathcal A`),
* a distortion :math:`d(f(x), y)` (Hamming, absolute, squared, or a user matrix of shape ``(|A|, |Y|)``),
* a prior :math:`p_X` for the expected distortion.

Answers are vectors (a database for ``identity``, a 1-vector for scalar queries); the built-in distortions are
``hamming`` :math:`=\#\{k: a_k\ne y_k\}` (for scalar answers :math:`1[a\ne y]`; for ``identity`` the Hamming
distance of Wang, Ying & Zhang (2016)), ``absolute`` :math:`=\sum_k|a_k-y_k|` and ``squared`` :math:`=\sum_k(a_k-y_k)^2`.

Vertex channels (Wu, Xia & He 2020, Theorem 2, eqs. (42)–(48)).  For individual :math:`i` a vertex channel
:math:`B\in\mathbb S_i` takes, for every value :math:`a` of :math:`x_i`, one row :math:`p(\cdot\mid x_i=a,
x_{(i)}=b_a)`; :math:`C_1=\max_i\max_{B\in\mathbb S_i}C(B)`.  Two exact reductions are used here:

1. :math:`C(B)` depends only on the *set* of distinct rows of :math:`B` (permuting or duplicating inputs of a
   channel does not change its capacity), and a channel whose row set is contained in another's has no larger
   capacity (the capacity is a maximum over input distributions; restricting the support can only lower it).
   So only the inclusion-maximal row sets are kept, and sets with one row (capacity 0) are dropped.
2. For a mechanism that factors through the query, :math:`p(y|x)=w(y|f(x))`, a row is determined by the answer
   :math:`f(a,b_a)`, so a vertex channel is the set :math:`\{f(a,b_a)\}_a` of answers.  For the count of
   :math:`n` binary rows, :math:`\{f(0,b)\}=\{0..n-1\}` and :math:`\{f(1,b)\}=\{1..n\}`; every unordered pair
   :math:`\{u,v\}\subseteq\{0..n\}`, :math:`u\ne v`, arises (take :math:`u<v`, :math:`f(0,b_0)=u`,
   :math:`f(1,b_1)=v`), so exactly :math:`\binom{n+1}{2}=n(n+1)/2` vertex channels remain — the same set for every
   individual — against :math:`n\,2^{2(n-1)}` before reduction.

Without factoring, rows are databases; a vertex is a set of :math:`m` databases whose :math:`i`-th records
take every value once.  For binary records this is every unordered pair of distinct databases,
:math:`\binom{2^n}{2}` of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..database import DatabaseSpace
from ..errors import (
    InvalidDistortionError,
    InvalidInputError,
    ProblemTooLargeError,
    ShapeMismatchError,
)
from ..priors import Prior, uniform

__all__ = [
    "QUERIES",
    "DISTORTIONS",
    "DesignProblem",
    "VertexSet",
    "design_problem",
    "enumerate_vertices",
    "DEFAULT_VERTEX_LIMIT",
]

#: Built-in queries: name -> (function of the (N, n) element array) -> (N, dim) answers.
QUERIES: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "identity": lambda e, m: e,
    "count": lambda e, m: (e != 0).sum(axis=1, keepdims=True),
    "sum": lambda e, m: e.sum(axis=1, keepdims=True),
    "max": lambda e, m: e.max(axis=1, keepdims=True),
    "min": lambda e, m: e.min(axis=1, keepdims=True),
}
DISTORTIONS = ("hamming", "absolute", "squared")

#: Largest number of vertex channels enumerated explicitly by default.
DEFAULT_VERTEX_LIMIT = 200_000


def _distortion_matrix(name: str, answers: np.ndarray, outputs: np.ndarray) -> np.ndarray:
    diff = answers[:, None, :] - outputs[None, :, :]
    if name == "hamming":
        return (diff != 0).sum(axis=2).astype(float)
    if name == "absolute":
        return np.abs(diff).sum(axis=2).astype(float)
    if name == "squared":
        return (diff.astype(float) ** 2).sum(axis=2)
    raise InvalidDistortionError(f"distortion must be one of {DISTORTIONS} or a matrix, got {name!r}")


@dataclass(frozen=True)
class VertexSet:
    """Vertex channels as row-index sets, flattened for vectorised constraints.

    ``rows[k]`` is the row (database or answer index) of the k-th constraint and ``vertex[k]`` the vertex it
    belongs to; the rows of vertex ``v`` are ``rows[vertex == v]``.
    """

    rows: np.ndarray
    vertex: np.ndarray
    count: int

    @classmethod
    def from_sets(cls, sets: Sequence[Sequence[int]]) -> VertexSet:
        sets = [tuple(int(r) for r in s) for s in sets]
        rows = np.array([r for s in sets for r in s], dtype=np.int64)
        vertex = np.repeat(np.arange(len(sets)), [len(s) for s in sets]).astype(np.int64)
        return cls(rows, vertex, len(sets))

    def sets(self) -> list[tuple[int, ...]]:
        out: list[list[int]] = [[] for _ in range(self.count)]
        for r, v in zip(self.rows.tolist(), self.vertex.tolist()):
            out[v].append(r)
        return [tuple(s) for s in out]

    def subset(self, keep: Sequence[int]) -> VertexSet:
        s = self.sets()
        return VertexSet.from_sets([s[k] for k in keep])


@dataclass(frozen=True, eq=False)
class DesignProblem:
    """A query, output alphabet, distortion and prior on a database space (see the module docstring).

    Attributes
    ----------
    space, prior:
        Database space and prior p_X (for the expected distortion).
    query:
        Query name (``identity``, ``count``, ``sum``, ``max``, ``min`` or a user name).
    answers:
        ``(A, dim)`` distinct answers f(x), sorted lexicographically.
    answer_index:
        ``(N,)`` index into ``answers`` of f(x) for every database x (itertools.product order).
    outputs:
        ``(K, dim)`` output values y.
    distortion:
        ``(A, K)`` matrix d(a, y).
    distortion_name:
        ``hamming``, ``absolute``, ``squared`` or ``matrix``.
    """

    space: DatabaseSpace
    prior: Prior
    query: str
    answers: np.ndarray
    answer_index: np.ndarray
    outputs: np.ndarray
    distortion: np.ndarray
    distortion_name: str

    @property
    def n_answers(self) -> int:
        return int(self.answers.shape[0])

    @property
    def n_outputs(self) -> int:
        return int(self.outputs.shape[0])

    @property
    def answer_labels(self) -> tuple[str, ...]:
        return tuple(
            ",".join(str(int(v)) if float(v).is_integer() else f"{v:g}" for v in a) for a in self.answers
        )

    @property
    def output_labels(self) -> tuple[str, ...]:
        return tuple(
            ",".join(str(int(v)) if float(v).is_integer() else f"{v:g}" for v in y) for y in self.outputs
        )

    @cached_property
    def database_distortion(self) -> np.ndarray:
        """``(N, K)`` matrix d(f(x), y)."""
        return self.distortion[self.answer_index]

    @cached_property
    def answer_prior(self) -> np.ndarray:
        """``(A,)`` pmf of f(X) under the prior."""
        return np.bincount(self.answer_index, weights=self.prior.pmf, minlength=self.n_answers)

    def exact_channel(self) -> np.ndarray | None:
        """``(A, K)`` deterministic noise-free channel y = f(x) if every answer is an output, else ``None``."""
        eq = np.all(self.answers[:, None, :] == self.outputs[None, :, :], axis=2)
        if not np.all(eq.any(axis=1)):
            return None
        W = np.zeros((self.n_answers, self.n_outputs))
        W[np.arange(self.n_answers), np.argmax(eq, axis=1)] = 1.0
        return W

    def expand(self, w: np.ndarray) -> np.ndarray:
        """``(N, K)`` mechanism p(y|x) = w(y|f(x)) from an ``(A, K)`` answer channel."""
        return np.asarray(w)[self.answer_index]

    def to_dict(self) -> dict:
        return {
            "n": self.space.n,
            "m": self.space.m,
            "query": self.query,
            "n_answers": self.n_answers,
            "n_outputs": self.n_outputs,
            "distortion": self.distortion_name,
            "prior": self.prior.name,
        }


def design_problem(
    space: DatabaseSpace,
    query: str | Callable[[tuple[int, ...]], float | Sequence[float]] = "count",
    *,
    outputs: int | np.ndarray | None = None,
    distortion: str | np.ndarray = "hamming",
    prior: Prior | None = None,
    query_name: str | None = None,
) -> DesignProblem:
    """Build a :class:`DesignProblem`.

    Parameters
    ----------
    space:
        The database space.
    query:
        A name in :data:`QUERIES` or a function of a database tuple returning a number or a vector.
    outputs:
        ``None`` (Y = the answers), an integer K (K evenly spaced scalar outputs over [min f, max f]; scalar
        queries only), or an explicit ``(K,)``/``(K, dim)`` array of output values.
    distortion:
        ``"hamming"``, ``"absolute"``, ``"squared"`` or an ``(A, K)`` matrix (rows: sorted distinct answers).
    prior:
        Prior on the databases (default uniform).
    """
    if not isinstance(space, DatabaseSpace):
        raise InvalidInputError(f"space must be a DatabaseSpace, got {type(space).__name__}")
    space.require_dense()
    e = space.elements
    if isinstance(query, str):
        if query not in QUERIES:
            raise InvalidInputError(f"query must be one of {sorted(QUERIES)} or a function, got {query!r}")
        vals = QUERIES[query](e, space.m)
        name = query
    elif callable(query):
        try:
            vals = np.array(
                [np.atleast_1d(np.asarray(query(tuple(int(v) for v in x)), dtype=float)) for x in e]
            )
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"query function failed or returned a non-numeric answer: {exc}") from exc
        if vals.ndim != 2:
            raise InvalidInputError("a query function must return answers of one fixed length")
        name = query_name or str(getattr(query, "__name__", "query"))
    else:
        raise InvalidInputError(f"query must be a name in {sorted(QUERIES)} or a callable, got {query!r}")
    vals = np.asarray(vals, dtype=float)
    answers, answer_index = np.unique(vals, axis=0, return_inverse=True)
    answer_index = np.asarray(answer_index).reshape(-1)
    if outputs is None:
        out = answers.copy()
    elif isinstance(outputs, (int, np.integer)) and not isinstance(outputs, bool):
        if answers.shape[1] != 1:
            raise InvalidInputError(
                "an integer number of outputs needs a scalar query; pass output values instead"
            )
        if outputs < 1:
            raise InvalidInputError(f"the number of outputs must be >= 1, got {outputs!r}")
        from ..resources import BASE_MEMORY, as_bytes, require_memory

        # the outputs, the (answers × K) distortion and the (N × K) mechanism, before any is built
        require_memory(
            BASE_MEMORY + as_bytes(8 * 4, int(outputs), answers.shape[0] + space.size),
            f"a design with {int(outputs)} outputs on {space.size} databases",
            "Use fewer outputs (--outputs K).",
        )
        lo, hi = float(answers.min()), float(answers.max())
        out = np.linspace(lo, hi, int(outputs))[:, None] if outputs > 1 else np.array([[0.5 * (lo + hi)]])
    else:
        out = np.asarray(outputs, dtype=float)
        if out.ndim == 1:
            out = out[:, None]
        if out.ndim != 2 or out.shape[1] != answers.shape[1] or out.shape[0] < 1:
            raise ShapeMismatchError(
                f"outputs must have shape (K,) or (K, {answers.shape[1]}) to match the answers, got {out.shape}"
            )
        if not np.all(np.isfinite(out)):
            raise InvalidInputError("output values must be finite")
    if isinstance(distortion, str):
        d = _distortion_matrix(distortion, answers, out)
        dname = distortion
    else:
        d = np.asarray(distortion, dtype=float)
        if d.shape != (answers.shape[0], out.shape[0]):
            raise ShapeMismatchError(
                f"a distortion matrix must have shape (answers, outputs) = {(answers.shape[0], out.shape[0])}, "
                f"got {d.shape}"
            )
        if not np.all(np.isfinite(d)) or np.any(d < 0):
            raise InvalidDistortionError("distortion matrix entries must be finite and >= 0")
        dname = "matrix"
    if prior is None:
        prior = uniform(space)
    elif not isinstance(prior, Prior) or prior.space != space:
        raise ShapeMismatchError(f"prior must be a Prior on {space}")
    for arr in (answers, out, d, answer_index):
        arr.setflags(write=False)
    return DesignProblem(space, prior, name, answers, answer_index, out, d, dname)


def _maximal(sets: set[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Drop one-element sets and sets strictly contained in another set of the family."""
    sets = {s for s in sets if len(s) > 1}
    if not sets:
        return []
    dominated: set[tuple[int, ...]] = set()
    for s in sets:
        if len(s) <= 8:
            for k in range(2, len(s)):
                dominated.update(itertools.combinations(s, k))
    return sorted(s for s in sets if s not in dominated)


def enumerate_vertices(
    problem: DesignProblem, *, factor: bool, limit: int = DEFAULT_VERTEX_LIMIT
) -> VertexSet:
    """All vertex channels (after the reductions of the module docstring) as row-index sets.

    Rows are database indices (``factor=False``) or answer indices (``factor=True``).

    Raises
    ------
    ProblemTooLargeError
        If the enumeration would exceed ``limit`` vertex channels (use constraint generation instead).
    """
    space = problem.space
    n, m = space.n, space.m
    e = space.elements
    labels = problem.answer_index if factor else np.arange(space.size)
    found: set[tuple[int, ...]] = set()
    for i in range(n):
        per_a = [np.unique(labels[e[:, i] == a]) for a in range(m)]
        total = int(np.prod([len(p) for p in per_a], dtype=object))
        if total > limit:
            raise ProblemTooLargeError(
                f"individual {i + 1} has {total} vertex channels; explicit enumeration accepts at most {limit}. "
                "Use constraint generation (method='cg') or factor the mechanism through the query",
                size=total,
                limit=limit,
            )
        grid = np.stack(np.meshgrid(*per_a, indexing="ij"), axis=-1).reshape(-1, m)
        grid = np.sort(grid, axis=1)
        for row in np.unique(grid, axis=0):
            found.add(tuple(int(v) for v in np.unique(row)))
        if len(found) > limit:
            raise ProblemTooLargeError(
                f"more than {limit} distinct vertex channels; use constraint generation (method='cg')",
                size=len(found),
                limit=limit,
            )
    return VertexSet.from_sets(_maximal(found))


def vertex_count_upper(problem: DesignProblem, *, factor: bool) -> int:
    """An upper bound on the number of vertex channels (before deduplication), in O(N n) time."""
    space = problem.space
    e = space.elements
    labels = problem.answer_index if factor else np.arange(space.size)
    total = 0
    for i in range(space.n):
        count = 1
        for a in range(space.m):
            count *= int(np.unique(labels[e[:, i] == a]).size)
        total += count
    return total


#: Peak bytes per relative-entropy term of a design program (CVXPY + Clarabel; measured: identity query,
#: n = 5, 496 vertex channels of 2×32 terms, 245 MB in all).
BYTES_PER_TERM = 3500.0


def check_design_memory(
    problem: DesignProblem,
    *,
    factor: bool,
    vertices: int | None = None,
    cap: int = 6_400,
) -> None:
    """Refuse (ProblemTooLargeError, before anything is built) a design program that would not fit in memory.

    Each vertex channel in the program adds m·K relative-entropy terms (K outputs).  ``vertices`` is the
    number in the program; without it the cheap upper bound :func:`vertex_count_upper`, capped at ``cap``
    (the most constraint generation adds: 100 iterations × 64), is charged.
    """
    from ..resources import BASE_MEMORY, require_memory

    space = problem.space
    K = problem.n_outputs
    R = problem.n_answers if factor else space.size
    if vertices is None:
        vertices = min(vertex_count_upper(problem, factor=factor), cap)
    terms = float(vertices) * space.m * K + float(R) * K
    require_memory(
        BASE_MEMORY + BYTES_PER_TERM * terms,
        f"the design program ({R} rows × {K} outputs, up to {vertices} vertex channels of {space.m}×{K} "
        "entries)",
        "Use --factor-through-query (a mechanism of the query's answer), fewer outputs (--outputs K), or a "
        "smaller n.",
    )
