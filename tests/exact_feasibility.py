"""Exact rational checks of returned mechanisms, independent of the library's own feasibility code.

Each float entry is converted exactly (:class:`fractions.Fraction`), each row divided exactly by its exact sum
(the toolkit's promise: the exact row normalisation of the returned matrix is feasible), and every ratio
constraint is compared with a rational *lower* bound on e^ε, so a pass proves feasibility for the true e^ε.
Databases and neighbours are rebuilt here with :func:`itertools.product`.
"""

from __future__ import annotations

import decimal
import itertools
import math
from fractions import Fraction

import numpy as np

__all__ = [
    "exp_lower",
    "neighbours",
    "exact_rows",
    "dp_feasible",
    "pdi_feasible",
    "joint_feasible",
    "distortion",
]

_LN2_UP = Fraction(6931471805599454, 10**16)  # > ln 2


def exp_lower(eps: float) -> Fraction:
    """A rational r ≤ e^ε: the correctly rounded 60-digit :mod:`decimal` e^ε lowered by 1e-58 relative, or
    2^k with k·ln 2 ≤ ε for ε ≥ 700 (k capped at 1100: doubles in [2⁻¹⁰⁷⁴, 1] never differ by more)."""
    if eps < 700:
        with decimal.localcontext() as ctx:
            ctx.prec = 60
            e = decimal.Decimal(eps).exp()
        return Fraction(e) * (1 - Fraction(1, 10**58))
    k = min(1100, math.floor(Fraction(eps) / _LN2_UP))
    return Fraction(2) ** k


def neighbours(n: int, m: int) -> list[tuple[int, int]]:
    """Ordered pairs (i, j) of databases (itertools.product order) at Hamming distance 1."""
    xs = list(itertools.product(range(m), repeat=n))
    return [
        (i, j)
        for i, a in enumerate(xs)
        for j, b in enumerate(xs)
        if sum(u != v for u, v in zip(a, b, strict=True)) == 1
    ]


def exact_rows(W: np.ndarray) -> list[list[Fraction]]:
    """Each row of W (floats, converted exactly) divided by its exact sum."""
    out = []
    for row in np.asarray(W, dtype=float):
        fr = [Fraction(float(v)) for v in row]
        s = sum(fr)
        assert s > 0 and all(v >= 0 for v in fr)
        out.append([v / s for v in fr])
    return out


def dp_feasible(W: np.ndarray, n: int, m: int, eps: float) -> bool:
    """Exact: W''(y|x) ≤ e^ε W''(y|x') for all neighbours x ~ x' and outputs y (W'' the exact normalisation)."""
    R, r = exact_rows(W), exp_lower(eps)
    return all(R[i][y] <= r * R[j][y] for i, j in neighbours(n, m) for y in range(len(R[i])))


def pdi_feasible(W: np.ndarray, pmf, n: int, m: int, eps: float) -> bool:  # noqa: ANN001
    """Exact: p(x) W''(y|x) ≤ e^ε p(x') W''(y|x') for all neighbours and outputs."""
    R, r = exact_rows(W), exp_lower(eps)
    p = [v if isinstance(v, Fraction) else Fraction(float(v)) for v in pmf]
    return all(p[i] * R[i][y] <= r * p[j] * R[j][y] for i, j in neighbours(n, m) for y in range(len(R[i])))


def joint_feasible(q: np.ndarray, n: int, m: int, eps: float) -> bool:
    """Exact R-PD feasibility of a joint q (normalised exactly to total mass 1): q(x, y) ≤ e^ε q(x', y)."""
    Q = [[Fraction(float(v)) for v in row] for row in np.asarray(q, dtype=float)]
    r = exp_lower(eps)
    return all(Q[i][y] <= r * Q[j][y] for i, j in neighbours(n, m) for y in range(len(Q[i])))


def distortion(W: np.ndarray, pmf, n: int, m: int) -> Fraction:  # noqa: ANN001
    """Exact expected Hamming distortion Σ p(x) W''(y|x) d(x, y) of the exact normalisation of W."""
    xs = list(itertools.product(range(m), repeat=n))
    R = exact_rows(W)
    p = [Fraction(float(v)) for v in pmf]
    return sum(
        p[i] * R[i][j] * sum(u != v for u, v in zip(xs[i], xs[j], strict=True))
        for i in range(len(xs))
        for j in range(len(xs))
    )
