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

**Lower bound: a safe dual bound** (:func:`~problems.lp.dual_bound.lower_bound`, after Neumaier & Shcherbina,
Math. Prog. 99, 2004): any multipliers give a bound that rounding cannot falsify; see :mod:`problems.lp.dual_bound`.

:func:`certify` combines both; the status of the answer is decided by the one rule of the toolkit,
:func:`problems.lp.status.decide_status` (relative :data:`RELATIVE_GAP` or absolute :data:`ABSOLUTE_GAP`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .dual_bound import lower_bound
from .exact_feasibility import _gamma, _group_sums, _rk_all, upper_bound, verify
from .face import face_points
from .ratio_rows import collect, row_slices, rows_at, rows_by
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
#: share of an entry's room (the smallest relative slack of its ratio rows) that :func:`_rebalance` may use
REBALANCE_SHARE = 0.45
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
    raw = z  # before the renormalisation (the rebalanced closure moves the sums itself)
    z = z * (spec.b / sums)[spec.group]
    rho, rel = _rk_all(spec, eps)
    eta = 4.0 * (rel + float(_gamma(int(counts.max())))) + 1e-14
    rho *= 1 - eta  # ρ_p = fl(e^ε κ_p)(1 − η), in place
    best: tuple[np.ndarray | None, float] = (None, math.nan)
    best_up = math.inf
    # four local repairs, each then mixed with the reference: lower the large sides of the broken rows of the
    # point as given and move its sums to b_g through the entries with room (the rebalanced closure: an interior
    # point's rows hold with a margin smaller than its sums' error, which renormalising each group by its own
    # factor breaks), raise the small sides of the broken rows, lower their large sides (the closure), or raise
    # from a floor (a simplex vertex has exact zeros next to positive entries, and raising them cascades along
    # the rows, e^{−ε} smaller at each step, until it underflows and leaves a row that no raise can fix; from
    # REPAIR_FLOOR on the cascade stops where it falls below the floor);
    # the one that verifies with the lower upper bound is kept; a repair that needs no mixing and costs no more
    # than REPAIR_LOSS of the point's own value ends the search (raising the small sides of rows broken on
    # entries of 1e-28 can cascade into the body of the mechanism: m = 2, n = 100, contagious (0.9) PD-DP at
    # ε = 0.5, +1.9e-6 relative, where the closure costs nothing)
    base = float(spec.c @ z)
    floor = REPAIR_FLOOR * spec.b[spec.group]
    candidates = [
        lambda: _closure(spec, raw, rho, rebalance=True),
        lambda: _raise_small_sides(spec, z, rho),
        lambda: _closure(spec, z, rho),
    ]
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

    def broken(rows: slice) -> tuple[np.ndarray, np.ndarray]:
        part = z[spec.src[rows]] - rho[rows] * z[spec.dst[rows]]
        at = np.flatnonzero(part > 0)
        return at + rows.start, part[at]

    # the broken rows and their violations only, found in slices (peak memory: no vector over all rows)
    viol, v = collect(spec.P, broken)  # type: ignore[arg-type]
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


def _rebalance(spec: RatioLPSpec, v: np.ndarray, rho: np.ndarray) -> float | None:
    r"""Move every group's sum to b_g, in place, by changing only the entries whose ratio rows have room.

    Entry j's room :math:`r_j` is the smallest relative slack :math:`1 - v_{s_p}/(\rho_p v_{d_p})` of the rows
    that its move can break: those it is the large side :math:`s_p` of when its group gains, the small side
    :math:`d_p` of when it loses.  It may move by a relative :math:`\theta_j \le` :data:`REBALANCE_SHARE` ·
    min(r_j, 1), so a row whose two sides both move against it still holds (:math:`(1 - r)(1 + 0.45r) \le 1 -
    0.45r`).  Each group g moves its entries by the same fraction :math:`f_g \in [-1, 1]` of their room,
    :math:`f_g = (b_g - s_g)/\sum_j v_j\theta_j`.  Renormalising each group by its own factor instead moves the two sides of a row between groups
    by different factors: the block method's last iterate at m = 2, n = 200 (contagious (0.9; 0.3, 0.7) PD-DP,
    ε = 2), whose rows hold with a relative margin of 1.2e-10 and whose sums miss b_g by 1.3e-9, repaired to
    12.7× its value that way; rebalanced, every row holds and its cost rises by 3e-10.  A group whose entries
    have too little room is renormalised for the rest (:func:`_renormalise`, whose spread is returned; 0.0 when no
    group needed it; None if a group has no mass).
    """
    sums = np.bincount(spec.group, weights=v, minlength=spec.G)
    if not np.all(sums > 0):
        return None
    need = spec.b - sums
    # a group that gains raises its entries, which only the rows they are the large side of can break (and
    # lowers them in the rows they are the small side of); a group that loses, the reverse
    up = (need > 0)[spec.group]
    room = np.full(spec.K, np.inf)
    for rows in row_slices(spec.P):  # (temporaries over one slice of the rows)
        src, dst = spec.src[rows], spec.dst[rows]
        zs = v[src]
        with np.errstate(divide="ignore", invalid="ignore"):
            slack = np.where(zs > 0, 1.0 - zs / (rho[rows] * v[dst]), np.inf)
        at_src = up[src]
        np.minimum.at(room, src[at_src], slack[at_src])
        at_dst = ~up[dst]
        np.minimum.at(room, dst[at_dst], slack[at_dst])
    theta = np.clip(room, 0.0, 1.0)
    theta *= REBALANCE_SHARE
    cap = np.bincount(spec.group, weights=v * theta, minlength=spec.G)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(cap > 0, np.clip(need / cap, -1.0, 1.0), 0.0)
    theta *= f[spec.group]
    theta += 1.0
    v *= theta
    if np.all(np.abs(need) <= cap):
        return 0.0
    return _renormalise(spec, v)


def _closure(
    spec: RatioLPSpec, z: np.ndarray, rho: np.ndarray, sweeps: int = 200, rebalance: bool = False
) -> np.ndarray:
    """The largest v ≤ z with v[s_p] ≤ ρ_p v[d_p] on every row (lower the large sides, propagated), renormalised.

    A solver's point breaks ratio rows where its entries are below its absolute accuracy (m = 2, n = 100, PD-I:
    entries of 1e-22 broken 45× relative); lowering them removes mass of that order only (measured: 6e-16 of a
    group), where raising the small sides can propagate along rows with ρ_p < 1 and grow a group's mass 1000×.
    The rows hold with a relative margin of 1e-12, which the renormalisation keeps; :func:`verify` decides.
    ``rebalance``: the sums are moved to b_g by :func:`_rebalance` (through the entries with room), which breaks
    no row, rather than by renormalising each group.
    """
    v = z.copy()
    # the rows' cap ρ_p(1 − 1e-12), formed per use (peak memory: not a vector over the rows)
    margin = 1 - 1e-12
    # the renormalisation raises each group by its own factor (the mass it lost) and can break the rows between
    # groups again; a further round lowers those, and the spread of the factors falls about 3× per round
    # (m = 2, n = 100, contagious (0.9) PD-DP at ε = 0.5: 2e-11, 6e-12, 2e-12, 5e-13, then every row holds).
    # A spread above CLOSURE_SPREAD that falls less than 2× per round is not rounding but a point off by more
    # (1e-8 on rows tight throughout the mechanism, where the lowering runs along all of them: 1.7e-7, 5e-8,
    # 2.7e-8, …): the rounds stop and the mixture decides.
    # After a round's first sweep only the rows whose small side was lowered can break: a sweep checks those
    # (the rows a full pass would find; the full passes took 5.6 of 64 s at m = 2, n = 100, contagious prior).
    order, start = rows_by(spec, "dst")
    marked = np.zeros(z.size, dtype=bool)
    spread_before = math.inf
    for _round in range(CLOSURE_ROUNDS):
        rows: np.ndarray | None = None  # every row (in slices), then the rows that can break again
        for _ in range(sweeps):
            lowered, caps = _broken_large_sides(spec, v, rho, margin, rows)
            if lowered.size == 0:
                break
            np.minimum.at(v, lowered, caps)
            rows = rows_at(order, start, marked, lowered)
        spread = _rebalance(spec, v, rho) if rebalance else _renormalise(spec, v)
        if spread is None:
            return z
        if not spread > 1e-14 or _broken_large_sides(spec, v, rho, 1.0, None)[0].size == 0:
            break
        if spread > CLOSURE_SPREAD and spread > 0.5 * spread_before:
            break
        spread_before = spread
    return v


def _broken_large_sides(
    spec: RatioLPSpec, v: np.ndarray, rho: np.ndarray, margin: float, rows: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The large sides s_p of the rows p (``None``: every row, in slices) with v[s_p] > ρ_p·margin·v[d_p], and
    those caps, all formed from this v."""

    def pick(part: slice | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        src = spec.src[part]
        cap = rho[part] * margin * v[spec.dst[part]]
        bad = v[src] > cap
        return src[bad], cap[bad]

    lowered, caps = collect(spec.P, pick, rows)
    return lowered, caps


def _broken_small_sides(
    spec: RatioLPSpec, z: np.ndarray, rho: np.ndarray, rows: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """The small sides d_p of the rows p (``None``: every row, in slices) with z[s_p]/ρ_p > z[d_p](1 + 1e-15), and
    z[s_p]/ρ_p (1 + 1e-15), all formed from this z."""

    def pick(part: slice | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dst = spec.dst[part]
        need = z[spec.src[part]] / rho[part]
        bad = need > z[dst] * (1 + 1e-15)
        return dst[bad], need[bad] * (1 + 1e-15)

    raised, needs = collect(spec.P, pick, rows)
    return raised, needs


#: rounds of raising and renormalising in :func:`_raise_small_sides`
RAISE_ROUNDS = 4
#: the third local repair of :func:`repair` raises every entry to at least this fraction of its row's mass first
#: (a normal double: the raises it starts stay in the normal range).  Measured on HiGHS's vertex in columns floored
#: by the prior mass (contagious (0.9; 0.5, 0.5) PD-DP, n = 100, ε = 10; 175 522 of 176 851 entries zero): the
#: other two repairs fall back to E_d (10 times the optimum), this one keeps the vertex (5e-9 above the bound).
REPAIR_FLOOR = 1e-300


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
    order, start = rows_by(spec, "src")
    marked = np.zeros(z.size, dtype=bool)
    # the renormalisation scales each group by its own factor and can break the rows between groups again (by a
    # relative 4e-11 at m = 2, n = 50, ε = 10, contagious prior); raising again adds far less mass, so a few
    # rounds bring the spread of the factors below the rounding that verify allows for
    for _round in range(RAISE_ROUNDS):
        rows: np.ndarray | None = None  # every row (in slices), then the rows that can break again
        for _ in range(sweeps):
            raised, needs = _broken_small_sides(spec, z, rho, rows)
            if raised.size == 0:
                break
            np.maximum.at(z, raised, needs)
            rows = rows_at(order, start, marked, raised)  # the rows whose large side was raised
        spread = _renormalise(spec, z)
        if spread is None or not spread > 1e-14:
            break
    return z


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
        zt = None if zt is None else np.asarray(zt, dtype=float)  # a 0/1 constant may be stored as booleans
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
