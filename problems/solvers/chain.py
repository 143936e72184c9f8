"""The chain runner: try back ends in order, certify each answer, keep the best proof, stop when certified.

The chain works until the rigorous bounds of :func:`problems.lp.bounds.certify` agree to
:data:`~problems.lp.status.RELATIVE_GAP` (:func:`~problems.lp.status.refined`); the status of its answer is decided
by the one rule of the toolkit, :func:`~problems.lp.status.decide_status`.  Once that rule certifies the point
by its absolute tolerance alone (an optimum near zero), the later attempts only get a short try at the relative
gap (:data:`~problems.solvers.settings.SETTLED_SECONDS`).  A back end that
crashes, runs out of time or returns a poor point is recorded in ``attempts`` and the next one runs.  Bounds
from different attempts, and from the iterates an attempt's early-stop test looked at, combine (the best lower
bound and the best exactly feasible point are both valid), so the final answer is never worse than its best
attempt.  Its time limits and the parameters of its
tightened re-solves are in :mod:`problems.solvers.settings`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np

from ..certificate import Certificate
from ..lp.bounds import Bounds, LPCertificate, certify, lower_bound
from ..lp.solution import LPSolution
from ..lp.spec import RatioLPSpec
from ..lp.status import ABSOLUTE_GAP, RELATIVE_GAP, decide_status, refined
from ..progress import say, ticking
from .attempts import Attempt
from .backends import BackendError, resolve_order
from .settings import (
    ANNOUNCE_SIZE,
    DEFAULT_TIME_LIMIT,
    EXPECTED_TIME_MARGIN,
    INTERIOR_MARGIN,
    NEAR_MISS,
    NEAR_MISS_FACTOR,
    NEAR_MISS_FIRST_ORDER,
    NEAR_MISS_LARGE_SKIP,
    NEAR_MISS_LARGE_VARIABLES,
    NEAR_MISS_SECONDS,
    POINT_BUDGET_FACTOR,
    SETTLED_FACTOR,
    SETTLED_LOOSE_GAP,
    SETTLED_SECONDS,
    SETTLED_SKIP,
    TIGHTEN_COST,
    TIGHTEN_MAX,
    TIGHTEN_MIN,
    TIGHTEN_STEP,
    TIGHTEN_TRIES,
    TIGHTEN_WELL_MIXED,
    UNSCALED_RESOLUTION,
)
from .stats import SolverStats

__all__ = ["Attempt", "solve", "certificate_of", "default_time_limit", "tightened_level", "NEAR_MISS"]


def certificate_of(
    spec: RatioLPSpec,
    eps: float,
    z: np.ndarray | None,
    nu: np.ndarray,
    lam: np.ndarray,
    d: np.ndarray,
    bounds: Bounds,
    basis: str = "lp-dual",
) -> Certificate:
    """The :class:`Certificate` of a point and multipliers: KKT residuals (max-norm) and the rigorous bounds."""
    if z is None:
        return Certificate(
            math.inf,
            math.inf,
            math.inf,
            math.inf,
            math.nan,
            math.nan,
            lower_bound=bounds.lower,
            upper_bound=bounds.upper,
            basis=basis,
        )
    lam = np.clip(lam, 0.0, None)
    r = math.exp(eps)
    g = z[spec.src] - r * spec.kappa * z[spec.dst]
    sums = np.bincount(spec.group, weights=z, minlength=spec.G)
    s = np.clip(d, 0.0, None)
    primal = max(float(np.max(np.abs(sums - spec.b), initial=0.0)), float(np.max(g, initial=0.0)))
    dual = float(np.max(-np.minimum(d, 0.0), initial=0.0))
    slack = max(float(np.max(np.abs(lam * g), initial=0.0)), float(np.max(np.abs(s * z), initial=0.0)))
    pobj = float(spec.c @ z)
    dobj = -float(spec.b @ nu)
    return Certificate(
        primal_residual=primal,
        dual_residual=dual,
        complementary_slackness=slack,
        duality_gap=abs(pobj - dobj),
        primal_objective=pobj,
        dual_objective=dobj,
        lower_bound=bounds.lower,
        upper_bound=bounds.upper,
        basis=basis,
    )


def tightened_level(
    spec: RatioLPSpec, eps: float, z: np.ndarray, lam: np.ndarray, scale: float = 1.0
) -> float:
    r"""The level ε − δ at which to re-solve when a point's exact repair, not its lower bound, is what fails.

    A point solved at ε − δ satisfies every ratio row at ε with a relative slack of about δ, which absorbs the
    back end's round-off without mixing in a reference point; it costs about :math:`|dV/d\epsilon|\,\delta`.
    The slope comes from the envelope theorem, :math:`|dV/d\epsilon| = e^\epsilon\sum_p \lambda_p\kappa_p
    z_{d_p}` at the back end's point, and δ is chosen so that the cost is :data:`TIGHTEN_COST` of the value
    (times ``scale``), within [:data:`TIGHTEN_MIN`, :data:`TIGHTEN_MAX`] and below half of ε − ε_min.  The choice
    is a heuristic only: whatever the re-solve returns is certified at ε from scratch.
    """
    z = np.clip(np.nan_to_num(np.asarray(z, dtype=float)), 0.0, None)
    lam = np.clip(np.nan_to_num(np.asarray(lam, dtype=float)), 0.0, None)
    value = float(spec.c @ z)
    with np.errstate(over="ignore", invalid="ignore"):
        slope = math.exp(eps) * float(lam @ (spec.kappa * z[spec.dst]))
    if math.isfinite(slope) and slope > 0 and value > 0:
        delta = TIGHTEN_COST * scale * value / slope
    else:
        delta = TIGHTEN_MAX
    delta = min(max(delta, TIGHTEN_MIN), TIGHTEN_MAX, 0.5 * (eps - spec.eps_min))
    return eps - delta


_SETTLED_UNSCALED_REASON = (
    "the point is certified by the absolute tolerance, and its value is below what a solve in unscaled columns "
    "resolves"
)
_SETTLED_SKIP_REASON = (
    "the point is certified by the absolute tolerance, and a first-order method cannot sharpen that gap"
)
_NEAR_MISS_FIRST_ORDER_REASON = (
    "the bounds already agree to {gap:.1e} relative, and a first-order method cannot sharpen a gap that small"
)
_NEAR_MISS_LARGE_REASON = (
    "the bounds already agree to {gap:.1e} relative, and on an LP of this size ({K:,} variables) this back end "
    "has not sharpened such a gap in any measurement (NEAR_MISS_LARGE_SKIP)"
)
_SETTLED_SPENT_REASON = (
    "the point is certified by the absolute tolerance, and the time for sharpening its relative gap is spent"
)


def _loosely_settled(lower: float, upper: float) -> bool:
    """Certified by the absolute tolerance, but the value is above that tolerance and its bounds are more than
    :data:`~problems.solvers.settings.SETTLED_LOOSE_GAP` apart relative: the answer may be far from the optimum
    (m = 2, n = 60, contagious PD-DP at ε = 30: HiGHS's bounds [5.2777e-12, 5.6146e-12], the optimum 5.2777e-12),
    so sharpening it is worth the later attempts' full limit."""
    return upper > ABSOLUTE_GAP and upper - lower > SETTLED_LOOSE_GAP * abs(upper)


def _repair_lost(spec: RatioLPSpec, z: np.ndarray | None, lower: float, upper: float, rtol: float) -> bool:
    """True when the back end's own (unverified) value is near the proved lower bound (within NEAR_MISS) but the
    upper bound is not near that value: then an exactly feasible point near it is what is missing."""
    if z is None or np.shape(z) != (spec.K,) or not np.all(np.isfinite(z)):
        return False
    value = float(spec.c @ np.clip(z, 0.0, None))
    if not (value > 0 and lower > 0):
        return False
    near = value - lower <= max(100.0 * rtol, NEAR_MISS) * value
    return near and not upper - value <= 0.5 * rtol * value


class _Proofs:
    """The best proof one attempt found: the lowest verified upper bound (with its exactly feasible point and
    mixing weight) and the highest lower bound (with the multipliers that gave it), over the certificates of its
    iterates (the early-stop test) and of its answer.  Both are valid whichever iterate they came from: at m = 2,
    n = 100 (contagious (0.9; 0.3, 0.7) PD-DP, ε = 1) the block method's last iterate before its rounding floor
    held the best point and a later one, past the floor, the best multipliers."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.lo, self.up, self.mix = -math.inf, math.inf, math.nan
        self.z: np.ndarray | None = None
        self.duals: tuple[np.ndarray, np.ndarray] | None = None

    def add(self, cert: LPCertificate, nu: np.ndarray, lam: np.ndarray) -> None:
        if cert.z is not None and cert.bounds.upper < self.up:
            self.up, self.z, self.mix = cert.bounds.upper, cert.z, cert.mix
        if self.duals is None or cert.bounds.lower > self.lo:
            self.lo, self.duals = cert.bounds.lower, (nu, lam)

    def attempt(self, solver: str, outcome: str, seconds: float, rtol: float) -> Attempt:
        """The attempt's record, with these bounds."""
        status = decide_status(self.lo, self.up, feasible=self.z is not None, rtol=rtol)
        return Attempt(solver, outcome, seconds, self.lo, self.up, status.certified)


def _accepted(
    accepted: list[tuple[np.ndarray, np.ndarray, np.ndarray, LPCertificate]],
    z: np.ndarray | None,
    nu: np.ndarray,
    lam: np.ndarray,
) -> LPCertificate | None:
    """The certificate the early-stop test computed on exactly this point (``None``: any point) and these duals,
    or None."""

    def same(a: np.ndarray, b: np.ndarray) -> bool:
        return a is b or (np.shape(a) == np.shape(b) and bool(np.array_equal(a, b)))

    if not accepted:
        return None
    z0, nu0, lam0, cert = accepted[0]
    if (z is None or same(z0, z)) and same(nu0, nu) and same(lam0, lam):
        return cert
    return None


def default_time_limit(spec: RatioLPSpec, order: list) -> float:
    """The per-attempt limit when none is given: :data:`~problems.solvers.settings.DEFAULT_TIME_LIMIT`, or
    :data:`~problems.solvers.settings.EXPECTED_TIME_MARGIN` times the first back end's expected wall time where
    that is longer (a large LP is given the time it needs, and the budget says so up front)."""
    expected = getattr(order[0], "expected_seconds", None) if order else None
    seconds = expected(spec) if expected is not None else None
    if seconds is None or not math.isfinite(seconds):
        return DEFAULT_TIME_LIMIT
    return max(DEFAULT_TIME_LIMIT, EXPECTED_TIME_MARGIN * float(seconds))


def solve(
    spec: RatioLPSpec,
    eps: float,
    *,
    solver: str | None = None,
    prefer: str | Sequence[str] | None = None,
    time_limit: float | None = None,
    known_lower: float = 0.0,
    rtol: float = RELATIVE_GAP,
) -> LPSolution:
    """Solve ``spec`` at ε through the chain of back ends and return the best certified answer.

    ``solver`` names the back end tried first (an unknown name raises
    :class:`~problems.errors.InvalidInputError` before anything runs); ``prefer`` is the program's own first
    choice (a back end or a sequence of them) when no solver is named; ``time_limit`` bounds each attempt (default
    :func:`default_time_limit`: :data:`~problems.solvers.settings.DEFAULT_TIME_LIMIT` seconds, longer for an LP
    whose first back end is expected to need more; after a near miss — bounds within
    :data:`NEAR_MISS` — the later attempts get at most max(60 s, 20× the near miss's time); once the bounds
    certify the value by the absolute tolerance only, the later attempts together at most max(2 s, 5× the point's
    time until then) — unless the value is above that tolerance and its bounds are more than
    :data:`~problems.solvers.settings.SETTLED_LOOSE_GAP` apart relative — and SCS is not run:
    :data:`~problems.solvers.settings.SETTLED_SECONDS`); ``known_lower`` is
    a lower bound proved by a closed form.  The whole point gets at most :data:`POINT_BUDGET_FACTOR` times the
    per-attempt limit; an attempt is cut to what is left of it, and attempts after it is spent are recorded as not
    run.  With the ticker on (:func:`problems.progress.enable_ticker`, as the command line does) an LP from
    :data:`ANNOUNCE_SIZE` variables states its back ends and budget, and every attempt that runs longer than
    10 s says every 10 s which one runs, why, and the iteration it reached.
    """
    order = resolve_order(spec, solver, prefer)
    interior = eps - spec.eps_min > INTERIOR_MARGIN * (1.0 + abs(eps))
    if not interior:
        # ε = ε_min: the feasible set has no interior, so no point can be proved feasible by the repair and
        # fallbacks cannot help; one back end answers (status inaccurate, the lower bound still holds)
        order = order[:1]
    limit = default_time_limit(spec, order) if time_limit is None else float(time_limit)
    total = POINT_BUDGET_FACTOR * limit
    start = time.perf_counter()
    where = f"{spec.program} at ε = {eps:.6g} ({spec.K:,} variables)"
    if spec.K >= ANNOUNCE_SIZE:
        say(
            f"{where}: back ends {', '.join(b.name for b in order)}; each attempt at most {limit:g} s, "
            f"the point at most {total:g} s"
        )
    attempts: list[Attempt] = []
    best_z, best_up, best_mix, best_from = None, math.inf, math.nan, None
    best_lo, best_duals = float(known_lower), None
    raw_point = None
    used_iters, used_time = None, 0.0
    # the last certificate an attempt's early-stop test accepted, with the point and duals it was computed on:
    # the attempt returns that iterate, which is then not certified a second time (seconds at n = 200)
    accepted: list[tuple[np.ndarray, np.ndarray, np.ndarray, LPCertificate]] = []
    # the best proof of the running attempt, over its iterates (its early-stop tests) and its answer
    seen = _Proofs()

    def run(be, level: float, why: str, k: int, duals=None):  # noqa: ANN001, ANN202 - one attempt, in the budget
        left = total - (time.perf_counter() - start)
        if left <= 0:
            raise BackendError(f"not run: the point's budget of {total:g} s is spent")

        def enough(z: np.ndarray, nu: np.ndarray, lam: np.ndarray) -> bool:
            # the certificate itself, on an iterate: a back end that can stop early stops once it is proved
            # (with ``duals`` the lower bound comes from the attempt that proved the value, as below)
            nu_c, lam_c = (nu, lam) if duals is None else duals
            # (without the face repair: an iterate short of the optimum gains nothing from it, measured at m = 2,
            # n = 60, and at n = 200 it would cost seconds per iterate)
            cert = certify(spec, eps, z, nu_c, lam_c, known_lower=known_lower, rtol=rtol, face=False)
            seen.add(cert, nu_c, lam_c)
            # this iterate's proof, or the best point and the best bound of different iterates (or attempts)
            done = cert.refined or (
                (seen.z is not None or best_z is not None)
                and refined(max(best_lo, seen.lo), min(best_up, seen.up), rtol)
            )
            if done:
                accepted[:] = [(z, nu_c, lam_c, cert)]
            return done

        accepted.clear()
        seen.clear()
        with ticking(f"{where}: attempt {k} {be.name} ({why})"):
            return be.solve(spec, level, time_limit=min(limit, left), enough=enough)

    why = "first choice"
    settled_until = math.inf  # once settled: when the time for sharpening the relative gap ends
    for k, be in enumerate(order, start=1):
        t0 = time.perf_counter()
        if best_z is not None and decide_status(best_lo, best_up, rtol=rtol).certified:
            # settled: certified by the absolute tolerance, not yet to the relative one (refined would have
            # stopped the chain); only a short try to sharpen the relative gap is worth its time, and the later
            # attempts share it (m = 2, n = 100, mixture PD-DP at ε = 20: HiGHS settled in 3.7 s, then the block
            # method and Clarabel took 29 s and 27 s, each allowed 5× the time so far)
            if be.name in SETTLED_SKIP:
                attempts.append(Attempt(be.name, "not run: " + _SETTLED_SKIP_REASON, 0.0))
                continue
            if getattr(be, "unscaled", False) and best_up < UNSCALED_RESOLUTION * float(
                np.max(np.abs(spec.c))
            ):
                attempts.append(Attempt(be.name, "not run: " + _SETTLED_UNSCALED_REASON, 0.0))
                continue
            # (a value above the tolerance proved only loosely keeps the full limit: _loosely_settled)
            if not _loosely_settled(best_lo, best_up):
                if settled_until == math.inf:
                    settled_until = t0 + max(SETTLED_SECONDS, SETTLED_FACTOR * (t0 - start))
                if settled_until - t0 <= 0:
                    attempts.append(Attempt(be.name, "not run: " + _SETTLED_SPENT_REASON, 0.0))
                    continue
                limit = min(limit, settled_until - t0)
        gap = (best_up - best_lo) / max(abs(best_up), 1e-300)
        if best_z is not None and gap <= NEAR_MISS_FIRST_ORDER:
            large = be.name in NEAR_MISS_LARGE_SKIP and spec.K >= NEAR_MISS_LARGE_VARIABLES
            if be.name in SETTLED_SKIP or large:
                reason = _NEAR_MISS_LARGE_REASON if large else _NEAR_MISS_FIRST_ORDER_REASON
                attempts.append(Attempt(be.name, "not run: " + reason.format(gap=gap, K=spec.K), 0.0))
                continue
        try:
            raw = run(be, eps, why, k)
        except BackendError as exc:
            attempts.append(Attempt(be.name, f"error: {exc}".splitlines()[0][:200], time.perf_counter() - t0))
            why = f"after {be.name}: {attempts[-1].outcome[:80]}"
            continue
        if raw_point is None:
            raw_point = raw
        cert = _accepted(accepted, raw.z, raw.nu, raw.lam)
        if cert is None:
            with ticking(f"{where}: certifying attempt {k} {be.name}'s answer (exact repair, safe bound)"):
                cert = certify(spec, eps, raw.z, raw.nu, raw.lam, known_lower=known_lower, rtol=rtol)
        seen.add(cert, raw.nu, raw.lam)
        attempts.append(seen.attempt(be.name, raw.status, raw.seconds, rtol))
        if seen.z is not None and seen.up < best_up:
            best_z, best_up, best_mix, best_from = seen.z, seen.up, seen.mix, be.name
            used_iters, used_time = raw.iterations, raw.seconds
        if best_duals is None or seen.lo > best_lo:
            best_lo = max(best_lo, seen.lo)
            best_duals = seen.duals
        if best_z is not None and refined(best_lo, best_up, rtol):
            break
        if interior and _repair_lost(spec, raw.z, best_lo, best_up, rtol):
            # the lower bound proves the back end's value, but its point could not be repaired closely enough:
            # re-solve at a slightly tightened level, whose point is feasible at ε with slack to spare
            level = tightened_level(spec, eps, raw.z, raw.lam)
            for _try in range(TIGHTEN_TRIES):
                t1 = time.perf_counter()
                name = f"{be.name}@ε−{eps - level:.1e}"
                try:
                    tight = run(
                        be,
                        level,
                        "re-solve at a tightened level: its value is proved, its point repairs poorly",
                        k,
                        best_duals,
                    )
                except BackendError as exc:
                    attempts.append(
                        Attempt(name, f"error: {exc}".splitlines()[0][:200], time.perf_counter() - t1)
                    )
                    break
                assert best_duals is not None  # set by the attempt above
                nu_b, lam_b = best_duals
                tc = _accepted(accepted, tight.z, nu_b, lam_b)
                if tc is None:
                    with ticking(f"{where}: certifying {name}'s answer"):
                        tc = certify(spec, eps, tight.z, nu_b, lam_b, known_lower=best_lo, rtol=rtol)
                seen.add(tc, nu_b, lam_b)
                attempts.append(seen.attempt(name, tight.status, tight.seconds, rtol))
                if seen.z is not None and seen.up < best_up:
                    best_z, best_up, best_mix, best_from = seen.z, seen.up, seen.mix, name
                    used_iters, used_time = tight.iterations, tight.seconds
                best_lo = max(best_lo, seen.lo)
                if best_z is not None and refined(best_lo, best_up, rtol):
                    break
                # a large mixing weight means the slack did not cover the round-off (tighten more); a small
                # one that the margin itself cost too much (tighten less)
                wider = not (tc.z is not None and tc.mix < TIGHTEN_WELL_MIXED)
                delta = (eps - level) * (TIGHTEN_STEP if wider else 1.0 / TIGHTEN_STEP)
                delta = min(max(delta, TIGHTEN_MIN), 0.5 * (eps - spec.eps_min))
                level = eps - delta
            if best_z is not None and refined(best_lo, best_up, rtol):
                break
        if math.isfinite(best_up) and best_up - best_lo <= NEAR_MISS * max(best_up, 1e-300):
            # a near miss: the next back ends can only tighten a small gap, so they get a budget in
            # proportion to what the near miss cost (at least NEAR_MISS_SECONDS) rather than the full limit
            limit = min(limit, max(NEAR_MISS_SECONDS, NEAR_MISS_FACTOR * (time.perf_counter() - t0)))
        why = f"after {be.name}: {attempts[-1].as_pair()[1][:80]}"
    answered = best_z is not None
    if not answered:  # no verified point: the reference point may still prove an upper bound
        ref = certify(spec, eps, None, None, None, known_lower=best_lo, rtol=rtol)
        best_z, best_up, best_mix = ref.z, ref.bounds.upper, ref.mix
        best_from = "reference"
    shown = best_z
    if shown is None:  # nothing proved feasible: show the back end's point, unverified (upper bound ∞)
        src = raw_point.z if raw_point is not None else spec.reference(eps)
        shown = np.clip(np.nan_to_num(np.asarray(src, dtype=float)), 0.0, None)
        sums = np.bincount(spec.group, weights=shown, minlength=spec.G)
        sums[sums <= 0] = 1.0
        shown = shown * (spec.b / sums)[spec.group]
        best_from = raw_point and order[0].name or "reference"
    if best_duals is None:
        best_duals = (np.zeros(spec.G), np.zeros(spec.P))
    nu, lam = best_duals
    # the lower bound recomputed with the final upper bound (the level set shrinks with it)
    done = _accepted(accepted, None, nu, lam)
    if done is not None and done.bounds.upper == best_up:  # computed with these duals and this upper bound
        lo, d = done.bounds.lower, done.reduced_costs
    else:
        lo, d = lower_bound(spec, eps, nu, lam, best_up)
    lo = max(lo, best_lo)
    if lo > best_up:
        lo = best_up  # equal up to the rounding margins of two different proofs
    bounds = Bounds(lo, best_up)
    # failed: no back end gave a point at all; inaccurate: a point, but the bounds do not prove its value
    status = decide_status(
        lo, best_up, feasible=best_z is not None, answered=answered or raw_point is not None, rtol=rtol
    )
    value = spec.objective(shown)
    lam_c = np.clip(np.nan_to_num(np.asarray(lam, dtype=float)), 0.0, None)
    nu_c = np.nan_to_num(np.asarray(nu, dtype=float))
    certificate = certificate_of(spec, eps, shown, nu_c, lam_c, d, bounds)
    stats = SolverStats(
        solver=str(best_from),
        solve_time=float(used_time),
        compile_time=0.0,
        iterations=used_iters,
        attempts=tuple(a.as_pair() for a in attempts),
    )
    return LPSolution(shown, value, bounds, status, nu_c, lam_c, d, certificate, stats, float(eps), best_mix)
