"""Mechanisms as labelled row-stochastic matrices, and the paper's closed-form mechanisms E_i and E_d.

Convention (fixed project-wide): ``matrix[x, y] = p_{Y|X}(y | x)``; one row per input database, one column
per output database, rows summing to one; databases in itertools.product order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .closed_forms import apply_kron, check_eps, kernel
from .database import DatabaseSpace
from .errors import InvalidMechanismError, InvalidPrivacyLevelError, ShapeMismatchError
from .priors import Prior

__all__ = [
    "Mechanism",
    "ROW_SUM_TOLERANCE",
    "exponential_mechanism",
    "identifiability_mechanism",
    "identifiability_matrix",
]

ROW_SUM_TOLERANCE = 1e-6


@dataclass(frozen=True, eq=False)
class Mechanism:
    """A mechanism p_{Y|X} as a row-stochastic matrix with row and column labels.

    Attributes
    ----------
    matrix:
        ``(N_in, N_out)`` array, ``matrix[x, y] = p_{Y|X}(y | x)``.
    input_labels, output_labels:
        Labels of rows and columns (database rows joined by commas, e.g. ``"0,1,1"``).
    """

    matrix: np.ndarray
    input_labels: tuple[str, ...] = field(default_factory=tuple)
    output_labels: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        try:
            W = np.asarray(self.matrix, dtype=float)
        except (TypeError, ValueError):
            raise InvalidMechanismError(
                f"a mechanism is a 2-D matrix of numbers, got {type(self.matrix).__name__}"
            ) from None
        if W.ndim != 2 or 0 in W.shape:
            raise InvalidMechanismError(
                f"a mechanism is a 2-D matrix with at least one row and one column, got shape {W.shape}"
            )
        if not np.all(np.isfinite(W)):
            r, c = (int(v) for v in np.argwhere(~np.isfinite(W))[0])
            raise InvalidMechanismError(
                f"mechanism matrix has a non-finite entry {float(W[r, c])!r} at row {r}, column {c}"
            )
        if W.min(initial=0.0) < -ROW_SUM_TOLERANCE:
            raise InvalidMechanismError(f"mechanism has a negative entry {W.min():.3g}")
        sums = W.sum(axis=1)
        worst = int(np.argmax(np.abs(sums - 1)))
        if abs(sums[worst] - 1) > ROW_SUM_TOLERANCE:
            raise InvalidMechanismError(
                f"mechanism row {worst} sums to {sums[worst]:.9g}; every row must sum to 1 "
                f"(within {ROW_SUM_TOLERANCE:g})"
            )
        W = W.copy()
        W.setflags(write=False)
        object.__setattr__(self, "matrix", W)
        ins = tuple(self.input_labels) or tuple(str(k) for k in range(W.shape[0]))
        outs = tuple(self.output_labels) or tuple(str(k) for k in range(W.shape[1]))
        if len(ins) != W.shape[0] or len(outs) != W.shape[1]:
            raise ShapeMismatchError(
                f"labels ({len(ins)} rows, {len(outs)} columns) do not match the matrix shape {W.shape}"
            )
        object.__setattr__(self, "input_labels", ins)
        object.__setattr__(self, "output_labels", outs)

    @classmethod
    def on_space(cls, matrix: np.ndarray, space: DatabaseSpace, *, clean: bool = False) -> Mechanism:
        """A mechanism from Dⁿ to Dⁿ labelled by the databases of ``space``.

        ``clean=True`` clips solver round-off (entries in [−1e-6, 0)) to zero and renormalises rows.
        """
        W = np.asarray(matrix, dtype=float)
        if W.shape != (space.size, space.size):
            raise ShapeMismatchError(
                f"expected a {space.size}×{space.size} matrix for {space}, got {W.shape}"
            )
        if clean:
            W = np.clip(W, 0.0, None)
            W = W / W.sum(axis=1, keepdims=True)
        labels = tuple(space.labels)
        return cls(W, labels, labels)

    @property
    def shape(self) -> tuple[int, int]:
        return self.matrix.shape

    def output_distribution(self, p_x: np.ndarray) -> np.ndarray:
        """p_Y = p_X W."""
        return np.asarray(p_x) @ self.matrix

    def posterior(self, p_x: np.ndarray) -> np.ndarray:
        """``P[x, y] = p_{X|Y}(x | y)`` (columns with p_Y(y) = 0 are left at zero)."""
        joint = np.asarray(p_x)[:, None] * self.matrix
        p_y = joint.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(p_y > 0, joint / np.where(p_y > 0, p_y, 1.0), 0.0)

    def to_pandas(self):  # -> pandas.DataFrame
        """The matrix as a ``pandas.DataFrame`` labelled by inputs (index ``x``) and outputs (columns ``y``).

        pandas is imported here and is not a dependency: without it this raises
        :class:`~problems.notebook.PandasUnavailableError` (an :class:`ImportError`).
        """
        from .notebook import mechanism_to_pandas

        return mechanism_to_pandas(self)

    def _repr_html_(self) -> str:
        """Jupyter's view: the labelled matrix, elided beyond 10 rows or columns."""
        from .notebook import mechanism_html

        return mechanism_html(self)


def exponential_mechanism(space: DatabaseSpace, eps: float) -> Mechanism:
    """E_d (Wang, Ying & Zhang 2016, (27)): p_{Y|X}(y|x) = e^{−ε d(x,y)}/(1+(m−1)e^{−ε})ⁿ = (K_ε^{⊗n})_{xy}.

    ε-differentially private with expected distortion h(ε) for every prior (Lemma 5).
    """
    eps = check_eps(eps)
    space.require_dense()
    K = kernel(eps, space.m)
    W = apply_kron(K, np.eye(space.size), space.n)
    return Mechanism.on_space(W, space)


def identifiability_mechanism(prior: Prior, eps: float) -> Mechanism:
    """E_i (Wang, Ying & Zhang 2016, (26)): p_{Y|X}(y|x) = p_Y(y) e^{−ε d(x,y)} / (p_X(x)(1+(m−1)e^{−ε})ⁿ).

    Here p_Y = (K_ε^{−1})^{⊗n} p_X, which is a pmf exactly when ε ≥ ε̃_X; E_i is then ε-identifiable with
    distortion h(ε) (Lemma 4).  Raises :class:`InvalidPrivacyLevelError` when p_Y has a negative entry beyond
    its rounding error, and when the returned matrix's identifiability level (recomputed) exceeds ε — below
    ε̃_X, where p_Y loses its relative accuracy to cancellation (ε small, or ε near ε̃_X where p_Y has entries
    near zero), or where entries e^{−εd} underflow in double precision.
    """
    from .measures import identifiability_level
    from .priors import require_prior

    prior = require_prior(prior, "identifiability_mechanism")
    W = identifiability_matrix(prior, eps)
    mech = Mechanism.on_space(W, prior.space, clean=True)
    level = identifiability_level(mech.matrix, prior)
    if not level <= eps + 1e-9 * (1.0 + eps):
        from .prior_constants import eps_tilde

        floor = eps_tilde(prior)
        if eps >= floor:  # E_i exists, exactly; its float matrix does not reach it
            raise InvalidPrivacyLevelError(
                f"E_i at ε = {eps:.6g} (≥ ε̃_X = {floor:.6g}) has identifiability level {level:.6g} > ε in double "
                "precision: p_Y = (1 − mt)^(−n) (I − tJ)^(⊗n) p_X loses its relative accuracy to cancellation where "
                "ε is small or p_Y has entries near zero (ε near ε̃_X), or entries e^(−εd) underflow; a larger ε "
                "gives an E_i that passes the check"
            )
        raise InvalidPrivacyLevelError(
            f"E_i at ε = {eps:.6g} would have identifiability level {level:.6g} > ε in double precision; it "
            f"needs ε ≥ ε̃_X = {floor:.6g}"
        )
    return mech


def identifiability_matrix(prior: Prior, eps: float) -> np.ndarray:
    """The matrix of E_i before any check of its level (for callers that verify it themselves).

    p_Y is computed as (1 − mt)^{−n} ((I − tJ)^{⊗n} p_X), t = e^{−ε}/(1 + (m−1)e^{−ε}), axis by axis: each entry
    to its own relative precision (an entry of 1e-17 is not lost next to entries of order 1), with the error
    bound of :func:`problems.prior_constants._feasible`.  Raises :class:`InvalidPrivacyLevelError` when an
    entry is negative beyond that bound (ε < ε̃_X).
    """
    import math

    from .prior_constants import eps_tilde, t_of_eps

    eps = check_eps(eps)
    space = prior.space
    space.require_dense()
    prior.require_full_support("the mechanism E_i")
    if eps == 0.0:
        raise InvalidPrivacyLevelError("E_i needs ε > 0 (K_0 is singular); use ε ≥ ε̃_X > 0")
    n, m = space.n, space.m
    t = t_of_eps(eps, m)
    g = a = prior.tensor()
    for axis in range(n):
        g = g - t * g.sum(axis=axis, keepdims=True)
        a = a + t * a.sum(axis=axis, keepdims=True)
    scale = math.exp(-n * math.log1p(-m * t))  # (1 − mt)^{−n}
    p_y = g.reshape(-1) * scale
    err = 2.0 * (n + 2) * (m + 2) * 2.0**-53 * a.reshape(-1) * scale
    if np.any(p_y < -err):
        k = int(np.argmin(p_y + err))
        raise InvalidPrivacyLevelError(
            f"E_i is not defined at ε = {eps:.6g}: the implied p_Y has a negative entry ({p_y[k]:.3g}); "
            f"it needs ε ≥ ε̃_X = {eps_tilde(prior):.6g}"
        )
    p_y = np.clip(p_y, 0.0, None)
    post = apply_kron(kernel(eps, space.m), np.eye(space.size), space.n)  # p_{X|Y}(x|y) (symmetric)
    return post * p_y[None, :] / prior.pmf[:, None]
