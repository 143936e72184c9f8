r"""A safe lower bound on the optimum of a :class:`~problems.lp.spec.RatioLPSpec` from any multipliers.

The bound of Neumaier & Shcherbina (Math. Prog. 99, 2004), :func:`lower_bound`.
For any λ ≥ 0 and any ν, every feasible z has
:math:`c^\top z \ge -b^\top\nu + \sum_j \min(0, d_j)\, u_j` with
:math:`d = c + G^\top\lambda + A^\top\nu` and any :math:`u_j \ge z_j`.  On the optimal face
:math:`c^\top z \le U` (U any upper bound), so with :math:`c \ge 0` one may take
:math:`u_j = \min(b_{g(j)}, U/c_j)`: entries that cost something are small at the optimum.  That keeps the
bound accurate to the relative precision of the *value* even when the value is 1e-20.  d is evaluated in
floating point and decreased by a bound on its rounding error (γ_k Σ|terms|); the final sums likewise.
No accuracy of the multipliers is assumed: poor multipliers give a weak bound, never a wrong one.

Before the bound is evaluated, the multipliers' dual infeasibility is reduced by sweeps along the rows
(:func:`_push_deficits`, :func:`_pull_deficits`); every result is λ ≥ 0, so every bound stays valid.  The work
over the rows runs in slices (:mod:`problems.lp.ratio_rows`): at m = 2, n = 200 a vector over the 5.4 M ratio
rows is 41 MiB, and the certificate runs beside the interior-point iteration's own vectors.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from .exact_feasibility import _U, _gamma, _rk_all
from .ratio_rows import collect, row_slices, rows_by, rows_of, side_sums
from .spec import RatioLPSpec

__all__ = ["lower_bound", "LAMBDA_CAPS", "FEW_DEFICITS"]


def lower_bound(
    spec: RatioLPSpec, eps: float, nu: np.ndarray | None, lam: np.ndarray | None, upper: float = math.inf
) -> tuple[float, np.ndarray]:
    """A rigorous lower bound on the optimum from any multipliers (ν free, λ clipped to ≥ 0).

    Returns ``(lower, d)`` with ``d = c + Gᵀλ⁺ + Aᵀν`` (the reduced costs, i.e. the multipliers of z ≥ 0).
    """
    if nu is None or lam is None or np.shape(nu) != (spec.G,) or np.shape(lam) != (spec.P,):
        return 0.0, spec.c.copy()
    # peak memory (m = 2, n = 200: every vector over the ratio rows is 41 MiB): besides fl(e^ε κ), one copy of λ
    # at a time, and the sums over the rows in slices (:func:`~problems.lp.ratio_rows.side_sums`).  The rows
    # sorted by each side, for every sweep of every try, are formed first, while no other vector over the rows
    # is alive (the sort's 64-bit order is one).
    by = {side: rows_by(spec, side) for side in ("src", "dst")}
    nu = np.nan_to_num(np.asarray(nu, dtype=float), nan=0.0, posinf=0.0, neginf=0.0)
    rk, rel = _rk_all(spec, eps)
    ub = spec.upper.copy()
    if math.isfinite(upper) and upper >= 0:
        pos = spec.c > 0
        ub[pos] = np.minimum(ub[pos], upper / spec.c[pos] * (1 + 8 * _U))
    best: tuple[float, np.ndarray] | None = None
    # each try is this function's own array (_capped's copy of λ): the sweeps work on it in place
    for lam_try in _capped(spec, rk, lam):
        lam_try = _push_deficits(spec, rk, nu, lam_try, copy=False, by=by)
        lam_try = _pull_deficits(spec, rk, nu, lam_try, ub, copy=False, by=by)
        found = _evaluate(spec, rk, rel, nu, lam_try, ub)
        if best is None or found[0] > best[0]:
            best = found
        nu_opt = _best_nu(spec, _reduced_costs(spec, rk, np.zeros(spec.G), lam_try), ub)
        if nu_opt is not None:
            alt = _evaluate(spec, rk, rel, nu_opt, lam_try, ub)
            if alt[0] > best[0]:
                best = alt
        del lam_try  # before _capped forms the next try
    assert best is not None  # _capped yields the multipliers themselves first
    return best


#: Multipliers whose weight e^ε κ_p λ_p exceeds these multiples of max c are also tried set to 0 (see
#: :func:`_capped`).
LAMBDA_CAPS = (1.0,)


def _clean(lam: np.ndarray) -> np.ndarray:
    """A copy of λ with its NaN and infinite entries set to 0, clipped to λ ≥ 0 (in slices of the rows)."""
    out = np.array(lam, dtype=float)
    for rows in row_slices(out.size):
        part = out[rows]
        np.nan_to_num(part, copy=False, nan=0.0, posinf=0.0, neginf=0.0)
        np.clip(part, 0.0, None, out=part)
    return out


def _capped(spec: RatioLPSpec, rk: np.ndarray, lam: np.ndarray) -> Iterator[np.ndarray]:
    """Copies of λ⁺ (:func:`_clean`) and of λ⁺ with its absurdly large entries set to 0 (still ≥ 0, so every
    bound stays valid), each formed when the previous one has been used (the caller's λ is left unchanged).

    A back end that solved a scaled LP maps its multipliers back through the column scales; on rows between
    entries that are zero at the optimum (scales floored, e^{ε+ε_X} ≈ 1e28 in the coefficient) they can come
    back as 1e130, and the rounding term of such a row (relative 1e-12 of e^ε κ_p λ_p) swamps every bound.
    A row that moves more than the largest cost between two variables cannot help the bound at a point of
    cost ≤ max c, so dropping it loses nothing there.
    """
    yield _clean(lam)
    top = float(spec.c.max(initial=0.0))
    if top > 0:
        for cap in LAMBDA_CAPS:
            capped = _clean(lam)
            at = _weights_above(spec, rk, capped, cap * top)
            if at.size:
                capped[at] = 0.0
                yield capped
            del capped


def _weights_above(spec: RatioLPSpec, rk: np.ndarray, lam: np.ndarray, limit: float) -> np.ndarray:
    """The rows p whose weight e^ε κ_p λ_p is above ``limit`` or not a number (found in slices)."""

    def above(rows: slice) -> tuple[np.ndarray]:
        with np.errstate(over="ignore", invalid="ignore"):
            w = rk[rows] * lam[rows]
        return (np.flatnonzero(~(w <= limit)) + rows.start,)

    return collect(spec.P, above)[0]  # type: ignore[arg-type]


def _best_nu(spec: RatioLPSpec, r: np.ndarray, ub: np.ndarray) -> np.ndarray | None:
    """The ν maximising the bound for fixed λ: per group, −b_g ν_g + Σ_j u_j min(0, r_j + ν_g) is concave and
    piecewise linear; its maximum is at ν_g = −r_(k), k the first index (r ascending) with Σ_{i≤k} u_(i) ≥ b_g.
    Floating point is fine here: the bound is then evaluated rigorously for whatever ν this returns."""
    if not (np.all(np.isfinite(r)) and np.all(np.isfinite(ub))):
        return None
    order = np.lexsort((r, spec.group))
    g = spec.group[order]
    cum = ub[order]
    np.cumsum(cum, out=cum)
    first = np.searchsorted(g, np.arange(spec.G))  # start of each group in the sorted order
    base = np.where(first > 0, cum[np.maximum(first - 1, 0)], 0.0)
    cum -= base[g]  # the cumulative bound within each group
    reached = cum >= spec.b[g]
    del cum
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
    return -r[order[idx]]


def _evaluate(
    spec: RatioLPSpec, rk: np.ndarray, rel: float, nu: np.ndarray, lam: np.ndarray, ub: np.ndarray
) -> tuple[float, np.ndarray]:
    """The rigorous value of the bound for multipliers (ν, λ ≥ 0) and variable bounds ``ub`` (see above);
    ``rel`` bounds the relative error of every e^ε κ_p (:func:`~problems.lp.exact_feasibility._rk_all`)."""
    K = spec.K
    minus = side_sums(spec.dst, K, lam, rk)  # (a non-finite e^ε κ_p λ_p makes its sum non-finite)
    if not np.all(np.isfinite(minus)):
        return 0.0, spec.c.copy()
    plus = side_sums(spec.src, K, lam)
    nug = nu[spec.group]
    d = spec.c + plus
    d -= minus
    d += nug  # c + Σ⁺ − Σ⁻ + ν_g, in that order
    terms = spec.cache.get("terms_per_column")
    if terms is None:
        terms = np.full(K, 3, dtype=np.int64)
        for rows in row_slices(spec.P):
            terms += np.bincount(spec.src[rows], minlength=K) + np.bincount(spec.dst[rows], minlength=K)
        terms = spec.cache["terms_per_column"] = terms.astype(np.int32)
    # err = (γ(terms)·|terms| + 1.01 rel Σ⁻)(1 + 1e-6), and then min(d − err, 0)·u: in place (K-vectors)
    absd = spec.c + plus
    del plus
    absd += minus
    np.abs(nug, out=nug)
    absd += nug
    del nug
    err = _gamma(terms)
    err *= absd
    del absd
    minus *= rel * 1.01
    err += minus
    del minus
    err *= 1 + 1e-6
    dlow = np.subtract(d, err, out=err)
    np.minimum(dlow, 0.0, out=dlow)
    dlow *= ub
    S = float(np.sum(dlow)) * (1 + float(_gamma(K + 4)))
    bnu = float(spec.b @ nu)
    err_bnu = float(_gamma(spec.G + 4)) * float(np.abs(spec.b) @ np.abs(nu))
    L = -bnu - err_bnu + S
    L -= 8 * _U * (abs(bnu) + err_bnu + abs(S))
    if not math.isfinite(L):
        L = 0.0
    return max(L, 0.0), d


def _reduced_costs(spec: RatioLPSpec, rk: np.ndarray, nu: np.ndarray, lam: np.ndarray) -> np.ndarray:
    K = spec.K
    return spec.c + side_sums(spec.src, K, lam) - side_sums(spec.dst, K, lam, rk) + nu[spec.group]


def _refresh(
    spec: RatioLPSpec, rk: np.ndarray, nu: np.ndarray, lam: np.ndarray, d: np.ndarray, rows, by
) -> None:
    """Recompute in place the reduced costs d (:func:`_reduced_costs`) at the two sides of ``rows``, whose λ
    changed: the same sums in the same order as the full computation, so d stays bitwise what it would be.
    ``by``: a dict of the rows sorted by each side (:func:`~problems.lp.ratio_rows.rows_by`), filled on first use."""
    at = np.unique(np.concatenate([spec.src[rows], spec.dst[rows]]))
    sums = []
    for side, weight in (("src", None), ("dst", rk)):
        order, start = by[side] = by[side] if side in by else rows_by(spec, side)
        r = rows_of(order, start, at)
        slot = np.repeat(np.arange(at.size), start[at + 1] - start[at])
        w = lam[r] if weight is None else weight[r] * lam[r]
        sums.append(np.bincount(slot, weights=w, minlength=at.size))
    d[at] = spec.c[at] + sums[0] - sums[1] + nu[spec.group[at]]


#: the deficit sweeps work on the rows at the deficits while these are at most this fraction of the variables
#: (a simplex method's multipliers: hundreds to thousands of K), else on every row (an interior point's: all of K)
FEW_DEFICITS = 1 / 16


def _push_deficits(
    spec: RatioLPSpec,
    rk: np.ndarray,
    nu: np.ndarray,
    lam: np.ndarray,
    sweeps: int = 8,
    copy: bool = True,
    by: dict | None = None,
) -> np.ndarray:
    """Multipliers with smaller dual infeasibility: a deficit d_j < 0 is moved up the rows that end at j.

    Lowering λ_p by δ/(e^ε κ_p) on a row p with d_p = j raises d_j by δ and lowers d at the row's source by
    δ/(e^ε κ_p).  At large ε the deficits of a solver's multipliers sit on the tiny entries (where a relative
    error of the multipliers is below every solver tolerance), and each push shrinks them by e^{−ε}; the
    result is still λ ≥ 0, so the bound stays valid for any outcome.  The deficits are few (hundreds to
    thousands of the K variables): each sweep works on the rows that end at one and recomputes the reduced costs
    where those rows changed (the same values as a full pass).  ``by``: the rows sorted by each side
    (:func:`~problems.lp.ratio_rows.rows_by`), a dict shared between calls and filled on first use.
    """
    lam = lam.copy() if copy else lam  # copy=False: the caller hands its array over
    K = spec.K
    by = (
        {} if by is None else by
    )  # the rows sorted by each side (:func:`~problems.lp.ratio_rows.rows_by`), formed when first needed
    d = _reduced_costs(spec, rk, nu, lam)
    for _ in range(sweeps):
        short = np.flatnonzero(d < 0)
        if short.size == 0:
            break
        if short.size > K * FEW_DEFICITS:  # many deficits (an interior point's multipliers): full passes
            avail = side_sums(spec.dst, K, lam, rk)
            with np.errstate(divide="ignore", invalid="ignore"):
                frac = np.where(avail > 0, np.minimum(1.0, np.maximum(-d, 0.0) / avail), 0.0)
            if not np.any(frac > 0):
                break
            for part in row_slices(spec.P):  # λ_p ← λ_p (1 − frac at its small side), in slices
                lam[part] *= 1.0 - frac[spec.dst[part]]
            d = _reduced_costs(spec, rk, nu, lam)
            continue
        order, start = by["dst"] = by["dst"] if "dst" in by else rows_by(spec, "dst")
        rows = rows_of(order, start, short)
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
    by: dict | None = None,
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
    by = {} if by is None else by  # as in _push_deficits
    d = _reduced_costs(spec, rk, nu, lam)
    for _ in range(sweeps):
        short = np.flatnonzero(d < 0)
        if short.size == 0:
            break
        if short.size > K * FEW_DEFICITS:  # many deficits: full passes over the rows, in slices
            if not _pull_all(spec, rk, lam, d):
                break
            d = _reduced_costs(spec, rk, nu, lam)
            continue
        order, start = by["src"] = by["src"] if "src" in by else rows_by(spec, "src")
        rows = rows_of(order, start, short)
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


def _pull_all(spec: RatioLPSpec, rk: np.ndarray, lam: np.ndarray, d: np.ndarray) -> bool:
    """One full pass of :func:`_pull_deficits` over every row, in slices of the rows (three passes over them:
    the claimants per surplus, each deficit's total room, the steps); raises λ in place.  False if no row can
    take a step (λ unchanged)."""
    K = spec.K
    need = np.maximum(-d, 0.0)
    surplus = np.maximum(d, 0.0)
    slices = row_slices(spec.P)

    def room_of(rows: slice) -> tuple[np.ndarray, np.ndarray]:
        room = surplus[spec.dst[rows]] / rk[rows]
        return room, (need[spec.src[rows]] > 0) & (room > 0)

    claimants = np.zeros(K)
    for rows in slices:
        room, claim = room_of(rows)
        np.add.at(claimants, spec.dst[rows][claim], 1.0)
    if not claimants.any():
        return False
    divisor = np.maximum(claimants, 1.0)
    del claimants

    def shared_room(rows: slice) -> np.ndarray:
        room, claim = room_of(rows)
        return np.where(claim, room / divisor[spec.dst[rows]], 0.0)

    total = np.zeros(K)
    for rows in slices:
        np.add.at(total, spec.src[rows], shared_room(rows))
    stepped = False
    for rows in slices:
        src = spec.src[rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(total[src] > 0, np.minimum(1.0, need[src] / total[src]), 0.0)
        step = shared_room(rows) * share * (1.0 - 1e-12)
        take = step > 0
        stepped = stepped or bool(take.any())
        step[~take] = 0.0  # (a NaN from an infinite e^ε κ_p leaves λ_p as it is)
        lam[rows] += step
    return stepped
