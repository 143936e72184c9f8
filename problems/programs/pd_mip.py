r"""PD-MIP: the privacy–distortion program under mutual-information privacy (Wang, Ying & Zhang 2016, (28)–(30)).

.. math::

    \epsilon^*_{\mathrm m}(D) = \min_{W} I(X;Y) \ \text{s.t.}\
    \sum_{x,y} p_X(x) W(y|x) d(x,y) \le D,\ \textstyle\sum_y W(y|x) = 1,\ W \ge 0.

*Conic form* (notes §3).  With the joint :math:`J = \mathrm{diag}(p_X) W` and :math:`q = p_X^\top W`,
:math:`I(X;Y) = \sum_{x,y} \mathrm{rel\_entr}(J(x,y),\ p_X(x) q(y))`; both arguments are affine in W, so the
objective is DCP (one exponential cone per entry) and D is a CVXPY Parameter (DPP): a sweep over D compiles
once.

*Polishing.* When the distortion constraint is active, the optimum is the Blahut point
:math:`W_\lambda(y|x) \propto q(y) e^{-\lambda d(x,y)}` whose distortion is exactly D.  After the conic
solve we find that λ by Brent's method near the solver's multiplier (each evaluation a warm-started
Blahut–Arimoto fixed point) and keep the polished point if it is feasible and has smaller I; this takes the
duality gap from ~1e-6 (interior-point accuracy) to ~1e-10.  ``polish=False`` turns it off.

*Certificate* (computed by the toolkit, not the solver).  For any λ ≥ 0 and c > 0 with
:math:`\sum_x p_X(x) c(x) e^{-\lambda d(x,y)} \le 1` for every y, weak duality for rate–distortion gives
(Csiszár 1974; Gallager 1968, Thm 9.4.1)

.. math::

    I(X;Y) \ \ge\ -\lambda D + \sum_x p_X(x) \ln c(x)\qquad\text{for every feasible } W,

because :math:`I + \lambda\,\mathbb{E}d - \sum_x p_X\ln c = \sum J \ln\frac{J}{p_X q\, c\, e^{-\lambda d}} \ge
-\ln\sum_y q(y)\sum_x p_X c\, e^{-\lambda d} \ge 0` (Jensen).  We take λ from the solver's multiplier of the
distortion constraint and :math:`c(x) = 1/\sum_y q(y)e^{-\lambda d(x,y)}` (the KKT choice), divided by
:math:`M = \max_y \sum_x p_X c\, e^{-\lambda d}` so that it is exactly dual feasible.  The certificate reports
the primal residual, :math:`\max(M-1, 0)` as the dual residual of the KKT point, the complementary slackness
:math:`|\lambda (D - \mathbb{E}d)|`, and the duality gap between I(W) and this rigorous lower bound.
Theorem 2 of the paper says that for D ≤ h(ε̃_X) the optimum is E_i at ε = h⁻¹(D) with λ = h⁻¹(D).
"""

from __future__ import annotations

import math
import time

import cvxpy as cp
import numpy as np
from scipy.special import logsumexp

from ..certificate import theorem_certificate
from ..closed_forms import check_distortion
from ..lp.status import decide_status
from ..measures import mutual_information
from ..mechanism import Mechanism
from ..priors import Prior
from ..result import SolveResult
from ..solvers.conic import solve_with_fallback
from ..solvers.stats import SolverStats
from ..units import check_unit, to_unit
from .information_bounds import information_certificate, within_distortion

__all__ = ["PDMIP", "solve_pd_mip", "rate_distortion_lower_bound", "blahut_point_at_distortion"]


def rate_distortion_lower_bound(
    p_x: np.ndarray, d: np.ndarray, q: np.ndarray, lam: float, D: float
) -> tuple[float, float]:
    """Rigorous lower bound on min{I : E d ≤ D} from (λ, q); returns ``(bound, M)`` in nats.

    ``M`` is the largest Σ_x p_X c e^{−λd} before normalisation (1 at an exact KKT point).
    """
    lam = max(float(lam), 0.0)
    support = p_x > 0
    with np.errstate(divide="ignore"):
        logq = np.log(np.clip(q, 0.0, None))
    # ln c(x) = -ln Σ_y q(y) e^{-λ d(x,y)}
    log_c = -logsumexp(logq[None, :] - lam * d, axis=1)
    # ln Σ_x p(x) c(x) e^{-λ d(x,y)} for each y
    with np.errstate(divide="ignore"):
        logp = np.log(p_x)
    col = logsumexp((logp + log_c)[support, None] - lam * d[support], axis=0)
    log_M = float(np.max(col))
    bound = -lam * D + float(np.sum(p_x[support] * log_c[support])) - log_M
    return bound, float(np.exp(log_M))


def _best_bound(p_x, d, q, lam: float, D: float) -> tuple[float, float, float]:
    """The bound of :func:`rate_distortion_lower_bound`, maximised over λ near the solver's multiplier.

    Any λ ≥ 0 gives a valid bound, so polishing λ (a 1-D bounded search) only tightens the certificate.
    """
    from scipy.optimize import minimize_scalar

    best = (*rate_distortion_lower_bound(p_x, d, q, lam, D), lam)
    width = 1e-3 * max(1.0, abs(lam))
    res = minimize_scalar(
        lambda t: -rate_distortion_lower_bound(p_x, d, q, t, D)[0],
        bounds=(max(0.0, lam - width), lam + width),
        method="bounded",
        options={"xatol": 1e-12},
    )
    if res.success and -res.fun > best[0]:
        best = (*rate_distortion_lower_bound(p_x, d, q, float(res.x), D), float(res.x))
    return best


def _blahut_arimoto_point(
    p_x, d, lam: float, q: np.ndarray, iters: int = 3000
) -> tuple[np.ndarray, np.ndarray]:
    """Blahut's iteration at slope λ from ``q``: W = q e^{−λd}/Z, q ← p_X W (monotone in I + λ E d), then
    Newton's method on its fixed-point equations (:func:`_newton_fixed_point`) where that is closer."""
    logA = -lam * d
    for _ in range(iters):
        logW = np.log(np.clip(q, 1e-300, None))[None, :] + logA
        W = _normalised_rows(logW)
        q_new = p_x @ W
        if np.max(np.abs(q_new - q)) < 1e-16:
            q = q_new
            break
        q = q_new
    q_n = _newton_fixed_point(p_x, d, lam, q)
    if q_n is not None:
        W, q = _normalised_rows(np.log(q_n)[None, :] + logA), q_n
    return W, q


def _normalised_rows(logW: np.ndarray) -> np.ndarray:
    """exp(logW) with every row scaled to sum 1 (a row's largest entry subtracted first)."""
    W = np.exp(logW - logW.max(axis=1, keepdims=True))
    return W / W.sum(axis=1, keepdims=True)


def _fixed_point_residual(p_x, A: np.ndarray, q: np.ndarray) -> np.ndarray:
    """F(q)_y = Σ_x p_X(x) A(x, y)/(Aq)(x) − 1 (A = e^{−λd}): zero at a fully supported Blahut fixed point."""
    return A.T @ (p_x / (A @ q)) - 1.0


def _newton_fixed_point(p_x, d, lam: float, q: np.ndarray, steps: int = 30) -> np.ndarray | None:
    r"""Newton's method on the fixed-point equations F(q) = 0 of Blahut's iteration, for a fully supported q.

    Blahut's iteration contracts like 1 − O(λ²) per step, so near D_max (λ → 0) thousands of steps leave q
    (and with it the dual bound's M − 1) at 1e-7; Newton's step solves
    :math:`A^	op \mathrm{diag}(p_X/(Aq)^2) A\,\delta = F(q)` (the negated Jacobian) and converges
    quadratically.  Returns ``None`` when q has (near-)zero entries, a step leaves q > 0 or the residual does not
    shrink below Blahut's: the caller keeps Blahut's point.  Either way the point is only a candidate, whose
    distortion and mutual information the caller evaluates and whose bound it certifies."""
    q = np.asarray(q, dtype=float)
    if not np.all(q > 1e-12 * q.max()):
        return None
    A = np.exp(-lam * np.asarray(d, dtype=float))
    p_x = np.asarray(p_x, dtype=float)
    start = float(np.max(np.abs(_fixed_point_residual(p_x, A, q))))
    best, best_res = None, start
    for _ in range(steps):
        Z = A @ q
        F = A.T @ (p_x / Z) - 1.0
        H = A.T @ ((p_x / Z**2)[:, None] * A)
        try:
            delta = np.linalg.solve(H, F)
        except np.linalg.LinAlgError:
            break
        q_new = q + delta
        if not np.all(q_new > 0):
            break
        q_new /= q_new.sum()
        res = float(np.max(np.abs(_fixed_point_residual(p_x, A, q_new))))
        if not res < best_res:
            break
        best, best_res, q = q_new, res, q_new
        if res <= 1e-15:
            break
    return best


def blahut_point_at_distortion(
    p_x,
    d,
    D: float,
    lam: float,
    q: np.ndarray,
    *,
    iters: int = 3000,
    tol: float = 1e-14,
    tries: int = 16,
    slack: float = 1e-12,
) -> tuple[np.ndarray, np.ndarray, float] | None:
    """The point of the rate–distortion curve at distortion exactly D, near slope ``lam``: ``(W, q, t)``.

    The optimum of PD-MIP with an active constraint is the Blahut point W_t whose distortion equals D; t is
    found by Brent's method (to ``tol``) in a bracket grown from ±0.1 % around the solver's multiplier (by 10 %
    six times, then doubled, ``tries`` times in all), each evaluation a Blahut iteration warm-started from
    ``q``.  Returns ``None`` when no bracket is found or the point's distortion exceeds D by more than ``slack``
    (the caller keeps its point).
    Used by :class:`PDMIP` and by the single-letter :class:`~problems.orbit.pd_mip_iid.ReducedPDMIP`.
    """
    from scipy.optimize import brentq

    if lam <= 1e-9 or D <= 0:
        return None
    cache: dict[float, tuple[np.ndarray, np.ndarray]] = {}

    def point(t: float) -> tuple[np.ndarray, np.ndarray]:
        if t not in cache:
            cache[t] = _blahut_arimoto_point(p_x, d, t, q, iters)
        return cache[t]

    def gap(t: float) -> float:
        return float(np.sum(p_x[:, None] * point(t)[0] * d)) - D

    lo, hi = lam * (1 - 1e-3), lam * (1 + 1e-3)
    for k in range(tries):
        if gap(lo) > 0 > gap(hi):
            break
        # ×0.9 / ×1.1 first, then wider: near D_max the solver's multiplier can be off by a factor of 3 or more
        grow = 1.1 if k < 6 else 2.0
        lo, hi = lo / grow, hi * grow
    else:
        return None
    t = brentq(gap, lo, hi, xtol=tol, rtol=tol, maxiter=200)
    W, q_t = point(t)
    if float(np.sum(p_x[:, None] * W * d)) > D + slack:
        return None
    return W, q_t, t


class PDMIP:
    """PD-MIP for a prior, compiled once; :meth:`solve` re-solves for each distortion bound D."""

    program = "pd-mip"

    def __init__(
        self,
        prior: Prior,
        *,
        distortion_matrix: np.ndarray | None = None,
        solver: str | None = None,
        polish: bool = True,
    ):
        from ..priors import require_prior
        from ..resources import BASE_MEMORY, require_memory

        prior = require_prior(prior, "PD-MIP")
        self.polish = polish
        space = prior.space
        space.require_dense()
        require_memory(
            BASE_MEMORY + 4000.0 * float(space.size) ** 2,
            f"the dense PD-MIP on N = {space.size} databases (N² = {space.size**2} exponential cones)",
            "For an i.i.d. prior the reduced PD-MIP (single-letterisation) solves any n: "
            "problems.dispatch.make_program('pd-mip', prior, formulation='reduced').",
        )
        self.prior, self.space, self.solver = prior, space, solver
        self.d = space.hamming_matrix() if distortion_matrix is None else np.asarray(distortion_matrix, float)
        N, p = space.size, prior.pmf
        start = time.perf_counter()
        self._D = cp.Parameter(nonneg=True, name="D")
        self._W = cp.Variable((N, N), name="W")
        J = cp.multiply(p[:, None], self._W)
        q = p @ self._W
        outer = p[:, None] @ cp.reshape(q, (1, N), order="C")  # p_X(x) q(y), affine in W
        self._dist = cp.sum(cp.multiply(p[:, None] * self.d, self._W)) <= self._D
        self._rows = cp.sum(self._W, axis=1) == 1
        self._nonneg = self._W >= 0
        objective = cp.Minimize(cp.sum(cp.rel_entr(J, outer)))
        self.problem = cp.Problem(objective, [self._dist, self._rows, self._nonneg])
        self.build_time = time.perf_counter() - start
        self._compiled = False

    def _constant(self, D: float, unit: str) -> SolveResult | None:
        if D == 0.0:
            res = _zero_distortion_result(self.program, self.space, self.prior.pmf, self.d, unit)
            if res is not None:
                return res
        return _zero_rate_result(self.program, self.space, self.prior.pmf, self.d, D, unit)

    def solve(self, distortion: float, *, unit: str = "nats", solver: str | None = None) -> SolveResult:
        """min I(X;Y) subject to E d(X,Y) ≤ D; the value is reported in ``unit`` (nats by default)."""
        unit = check_unit(unit)
        D = check_distortion(distortion, self.space.n)
        constant = self._constant(D, unit)
        if constant is not None:
            return constant
        self._D.value = D
        t0 = time.perf_counter()
        stats = solve_with_fallback(self.problem, program=self.program, solver=solver or self.solver)
        wall = time.perf_counter() - t0
        compile_time = max(0.0, wall - stats.solve_time) if not self._compiled else 0.0
        self._compiled = True
        stats = SolverStats(stats.solver, stats.solve_time, compile_time, stats.iterations, stats.attempts)

        p = self.prior.pmf
        W_raw = np.asarray(self._W.value, dtype=float)
        lam = float(self._dist.dual_value)
        W = np.clip(W_raw, 0.0, None)
        W = W / W.sum(axis=1, keepdims=True)
        value = mutual_information(W, p)
        q = p @ W
        bound, M, lam_cert = _best_bound(p, self.d, q, lam, D)
        if self.polish:
            found = blahut_point_at_distortion(p, self.d, D, lam, q)
            polished = None if found is None else found[0]
            if polished is not None:
                # keep the polished point if it certifies a smaller gap (both are feasible)
                value_p, q_p = mutual_information(polished, p), p @ polished
                bound_p, M_p, lam_p = _best_bound(p, self.d, q_p, lam, D)
                if value_p - bound_p < value - bound:
                    W, value, q, bound, M, lam_cert = polished, value_p, q_p, bound_p, M_p, lam_p
        W, exp_d = within_distortion(W, p, self.d, D)  # exactly feasible: E d ≤ D
        zero = bool(np.all(W == W[:1]))  # identical rows: I(X;Y) = 0 exactly
        value = 0.0 if zero else mutual_information(W, p)
        q = p @ W
        primal = max(  # of the returned (cleaned or polished) mechanism
            float(np.max(np.abs(W.sum(axis=1) - 1.0))),
            float(np.max(-W, initial=0.0)),
            max(exp_d - D, 0.0),
        )
        cert, bounds = information_certificate(
            value,
            bound,
            terms=W.size,
            primal=primal,
            dual=max(M - 1.0, 0.0, -lam_cert),
            slack=abs(lam_cert * (D - exp_d)),
            unit=unit,
            exact_zero=zero,
        )
        return SolveResult.from_mechanism(
            self.program,
            Mechanism.on_space(W, self.space),
            p,
            status=decide_status(bounds.lower, bounds.upper),
            value=float(to_unit(value, unit)),
            distortion=D,
            duals={
                "distortion": float(to_unit(lam, unit)),  # per unit of distortion, in the value's unit
                # every dual in the value's unit (the Lagrangian is in that unit)
                "normalisation": to_unit(np.asarray(self._rows.dual_value, dtype=float), unit),
                "nonnegativity": to_unit(np.asarray(self._nonneg.dual_value, dtype=float), unit),
            },
            certificate=cert,
            stats=stats,
            unit=unit,
            extras={
                "expected_distortion": exp_d,
                "lambda": lam,
                "lambda_certified": lam_cert,
                "lower_bound_nats": bound,
                "extras_in_nats": ["lambda", "lambda_certified", "lower_bound_nats"],
            },
            bounds=bounds,
        )


def _zero_rate_result(
    program: str, space, p: np.ndarray, d: np.ndarray, D: float, unit: str
) -> SolveResult | None:  # noqa: ANN001
    """D ≥ D_max = min_y Σ_x p(x) d(x, y): the constant mechanism onto y* has I(X;Y) = 0 and E d ≤ D, and
    I ≥ 0, so the optimum is exactly 0 (returned with bounds [0, 0]); ``None`` below D_max (with a margin)."""
    from fractions import Fraction

    col = p @ d
    y = int(np.argmin(col))
    if D < float(col[y]) * (1 - 1e-9):
        return None
    exact = sum((Fraction(float(a)) * Fraction(float(b)) for a, b in zip(p, d[:, y])), Fraction(0))
    if Fraction(D) < exact:  # D ≥ D_max decided exactly
        return None
    W = np.zeros((space.size, d.shape[1]))
    W[:, y] = 1.0
    from ..lp import Bounds

    theorem = "I(X;Y) ≥ 0, attained by the constant mechanism onto argmin_y E d(X, y) (E d = D_max ≤ D)"
    cert = theorem_certificate(0.0, 0.0, 0.0, theorem)
    return SolveResult.from_mechanism(
        program,
        Mechanism.on_space(W, space),
        p,
        status=decide_status(0.0, 0.0),
        value=0.0,
        distortion=D,
        duals={"distortion": 0.0, "normalisation": np.zeros(space.size), "nonnegativity": np.zeros(W.shape)},
        certificate=cert,
        stats=SolverStats("theorem", 0.0, 0.0, 0, (("theorem", theorem),)),
        unit=unit,
        extras={
            "expected_distortion": float(col[y]),
            "lambda": 0.0,
            "lambda_certified": 0.0,
            "lower_bound_nats": 0.0,
            "path": "theorem",
            "theorem": theorem,
        },
        bounds=Bounds(0.0, 0.0),
    )


def _zero_distortion_result(
    program: str, space, p: np.ndarray, d: np.ndarray, unit: str
) -> SolveResult | None:  # noqa: ANN001
    r"""D = 0 with d(x, x) = 0 < d(x, y) (y ≠ x), e.g. Hamming: E d ≤ 0 forces W(y|x) = 0 for y ≠ x wherever
    p(x) > 0, so W is the identity on the support and I(X;Y) = H(X) exactly (``None`` for other d).

    H(X) = Σ −p ln p is evaluated in floating point; each term carries at most 4u relative error (log,
    product, sum), so ``[H − e, H + e]`` with e = (K + 8)u Σ terms (K terms) encloses it."""
    from ..lp import Bounds

    d = np.asarray(d, dtype=float)
    N = space.size
    off = ~np.eye(N, dtype=bool)
    if d.shape != (N, N) or np.any(np.diag(d) != 0) or not np.all(d[off] > 0):
        return None
    W = np.eye(N)
    pos = p > 0
    terms = -p[pos] * np.log(p[pos])
    H = float(math.fsum(terms.tolist()))
    err = (terms.size + 8) * 2.0**-53 * float(np.sum(np.abs(terms)))
    theorem = "D = 0: E d ≤ 0 forces the identity on the support, so I(X;Y) = H(X)"
    # (no finite multiplier of E d ≤ 0 proves it: the duals are reported as 0)
    lo, up = max(0.0, H - err), H + err
    cert = theorem_certificate(
        float(to_unit(H, unit)), float(to_unit(lo, unit)), float(to_unit(up, unit)), theorem
    )
    return SolveResult(
        program=program,
        status=decide_status(cert.lower_bound, cert.upper_bound),
        value=float(to_unit(H, unit)),
        mechanism=Mechanism.on_space(W, space),
        eps=None,
        distortion=0.0,
        duals={"distortion": 0.0, "normalisation": np.zeros(N), "nonnegativity": np.zeros(W.shape)},
        certificate=cert,
        stats=SolverStats("theorem", 0.0, 0.0, 0, (("theorem", theorem),)),
        p_y=p.copy(),
        posterior=W.copy(),
        unit=unit,
        extras={
            "expected_distortion": 0.0,
            "lambda": 0.0,
            "lambda_certified": 0.0,
            "lower_bound_nats": lo,
            "path": "theorem",
            "theorem": theorem,
            "extras_in_nats": ["lambda", "lambda_certified", "lower_bound_nats"],
        },
        bounds=Bounds(float(to_unit(lo, unit)), float(to_unit(up, unit))),
    )


def solve_pd_mip(
    prior: Prior, distortion: float, *, unit: str = "nats", solver: str | None = None
) -> SolveResult:
    """One-shot :class:`PDMIP` solve."""
    return PDMIP(prior, solver=solver).solve(distortion, unit=unit)
