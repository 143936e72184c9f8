r"""Exact signs of the posterior polynomials :math:`g_x(t) = ((I - tJ)^{\otimes n} p_X)(x)` at a float t.

ε̃_X (:func:`problems.prior_constants.eps_tilde`) is the boundary of the set of t where every :math:`g_x(t) \ge 0`.
Its float test decides each entry against a bound on its rounding error; an entry within that bound of zero (a
multiple root of :math:`g_x`: a triple root stays below the bound over a relative width of about 1e-5 in t) is
decided here, exactly.

Every float is a dyadic rational, so with :math:`p(y) = P_y 2^{-L}` and :math:`t = T 2^{-S}` (integers
:math:`P_y, T`), expanding the product over the axes,

.. math::

    2^{L + Sn}\, g_x(t) = \sum_{k=0}^{n} C_{x,k}\, (2^S - T)^k (-T)^{n-k},
    \qquad C_{x,k} = \sum_{y:\ |\{i: y_i = x_i\}| = k} P_y,

an integer: its sign is exact.  One entry costs O(N) integer additions (N = m^n databases).
"""

from __future__ import annotations

import numpy as np

__all__ = ["ExactPosteriorSigns"]


class ExactPosteriorSigns:
    """The exact signs of :math:`g_x(t)` for a prior's pmf ``pmf`` (flat, itertools.product order) on
    :math:`D^n`, :math:`|D| = m`."""

    def __init__(self, pmf: np.ndarray, n: int, m: int) -> None:
        pmf = np.asarray(pmf, dtype=float).ravel()
        ratios = [float(v).as_integer_ratio() for v in pmf]  # denominators are powers of two
        self.L = max(den.bit_length() - 1 for _, den in ratios)
        self.P = np.array([num << (self.L - (den.bit_length() - 1)) for num, den in ratios], dtype=object)
        self.n, self.m = int(n), int(m)
        # the digits of every database (itertools.product order: the last axis varies fastest)
        self.digits = np.stack(np.unravel_index(np.arange(pmf.size), (self.m,) * self.n), axis=1).astype(
            np.int16
        )

    @property
    def size(self) -> int:
        """Number of databases N."""
        return int(self.P.size)

    def signs(self, x: np.ndarray, t: float) -> np.ndarray:
        """Signs (−1, 0, 1) of :math:`g_x(t)` for the flat database indices ``x`` at the float ``t``: entry by
        entry (O(N) each) for a few, else all N at once (:meth:`all_signs`, O(nN))."""
        x = np.asarray(x, dtype=np.intp)
        if x.size > 2 * self.n:
            return self.all_signs(t)[x]
        T, den = float(t).as_integer_ratio()  # t = T / 2^S with den = 2^S
        n = self.n
        agree_pow = [(den - T) ** k * (-T) ** (n - k) for k in range(n + 1)]
        out = np.empty(x.size, dtype=np.int8)
        for i, xi in enumerate(x):
            k = np.sum(self.digits == self.digits[xi], axis=1)
            total = 0
            for a in range(n + 1):
                members = self.P[k == a]
                if members.size:
                    total += int(members.sum()) * agree_pow[a]
            out[i] = (total > 0) - (total < 0)
        return out

    def all_signs(self, t: float) -> np.ndarray:
        r"""Signs of every :math:`g_x(t)` (flat, itertools.product order): the axis-by-axis evaluation of
        :math:`(I - tJ)^{\otimes n}` in integers, :math:`g \leftarrow 2^S g - T\,\Sigma_{\rm axis} g` (2n
        big-integer operations per entry)."""
        T, den = float(t).as_integer_ratio()
        g = self.P.reshape((self.m,) * self.n)
        for axis in range(self.n):
            g = g * den - T * g.sum(axis=axis, keepdims=True)
        g = g.ravel()
        return (g > 0).astype(np.int8) - (g < 0).astype(np.int8)
