r"""Constants of a prior: ε_X (Wang, Ying & Zhang 2016, (16)) and ε̃_X (the definition before (17)).

ε_X
    :math:`\epsilon_X = \max_{x\sim x'} \ln p_X(x)/p_X(x')`, computed over the sparse neighbour pairs;
    infinite when some database has zero mass; exactly 0 for the uniform prior and ln(π_max/π_min) for an
    i.i.d. prior.  Whether a float ε is ≥ the exact ε_X of the float masses (which the float ε_X can miss by
    an ulp either way) is decided in rational arithmetic by :func:`at_least_eps_X`.

ε̃_X
    The smallest ε for which the posterior :math:`p_{X|Y}(x|y) = (K_\epsilon^{\otimes n})_{xy}` is *feasible*, i.e.
    :math:`p_Y = (K_\epsilon^{-1})^{\otimes n} p_X \ge 0`.  Write :math:`t = e^{-\epsilon}/(1+(m-1)e^{-\epsilon})
    \in (0, 1/m]`; then :math:`K_\epsilon = (1-mt)\,I + tJ` and, because :math:`p_X` sums to one,
    :math:`K_\epsilon^{-1} p = (I - tJ)p/(1-mt)` on every axis.  Hence every entry of
    :math:`(1-mt)^n p_Y` is a polynomial :math:`g_x(t)` of degree ≤ n whose coefficients are computed one axis
    at a time (no N×N matrix): applying :math:`I - tJ` along an axis maps coefficient k to
    coefficient k minus the axis-sum of coefficient k−1.  The feasible ε form the set where every
    :math:`g_x(t) \ge 0`; we return the ε of the largest t₀ such that all :math:`g_x \ge 0` on
    :math:`(0, t_0]` — i.e. the smallest ε from which on *every* larger ε is feasible, which is what Lemma 4 of
    the paper uses.  The roots of the :math:`g_x` can span many orders of magnitude (a mass of 1e-16 puts a
    root near t ≈ 1e-16 next to roots of order 1/m), so candidates are found decade by decade (companion
    matrices of the polynomial rescaled to each decade), the sign of every g_x is tested by direct evaluation
    against its own rounding-error bound on a logarithmic grid and between candidates (an entry within that
    bound of zero, as at a multiple root, is decided in integer arithmetic: :mod:`problems.posterior_sign`), and
    the boundary is refined by bisection in ln t (``tests/test_eps_tilde_exact.py`` checks it against Sturm
    sequences and exact rational evaluation, for masses down to 1e-16 and at multiple roots).

For an i.i.d. prior :math:`\pi^{\otimes n}` the condition reduces to one row, :math:`\min_a \pi(a) \ge t`, so
:math:`\tilde\epsilon_X = \ln\big((1-(m-1)\pi_{\min})/\pi_{\min}\big)` (:func:`eps_tilde_iid`); a test checks the
general routine against it and against a dense solve.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np

from .errors import InvalidInputError
from .posterior_sign import ExactPosteriorSigns
from .priors import Prior, require_prior

__all__ = [
    "eps_X",
    "eps_X_ratio",
    "at_least_eps_X",
    "eps_X_symmetric",
    "mixture_eps_X_ratio",
    "near_eps_X",
    "round_up_eps_X",
    "exp_at_least",
    "eps_X_iid",
    "eps_tilde",
    "eps_tilde_iid",
    "EpsTildeBoundWarning",
    "symmetric_constants",
    "t_of_eps",
    "eps_of_t",
    "feasibility_polynomials",
]


def eps_X(prior: Prior) -> float:
    """ε_X = max over neighbours x ~ x' of ln p_X(x)/p_X(x') (Wang, Ying & Zhang 2016, (16)); ``inf`` without full support."""
    prior = require_prior(prior, "eps_X")
    if not prior.has_full_support:
        return math.inf
    if prior.kind == "uniform":
        return 0.0  # exactly: every database has the same mass
    if prior.kind == "iid":
        return eps_X_iid(prior.row_pmfs[0])
    i, j = prior.space.neighbour_pairs
    logp = np.log(prior.pmf)
    return float(max(0.0, np.max(logp[i] - logp[j])))


def eps_X_ratio(prior: Prior) -> Fraction | None:
    """e^{ε_X} exactly: the largest ratio p_X(x)/p_X(x') over neighbours of the float masses, as a Fraction
    (``None`` without full support).  Pairs within 1e-9 of the float maximum of ln p(x) − ln p(x') are compared
    exactly; a pair further below cannot be the maximum (the logarithms are accurate to ~1e-13)."""
    prior = require_prior(prior, "eps_X_ratio")
    if not prior.has_full_support:
        return None
    if prior.kind == "uniform":
        return Fraction(1)
    i, j = prior.space.neighbour_pairs
    logp = np.log(prior.pmf)
    diff = logp[i] - logp[j]
    top = float(diff.max(initial=0.0))
    best = Fraction(1)
    for k in np.flatnonzero(diff >= top - 1e-9):
        best = max(best, Fraction(float(prior.pmf[i[k]])) / Fraction(float(prior.pmf[j[k]])))
    return best


def exp_at_least(eps: float, ratio: Fraction) -> bool:
    """True iff e^ε ≥ ``ratio`` exactly (ε a float ≥ 0, ``ratio`` ≥ 1 rational).

    e^ε is enclosed in rational arithmetic: ε/2^s ≤ 2^{−10} by a Taylor series with its remainder, then squared
    s times, rounding outward to P fractional bits; P doubles until the enclosure excludes ``ratio`` (it must:
    e^ε is irrational for rational ε ≠ 0).  Meant for ε near ε_X (a few hundred at most).
    """
    q = Fraction(eps)
    if q == 0:
        return ratio <= 1
    if q > 1455:
        return True  # a ratio of two positive doubles is below 2^1024/2^-1074 = 2^2098 < e^1455
    s = max(0, (q * 1024).numerator.bit_length() - (q * 1024).denominator.bit_length() + 1)
    x = q / 2**s
    for P in (256, 512, 1024, 2048):
        lo, hi = _exp_small(x, P)
        for _ in range(s):
            lo = (lo * lo) >> P
            hi = -((-(hi * hi)) >> P)
        if ratio * 2**P < lo:
            return True
        if ratio * 2**P > hi:
            return False
    return ratio * 2**P <= lo  # unreachable in practice (P = 2048 bits)


def _exp_small(x: Fraction, P: int) -> tuple[int, int]:
    """Integers lo ≤ e^x·2^P ≤ hi for 0 ≤ x ≤ 2^{−10}: Taylor to 40 terms, remainder ≤ 2·x^41/41!."""
    term, total = Fraction(1), Fraction(1)
    for k in range(1, 41):
        term = term * x / k
        total += term
    rem = 2 * term * x / 41
    scaled_lo, scaled_hi = total * 2**P, (total + rem) * 2**P
    return scaled_lo.numerator // scaled_lo.denominator, -((-scaled_hi.numerator) // scaled_hi.denominator)


def near_eps_X(eps: float, eps_x: float) -> bool:
    """True when ε is within 1e-9 (relative to 1 + ε_X) of the float ε_X: there the float comparison cannot
    decide ε ≥ ε_X, and :func:`at_least_eps_X` does."""
    return math.isfinite(eps_x) and abs(eps - eps_x) <= 1e-9 * (1.0 + eps_x)


def round_up_eps_X(eps_x: float, ratio: Fraction | None) -> float:
    """The smallest float ε ≥ the exact ε_X = ln ``ratio``, starting from its float estimate ``eps_x``."""
    if ratio is None or not math.isfinite(eps_x):
        return eps_x
    e = max(0.0, eps_x)
    while e > 0 and exp_at_least(math.nextafter(e, 0.0), ratio):
        e = math.nextafter(e, 0.0)  # the estimate was above: step down while still feasible
    step = 0
    while not exp_at_least(e, ratio):
        e = math.nextafter(e, math.inf) if step < 16 else e + math.ulp(e) * 2.0 ** (step - 16)
        step += 1
    return e


def at_least_eps_X(prior: Prior, eps: float) -> bool:
    """True iff the float ε is ≥ the exact ε_X of the float masses (Wang, Ying & Zhang 2016, (16)), decided exactly."""
    ratio = eps_X_ratio(prior)
    return ratio is not None and exp_at_least(float(eps), ratio)


def t_of_eps(eps: float, m: int) -> float:
    """t = e^{−ε}/(1+(m−1)e^{−ε}), the off-diagonal entry of K_ε."""
    e = math.exp(-eps)
    return e / (1.0 + (m - 1) * e)


def eps_of_t(t: float, m: int) -> float:
    """Inverse of :func:`t_of_eps` on (0, 1/m]: ε = ln((1 − (m−1)t)/t)."""
    if t <= 0:
        return math.inf
    return max(0.0, math.log((1.0 - (m - 1) * t) / t))


def feasibility_polynomials(prior: Prior) -> np.ndarray:
    """Coefficients ``C[k, x]`` of g_x(t) = Σ_k C[k, x] t^k = ((I − tJ)^{⊗n} p_X)(x)."""
    prior = require_prior(prior, "feasibility_polynomials")
    n = prior.n
    coef = np.zeros((n + 1,) + prior.space.shape)
    coef[0] = prior.tensor()
    for axis in range(n):
        sums = coef.sum(axis=axis + 1, keepdims=True)  # axis-sum of every coefficient
        shifted = np.zeros_like(coef)
        shifted[1:] = np.broadcast_to(sums[:-1], coef[1:].shape)
        coef = coef - shifted
    return coef.reshape(n + 1, -1)


def eps_tilde_iid(row_pmf) -> float:
    """ε̃_X for an i.i.d. prior π^{⊗n}: ln((1 − (m−1)π_min)/π_min)."""
    row = np.asarray(row_pmf, dtype=float)
    if float(row.min()) == float(row.max()):
        return 0.0  # a uniform row: π_min = 1/m = t at ε = 0, exactly
    return eps_of_t(float(row.min()), row.size)


def eps_tilde(prior: Prior, *, tol: float = 1e-14) -> float:
    """ε̃_X of a prior (see the module docstring); ``inf`` when no finite ε is feasible.

    The roots of the g_x can span many orders of magnitude (masses of 1e-16 put roots near t ≈ 1e-16 next to
    roots of order 1/m), so they are found on a logarithmic scale (:func:`_candidate_roots`): each decade of t
    gets its own companion matrices, and the sign of every g_x is then tested, by the direct evaluation with
    its rounding error bound (:func:`_feasible`), between consecutive candidates and on a grid of 20 points
    per decade from below the smallest possible root (Cauchy's bound) to 1/m.  The boundary is refined by
    bisection in ln t.  ``tol`` is kept for compatibility; the test is relative to each entry's own scale.
    """
    prior = require_prior(prior, "eps_tilde")
    m = prior.m
    if prior.kind in ("uniform", "iid"):
        return eps_tilde_iid(prior.row_pmfs[0])
    coef = feasibility_polynomials(prior)  # (n+1, N), ascending powers
    if not prior.has_full_support:
        # near t = 0 the sign of g_x is that of its lowest non-zero coefficient
        zero = np.flatnonzero(prior.pmf <= 0)
        c = coef[:, zero]
        first = np.argmax(np.abs(c) > 0, axis=0)
        lowest = c[first, np.arange(zero.size)]
        if np.any(lowest < 0):
            return math.inf  # infeasible for every ε: no finite ε̃_X
    tmax = 1.0 / m
    t_min = 0.5 * _smallest_root_bound(coef)
    tests = [np.geomspace(t_min, tmax, max(2, int(20 * math.log10(tmax / t_min)) + 2))]
    roots = _candidate_roots(coef, t_min, tmax)
    if roots.size:
        pts = np.concatenate([[t_min], roots, [tmax]])
        lo, hi = pts[:-1], pts[1:]
        tests += [lo + f * (hi - lo) for f in (0.25, 0.5, 0.75)]
        tests += [roots * (1 - 1e-9), roots * (1 + 1e-9)]
    t = np.unique(np.clip(np.concatenate(tests), t_min, tmax))
    exact = _ExactSigns(prior)  # the exact test of entries within their rounding bound of zero, shared
    k = _first_infeasible(prior, t, exact)  # ascending, in chunks: stops at the boundary
    # an entry that came within its rounding bound of zero at a tested point may dip below zero between the
    # tested points (near-uniform priors: within 1e-9 of t = 1/m): its first change of sign, exactly
    cut = exact.first_change(tmax if k is None else float(t[k]))
    if cut is not None:
        tc = float(cut)
        if Fraction(tc) > cut:
            tc = math.nextafter(tc, 0.0)
        passed = t[: t.size if k is None else k]
        below = passed[passed < tc]
        if _feasible(prior, np.array([tc]), exact)[0]:
            good = tc  # the change lies between good and the next floats: the last feasible one of them
            for _ in range(4):
                nxt = math.nextafter(good, 1.0)
                if nxt > tmax or not _feasible(prior, np.array([nxt]), exact)[0]:
                    break
                good = nxt
            bad = math.nextafter(good, 1.0)
        elif below.size:
            good, bad = float(below[-1]), tc
        else:
            return math.inf  # cannot happen with full support (the first test point is below every root)
    elif k is None:
        return 0.0  # every ε > 0 is feasible (t up to 1/m)
    elif k == 0:
        return math.inf  # cannot happen with full support (g_x(t) > 0 below Cauchy's bound); be safe
    else:
        good, bad = float(t[k - 1]), float(t[k])
    for _ in range(200):  # bisection in ln t: the boundary to the last bit of t
        mid = math.sqrt(good) * math.sqrt(bad)
        if not good < mid < bad:
            break
        if _feasible(prior, np.array([mid]), exact)[0]:
            good = mid
        else:
            bad = mid
    # ε = eps_of_t(good) rounds; move it up until t_of_eps(ε) itself passes the test (a few ulps at most), so
    # that E_i at the returned ε̃_X is defined (identifiability_mechanism recomputes t from ε), then down to the
    # smallest such float
    e = eps_of_t(good, m)
    step = math.ulp(e)
    for _ in range(60):
        if _feasible(prior, np.array([t_of_eps(e, m)]), exact)[0]:
            break
        e += step
        step *= 2.0
    # then down to the smallest such float: bisection in ε from an ε whose t fails (the ε of ``bad``, lowered
    # while its t, rounded, still passes)
    e_fail = eps_of_t(bad, m)
    e_fail = e_fail if e_fail < e else e
    step = math.ulp(e)
    for _ in range(60):
        if e_fail <= 0.0 or not _feasible(prior, np.array([t_of_eps(e_fail, m)]), exact)[0]:
            break
        e_fail -= step
        step *= 2.0
    if 0.0 < e_fail < e:
        for _ in range(200):
            mid = 0.5 * (e_fail + e)
            if not e_fail < mid < e:
                break
            if _feasible(prior, np.array([t_of_eps(mid, m)]), exact)[0]:
                e = mid
            else:
                e_fail = mid
    if exact.exhausted:
        warnings.warn(
            f"ε̃_X = {e!r} is not proved exact: E_i is feasible there (every entry of p_Y ≥ 0, exactly), but "
            "entries near a multiple root of the posterior polynomials were too many to decide exactly within the "
            "budget, so it may lie above the exact boundary (an i.i.d. prior given as an explicit pmf has such a "
            "root; the i.i.d. prior kind takes the closed form)",
            EpsTildeBoundWarning,
            stacklevel=2,
        )
    return e


def _smallest_root_bound(coef: np.ndarray) -> float:
    """A t > 0 below every positive root of every g_x (Cauchy's lower bound |c_j|/(|c_j| + max_k |c_k|) on the
    roots of t^{−j} g_x, c_j its lowest non-zero coefficient)."""
    a = np.abs(coef)
    nz = a > 0
    has = nz.any(axis=0)
    a, nz = a[:, has], nz[:, has]
    j = np.argmax(nz, axis=0)
    cj = a[j, np.arange(a.shape[1])]
    rest = np.where(np.arange(a.shape[0])[:, None] > j[None, :], a, 0.0).max(axis=0)
    bound = cj / (cj + rest)
    return float(max(bound.min(), 1e-300))


def _first_infeasible(prior: Prior, t: np.ndarray, exact: _ExactSigns, chunk: int = 32) -> int | None:
    """Index of the first t (ascending) at which :func:`_feasible` fails, or ``None``."""
    for start in range(0, t.size, chunk):
        ok = _feasible(prior, t[start : start + chunk], exact)
        if not ok.all():
            return start + int(np.argmin(ok))
    return None


def _feasible(prior: Prior, t: np.ndarray, exact: _ExactSigns | None = None) -> np.ndarray:
    """For each t: every g_x(t) ≥ 0, i.e. p_Y ≥ 0, decided exactly.

    g = (I − tJ)^{⊗n} p and a = (I + tJ)^{⊗n} p (the same terms in absolute value) are evaluated axis by axis;
    the error of g is below 2(n + 2)·N_axis·u·a entrywise, which is relative to each entry's own scale (an
    entry of 1e-16 is tested to ~1e-31, not to a fraction of the largest mass).  An entry within that bound of
    zero is decided in integer arithmetic (:mod:`problems.posterior_sign`); beyond
    :data:`EXACT_SIGN_BUDGET` such evaluations at one t it counts as negative (the larger, safe ε̃_X)."""
    n, m = prior.n, prior.m
    exact = _ExactSigns(prior) if exact is None else exact
    out = np.empty(t.size, dtype=bool)
    base = prior.tensor()
    for start in range(0, t.size, 64):
        tt = t[start : start + 64].reshape((-1,) + (1,) * n)
        g = np.broadcast_to(base, tt.shape[:1] + base.shape).copy()
        a = g.copy()
        for axis in range(n):
            g = g - tt * g.sum(axis=axis + 1, keepdims=True)
            a = a + tt * a.sum(axis=axis + 1, keepdims=True)
        err = 2.0 * (n + 2) * (m + 2) * 2.0**-53 * a
        g = g.reshape(tt.shape[0], -1)
        err = err.reshape(tt.shape[0], -1)
        for j in range(tt.shape[0]):
            if np.any(g[j] + err[j] < 0):
                out[start + j] = False  # an entry surely negative
                continue
            unsure = np.flatnonzero(g[j] - err[j] < 0)
            out[start + j] = unsure.size == 0 or exact.nonnegative(unsure, float(t[start + j]))
    return out


#: the exact work one ε̃_X may spend, in operations on 64-bit words of its big integers (measured 5–15 ns each:
#: at most 3–9 s); after that an entry within its rounding bound of zero counts as negative, and ε̃_X is then not
#: proved exact, with :class:`EpsTildeBoundWarning` (E_i is feasible there)
EXACT_SIGN_BUDGET = 6e8


class EpsTildeBoundWarning(UserWarning):
    """ε̃_X is not proved exact: E_i is feasible there, exactly, but entries near a multiple root of the posterior
    polynomials were too many to decide exactly below it (:data:`EXACT_SIGN_BUDGET`)."""


class _ExactSigns:
    """The exact sign test of :func:`_feasible`, built on first use (O(N) Python integers), with its budget; it
    keeps the entries it was asked about (``flagged``) for :meth:`first_change`."""

    def __init__(self, prior: Prior) -> None:
        self.prior = prior
        self.signs: ExactPosteriorSigns | None = None
        self.spent = 0.0
        self.exhausted = False
        self.flagged: set[int] = set()

    def _signs(self) -> ExactPosteriorSigns:
        if self.signs is None:
            self.signs = ExactPosteriorSigns(self.prior.pmf, self.prior.n, self.prior.m)
        return self.signs

    def _spend(self, cost: float) -> bool:
        # big integers of about L + 64n bits: an operation costs in proportion to their words
        cost *= (self._signs().L + 64 * self.prior.n) / 64.0
        if self.spent + cost > EXACT_SIGN_BUDGET:
            self.exhausted = True
            return False
        self.spent += cost
        return True

    def nonnegative(self, x: np.ndarray, t: float) -> bool:
        """Whether g_x(t) ≥ 0 for every flat index in ``x`` (False once the budget is spent)."""
        n, N = self.prior.n, self.prior.pmf.size
        self.flagged.update(int(v) for v in x[: max(0, 4096 - len(self.flagged))])
        if not self._spend(2.0 * n * N if x.size > 2 * n else float(x.size) * N):
            return False
        return bool(np.all(self._signs().signs(x, t) >= 0))

    def first_change(self, hi: float) -> Fraction | None:
        """The first t in (0, hi] at which a flagged g_x changes sign from + to − (a rational just below it),
        or None; exact (Sturm sequences), within the budget (:data:`STURM_COST` per polynomial and degree²)."""
        if not self.flagged:
            return None
        n = self.prior.n
        if not self._spend(float(len(self.flagged)) * STURM_COST * (n + 1) ** 2):
            return None
        signs = self._signs()
        best: Fraction | None = None
        for x in sorted(self.flagged):  # each below the first change found so far (mostly: no root there)
            cut = signs.first_sign_change(x, Fraction(hi) if best is None else best)
            if cut is not None and (best is None or cut < best):
                best = cut
        return best


#: the budget's charge for one polynomial's exact first change of sign, per (n + 1)² (measured: 2–7 ms at n = 7–10)
STURM_COST = 800.0


def _candidate_roots(coef: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Real roots in (lo, hi) of every g_x, found decade by decade: at the scale σ the polynomial in τ = t/σ
    has coefficients c_k σ^k; terms below 1e-20 of the largest are dropped (they move roots with |τ| ≤ 100 by
    a negligible amount), and the roots with 0.01 ≤ τ ≤ 100 are kept.  Candidates only place the sign tests of
    :func:`eps_tilde`, so their accuracy is not critical."""
    found = [_real_roots_in(coef, lo, hi)]
    k = np.arange(coef.shape[0], dtype=float)[:, None]
    sigma = hi
    while sigma > lo * 1e-2:
        scaled = coef * sigma**k
        big = np.max(np.abs(scaled), axis=0, keepdims=True)
        big[big == 0] = 1.0
        scaled = np.where(np.abs(scaled) >= 1e-20 * big, scaled / big, 0.0)
        tau = _real_roots_in(scaled, 0.01, 100.0)
        found.append(sigma * tau)
        sigma *= 0.01
    roots = np.concatenate(found)
    return np.unique(roots[(roots > lo) & (roots < hi)])


def _direct_g(prior: Prior, t: float) -> np.ndarray:
    """g_x(t) = ((I − tJ)^{⊗n} p_X)(x), evaluated axis by axis (stable; no polynomial coefficients)."""
    g = prior.tensor()
    for axis in range(prior.n):
        g = g - t * g.sum(axis=axis, keepdims=True)
    return g


def _real_roots_in(coef: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Real roots in (lo, hi) of the polynomials with ascending coefficients ``coef[:, x]`` (batched)."""
    deg_all = coef.shape[0] - 1
    found: list[np.ndarray] = []
    nz = np.abs(coef) > 1e-300
    # effective degree of each polynomial: highest k with a non-zero coefficient
    deg = np.where(nz.any(axis=0), deg_all - np.argmax(nz[::-1], axis=0), 0)
    for d in range(1, deg_all + 1):
        cols = np.flatnonzero(deg == d)
        if cols.size == 0:
            continue
        c = coef[: d + 1, cols]  # ascending
        lead = c[d]
        comp = np.zeros((cols.size, d, d))
        comp[:, 0, :] = -(c[d - 1 :: -1] / lead).T
        if d > 1:
            comp[:, np.arange(1, d), np.arange(d - 1)] = 1.0
        ev = np.linalg.eigvals(comp).ravel()
        # loose imaginary threshold: a multiple root splits into a complex cluster of radius ~ε^(1/k)
        real = ev.real[np.abs(ev.imag) <= 1e-3 * np.maximum(1.0, np.abs(ev.real))]
        found.append(real[(real > lo) & (real < hi)])
    if not found:
        return np.empty(0)
    return np.unique(np.concatenate(found))


def eps_X_iid(row_pmf) -> float:
    """ε_X of an i.i.d. prior π^{⊗n} (any n ≥ 1): ln(π_max/π_min), ``inf`` when some π(a) = 0.

    Changing one row from a to b multiplies p_X by π(b)/π(a), so the largest neighbour ratio is π_max/π_min;
    it is exactly 0 for the uniform prior.
    """
    row = np.asarray(row_pmf, dtype=float)
    lo, hi = float(row.min()), float(row.max())
    if lo <= 0:
        return math.inf
    return 0.0 if lo == hi else math.log(hi) - math.log(lo)


#: Bytes per x-type and letter held while ε_X of an exchangeable mixture is computed over the moves between
#: types (the types and one shifted copy, with NumPy temporaries); the log-masses add 24 bytes per component.
BYTES_PER_TYPE_ENTRY = 48


def eps_X_symmetric(prior) -> float:  # noqa: ANN001 - a SymmetricPrior
    """ε_X (Wang, Ying & Zhang 2016, (16)) of a symmetric prior, over moves t → t − e_a + e_a' of x-types.

    Uniform and i.i.d. priors use the closed form ln(π_max/π_min) (:func:`eps_X_iid`,
    any n and m); a mixture enumerates its C(n+m−1, m−1) x-types, refused by the memory guard when they would
    not fit.
    """
    from .orbit.types import compositions
    from .resources import BASE_MEMORY, as_bytes, format_count, require_memory

    if not prior.has_full_support:
        return math.inf
    if prior.kind in ("uniform", "iid"):
        return eps_X_iid(prior.row_pmfs[0])
    count = math.comb(prior.n + prior.m - 1, prior.m - 1)
    require_memory(
        BASE_MEMORY + as_bytes(count, prior.m, BYTES_PER_TYPE_ENTRY + 24 * len(prior.row_pmfs)),
        f"ε_X of the exchangeable prior {prior.name!r} over {format_count(count)} x-types "
        f"(n = {prior.n}, m = {prior.m}, {len(prior.row_pmfs)} i.i.d. components)",
        "Use a smaller n or m, or a uniform or iid prior (closed forms at any n).",
    )
    types = compositions(prior.n, prior.m)
    lm = prior.log_mass(types)
    best = 0.0
    for a in range(prior.m):
        for a2 in range(prior.m):
            if a2 == a:
                continue
            sel = types[:, a] >= 1
            new = types[sel].copy()
            new[:, a] -= 1
            new[:, a2] += 1
            best = max(best, float(np.max(np.abs(prior.log_mass(new) - lm[sel]), initial=0.0)))
    return best


def mixture_eps_X_ratio(prior) -> Fraction:  # noqa: ANN001 - an m = 2 SymmetricPrior
    """e^{ε_X} exactly for an m = 2 mixture: max over k of p_k/p_{k+1} and p_{k+1}/p_k, p_k the exact mass of one
    database with k ones.  Only the pairs within 1e-9 of the float maximum of |ln p_{k+1} − ln p_k| are compared
    in rational arithmetic (the float logarithms are accurate to ~1e-13, so no other pair can be the maximum)."""
    n = prior.n
    ks = np.arange(n + 1)
    lm = prior.log_mass(np.stack([n - ks, ks], axis=1))  # in logs: −∞ only for a mass that is exactly 0
    if not np.all(np.isfinite(lm)):
        k0 = int(np.flatnonzero(~np.isfinite(lm))[0])
        raise InvalidInputError(
            f"e^ε_X is infinite for this prior: a database with {k0} ones has mass 0 (ε_X is finite only for "
            "priors with full support)"
        )
    diff = np.abs(np.diff(lm))
    top = float(diff.max(initial=0.0))
    comps = [
        (Fraction(float(w)), Fraction(float(r[0])), Fraction(float(r[1])))
        for w, r in zip(prior.weights, prior.row_pmfs)
        if w > 0
    ]

    def mass(k: int) -> Fraction:
        return sum((w * p0 ** (n - k) * p1**k for w, p0, p1 in comps), Fraction(0))

    best = Fraction(1)
    for k in np.flatnonzero(diff >= top - 1e-9):
        a, b = mass(int(k)), mass(int(k) + 1)
        best = max(best, a / b, b / a)
    return best


def symmetric_constants(prior) -> dict:  # noqa: ANN001 - SymmetricPrior (import cycle avoided)
    """ε_X and ε̃_X of a row-permutation-invariant prior without building its mⁿ pmf.

    Uniform and i.i.d. priors use the closed forms :func:`eps_X_iid` and :func:`eps_tilde_iid` (any n; both
    exactly 0 for the uniform prior).  For exchangeable mixtures ε_X is taken over the moves between x-types
    (:func:`eps_X_symmetric`; C(n+m−1, m−1) types, refused with
    :class:`~problems.errors.ProblemTooLargeError` when they would not fit the memory budget); ε̃_X comes from
    the dense pmf with N ≤ 4096, and is ``None`` (with a note) beyond.
    """
    from .database import DENSE_LIMIT

    out: dict = {}
    if prior.kind == "uniform":
        return {"eps_X": 0.0, "eps_tilde": 0.0}
    if prior.kind == "iid":
        return {"eps_X": eps_X_iid(prior.row_pmfs[0]), "eps_tilde": eps_tilde_iid(prior.row_pmfs[0])}
    from .resources import BASE_MEMORY, as_bytes, format_count, require_memory

    types = math.comb(prior.n + prior.m - 1, prior.m - 1)
    J = len(prior.row_pmfs)  # the log-masses hold a (types, J, m) array
    require_memory(
        BASE_MEMORY + as_bytes(types, prior.m, BYTES_PER_TYPE_ENTRY + 24 * J),
        f"ε_X of the exchangeable prior {prior.name!r} over {format_count(types)} x-types "
        f"(n = {prior.n}, m = {prior.m}, {J} i.i.d. components)",
        "Use a smaller n or m, or a uniform or iid prior (closed forms at any n).",
    )
    out["eps_X"] = eps_X_symmetric(prior)
    if prior.m**prior.n <= DENSE_LIMIT:
        out["eps_tilde"] = eps_tilde(prior.to_prior())
    else:
        out["eps_tilde"] = None
        out["note"] = (
            f"ε̃_X of an exchangeable mixture is computed on the dense pmf (N ≤ {DENSE_LIMIT}); "
            f"here N = {prior.m}^{prior.n}"
        )
    return out
