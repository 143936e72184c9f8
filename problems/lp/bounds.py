r"""Bounds on the optimum of a :class:`~problems.lp.spec.RatioLPSpec` that floating-point rounding cannot falsify.

**Upper bound: an exactly feasible point** (:func:`repair`, :func:`verify`, :func:`upper_bound`).
A solver's z violates the ratio rows by round-off.  The reference point z⁰ (E_d at a level below ε, strictly
feasible) has slack :math:`w_p = \rho_p z^0_{d_p} - z^0_{s_p} > 0` in every row; the mixture
:math:`(1-t)z + t z^0` satisfies row p as soon as :math:`t \ge v_p/(v_p + w_p)`, :math:`v_p` the violation.
The mixture is then normalised and *verified*: with the row sums :math:`s_k` bracketed by their summation
error, the exact normalisation :math:`z'' = z\,b_{g}/s_{g}` satisfies
:math:`z''_{s_p} \le e^\epsilon\kappa_p z''_{d_p}` when the float test below passes with margins for every
rounding (the product :math:`e^\epsilon\kappa_p`, the sums, the stored ln κ up to
:data:`~problems.lp.spec.LOG_KAPPA_ERROR`).  The objective of z'' is bounded above with the summation error.

**Lower bound: a safe dual bound** (:func:`lower_bound`, after Neumaier & Shcherbina, Math. Prog. 99, 2004).
For any λ ≥ 0 and any ν, every feasible z has
:math:`c^\top z \ge -b^\top\nu + \sum_j \min(0, d_j)\, u_j` with
:math:`d = c + G^\top\lambda + A^\top\nu` and any :math:`u_j \ge z_j`.  On the optimal face
:math:`c^\top z \le U` (U any upper bound), so with :math:`c \ge 0` one may take
:math:`u_j = \min(b_{g(j)}, U/c_j)`: entries that cost something are small at the optimum.  That keeps the
bound accurate to the relative precision of the *value* even when the value is 1e-20.  d is evaluated in
floating point and decreased by a bound on its rounding error (γ_k Σ|terms|); the final sums likewise.
No accuracy of the multipliers is assumed: poor multipliers give a weak bound, never a wrong one.

:func:`certify` combines both; the status of the answer is decided by the one rule of the toolkit,
:func:`problems.lp.status.decide_status` (relative :data:`RELATIVE_GAP` or absolute :data:`ABSOLUTE_GAP`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..indexing import index_dtype
from .exact_feasibility import _U, _gamma, _group_sums, _rk, upper_bound, verify
from .face import face_points
from .spec import RatioLPSpec
from .status import ABSOLUTE_GAP, RELATIVE_GAP, bounds_agree, decide_status, refined

__all__ = [
    "RELATIVE_GAP",
    "ABSOLUTE_GAP",
    "Bounds",
    "LPCertificate",
    "repair",
    "tight_reference",
    "verify",
    "upper_bound",
    "lower_bound",
    "certify",
    "certified",
]


@dataclass(frozen=True)
class Bounds:
    """``lower ≤ optimum ≤ upper``, valid despite rounding (``inf`` where nothing could be proved)."""

    lower: float
    upper: float

    @property
    def gap(self) -> float:
        return self.upper - self.lower

    def contains(self, value: float) -> bool:
        return self.lower <= value <= self.upper

    def to_dict(self) -> dict:
        return {
            "lower": _finite(self.lower),
            "upper": _finite(self.upper),
        }


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def certified(lower: float, upper: float, rtol: float = RELATIVE_GAP) -> bool:
    """True when the finite bounds agree by the status rule (:func:`problems.lp.status.bounds_agree`:
    ``rtol`` relative or :data:`ABSOLUTE_GAP` absolute)."""
    return bounds_agree(lower, upper, rtol=rtol)


#: rounds of lowering and renormalising in :func:`_closure`, and the spread of the groups' factors above which
#: the rounds stop unless it halves each round
CLOSURE_ROUNDS = 12
CLOSURE_SPREAD = 1e-9
#: :func:`repair` stops at the first local repair that needs no mixing and costs at most this much more than the
#: point itself (relative); otherwise it tries every one and keeps the lowest upper bound
REPAIR_LOSS = 1e-9


def repair(spec: RatioLPSpec, z: np.ndarray | None, eps: float) -> tuple[np.ndarray | None, float]:
    """An exactly feasible point near ``z`` (mixed with the reference point), and the mixing weight t.

    Returns ``(None, nan)`` when neither a mixture nor the reference point passes :func:`verify` (for
    example at ε = ε_X, where the feasible set has no interior).
    """
    z0 = spec.reference(eps)
    if z is None or np.asarray(z).shape != (spec.K,):
        z = z0.copy()
    z = np.clip(np.nan_to_num(np.asarray(z, dtype=float), nan=0.0, posinf=0.0, neginf=0.0), 0.0, None)
    sums, counts = _group_sums(spec, z)
    empty = ~(sums > 0)
    if empty.any():
        take = empty[spec.group]
        z[take] = z0[take]
        sums, counts = _group_sums(spec, z)
    z = z * (spec.b / sums)[spec.group]
    rk, rel = _rk(spec, eps)
    eta = 4.0 * (float(rel.max(initial=0.0)) + float(_gamma(int(counts.max())))) + 1e-14
    rho = rk * (1 - eta)
    del rk, rel
    best: tuple[np.ndarray | None, float] = (None, math.nan)
    best_up = math.inf
    # three local repairs, each then mixed with the reference: raise the small sides of the broken rows, lower
    # their large sides (the closure), or raise from a floor (a simplex vertex has exact zeros next to positive
    # entries, and raising them cascades along the rows, e^{−ε} smaller at each step, until it underflows and
    # leaves a row that no raise can fix; from REPAIR_FLOOR on the cascade stops where it falls below the floor);
    # the one that verifies with the lower upper bound is kept; a repair that needs no mixing and costs no more
    # than REPAIR_LOSS of the point's own value ends the search (raising the small sides of rows broken on
    # entries of 1e-28 can cascade into the body of the mechanism: m = 2, n = 100, contagious (0.9) PD-DP at
    # ε = 0.5, +1.9e-6 relative, where the closure costs nothing)
    base = float(spec.c @ z)
    floor = REPAIR_FLOOR * spec.b[spec.group]
    candidates = [lambda: _raise_small_sides(spec, z, rho), lambda: _closure(spec, z, rho)]
    # (the raise from the floor is the first raise again unless an entry lies below it: an interior point's iterate)
    if np.any(z < floor):
        candidates.append(lambda: _raise_small_sides(spec, np.maximum(z, floor), rho))
    for local in candidates:
        zr, t = _mix(spec, local(), z0, rho, eps)
        if zr is None:
            continue
        up = upper_bound(spec, zr)
        if t == 0.0 and up <= base + REPAIR_LOSS * abs(base):
            return zr, t
        if up < best_up:
            best, best_up = (zr, t), up
    return best


def _mix(
    spec: RatioLPSpec, z: np.ndarray, z0: np.ndarray, rho: np.ndarray, eps: float
) -> tuple[np.ndarray | None, float]:
    """The smallest mixture (1 − t)z + t z0 (doubling t from the linear estimate) that :func:`verify` accepts."""
    v = z[spec.src] - rho * z[spec.dst]
    viol = np.flatnonzero(v > 0)
    v = v[viol]  # the broken rows' violations only (peak memory: no vector of all rows kept through verify)
    t = 0.0
    # the float test keeps a wider margin than verify's rigorous one: rows it flags by a relative 1e-13 (the
    # renormalisation of a local repair) may already hold exactly, and a mixture would pay for them where the
    # reference is orders of magnitude smaller than z (m = 2, n = 60, ε = 10, contagious prior: all the way to it)
    if viol.size and not verify(spec, z, eps):
        w = rho[viol] * z0[spec.dst[viol]] - z0[spec.src[viol]]  # the reference's slack in those rows
        if np.all(w > 0):
            t = float(np.max(v / (v + w)))
            t = min(1.0, t * (1 + 1e-9) + 1e-300)
        else:
            t = 1.0
    del v, viol
    for _ in range(60):
        zt = z if t == 0.0 else (1.0 - t) * z + t * z0
        s, _ = _group_sums(spec, zt)
        zt = zt * (spec.b / s)[spec.group]
        if verify(spec, zt, eps):
            return zt, t
        if t >= 1.0:
            break
        t = min(1.0, max(2.0 * t, 1e-16))
    return None, math.nan


def tight_reference(spec: RatioLPSpec, eps: float) -> np.ndarray | None:
    """E_d at the level ε − ε_min − η (η = 1e-9 relative), normalised: feasible with a slack of e^η per row.

    E_d at level ε − ε_min is feasible at ε (ε-DP; for PD-I, (ε − ε_X)-DP implies ε-identifiability), and its
    cost for the Hamming programs is h(ε − ε_min) — Theorem 1's upper bound of Wang, Ying & Zhang (2016).  The slack η covers
    the rounding that :func:`verify` accounts for; the point is used only if :func:`verify` passes.
    """
    level = eps - spec.eps_min
    level -= 1e-9 * max(1.0, level)
    if not level > 0 or not math.isfinite(level):
        return None
    z0 = np.exp(np.maximum(spec.log_profile(level), -700.0))
    sums = np.bincount(spec.group, weights=z0, minlength=spec.G)
    if not np.all(sums > 0):
        return None
    return z0 * (spec.b / sums)[spec.group]


def _renormalise(spec: RatioLPSpec, v: np.ndarray) -> float | None:
    """Scale every group of ``v`` to its mass b_g, in place; the spread max/min − 1 of the groups' factors (None,
    and ``v`` unchanged, if a group has no mass).  Each group moves by its own factor, so the rows between groups
    can break again by up to that spread: the local repairs below repeat until it is below rounding."""
    sums = np.bincount(spec.group, weights=v, minlength=spec.G)
    if not np.all(sums > 0):
        return None
    factor = spec.b / sums
    v *= factor[spec.group]
    return float(np.max(factor) / np.min(factor)) - 1.0


def _closure(spec: RatioLPSpec, z: np.ndarray, rho: np.ndarray, sweeps: int = 200) -> np.ndarray:
    """The largest v ≤ z with v[s_p] ≤ ρ_p v[d_p] on every row (lower the large sides, propagated), renormalised.

    A solver's point breaks ratio rows where its entries are below its absolute accuracy (m = 2, n = 100, PD-I:
    entries of 1e-22 broken 45× relative); lowering them removes mass of that order only (measured: 6e-16 of a
    group), where raising the small sides can propagate along rows with ρ_p < 1 and grow a group's mass 1000×.
    The rows hold with a relative margin of 1e-12, which the renormalisation keeps; :func:`verify` decides.
    """
    v = z.copy()
    cap_factor = rho * (1 - 1e-12)
    # the renormalisation raises each group by its own factor (the mass it lost) and can break the rows between
    # groups again; a further round lowers those, and the spread of the factors falls about 3× per round
    # (m = 2, n = 100, contagious (0.9) PD-DP at ε = 0.5: 2e-11, 6e-12, 2e-12, 5e-13, then every row holds).
    # A spread above CLOSURE_SPREAD that falls less than 2× per round is not rounding but a point off by more
    # (1e-8 on rows tight throughout the mechanism, where the lowering runs along all of them: 1.7e-7, 5e-8,
    # 2.7e-8, …): the rounds stop and the mixture decides.
    # After a round's first sweep only the rows whose small side was lowered can break: a sweep checks those
    # (the rows a full pass would find; the full passes took 5.6 of 64 s at m = 2, n = 100, contagious prior).
    order, start = _rows_by(spec, "dst")
    marked = np.zeros(z.size, dtype=bool)
    spread_before = math.inf
    for _round in range(CLOSURE_ROUNDS):
        rows: slice | np.ndarray = slice(None)
        for _ in range(sweeps):
            src = spec.src[rows]
            cap = cap_factor[rows] * v[spec.dst[rows]]
            bad = v[src] > cap
            if not bad.any():
                break
            lowered = src[bad]
            np.minimum.at(v, lowered, cap[bad])
            rows = _rows_at(order, start, marked, lowered)
        spread = _renormalise(spec, v)
        if spread is None:
            return z
        if not spread > 1e-14 or not np.any(v[spec.src] > rho * v[spec.dst]):
            break
        if spread > CLOSURE_SPREAD and spread > 0.5 * spread_before:
            break
        spread_before = spread
    return v


#: rounds of raising and renormalising in :func:`_raise_small_sides`
RAISE_ROUNDS = 4
#: the third local repair of :func:`repair` raises every entry to at least this fraction of its row's mass first
#: (a normal double: the raises it starts stay in the normal range).  Measured on HiGHS's vertex in columns floored
#: by the prior mass (contagious (0.9; 0.5, 0.5) PD-DP, n = 100, ε = 10; 175 522 of 176 851 entries zero): the
#: other two repairs fall back to E_d (10 times the optimum), this one keeps the vertex (5e-9 above the bound).
REPAIR_FLOOR = 1e-300


def _rows_of(order: np.ndarray, start: np.ndarray, entries: np.ndarray) -> np.ndarray:
    """The rows listed in CSR form (``order`` sorted by one side, ``start`` its pointers) for ``entries``."""
    lo, hi = start[entries], start[entries + 1]
    counts = hi - lo
    return order[np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))]


def _rows_at(order: np.ndarray, start: np.ndarray, marked: np.ndarray, changed: np.ndarray) -> np.ndarray:
    """The rows at the entries ``changed`` (each entry once), by :func:`_rows_of`; ``marked`` is an all-False scratch
    mask, left so (marking, not sorting: np.unique spent 74 of 525 s at m = 2, n = 200 in a repair's cascades)."""
    marked[changed] = True
    entries = np.flatnonzero(marked)
    marked[entries] = False
    return _rows_of(order, start, entries)


def _rows_by(spec: RatioLPSpec, side: str) -> tuple[np.ndarray, np.ndarray]:
    """The ratio rows sorted by one side (``"src"``, the large side, or ``"dst"``, the small side), stably, and
    the start of each variable's run (CSR pointers).  Not cached: a reduced LP's sides are a few sorted runs
    (m = 2, n = 200: 20 ms per side), and a cache on the spec held 51 MiB through the block method's iterations."""
    ends = getattr(spec, side)
    index = index_dtype(spec.K, spec.P)
    order = np.argsort(ends, kind="stable").astype(index)
    start = np.zeros(spec.K + 1, dtype=index)
    np.cumsum(np.bincount(ends, minlength=spec.K), out=start[1:])
    return order, start


def _raise_small_sides(spec: RatioLPSpec, z: np.ndarray, rho: np.ndarray, sweeps: int = 60) -> np.ndarray:
    """Local repair before mixing: raise z[d_p] to z[s_p]/ρ_p on violated rows (propagated), renormalise.

    A solver's violations are absolute (~1e-10) while the entries span many orders of magnitude; raising the
    small side fixes a violation at a cost proportional to it, where a global mixture would pay for the
    worst relative violation everywhere.  Whatever remains is left to the mixture.

    Each sweep raises the small sides of the rows that break; a row that held, or was just repaired, can break
    again only if its large side was raised, so after a full pass a sweep checks the rows leaving the entries the
    previous sweep raised (the same rows as a full pass would find: the cascade along the rows of a simplex vertex
    takes some 75 sweeps at m = 2, n = 100, a few thousand rows each).
    """
    z = z.copy()
    order, start = _rows_by(spec, "src")
    marked = np.zeros(z.size, dtype=bool)
    # the renormalisation scales each group by its own factor and can break the rows between groups again (by a
    # relative 4e-11 at m = 2, n = 50, ε = 10, contagious prior); raising again adds far less mass, so a few
    # rounds bring the spread of the factors below the rounding that verify allows for
    for _round in range(RAISE_ROUNDS):
        rows: slice | np.ndarray = slice(None)  # every row, then the rows that can break again
        for _ in range(sweeps):
            dst = spec.dst[rows]
            need = z[spec.src[rows]] / rho[rows]
            bad = need > z[dst] * (1 + 1e-15)
            if not bad.any():
                break
            raised = dst[bad]
            np.maximum.at(z, raised, need[bad] * (1 + 1e-15))
            rows = _rows_at(order, start, marked, raised)  # the rows whose large side was raised
        spread = _renormalise(spec, z)
        if spread is None or not spread > 1e-14:
            break
    return z


def lower_bound(
    spec: RatioLPSpec, eps: float, nu: np.ndarray | None, lam: np.ndarray | None, upper: float = math.inf
) -> tuple[float, np.ndarray]:
    """A rigorous lower bound on the optimum from any multipliers (ν free, λ clipped to ≥ 0).

    Returns ``(lower, d)`` with ``d = c + Gᵀλ⁺ + Aᵀν`` (the reduced costs, i.e. the multipliers of z ≥ 0).
    """
    if nu is None or lam is None or np.shape(nu) != (spec.G,) or np.shape(lam) != (spec.P,):
        return 0.0, spec.c.copy()
    # (peak memory at m = 2, n = 200: every vector over the ratio rows is 41 MiB; one copy of λ, rel's maximum only)
    lam = np.nan_to_num(np.array(lam, dtype=float), copy=False, nan=0.0, posinf=0.0, neginf=0.0)
    np.clip(lam, 0.0, None, out=lam)
    nu = np.nan_to_num(np.asarray(nu, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    rk, rel_vector = _rk(spec, eps)
    rel = float(rel_vector.max(initial=0.0))
    del rel_vector
    ub = spec.upper.copy()
    if math.isfinite(upper) and upper >= 0:
        pos = spec.c > 0
        ub[pos] = np.minimum(ub[pos], upper / spec.c[pos] * (1 + 8 * _U))
    best: tuple[float, np.ndarray] | None = None
    # each try is this function's own array (λ's copy above, or _capped's): the sweeps work on it in place
    for lam_try in _capped(spec, rk, lam):
        lam_try = _push_deficits(spec, rk, nu, lam_try, copy=False)
        lam_try = _pull_deficits(spec, rk, nu, lam_try, ub, copy=False)
        found = _evaluate(spec, rk, rel, nu, lam_try, ub)
        if best is None or found[0] > best[0]:
            best = found
        nu_opt = _best_nu(spec, _reduced_costs(spec, rk, np.zeros(spec.G), lam_try), ub)
        if nu_opt is not None:
            alt = _evaluate(spec, rk, rel, nu_opt, lam_try, ub)
            if alt[0] > best[0]:
                best = alt
    assert best is not None  # _capped yields the multipliers themselves first
    return best


#: Multipliers whose weight e^ε κ_p λ_p exceeds these multiples of max c are also tried set to 0 (see
#: :func:`_capped`).
LAMBDA_CAPS = (1.0,)


def _capped(spec: RatioLPSpec, rk: np.ndarray, lam: np.ndarray) -> list[np.ndarray]:
    """λ itself and λ with its absurdly large entries set to 0 (still λ ≥ 0, so every bound stays valid).

    A back end that solved a scaled LP maps its multipliers back through the column scales; on rows between
    entries that are zero at the optimum (scales floored, e^{ε+ε_X} ≈ 1e28 in the coefficient) they can come
    back as 1e130, and the rounding term of such a row (relative 1e-12 of e^ε κ_p λ_p) swamps every bound.
    A row that moves more than the largest cost between two variables cannot help the bound at a point of
    cost ≤ max c, so dropping it loses nothing there.
    """
    out = [lam]
    top = float(spec.c.max(initial=0.0))
    if top > 0:
        with np.errstate(over="ignore", invalid="ignore"):
            w = rk * lam
        for cap in LAMBDA_CAPS:
            big = ~(w <= cap * top)
            if big.any():
                out.append(np.where(big, 0.0, lam))
    return out


def _best_nu(spec: RatioLPSpec, r: np.ndarray, ub: np.ndarray) -> np.ndarray | None:
    """The ν maximising the bound for fixed λ: per group, −b_g ν_g + Σ_j u_j min(0, r_j + ν_g) is concave and
    piecewise linear; its maximum is at ν_g = −r_(k), k the first index (r ascending) with Σ_{i≤k} u_(i) ≥ b_g.
    Floating point is fine here: the bound is then evaluated rigorously for whatever ν this returns."""
    if not (np.all(np.isfinite(r)) and np.all(np.isfinite(ub))):
        return None
    order = np.lexsort((r, spec.group))
    g = spec.group[order]
    cum = np.cumsum(ub[order])
    first = np.searchsorted(g, np.arange(spec.G))  # start of each group in the sorted order
    base = np.where(first > 0, cum[np.maximum(first - 1, 0)], 0.0)
    within = cum - base[g]
    reached = within >= spec.b[g]
    # first index per group where the cumulative bound reaches b_g (the group's last index if never)
    idx = np.full(spec.G, -1)
    hit = np.flatnonzero(reached)
    if hit.size:
        gh = g[hit]
        firsthit = np.full(spec.G, np.iinfo(np.int64).max)
        np.minimum.at(firsthit, gh, hit)
        ok = firsthit < np.iinfo(np.int64).max
        idx[ok] = firsthit[ok]
    last = np.append(first[1:], g.size) - 1
    idx = np.where(idx < 0, last, idx)
    return -r[order][idx]


def _evaluate(
    spec: RatioLPSpec, rk: np.ndarray, rel: float, nu: np.ndarray, lam: np.ndarray, ub: np.ndarray
) -> tuple[float, np.ndarray]:
    """The rigorous value of the bound for multipliers (ν, λ ≥ 0) and variable bounds ``ub`` (see above);
    ``rel`` bounds the relative error of every e^ε κ_p (:func:`_rk`'s largest)."""
    K = spec.K
    rkl = rk * lam
    if not np.all(np.isfinite(rkl)):
        return 0.0, spec.c.copy()
    plus = np.bincount(spec.src, weights=lam, minlength=K)
    minus = np.bincount(spec.dst, weights=rkl, minlength=K)
    nug = nu[spec.group]
    d = spec.c + plus - minus + nug
    terms = spec.cache.get("terms_per_column")
    if terms is None:
        terms = spec.cache["terms_per_column"] = (
            np.bincount(spec.src, minlength=K) + np.bincount(spec.dst, minlength=K) + 3
        ).astype(np.int32)
    absd = spec.c + plus + minus + np.abs(nug)
    err = (_gamma(terms) * absd + rel * 1.01 * minus) * (1 + 1e-6)
    dlow = np.minimum(d - err, 0.0)
    S = float(np.sum(dlow * ub)) * (1 + float(_gamma(K + 4)))
    bnu = float(spec.b @ nu)
    err_bnu = float(_gamma(spec.G + 4)) * float(np.abs(spec.b) @ np.abs(nu))
    L = -bnu - err_bnu + S
    L -= 8 * _U * (abs(bnu) + err_bnu + abs(S))
    if not math.isfinite(L):
        L = 0.0
    return max(L, 0.0), d


def _reduced_costs(spec: RatioLPSpec, rk: np.ndarray, nu: np.ndarray, lam: np.ndarray) -> np.ndarray:
    K = spec.K
    return (
        spec.c
        + np.bincount(spec.src, weights=lam, minlength=K)
        - np.bincount(spec.dst, weights=rk * lam, minlength=K)
        + nu[spec.group]
    )


def _refresh(
    spec: RatioLPSpec, rk: np.ndarray, nu: np.ndarray, lam: np.ndarray, d: np.ndarray, rows, by
) -> None:
    """Recompute in place the reduced costs d (:func:`_reduced_costs`) at the two sides of ``rows``, whose λ
    changed: the same sums in the same order as the full computation, so d stays bitwise what it would be.
    ``by``: a dict of the rows sorted by each side (:func:`_rows_by`), filled on first use."""
    at = np.unique(np.concatenate([spec.src[rows], spec.dst[rows]]))
    sums = []
    for side, weight in (("src", None), ("dst", rk)):
        order, start = by[side] = by[side] if side in by else _rows_by(spec, side)
        r = _rows_of(order, start, at)
        slot = np.repeat(np.arange(at.size), start[at + 1] - start[at])
        w = lam[r] if weight is None else weight[r] * lam[r]
        sums.append(np.bincount(slot, weights=w, minlength=at.size))
    d[at] = spec.c[at] + sums[0] - sums[1] + nu[spec.group[at]]


#: the deficit sweeps work on the rows at the deficits while these are at most this fraction of the variables
#: (a simplex method's multipliers: hundreds to thousands of K), else on every row (an interior point's: all of K)
FEW_DEFICITS = 1 / 16


def _push_deficits(
    spec: RatioLPSpec, rk: np.ndarray, nu: np.ndarray, lam: np.ndarray, sweeps: int = 8, copy: bool = True
) -> np.ndarray:
    """Multipliers with smaller dual infeasibility: a deficit d_j < 0 is moved up the rows that end at j.

    Lowering λ_p by δ/(e^ε κ_p) on a row p with d_p = j raises d_j by δ and lowers d at the row's source by
    δ/(e^ε κ_p).  At large ε the deficits of a solver's multipliers sit on the tiny entries (where a relative
    error of the multipliers is below every solver tolerance), and each push shrinks them by e^{−ε}; the
    result is still λ ≥ 0, so the bound stays valid for any outcome.  The deficits are few (hundreds to
    thousands of the K variables): each sweep works on the rows that end at one and recomputes the reduced costs
    where those rows changed (the same values as a full pass).
    """
    lam = lam.copy() if copy else lam  # copy=False: the caller hands its array over
    K = spec.K
    by = {"dst": _rows_by(spec, "dst")}
    order, start = by["dst"]
    d = _reduced_costs(spec, rk, nu, lam)
    for _ in range(sweeps):
        short = np.flatnonzero(d < 0)
        if short.size == 0:
            break
        if short.size > K * FEW_DEFICITS:  # many deficits (an interior point's multipliers): full passes
            avail = np.bincount(spec.dst, weights=rk * lam, minlength=K)
            with np.errstate(divide="ignore", invalid="ignore"):
                frac = np.where(avail > 0, np.minimum(1.0, np.maximum(-d, 0.0) / avail), 0.0)
            if not np.any(frac > 0):
                break
            keep = frac[spec.dst]
            np.subtract(1.0, keep, out=keep)
            lam *= keep
            del keep
            d = _reduced_costs(spec, rk, nu, lam)
            continue
        rows = _rows_of(order, start, short)
        at = spec.dst[rows]
        have = np.zeros(K)
        np.add.at(have, at, rk[rows] * lam[rows])
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(have[at] > 0, np.minimum(1.0, -d[at] / have[at]), 0.0)
        if not np.any(frac > 0):
            break
        lam[rows] = lam[rows] * (1.0 - frac)
        _refresh(spec, rk, nu, lam, d, rows, by)
    return lam


def _pull_deficits(
    spec: RatioLPSpec,
    rk: np.ndarray,
    nu: np.ndarray,
    lam: np.ndarray,
    ub: np.ndarray,
    sweeps: int = 8,
    copy: bool = True,
) -> np.ndarray:
    """Multipliers with smaller dual infeasibility: a deficit d_j < 0 is covered by raising λ on a row that
    starts at j, paid from the surplus d_k > 0 of its end k.

    Raising λ_p by δ (s_p = j, d_p = k) raises d_j by δ and lowers d_k by e^ε κ_p δ.  :func:`_push_deficits`
    cannot help where no row ends at j with λ > 0; a simplex method's multipliers leave such deficits at its
    dual tolerance (1e-8 after its own scaling), and on a variable that costs nothing (ub_j = 1) each costs
    its full size in the bound.  A deficit is only moved where it is cheaper: the surplus taken at k is at most
    what k's own term can spare.  The result is λ ≥ 0, so the bound stays valid for any outcome.  As in
    :func:`_push_deficits`, each sweep works on the rows that start at a deficit only.
    """
    lam = lam.copy() if copy else lam  # copy=False: the caller hands its array over
    K = spec.K
    by = {"src": _rows_by(spec, "src")}
    order, start = by["src"]
    d = _reduced_costs(spec, rk, nu, lam)
    for _ in range(sweeps):
        short = np.flatnonzero(d < 0)
        if short.size == 0:
            break
        if short.size > K * FEW_DEFICITS:  # many deficits: full passes over the rows
            need = np.maximum(-d, 0.0)
            room = np.maximum(d, 0.0)[spec.dst] / rk
            claim = (need[spec.src] > 0) & (room > 0)
            if not claim.any():
                break
            claimants = np.bincount(spec.dst[claim], minlength=K).astype(float)
            room = np.where(claim, room / np.maximum(claimants[spec.dst], 1.0), 0.0)
            total = np.bincount(spec.src, weights=room, minlength=K)
            with np.errstate(divide="ignore", invalid="ignore"):
                share = np.where(total[spec.src] > 0, np.minimum(1.0, need[spec.src] / total[spec.src]), 0.0)
            step = room * share * (1.0 - 1e-12)
            if not np.any(step > 0):
                break
            lam = lam + step
            d = _reduced_costs(spec, rk, nu, lam)
            continue
        rows = _rows_of(order, start, short)
        dst = spec.dst[rows]
        # each row p from a deficit j may take at most surplus(k)/(e^ε κ_p) from its end k, shared by the claimants
        room = np.maximum(d[dst], 0.0) / rk[rows]
        claim = room > 0
        if not claim.any():
            break
        rows, dst, room = rows[claim], dst[claim], room[claim]
        src = spec.src[rows]
        rivals = np.zeros(K)
        np.add.at(rivals, dst, 1.0)
        room = room / np.maximum(rivals[dst], 1.0)
        # a deficit spreads over its rows in proportion to their room
        spread = np.zeros(K)
        np.add.at(spread, src, room)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(spread[src] > 0, np.minimum(1.0, -d[src] / spread[src]), 0.0)
        step = room * share * (1.0 - 1e-12)
        if not np.any(step > 0):
            break
        lam[rows] = lam[rows] + step
        _refresh(spec, rk, nu, lam, d, rows, by)
    return lam


@dataclass(frozen=True)
class LPCertificate:
    """What the toolkit proved about one point of a ratio LP.

    ``z`` is the exactly feasible point (or ``None``), ``mix`` the weight of the reference point in it,
    ``bounds`` the rigorous enclosure, ``reduced_costs`` d = c + Gᵀλ⁺ + Aᵀν, ``rtol`` the relative tolerance.
    """

    z: np.ndarray | None
    mix: float
    bounds: Bounds
    reduced_costs: np.ndarray
    rtol: float = RELATIVE_GAP

    @property
    def certified(self) -> bool:
        """The status rule (:func:`~problems.lp.status.decide_status`) says ``optimal``."""
        return decide_status(
            self.bounds.lower, self.bounds.upper, feasible=self.z is not None, rtol=self.rtol
        ).certified

    @property
    def refined(self) -> bool:
        """No more work is needed (:func:`~problems.lp.status.refined`): an exactly feasible point and bounds
        within the relative tolerance."""
        return self.z is not None and refined(self.bounds.lower, self.bounds.upper, self.rtol)


def certify(
    spec: RatioLPSpec,
    eps: float,
    z: np.ndarray | None,
    nu: np.ndarray | None,
    lam: np.ndarray | None,
    *,
    known_lower: float = 0.0,
    rtol: float = RELATIVE_GAP,
    face: bool = True,
) -> LPCertificate:
    """Repair ``z`` to an exactly feasible point, bound the optimum from both sides, decide certification.

    ``known_lower`` is a lower bound proved elsewhere (a closed form of Wang, Ying & Zhang (2016)); the larger one is kept.
    With ``face`` (the default), when the repaired point does not yet prove the value to ``rtol``, the points
    rebuilt on the face that ``z`` makes tight (:mod:`problems.lp.face`) are repaired and verified too, and the
    lowest proved upper bound is kept (an interior-point iterate short of the optimum gains nothing from them,
    so the chain's early-stop test on iterates leaves them out).
    """
    zr, t = repair(spec, z, eps)
    up = upper_bound(spec, zr) if zr is not None else math.inf
    # two closed-form candidates, verified like any point: E_d just inside the level, and the best constant
    # mechanism (the optimum itself at small ε for many priors)
    for zt in (tight_reference(spec, eps), spec.constant):
        if zt is not None and verify(spec, zt, eps):
            up_t = upper_bound(spec, zt)
            if up_t < up:  # the solver's point was worse (e.g. a poor point, heavily mixed)
                zr, t, up = zt, 1.0, up_t
    lo, d = lower_bound(spec, eps, nu, lam, up)
    lo = max(lo, float(known_lower))
    if face and z is not None and not (zr is not None and refined(lo, up, rtol)):
        up_before = up
        for zf in face_points(spec, z, eps):
            zf, tf = repair(spec, zf, eps)
            if zf is None:
                continue
            up_f = upper_bound(spec, zf)
            if up_f < up:
                zr, t, up = zf, tf, up_f
                if refined(lo, up, rtol):
                    break
        if up < up_before:  # the lower bound caps the variables by the upper bound: a lower one may help
            lo_f, d_f = lower_bound(spec, eps, nu, lam, up)
            if lo_f > lo:
                lo, d = lo_f, d_f
    if lo > up:  # cannot happen for valid bounds; never report a contradiction as certified
        raise AssertionError(f"{spec.program}: lower bound {lo!r} above upper bound {up!r} at ε = {eps!r}")
    return LPCertificate(zr, t, Bounds(lo, up), d, rtol)
