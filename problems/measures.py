r"""Privacy and utility measures of a given mechanism W = p_{Y|X} and prior p_X (Wang, Ying & Zhang 2016, §2).

* :func:`dp_level`             — smallest ε with W(y|x) ≤ e^ε W(y|x') for all neighbours x ~ x' and y (Def. 3).
* :func:`identifiability_level` — smallest ε with p(x|y) ≤ e^ε p(x'|y) for all neighbours and y (Def. 2).
* :func:`mutual_information`   — I(X;Y) = Σ p_X(x) W(y|x) ln(W(y|x)/p_Y(y)) (Def. 4), nats or bits.
* :func:`expected_distortion`  — E d(X,Y) = Σ p_X(x) W(y|x) d(x,y) (eq. (5)).

Ratios 0/0 are ignored; a positive entry against a zero one gives ``inf``.
"""

from __future__ import annotations

import warnings

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


def dp_level(W, space: DatabaseSpace | None = None, *, floor: float = 0.0) -> float:
    r"""Differential-privacy level :math:`\max_{x\sim x',\,y} \ln W(y|x)/W(y|x')` in nats (0/0 ignored).

    Wang, Ying & Zhang (2016), Definition 3, eq. (2); Wu, Xia & He (2020), Definition 10, eq. (7).  The
    toolkit's one implementation, for both ways of writing a mechanism:

    * ``dp_level(W, space)`` — W an ``(N, K)`` row-stochastic matrix (or a
      :class:`~problems.mechanism.Mechanism`) whose rows are the databases of ``space`` in
      itertools.product order; neighbours differ in one row of the database;
    * ``dp_level(channel)`` — a :class:`~problems.information.PrivacyChannel` or its array of shape
      ``record_sizes + (K,)`` (validated as a channel); neighbours differ in one record (one leading axis).

    Entries ≤ ``floor`` count as 0; a positive entry facing a zero one gives ``inf``.
    """
    if space is not None:
        return ratio_level(_matrix(W), space, floor=floor)
    from .information.channel import as_channel

    A = as_channel(W).array
    A = np.where(A > floor, A, 0.0)
    worst = 0.0
    for axis in range(A.ndim - 1):  # log max − log min along each record, for every other coordinate
        hi, lo = A.max(axis=axis), A.min(axis=axis)
        if np.any((hi > 0) & (lo == 0)):
            return float("inf")
        if np.any(hi > 0):
            worst = max(worst, float(np.max(np.log(hi[hi > 0]) - np.log(lo[hi > 0]))))
    return worst


def identifiability_level(W, prior: Prior, *, floor: float = 0.0) -> float:
    """Identifiability level of W under ``prior`` (Definition 2, eq. (1)), via the joint q = diag(p_X) W."""
    return ratio_level(prior.pmf[:, None] * _matrix(W), prior.space, floor=floor)


def mutual_information(W, p_x, unit: str = "nats") -> float:
    r"""I(X;Y) of the channel W under the input pmf ``p_x`` (Wang, Ying & Zhang 2016, Definition 4, eq. (4)).

    .. math:: I(X;Y) = \sum_{x,y} p(x) W[x,y] \ln\frac{W[x,y]}{q(y)}, \qquad q = p^\top W,

    with 0 ln 0 = 0, in nats unless ``unit="bits"``.  The toolkit's one implementation: the information
    package, the model's constraint and the PD-MIP programs all call it.

    Parameters
    ----------
    W:
        Row-stochastic matrix (or a :class:`~problems.mechanism.Mechanism`), one row per input x.
    p_x:
        Input pmf (an array or a :class:`~problems.priors.Prior`), one entry per row of W.
    unit:
        ``"nats"`` (default) or ``"bits"``.

    The order ``mutual_information(p, W)`` of the former ``problems.information.mutual_information`` is
    recognised by the shapes (a 1-D first and a 2-D second argument) and still works, with a
    ``DeprecationWarning``, until the next release.
    """
    M = _matrix(W)
    p = np.asarray(getattr(p_x, "pmf", p_x), dtype=float)
    if M.ndim == 1 and p.ndim == 2:  # the deprecated order (p, W)
        warnings.warn(
            "mutual_information(p, W) is deprecated: the arguments are (W, p), the channel first "
            "(the order (p, W) stops working in the next release)",
            DeprecationWarning,
            stacklevel=2,
        )
        M, p = p, M
    if M.ndim != 2:
        raise ShapeMismatchError(
            f"the channel W must be a 2-D matrix (inputs × outputs), got shape {M.shape}"
        )
    if p.ndim != 1 or M.shape[0] != p.size:
        raise ShapeMismatchError(
            f"channel has {M.shape[0]} rows but the input distribution has shape {p.shape}; "
            f"it needs one entry per row, shape ({M.shape[0]},)"
        )
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
