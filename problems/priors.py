"""Priors p_X on the database space Dⁿ.

A :class:`Prior` is a validated pmf over Dⁿ (in itertools.product order) together with a note of the
symmetry it has, which the programs may exploit:

=================  ===============================================================  ============
constructor        distribution                                                      kind
=================  ===============================================================  ============
:func:`uniform`    p_X(x) = m⁻ⁿ                                                      ``uniform``
:func:`iid`        p_X(x) = Π_k π(x_k)                                               ``iid``
:func:`exchangeable_mixture`  Σ_j w_j Π_k π_j(x_k) (correlated, exchangeable)       ``exchangeable``
:func:`contagious` (1−w)·π^{⊗n} + w·Σ_a π(a)·1[x = (a,…,a)] (Wu, Xia & He 2017, Example 2)   ``exchangeable``
:func:`from_pmf`   any pmf given as an array                                         ``explicit``
:func:`from_file`  a pmf stored as .npy, .csv or .json                               ``explicit``
=================  ===============================================================  ============

Validation (typed errors, :class:`~problems.errors.InvalidPriorError`): the pmf must be finite, non-negative,
of length N = mⁿ (or shape (m,)*n), and sum to 1 within 1e-9.  A pmf whose sum is off by more than 1e-9 but
less than :data:`RENORMALISE_TOLERANCE` = 1e-6 (rounded decimals such as ``0.3333,0.3333,0.3333``) is divided
by its sum with a :class:`RenormalisedWarning` that names the sum; beyond 1e-6 it is an error naming the sum.
Command-line specs accept fractions: ``iid:1/3,1/3,1/3``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .database import DatabaseSpace
from .errors import InvalidInputError, InvalidPriorError, ProblemTooLargeError, ShapeMismatchError
from .prior_spec import PriorSpec, parse_number, parse_prior_spec, spec_kind, split_items

__all__ = [
    "Prior",
    "SUM_TOLERANCE",
    "RENORMALISE_TOLERANCE",
    "RenormalisedWarning",
    "validate_pmf",
    "uniform",
    "iid",
    "exchangeable_mixture",
    "contagious",
    "from_pmf",
    "from_file",
    "parse_prior",
    "from_spec",
    "parse_number",
    "split_items",
    "require_prior",
    "require_pmf_size",
    "PMF_LIMIT",
]

SUM_TOLERANCE = 1e-9
#: A pmf whose sum is within this of 1 (but not within SUM_TOLERANCE) is renormalised with a warning.
RENORMALISE_TOLERANCE = 1e-6


class RenormalisedWarning(UserWarning):
    """A pmf summed to 1 within 1e-6 but not within 1e-9 and was divided by its sum."""


def validate_pmf(values, length: int | None = None, *, name: str = "pmf") -> np.ndarray:
    """Return ``values`` as a float vector after checking it is a pmf (finite, ≥ 0, sums to 1 ± 1e-9).

    A sum off by less than 1e-6 is renormalised with a :class:`RenormalisedWarning`.
    """
    try:
        p = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InvalidPriorError(
            f"{name} must be a sequence of numbers, got {type(values).__name__}"
        ) from None
    if p.ndim != 1:
        p = p.reshape(-1)
    if length is not None and p.size != length:
        raise ShapeMismatchError(f"{name} has {p.size} entries; expected {length}")
    if p.size == 0:
        raise InvalidPriorError(f"{name} is empty")
    if not np.all(np.isfinite(p)):
        bad = int(np.flatnonzero(~np.isfinite(p))[0])
        raise InvalidPriorError(
            f"{name} has a non-finite entry {float(p[bad])!r} at index {bad}; entries must be finite numbers ≥ 0"
        )
    if np.any(p < 0):
        bad = int(np.argmin(p))
        raise InvalidPriorError(
            f"{name} has a negative entry {p[bad]:.6g} at index {bad}; entries must be ≥ 0"
        )
    total = float(p.sum())
    if abs(total - 1.0) > RENORMALISE_TOLERANCE:
        raise InvalidPriorError(
            f"{name} sums to {total:.12g}; it must sum to 1 (within {SUM_TOLERANCE:g}; sums off by less than "
            f"{RENORMALISE_TOLERANCE:g} are renormalised). Write rounded values as fractions, e.g. 1/3"
        )
    if abs(total - 1.0) > SUM_TOLERANCE:
        warnings.warn(
            f"{name} sums to {total:.12g}, not 1; renormalised (divided by its sum)",
            RenormalisedWarning,
            stacklevel=2,
        )
        p = p / total
    return p


@dataclass(frozen=True, eq=False)
class Prior:
    """A validated prior p_X over a :class:`DatabaseSpace`.

    Attributes
    ----------
    space:
        The database space Dⁿ.
    pmf:
        Length-N vector, ``pmf[k] = p_X(x_k)`` with x_k the k-th database in itertools.product order.
    kind:
        ``"uniform"``, ``"iid"``, ``"exchangeable"`` or ``"explicit"``: the symmetry the prior is known to have.
    name:
        Short human-readable description (used in exports and plots).
    row_pmfs, weights:
        For i.i.d. and exchangeable priors, the per-row pmfs π_j and mixture weights w_j with
        p_X = Σ_j w_j π_j^{⊗n} (one component for i.i.d.).
    """

    space: DatabaseSpace
    pmf: np.ndarray
    kind: str = "explicit"
    name: str = "explicit pmf"
    row_pmfs: tuple[np.ndarray, ...] = field(default_factory=tuple)
    weights: tuple[float, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        p = validate_pmf(self.pmf, self.space.size, name=f"prior on {self.space.m}^{self.space.n} databases")
        p.setflags(write=False)
        object.__setattr__(self, "pmf", p)

    @property
    def n(self) -> int:
        return self.space.n

    @property
    def m(self) -> int:
        return self.space.m

    @property
    def has_full_support(self) -> bool:
        return bool(np.all(self.pmf > 0))

    def require_full_support(self, what: str = "this program") -> None:
        """Raise :class:`InvalidPriorError` naming a zero-mass database (then ε_X = ∞)."""
        if not self.has_full_support:
            k = int(np.flatnonzero(self.pmf <= 0)[0])
            count = int(np.sum(self.pmf <= 0))
            raise InvalidPriorError(
                f"{what} needs a prior with full support, but p_X(x) = 0 for {count} database(s), e.g. "
                f"x = ({self.space.labels[k]}); then ε_X = ∞: no finite identifiability level is achievable"
            )

    def tensor(self) -> np.ndarray:
        """The pmf as an ``(m,)*n`` array (axis k = row k)."""
        return self.pmf.reshape(self.space.shape)

    def to_dict(self) -> dict:
        d: dict = {"kind": self.kind, "name": self.name, "n": self.n, "m": self.m}
        if self.row_pmfs:
            d["row_pmfs"] = [r.tolist() for r in self.row_pmfs]
            d["weights"] = list(self.weights)
        if self.kind == "explicit":
            d["pmf"] = self.pmf.tolist()
        return d


def require_prior(prior, program: str) -> Prior:
    """``prior`` if it is a :class:`Prior`; else :class:`InvalidPriorError` saying how to build one."""
    if isinstance(prior, Prior):
        return prior
    hint = (
        "convert it with .to_prior() (small n) or use problems.orbit.make_program for the reduced path"
        if hasattr(prior, "to_prior")
        else "build one with problems.priors.from_pmf(DatabaseSpace(n, m), pmf), iid(space, row) or uniform(space)"
    )
    raise InvalidPriorError(f"{program} takes a problems.priors.Prior, got {type(prior).__name__}; {hint}")


def _product_pmf(space: DatabaseSpace, row: np.ndarray) -> np.ndarray:
    out = np.ones(1)
    for _ in range(space.n):
        out = np.multiply.outer(out, row).reshape(-1)
    return out


def _check_space(space, what: str) -> DatabaseSpace:
    """``space`` if it is a :class:`DatabaseSpace` small enough for a stored pmf (:func:`require_pmf_size`)."""
    if not isinstance(space, DatabaseSpace):
        raise InvalidInputError(f"{what} takes a DatabaseSpace first, got {type(space).__name__}")
    require_pmf_size(space)
    return space


def uniform(space: DatabaseSpace) -> Prior:
    """The uniform prior p_X(x) = m⁻ⁿ.

    Like every constructor here it stores the length-mⁿ pmf, so N = mⁿ > :data:`PMF_LIMIT` is refused
    (:class:`~problems.errors.ProblemTooLargeError`) before anything is allocated.
    """
    _check_space(space, "uniform")
    row = np.full(space.m, 1.0 / space.m)
    return Prior(space, np.full(space.size, 1.0 / space.size), "uniform", "uniform", (row,), (1.0,))


def iid(space: DatabaseSpace, row_pmf: Sequence[float] | np.ndarray) -> Prior:
    """The i.i.d. prior p_X(x) = Π_k π(x_k) with per-row pmf π (length m)."""
    _check_space(space, "iid")
    row = validate_pmf(row_pmf, space.m, name="row pmf")
    name = "iid(" + ",".join(f"{v:.4g}" for v in row) + ")"
    return Prior(space, _product_pmf(space, row), "iid", name, (row,), (1.0,))


def exchangeable_mixture(
    space: DatabaseSpace, row_pmfs: Sequence[Sequence[float] | np.ndarray], weights
) -> Prior:
    """The exchangeable (correlated) prior Σ_j w_j π_j^{⊗n}: a mixture of i.i.d. priors."""
    _check_space(space, "exchangeable_mixture")
    rows = tuple(validate_pmf(r, space.m, name=f"row pmf {j}") for j, r in enumerate(row_pmfs))
    w = validate_pmf(weights, len(rows), name="mixture weights")
    pmf = sum(wj * _product_pmf(space, r) for wj, r in zip(w, rows))
    return Prior(space, pmf, "exchangeable", f"mixture of {len(rows)} iid", rows, tuple(float(x) for x in w))


def contagious(space: DatabaseSpace, weight: float, row_pmf: Sequence[float] | None = None) -> Prior:
    """Correlated "contagious" prior: with probability ``weight`` all rows equal a common value a ~ π.

    p_X = (1 − w)·π^{⊗n} + w·Σ_a π(a)·1[x = (a, …, a)].  This is the dependence of Wu, Xia & He (2017), Example 2
    (an epidemic either spreads to everybody or follows independent rows).  It is exchangeable: a mixture of
    π^{⊗n} with the degenerate i.i.d. priors δ_a^{⊗n}; it has full support iff w < 1 and π > 0.
    """
    _check_space(space, "contagious")
    if isinstance(weight, (bool, str, bytes)) or not isinstance(
        weight, (int, float, np.integer, np.floating)
    ):
        raise InvalidPriorError(f"contagious weight must be a number in [0, 1], got {weight!r}")
    if not (0.0 <= float(weight) <= 1.0):
        raise InvalidPriorError(f"contagious weight must be in [0, 1], got {float(weight)!r}")
    row = (
        np.full(space.m, 1.0 / space.m) if row_pmf is None else validate_pmf(row_pmf, space.m, name="row pmf")
    )
    rows = (row,) + tuple(np.eye(space.m))  # one identity, its rows (not m identities kept alive by views)
    weights = (1.0 - weight,) + tuple(float(weight * row[a]) for a in range(space.m))
    prior = exchangeable_mixture(space, rows, weights)
    return Prior(space, prior.pmf, "exchangeable", f"contagious(w={weight:g})", prior.row_pmfs, prior.weights)


def from_pmf(space: DatabaseSpace, pmf, name: str = "explicit pmf") -> Prior:
    """A prior from an explicit pmf: a length-N vector or an ``(m,)*n`` array, in itertools.product order."""
    _check_space(space, "from_pmf")
    try:
        arr = np.asarray(pmf, dtype=float)
    except (TypeError, ValueError):
        raise InvalidPriorError(f"a pmf must be an array of numbers, got {type(pmf).__name__}") from None
    if arr.shape not in ((space.size,), space.shape):
        raise ShapeMismatchError(
            f"a pmf on {space.m}^{space.n} databases has shape ({space.size},) or {space.shape}; got {arr.shape}"
        )
    return Prior(space, arr.reshape(-1), "explicit", name)


def from_file(space: DatabaseSpace, path: str | Path) -> Prior:
    """Load a prior from ``.npy``, ``.csv`` (numbers separated by commas/newlines) or ``.json``.

    A JSON file holds either a list of N numbers or an object with key ``"pmf"``.
    """
    from .fileio import read_csv_numbers, read_json_numbers, read_npy

    if not isinstance(path, (str, Path)):
        raise InvalidInputError(f"a prior file is a path (str or pathlib.Path), got {type(path).__name__}")
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".npy", ".csv", ".json"):
        raise InvalidInputError(f"prior file must end in .npy, .csv or .json, got {path.name!r}")
    if path.exists() and path.is_file():
        # A prior file holds N = mⁿ numbers: refuse one whose size cannot match before reading it.
        expected = space.size
        size = path.stat().st_size
        if suffix == ".npy" and size > 8 * expected + 4096:
            raise ShapeMismatchError(
                f"prior file {str(path)!r} has {size} bytes, more than a pmf on {space.m}^{space.n} = {expected} "
                "databases can take"
            )
    if suffix == ".npy":
        arr = read_npy(path, "prior", InvalidPriorError)
    elif suffix == ".csv":
        arr = read_csv_numbers(path, "prior", InvalidPriorError)
    else:
        arr = read_json_numbers(path, "prior", "pmf", InvalidPriorError)
    return from_pmf(space, arr, name=f"file:{path.name}")


#: The largest N = mⁿ for which a pmf is built (8 bytes each; the dense programs stop at 4096 anyway).
PMF_LIMIT = 2**20


def require_pmf_size(space: DatabaseSpace) -> None:
    """Refuse (ProblemTooLargeError) to build a pmf on more than :data:`PMF_LIMIT` databases."""
    if space.size > PMF_LIMIT:
        raise ProblemTooLargeError(
            f"a prior on {space.m}^{space.n} = {_count(space.size)} databases would be stored as a vector of "
            f"that length; this path accepts N ≤ {PMF_LIMIT} (n ≤ {_max_n(space.m)} for m = {space.m}). For "
            "uniform, iid and contagious priors use the reduced program (problems.dispatch.make_program(…, "
            "formulation='reduced'), or python -m problems solve … --formulation reduced), which never builds "
            "the pmf",
            size=min(space.size, 2**62),
            limit=PMF_LIMIT,
        )


def _count(k: int) -> str:
    from .resources import format_count

    return format_count(k) if k >= 10**15 else f"{float(k):.4g}"


def _max_n(m: int) -> int:
    n = 1
    while m ** (n + 1) <= PMF_LIMIT:
        n += 1
    return n


def from_spec(spec: PriorSpec, space: DatabaseSpace) -> Prior:
    """The dense prior of a parsed spec (:func:`problems.prior_spec.parse_prior_spec`) on ``space``.

    A ``mixture:`` spec is read by the reduced path only (:func:`problems.orbit.symmetric_prior.symmetric_from_spec`).
    """
    if spec.kind in ("uniform", "iid", "pmf", "file", "contagious"):
        require_pmf_size(space)
    if spec.kind == "uniform":
        return uniform(space)
    if spec.kind == "iid":
        return iid(space, list(spec.values))
    if spec.kind == "pmf":
        return from_pmf(space, list(spec.values))
    if spec.kind == "file":
        return from_file(space, spec.path or "")
    if spec.kind == "contagious":
        assert spec.weight is not None  # the grammar gives a contagious spec its weight
        return contagious(space, spec.weight, list(spec.values) or None)
    raise InvalidInputError(
        "--prior mixture:… is read by the reduced program only (python -m problems solve … --formulation reduced)"
    )


def parse_prior(spec: str, space: DatabaseSpace) -> Prior:
    """Build a dense prior from a command-line spec (the grammar of :mod:`problems.prior_spec`).

    ``uniform`` | ``iid:P0,P1,…`` (row pmf) | ``pmf:P0,…,P(N−1)`` | ``file:PATH`` |
    ``contagious:W`` or ``contagious:W:P0,P1,…`` (see :func:`contagious`).  The size of ``space`` is checked
    (:func:`require_pmf_size`) before the numbers are read.
    """
    if isinstance(spec, str) and spec.strip():
        kind = spec_kind(spec)
        if kind in ("uniform", "iid", "pmf", "file", "contagious"):
            require_pmf_size(space)
        if kind == "mixture":
            raise InvalidInputError(
                "--prior mixture:… is read by the reduced program only (python -m problems solve … --formulation reduced)"
            )
    return from_spec(parse_prior_spec(spec), space)
