r"""ε*_d(D)/n and ε*_i(D)/n against D/n at several n, with h⁻¹ (Wang, Ying & Zhang 2016, Theorem 1, (17)–(19)).

The rows of the orbit-scale figure: :func:`scale_rows` (ε* at every level, one CSV row each, see :data:`FIELDS`)
and :func:`eps_star_curve` (the root finder).  The figure, its report section and its command line are
:mod:`problems.reproduce.scale`.

ε*(D) = min{ε : D*(ε) ≤ D} is the inverse of the non-increasing D*(ε).  Each point is computed exactly, by a
safeguarded Newton iteration on f(ε) = D*(ε) − D that re-solves the reduced LP (only e^ε changes):

* the derivative is the envelope theorem on the reduced LP: for the rows σ_p(u_s − e^ε κ_p u_d) ≤ 0 with
  multipliers λ_p, dD*/dε = −e^ε Σ_p λ_p σ_p κ_p u_{d_p} (one-sided where the active set changes; the
  bracket below makes that harmless);
* a bracket [lo, hi] with f(lo) > 0 ≥ f(hi) is kept; a Newton step leaving it is replaced by bisection;
* the start is h⁻¹(D) (clipped to the bracket): by Theorem 1 D*_d ≤ h ≤ D*_i, and where the curves coincide
  with h⁻¹ the first solve already satisfies |f| ≤ ``ftol`` (one LP per point).

Stopping: |f(ε)| ≤ max(``ftol``, ``ftol_rel``·D) (the large reduced LPs are accurate to ~3e-8 relative, so an
absolute 1e-6 would make n = 200 spend extra 12-minute solves on rounding) or bracket width ≤ ``xtol``.  For PD-I the search starts at ε_X (below it PD-I is
infeasible, Lemma 3); where D*_i(ε_X) ≤ D already, ε*_i(D) = ε_X.  Where D*_d(0) ≤ D, ε*_d(D) = 0.

The prior is i.i.d. with row pmf ``row`` (default (0.3, 0.7)), so D*_d(0) = 0.3·n (output the all-ones
database).  Measured (n = 10, 50): ε*_d = ε*_i = h⁻¹ for D/n < 0.3 (to 1e-6), while for D/n ≥ 0.3
ε*_d = 0 and ε*_i = ε_X = ln(7/3) but h⁻¹(D) > 0 until D/n = 1/2 (note h(ε_X) = 0.3·n): the default
levels straddle D/n = 0.3.

*Cost.*  For an i.i.d. prior every solve is the single-letterisation theorem
(:mod:`problems.orbit.product_prior`: n times the certified one-row program, milliseconds at any n; its answer
carries the slope n·dD₁*/dε), which also proves that ε*(D)/n does not depend on n — the 24 points of the
n = 200 figure take about 4 CPU s.  With ``method="lp"`` (and for exchangeable mixtures) each point costs a few
reduced LP solves; the m = 2 joint-type LP has C(n+3, 3) variables (23 426 at n = 50: ~2.5 s per solve;
1.37 M at n = 200: ~12 CPU min per solve, hours per figure), see ``docs/orbit_reduction.md`` §7.
"""

from __future__ import annotations

import csv
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..closed_forms import h_inv
from ..inverse import boundary_proof
from .programs import ReducedPDDP, ReducedPDI
from .symmetric_prior import parse_symmetric_prior, symmetric_iid

__all__ = [
    "eps_star_curve",
    "scale_rows",
    "read_rows",
    "theorem1_violations",
    "DEFAULT_NS",
    "DEFAULT_LEVELS",
    "FIELDS",
    "PRECOMPUTED_CSV",
]

#: n values of the default figure (i.i.d. prior: milliseconds per n by the theorem; a mixture's n costs a few
#: dozen reduced LP solves, see the module docstring).
DEFAULT_NS: tuple[int, ...] = (10, 50, 200)

#: Default distortion levels D/n.  For the row (0.3, 0.7) the three curves coincide below D/n = 0.3 = min π
#: and separate above it (ε*_d = 0, ε*_i = ε_X, h⁻¹ > 0 up to D/n = 1/2); levels straddle that point.
DEFAULT_LEVELS: tuple[float, ...] = (0.05, 0.1, 0.15, 0.2, 0.25, 0.28, 0.295, 0.305, 0.32, 0.36, 0.4, 0.45)


def _value_and_slope(
    prog,
    eps: float,
    log: list[dict] | None = None,
    progress: Callable[[str], object] | None = None,
    method: str = "auto",
) -> tuple[float, float]:
    """D*(ε) and dD*/dε (envelope theorem on the reduced LP, or on the one-row LP of an i.i.d. prior's theorem
    answer; NaN where there are no multipliers: the root finder bisects)."""
    t0 = time.perf_counter()
    res = prog.solve(eps, method=method)
    if log is not None:
        cert = res.certificate
        log.append(
            {
                "eps": float(eps),
                "value": float(res.value),
                "max_kkt": float(cert.max_residual) if cert is not None else math.nan,
                "certified": bool(getattr(res, "certified", True)),
                "lower_tight": bool(
                    res.bounds is not None
                    and abs(res.bounds.lower - res.value) <= 1e-6 * max(1.0, abs(res.value))
                ),
                "seconds": time.perf_counter() - t0,
                "result": res,
            }
        )
        if progress is not None:
            e = log[-1]
            progress(
                f"  {'theorem' if res.stats.solver == 'theorem' else 'LP'} at ε = {e['eps']:.9g}: D* = {e['value']:.10g}, "
                f"KKT {e['max_kkt']:.1e}, {e['seconds']:.1f} s"
                + ("" if e["certified"] else f", NOT certified ({res.status}, bounds {res.bounds})")
            )
    if "slope" in res.extras:  # i.i.d. prior: n × the one-row envelope slope (problems.orbit.product_prior)
        return res.value, float(res.extras["slope"])
    if "u" not in res.extras or not res.duals:
        return res.value, math.nan  # theorem path: no multipliers (the root finder bisects)
    lp = prog.lp
    u = np.asarray(res.extras["u"], dtype=float)
    lam = np.asarray(res.duals["ratio"], dtype=float)
    slope = -math.exp(res.eps) * float(lam @ (lp.spec.kappa * u[lp.spec.dst]))
    return res.value, slope


def eps_star_curve(
    prog,
    n: int,
    levels: Sequence[float],
    *,
    eps_min: float = 0.0,
    eps_max: float = 12.0,
    xtol: float = 1e-6,
    ftol: float = 1e-6,
    ftol_rel: float = 2e-7,
    m: int = 2,
    counter: list[int] | None = None,
    log: list[dict] | None = None,
    progress: Callable[[str], object] | None = None,
    method: str = "auto",
) -> list[float]:
    """ε*(δn) for each δ in ``levels`` (NaN if D*(eps_max) > δn); see the module docstring for the method.

    ``method`` is passed to every ``prog.solve`` (``"lp"``: the reduced LP even where a theorem answers)."""
    cache: dict[float, tuple[float, float]] = {}

    def F(eps: float) -> tuple[float, float]:
        if eps not in cache:
            cache[eps] = _value_and_slope(prog, eps, log, progress, method)
            if counter is not None:
                counter[0] += 1
        return cache[eps]

    out = []
    ftol_abs = ftol
    for delta in levels:
        target = delta * n
        # the reduced LPs are solved to ~3e-8 relative at large n: |f| ≤ max(ftol, ftol_rel·D) accepts that
        ftol = max(ftol_abs, ftol_rel * target)
        if F(eps_min)[0] <= target + ftol:
            out.append(eps_min)
            continue
        lo, hi = eps_min, eps_max
        # tighten the bracket with points already solved
        for e, (v, _) in cache.items():
            if v - target > 0:
                lo = max(lo, e)
            else:
                hi = min(hi, e)
        # (D*(eps_max) > target is detected only if the iteration gets there: no solve spent on it upfront)
        x = float(h_inv(target, n, m))
        x = min(max(x, lo), hi)
        result = math.nan
        for _ in range(60):
            v, g = F(x)
            f = v - target
            if abs(f) <= ftol:
                result = x
                break
            if f > 0:
                lo = x
            else:
                hi = x
            if hi - lo <= xtol:
                result = hi
                break
            step = x - f / g if (math.isfinite(g) and g < 0) else math.nan
            x = step if (math.isfinite(step) and lo < step < hi) else 0.5 * (lo + hi)
        if (
            hi == eps_max
            and not (math.isfinite(result) and abs(F(result)[0] - target) <= ftol)
            and F(eps_max)[0] - target > ftol
        ):
            result = math.nan  # D*(eps_max) > δn: not reached on [eps_min, eps_max]
        out.append(result)
    return out


FIELDS = [
    "n",
    "program",
    "D_over_n",
    "eps_star",
    "eps_over_n",
    "h_inv_over_n",
    "lp_solves",
    "max_kkt",
    "uncertified_solves",
]

#: n = 200 rows shipped with the package as a test reference (not a figure input): computed once, one
#: reduced LP per point solved by Clarabel through the LP chain and a Newton step on its envelope slope
#: (``benchmarks/scale_points.py``), each LP certified; ``max_kkt`` is the largest KKT residual among them.
PRECOMPUTED_CSV = Path(__file__).with_name("data") / "orbit_scale_n200.csv"


def scale_rows(
    n: int,
    program: str,
    levels: Sequence[float],
    *,
    row: Sequence[float] = (0.3, 0.7),
    xtol: float = 1e-6,
    progress: Callable[[str], object] = print,
    prior: str | None = None,
) -> list[dict]:
    """ε*(δn) for ``program`` ∈ {"dp", "i"} at every δ in ``levels``, one CSV row each (see :data:`FIELDS`).

    ``prior`` is a symmetric prior spec (``"mixture:0.5,0.5/0.8,0.2/0.3,0.7"``, see
    :func:`~problems.orbit.symmetric_prior.parse_symmetric_prior`); default the i.i.d. prior with row ``row``.
    """
    cls = {"dp": ReducedPDDP, "i": ReducedPDI}[program]
    sym = symmetric_iid(n, row) if prior is None else parse_symmetric_prior(prior, n, 2)
    progress(f"n = {n}: building reduced PD-{program.upper()}")
    prog = cls(sym)
    lo = getattr(prog, "eps_X", 0.0)
    counter = [0]
    log: list[dict] = []
    eps = eps_star_curve(prog, n, levels, eps_min=lo, xtol=xtol, counter=counter, log=log, progress=progress)
    max_kkt = max((e["max_kkt"] for e in log), default=math.nan)
    # PD-I at ε = ε_X has no interior point (Lemma 3: infeasible below): its LP may be left "inaccurate" with
    # only the lower bound proved; that solve is not counted when the lower bound equals the value, or when every
    # point with ε* = ε_X is proved without it (Lemma 3 and the constant mechanism, problems.inverse)
    at_lo = [delta * n for delta, e in zip(levels, eps) if e == lo]
    lemma3 = program == "i" and all(boundary_proof(prog, D) is not None for D in at_lo)
    boundary = [
        e
        for e in log
        if not e["certified"] and program == "i" and e["eps"] == lo and (e["lower_tight"] or lemma3)
    ]
    uncertified = sum(not e["certified"] for e in log) - len(boundary)
    if boundary:
        how = "every point at ε_X proved by Lemma 3" if lemma3 else "proved from below only"
        progress(f"  PD-I at ε_X = {lo:.9g}: value {boundary[0]['value']:.10g}, {how}")
    rows = []
    for delta, e in zip(levels, eps):
        hv = float(h_inv(delta * n, n, 2))
        rows.append(
            {
                "n": n,
                "program": f"pd-{program}",
                "D_over_n": delta,
                "eps_star": e,
                "eps_over_n": e / n,
                "h_inv_over_n": hv / n,
                "lp_solves": counter[0],
                "max_kkt": max_kkt,
                "uncertified_solves": uncertified,
            }
        )
        progress(f"  D/n = {delta:.3f}: ε* = {e:.6g} (h⁻¹ = {hv:.6g})")
    return rows


def read_rows(path: str | Path) -> list[dict]:
    """Rows of an ``orbit_scale.csv`` (numbers parsed)."""
    out = []
    with Path(path).open(newline="") as fh:
        for r in csv.DictReader(fh):
            d: dict = {"n": int(r["n"]), "program": r["program"]}
            for key in FIELDS[2:]:
                d[key] = float(r[key]) if r.get(key) not in (None, "") else math.nan
            out.append(d)
    return out


def theorem1_violations(rows: Sequence[dict]) -> tuple[float, float]:
    """Largest violations of Theorem 1 in ``rows``: (ε*_d − max{h⁻¹, 0})⁺ and (max{h⁻¹, ε_X} − ε*_i)⁺.

    ε_X is taken as the PD-I curve's value at its largest D (where ε*_i = ε_X, the left end of its search).
    """
    dp = [
        max(0.0, r["eps_star"] - max(r["h_inv_over_n"] * r["n"], 0.0))
        for r in rows
        if r["program"] == "pd-dp"
    ]
    vi = []
    for n in {r["n"] for r in rows}:
        ri = [r for r in rows if r["program"] == "pd-i" and r["n"] == n and math.isfinite(r["eps_star"])]
        if not ri:
            continue
        eps_x = min(r["eps_star"] for r in ri)
        vi += [max(0.0, max(r["h_inv_over_n"] * r["n"], eps_x) - r["eps_star"]) for r in ri]
    return max(dp, default=0.0), max(vi, default=0.0)
