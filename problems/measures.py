r"""Privacy and utility measures of a given mechanism W = p_{Y|X} and prior p_X (Wang, Ying & Zhang 2016, §2).

* :func:`dp_level`             — smallest ε with W(y|x) ≤ e^ε W(y|x') for all neighbours x ~ x' and y (Def. 3).
* :func:`identifiability_level` — smallest ε with p(x|y) ≤ e^ε p(x'|y) for all neighbours and y (Def. 2).
* :func:`mutual_information`   — I(X;Y) = Σ p_X(x) W(y|x) ln(W(y|x)/p_Y(y)) (Def. 4), nats or bits.
* :func:`expected_distortion`  — E d(X,Y) = Σ p_X(x) W(y|x) d(x,y) (eq. (5)).

Ratios 0/0 are ignored; a positive entry against a zero one gives ``inf``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import rel_entr

from .database import DatabaseSpace
from .errors import ShapeMismatchError
from .priors import Prior
from .units import to_unit

__all__ = ["dp_level", "identifiability_level", "mutual_information", "expected_distortion", "ratio_level"]


def _matrix(W) -> np.ndarray:
    return np.asarray(getattr(W, "matrix", W), dtype=float)


def ratio_level(Z: np.ndarray, space: DatabaseSpace, *, floor: float = 0.0) -> float:
    """max over neighbour pairs (x, x') and columns y of ln Z[x, y]/Z[x', y] (entries ≤ ``floor`` count as 0)."""
    Z = np.where(Z > floor, Z, 0.0)
    if Z.shape[0] != space.size:
        raise ShapeMismatchError(f"matrix has {Z.shape[0]} rows; the space has {space.size} databases")
    i, j = space.neighbour_pairs
    worst = 0.0
    for start in range(0, i.size, 4096):  # chunks bound the memory to 4096·N entries
        a, b = Z[i[start : start + 4096]], Z[j[start : start + 4096]]
        if np.any((a > 0) & (b == 0)):
            return float("inf")
        both = (a > 0) & (b > 0)
        if both.any():
            worst = max(worst, float(np.max(np.log(a[both]) - np.log(b[both]))))
    return worst


def dp_level(W, space: DatabaseSpace, *, floor: float = 0.0) -> float:
    """Differential-privacy level of W (Wang, Ying & Zhang 2016, Definition 3, eq. (2))."""
    return ratio_level(_matrix(W), space, floor=floor)


def identifiability_level(W, prior: Prior, *, floor: float = 0.0) -> float:
    """Identifiability level of W under ``prior`` (Definition 2, eq. (1)), via the joint q = diag(p_X) W."""
    return ratio_level(prior.pmf[:, None] * _matrix(W), prior.space, floor=floor)


def mutual_information(W, p_x, unit: str = "nats") -> float:
    """I(X;Y) for input pmf ``p_x`` (a :class:`Prior` or array) and channel W (Definition 4, eq. (4))."""
    p = np.asarray(getattr(p_x, "pmf", p_x), dtype=float)
    M = _matrix(W)
    if M.shape[0] != p.size:
        raise ShapeMismatchError(f"channel has {M.shape[0]} rows but the input pmf has {p.size} entries")
    joint = p[:, None] * M
    q = joint.sum(axis=0)
    value = float(np.sum(rel_entr(joint, p[:, None] * q[None, :])))
    return float(to_unit(max(value, 0.0), unit))


def expected_distortion(W, p_x, d: np.ndarray | None = None) -> float:
    """E d(X, Y) (eq. (5)); ``d`` defaults to the Hamming distance when ``p_x`` is a :class:`Prior`."""
    p = np.asarray(getattr(p_x, "pmf", p_x), dtype=float)
    if d is None:
        if not hasattr(p_x, "space"):
            from .errors import InvalidInputError

            raise InvalidInputError(
                "expected_distortion needs the distortion matrix d when p_x is an array (or pass a Prior, "
                "whose database space gives the Hamming distance)"
            )
        d = p_x.space.hamming_matrix()
    return float(np.sum(p[:, None] * _matrix(W) * d))
