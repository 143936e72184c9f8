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

Between tested points an entry can dip below zero over a width the float test never sees (near-uniform priors:
roots within 1e-9 of t = 1/m).  :meth:`ExactPosteriorSigns.first_sign_change` finds the first t at which one
:math:`g_x` changes sign from + to −, exactly: its integer coefficients (the same axis-by-axis recursion as the
float coefficients, in integers), Sturm's theorem (distinct real roots in an interval, multiple roots included)
and bisection on rationals; a root of even multiplicity (g touches zero) is passed over.
"""

from __future__ import annotations

from fractions import Fraction

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
        self._coef: np.ndarray | None = None

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

    def coefficients(self) -> np.ndarray:
        r"""Exact integer coefficients ``C[k, x]`` (ascending powers) with :math:`2^L g_x(t) = \sum_k C[k, x] t^k`:
        coefficient k minus the axis-sum of coefficient k − 1, one axis at a time (n(n + 1)N integer operations)."""
        if self._coef is None:
            coef = np.zeros((self.n + 1,) + (self.m,) * self.n, dtype=object)
            coef[0] = self.P.reshape((self.m,) * self.n)
            for axis in range(self.n):
                sums = coef.sum(axis=axis + 1, keepdims=True)
                shifted = np.zeros(coef.shape, dtype=object)
                shifted[1:] = np.broadcast_to(sums[:-1], coef[1:].shape)
                coef = coef - shifted
            self._coef = coef.reshape(self.n + 1, -1)
        return self._coef

    def first_sign_change(self, x: int, hi: Fraction, rel: Fraction = Fraction(1, 2**70)) -> Fraction | None:
        r"""A rational a with :math:`g_x \ge 0` on (0, a] and :math:`g_x < 0` somewhere in (a, a(1 + rel)], the
        first such change of sign in (0, hi]; ``None`` when :math:`g_x \ge 0` on all of (0, hi] (at t > 0;
        :math:`g_x(0) = p(x) \ge 0`)."""
        c = [int(v) for v in self.coefficients()[:, int(x)]]
        while len(c) > 1 and c[-1] == 0:
            c.pop()
        j = next((i for i, v in enumerate(c) if v != 0), len(c))
        c = c[j:]  # t^j g̃(t): the same sign for t > 0
        if len(c) <= 1:
            return None if not c or c[0] >= 0 else Fraction(0)
        seq = _sturm(_square_free([Fraction(v) for v in c]))  # simple roots: counts hold at a root too
        lo = Fraction(0)
        while _changes(seq, lo) - _changes(seq, hi) > 0:
            a, b = lo, hi  # the first distinct root in (lo, hi] lies in (a, b]
            while b - a > rel * b or _changes(seq, a) - _changes(seq, b) > 1:
                mid = (a + b) / 2
                if _value(c, mid) == 0:  # Sturm counts need points off the roots
                    mid = (a + 2 * b) / 3 if _value(c, (a + 2 * b) / 3) != 0 else (2 * a + b) / 3
                if _changes(seq, a) - _changes(seq, mid) >= 1:
                    b = mid
                else:
                    a = mid
            after = b
            if _value(c, after) == 0:  # b is the root itself: a point past it, before the next root
                if b == hi:
                    return None  # the root at hi: g_x ≥ 0 on all of (0, hi]
                after = b + (b - a)
            if _value(c, after) < 0:
                return a
            lo = after  # a root of even multiplicity: g touches zero and stays ≥ 0
        return None


def _value(c: list, t: Fraction) -> Fraction:
    v = Fraction(0)
    for a in reversed(c):
        v = v * t + a
    return v


def _divmod(a: list[Fraction], b: list[Fraction]) -> tuple[list[Fraction], list[Fraction]]:
    """Quotient and remainder of a / b (ascending coefficients, b's leading coefficient non-zero)."""
    a = list(a)
    q = [Fraction(0)] * max(1, len(a) - len(b) + 1)
    while len(a) >= len(b) and any(a):
        f = a[-1] / b[-1]
        shift = len(a) - len(b)
        q[shift] = f
        for i, v in enumerate(b):
            a[i + shift] -= f * v
        a.pop()
        while len(a) > 1 and a[-1] == 0:
            a.pop()
    return q, a


def _square_free(c: list[Fraction]) -> list[Fraction]:
    """c / gcd(c, c'): the same distinct roots, each simple."""
    g = _sturm(c)[-1]  # the last element of Sturm's sequence is gcd(c, c') up to a constant
    return c if len(g) == 1 else _divmod(c, g)[0]


def _sturm(c: list[Fraction]) -> list[list[Fraction]]:
    """Sturm's sequence p, p', −rem(p, p'), …: V(a) − V(b) distinct real roots in (a, b] (p square-free; a not a
    root)."""
    seq = [c, [k * c[k] for k in range(1, len(c))]]
    while len(seq[-1]) > 1 or seq[-1][0] != 0:
        r = _divmod(seq[-2], seq[-1])[1]
        if not any(r):
            break
        seq.append([-v for v in r])
    return seq


def _changes(seq: list[list[Fraction]], t: Fraction) -> int:
    signs = [v > 0 for v in (_value(q, t) for q in seq) if v != 0]
    return sum(1 for u, v in zip(signs, signs[1:]) if u != v)
