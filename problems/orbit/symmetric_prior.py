r"""Exchangeable priors described by their rows, without the length-mⁿ pmf.

A :class:`~problems.priors.Prior` stores p_X on all N = mⁿ databases, which is impossible at n = 200.  The
orbit-reduced programs only need the mixture description

.. math::

    p_X(x) = \sum_j w_j \prod_{k=1}^n \pi_j(x_k) = \sum_j w_j \prod_a \pi_j(a)^{t_a(x)},

which depends on x only through its *type* t(x) (the counts t_a of each value a).  :class:`SymmetricPrior` is
that description: i.i.d. priors (one component), exchangeable mixtures (several) and the uniform prior.  All
masses are handled in logarithms, so nothing underflows at n = 200 (a single database of 200 rows has mass
≈ 2⁻²⁰⁰ ≈ 6e-61 under the uniform prior).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ..database import DatabaseSpace
from ..errors import InvalidInputError, InvalidPriorError
from ..prior_spec import PriorSpec, parse_prior_spec
from ..priors import Prior, exchangeable_mixture, iid, uniform, validate_pmf

__all__ = [
    "SymmetricPrior",
    "SYMMETRIC_KINDS",
    "symmetric_uniform",
    "symmetric_iid",
    "symmetric_mixture",
    "symmetric_contagious",
    "as_symmetric",
    "parse_symmetric_prior",
    "symmetric_from_spec",
    "iid_row_pmf",
]

#: Prior kinds that are invariant under permuting rows (the reduced path applies to them).
SYMMETRIC_KINDS = ("uniform", "iid", "exchangeable")


@dataclass(frozen=True, eq=False)
class SymmetricPrior:
    """p_X = Σ_j w_j π_j^{⊗n} on Dⁿ, stored as its row pmfs π_j (each length m) and weights w_j.

    Attributes
    ----------
    n, m:
        Number of rows and domain size.
    row_pmfs:
        Tuple of length-m pmfs π_j.
    weights:
        Mixture weights w_j (a pmf).
    kind:
        ``"uniform"``, ``"iid"`` or ``"exchangeable"`` (same meaning as :attr:`problems.priors.Prior.kind`).
    name:
        Short description.
    """

    n: int
    m: int
    row_pmfs: tuple[np.ndarray, ...]
    weights: tuple[float, ...]
    kind: str = "exchangeable"
    name: str = "exchangeable"

    def __post_init__(self) -> None:
        space = DatabaseSpace(self.n, self.m)  # validates n, m
        object.__setattr__(self, "n", space.n)
        object.__setattr__(self, "m", space.m)
        if self.kind not in SYMMETRIC_KINDS:
            raise InvalidPriorError(f"a symmetric prior has kind in {SYMMETRIC_KINDS}, got {self.kind!r}")
        rows = tuple(validate_pmf(r, self.m, name=f"row pmf {j}") for j, r in enumerate(self.row_pmfs))
        if not rows:
            raise InvalidPriorError("a symmetric prior needs at least one row pmf")
        w = validate_pmf(self.weights, len(rows), name="mixture weights")
        for r in rows:
            r.setflags(write=False)
        object.__setattr__(self, "row_pmfs", rows)
        object.__setattr__(self, "weights", tuple(float(v) for v in w))

    @property
    def space(self) -> DatabaseSpace:
        return DatabaseSpace(self.n, self.m)

    def log_mass(self, types: np.ndarray) -> np.ndarray:
        """ln p_X(x) for one database x of each type; ``types`` is ``(K, m)`` counts (rows sum to n).

        ``-inf`` where the mass is zero.
        """
        t = np.asarray(types, dtype=float)
        with np.errstate(divide="ignore"):
            logw = np.log(np.asarray(self.weights))
            logpi = np.log(np.stack(self.row_pmfs))  # (J, m)
        # t_a * log π_j(a) with the convention 0 * (-inf) = 0
        with np.errstate(invalid="ignore"):  # 0 * (-inf) = nan is masked out by the where
            terms = np.where(t[:, None, :] > 0, t[:, None, :] * logpi[None, :, :], 0.0)  # (K, J, m)
        comp = terms.sum(axis=2) + logw[None, :]
        with np.errstate(divide="ignore"):
            from scipy.special import logsumexp  # imported here: parsing a prior stays cheap

            return logsumexp(comp, axis=1)

    def log_type_probability(self, types: np.ndarray) -> np.ndarray:
        """ln P(t(X) = t) = ln[ n!/Π_a t_a! · p_X(x of type t) ] (a multinomial mixture)."""
        t = np.asarray(types, dtype=float)
        from scipy.special import gammaln

        return gammaln(self.n + 1.0) - gammaln(t + 1.0).sum(axis=1) + self.log_mass(t)

    @property
    def has_full_support(self) -> bool:
        """Every database has positive mass iff the symbols of every database lie in the support of some component
        with w_j > 0: for n ≥ m, some component has π_j > 0 everywhere; for n < m, every set of n symbols is in the
        support of a component (a database holds at most n distinct symbols)."""
        pos = [np.asarray(r) > 0 for w, r in zip(self.weights, self.row_pmfs) if w > 0]
        if any(bool(p.all()) for p in pos):
            return True
        if self.n >= self.m:
            return False
        return all(any(bool(p[list(S)].all()) for p in pos) for S in combinations(range(self.m), self.n))

    def to_prior(self) -> Prior:
        """The dense :class:`~problems.priors.Prior` (builds the length-mⁿ pmf; small n only)."""
        space = self.space
        space.require_dense()
        if self.kind == "uniform":
            return uniform(space)
        if self.kind == "iid":
            return iid(space, self.row_pmfs[0])
        prior = exchangeable_mixture(space, self.row_pmfs, self.weights)
        return Prior(space, prior.pmf, "exchangeable", self.name, prior.row_pmfs, prior.weights)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "name": self.name,
            "n": self.n,
            "m": self.m,
            "row_pmfs": [r.tolist() for r in self.row_pmfs],
            "weights": list(self.weights),
        }


def symmetric_uniform(n: int, m: int) -> SymmetricPrior:
    """The uniform prior m⁻ⁿ."""
    return SymmetricPrior(n, m, (np.full(m, 1.0 / m),), (1.0,), "uniform", "uniform")


def symmetric_iid(n: int, row_pmf: Sequence[float]) -> SymmetricPrior:
    """The i.i.d. prior π^{⊗n}."""
    row = validate_pmf(row_pmf, None, name="row pmf")
    name = "iid(" + ",".join(f"{v:.4g}" for v in row) + ")"
    return SymmetricPrior(n, row.size, (row,), (1.0,), "iid", name)


def symmetric_mixture(
    n: int, row_pmfs: Sequence[Sequence[float]], weights: Sequence[float]
) -> SymmetricPrior:
    """The exchangeable mixture Σ_j w_j π_j^{⊗n} (correlated rows)."""
    rows = [np.asarray(r, dtype=float) for r in row_pmfs]
    if not rows:
        raise InvalidPriorError("an exchangeable mixture needs at least one row pmf")
    return SymmetricPrior(
        n, rows[0].size, tuple(rows), tuple(weights), "exchangeable", f"mixture of {len(rows)} iid"
    )


def symmetric_contagious(
    n: int, m: int, weight: float, row_pmf: Sequence[float] | None = None
) -> SymmetricPrior:
    """(1 − w)·π^{⊗n} + w·Σ_a π(a)·δ_{(a,…,a)}; see :func:`problems.priors.contagious`."""
    if not (0.0 <= float(weight) <= 1.0):
        raise InvalidPriorError(f"contagious weight must be in [0, 1], got {weight!r}")
    row = np.full(m, 1.0 / m) if row_pmf is None else validate_pmf(row_pmf, m, name="row pmf")
    rows = (row,) + tuple(np.eye(m))  # one m×m identity, its rows (np.eye(m)[a] per a kept m copies alive)
    weights = (1.0 - weight,) + tuple(float(weight * row[a]) for a in range(m))
    return SymmetricPrior(n, m, rows, weights, "exchangeable", f"contagious(w={weight:g})")


def as_symmetric(prior: Prior | SymmetricPrior) -> SymmetricPrior:
    """Convert a row-permutation-invariant :class:`Prior` (kind uniform/iid/exchangeable) to its row form.

    Raises :class:`InvalidPriorError` for an ``explicit`` prior: its symmetry is unknown, so only the dense path
    applies.
    """
    if isinstance(prior, SymmetricPrior):
        return prior
    if not isinstance(prior, Prior):
        raise InvalidInputError(f"expected a Prior or SymmetricPrior, got {type(prior).__name__}")
    if prior.kind not in SYMMETRIC_KINDS or not prior.row_pmfs:
        raise InvalidPriorError(
            f"the orbit-reduced programs need a prior invariant under permuting rows (kind in {SYMMETRIC_KINDS} "
            f"with row pmfs); got kind {prior.kind!r} ({prior.name}). Use the dense program (formulation='dense')"
        )
    return SymmetricPrior(prior.n, prior.m, prior.row_pmfs, prior.weights, prior.kind, prior.name)


def symmetric_from_spec(spec: PriorSpec, n: int, m: int) -> SymmetricPrior:
    """The symmetric prior of a parsed spec (:func:`problems.prior_spec.parse_prior_spec`) on n rows over m
    values; never builds the pmf, so it works at any n.  ``pmf:`` and ``file:`` specs have no row form."""
    if spec.kind == "uniform":
        return symmetric_uniform(n, m)
    if spec.kind == "iid":
        if len(spec.values) != m:
            raise InvalidPriorError(f"--prior iid needs {m} probabilities (m = {m}), got {len(spec.values)}")
        return symmetric_iid(n, list(spec.values))
    if spec.kind == "contagious":
        assert spec.weight is not None  # the grammar gives a contagious spec its weight
        return symmetric_contagious(n, m, spec.weight, list(spec.values) or None)
    if spec.kind == "mixture":
        return symmetric_mixture(n, [list(r) for r in spec.rows], list(spec.weights))
    raise InvalidInputError(
        f"unknown symmetric prior spec {spec.text!r}; use uniform, iid:P0,P1,…, contagious:W[:P0,…] or "
        "mixture:W0,W1/P00,P01,…/P10,P11,…"
    )


def parse_symmetric_prior(spec: str, n: int, m: int) -> SymmetricPrior:
    """Parse ``uniform`` | ``iid:P0,…`` | ``contagious:W[:P0,…]`` | ``mixture:W0,W1/P00,P01,…/P10,…``.

    The grammar of :mod:`problems.prior_spec` (the same as :func:`problems.priors.parse_prior`) for the
    symmetric kinds, but never builds the pmf, so it works at any n.
    """
    return symmetric_from_spec(parse_prior_spec(spec, symmetric=True), n, m)


def iid_row_pmf(prior: Prior | SymmetricPrior) -> np.ndarray | None:
    """The row pmf π if ``prior`` is i.i.d. (kind uniform/iid, or a mixture whose components all equal π).

    ``None`` for a genuinely exchangeable (correlated) or explicit prior.
    """
    if isinstance(prior, Prior):
        if prior.kind not in ("uniform", "iid", "exchangeable") or not prior.row_pmfs:
            return None
    elif not isinstance(prior, SymmetricPrior):
        return None
    rows = [np.asarray(r, dtype=float) for r, w in zip(prior.row_pmfs, prior.weights) if w > 0]
    if not rows or any(not np.array_equal(r, rows[0]) for r in rows[1:]):
        return None
    return rows[0]
