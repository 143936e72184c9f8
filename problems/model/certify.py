r"""Certificate of a model solved through CVXPY: an exactly feasible mechanism and a Lagrangian lower bound.

*Upper bound.*  The solver's W is clipped at 0 and row-normalised, then every toolkit constraint is tested
with a relative safety margin η (``holds(W, ctx, η)``, η = max(1e-12, 8·γ_{NK}) with γ_k = 2(k+2)·2⁻⁵³, far
above the rounding error of the sums involved, including the row normalisation).  If a test fails, W is
mixed with a *reference mechanism* that satisfies the constraints strictly — the constant mechanism
:math:`W_0[x,:] = r` (r = ½ p_Y + ½ uniform), which satisfies every DP, (ε,δ)-DP, local, metric,
mutual-information and capacity constraint, and identifiability for ε > ε_X; the best constant mechanism
(all mass on argmin_y Σ_x p(x)L[x,y]; I(X;Y) = 0 exactly); the minimum-loss mechanism, which satisfies a
loss cap; or the uniform one — and the smallest mixing weight that passes is found by bisection (the
feasible part of the segment is an interval, the constraints being convex).  The references themselves
are candidates too; the candidate of smallest objective is returned, and its objective plus the margin
is the upper bound.

*Lower bound.*  Only the constraints outside the domain Z (rows of W and of every q_B in the simplex,
every slack t in [0, 1]) are dualised, with the solver's multipliers clipped to λ ≥ 0.  The Lagrangian
:math:`\mathcal L(\cdot, \lambda)` is convex on Z, so for any point z̄ of Z

.. math:: \min_{z \in \text{feasible}} f(z) \;\ge\; \min_{z\in Z}\mathcal L(z,\lambda) \;\ge\;
          \mathcal L(\bar z,\lambda) + \min_{z\in Z} \nabla\mathcal L(\bar z,\lambda)^\top (z - \bar z),

the right-hand side in closed form (the smallest gradient entry of every simplex row, the negative part of
every box entry).  For a linear program this is exactly the safe dual bound of Neumaier & Shcherbina (2004)
with the box [0, 1] (a probability is at most 1; a slack t of (ε,δ)-DP can be capped at 1 without changing
the feasible mechanisms).  It is evaluated at z̄ = (1 − δ)·(solver's point) + δ·(centre of Z) for a few δ,
the best kept, and lowered by 64·k·2⁻⁵³·(1 + Σ|terms|), where Σ|terms| sums the absolute values of every
term of the Lagrangian and of its gradient (``LagTerm.size``, ``gW_abs``), so cancellation is covered.

Unlike the LP core (``docs/certificates.md``), these bounds are evaluated in floating point with one
margin rather than term by term with directed rounding — the same standard as PD-MIP's.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..solvers.settings import UNIT_ROUNDOFF as _U
from .privacy import ModelContext, PrivacyConstraint

__all__ = ["margin_eta", "feasible_mixture", "repair", "lagrangian_bound", "Repair"]


def margin_eta(N: int, K: int) -> float:
    """The relative safety margin η of the feasibility tests."""
    return max(1e-12, 8 * 2.0 * (N * K + 2) * _U)


def _normalise(W: np.ndarray) -> np.ndarray:
    W = np.clip(np.nan_to_num(np.asarray(W, dtype=float), nan=0.0, posinf=0.0, neginf=0.0), 0.0, None)
    s = W.sum(axis=1, keepdims=True)
    K = W.shape[1]
    return np.where(s > 0, W / np.where(s > 0, s, 1.0), 1.0 / K)


@dataclass(frozen=True)
class Repair:
    """An exactly feasible mechanism (``W``) obtained by mixing with ``reference`` at weight ``t``."""

    W: np.ndarray | None
    t: float
    reference: str


def _all_hold(W, cons, ctx, eta) -> bool:
    return all(c.holds(W, ctx, eta) for c in cons)


def feasible_mixture(
    W: np.ndarray | None, cons: list[PrivacyConstraint], ctx: ModelContext, objective, eta: float
) -> Repair:
    """The best (lowest ``objective``) exactly feasible mixture of W with a reference mechanism.

    Formerly ``repair``, a name that :func:`problems.lp.bounds.repair` (the exact repair of an LP point)
    also has; ``repair`` still works until the next release, with a ``DeprecationWarning``.
    """
    N, K = ctx.N, ctx.K
    W0 = _normalise(W) if W is not None else np.full((N, K), 1.0 / K)
    candidates: list[Repair] = []
    if _all_hold(W0, cons, ctx, eta):
        candidates.append(Repair(W0, 0.0, "none"))
    r = 0.5 * (ctx.prior @ W0) + 0.5 / K
    const = np.tile(r / r.sum(), (N, 1))
    best_col = np.zeros((N, K))
    best_col[:, int(np.argmin(ctx.prior @ ctx.loss))] = 1.0
    minloss = np.zeros((N, K))
    minloss[np.arange(N), np.argmin(ctx.loss, axis=1)] = 1.0
    refs = (
        ("constant", const),
        ("best-constant", best_col),
        ("min-loss", minloss),
        ("uniform", np.full((N, K), 1.0 / K)),
    )
    for name, ref in refs:
        if not _all_hold(ref, cons, ctx, eta):
            continue
        candidates.append(Repair(ref, 1.0, name))
        if candidates[0].reference == "none":
            continue  # W itself is feasible: the reference competes only as an endpoint
        lo, hi = -16.0, 0.0  # log10 t: the feasible weights form an interval [t*, 1]
        if _all_hold(_normalise((1 - 1e-16) * W0 + 1e-16 * ref), cons, ctx, eta):
            hi = lo
        else:
            for _ in range(14):
                mid = 0.5 * (lo + hi)
                t = 10.0**mid
                if _all_hold(_normalise((1 - t) * W0 + t * ref), cons, ctx, eta):
                    hi = mid
                else:
                    lo = mid
        if hi < 0:
            t = 10.0**hi
            Wt = _normalise((1 - t) * W0 + t * ref)
            if _all_hold(Wt, cons, ctx, eta):
                candidates.append(Repair(Wt, t, name))
    if not candidates:
        return Repair(None, math.nan, "none")
    return min(candidates, key=lambda c: objective(c.W))


def lagrangian_bound(
    W: np.ndarray,
    aux: list[list[np.ndarray]],
    domains: list[list[str]],
    lagrangians,
    mults: list[list[np.ndarray]],
    f_and_grad,
    linear: bool,
    extra_points: Sequence[np.ndarray] = (),
) -> tuple[float, float]:
    """Rigorous (up to the stated margin) lower bound on the optimum, and the Frank–Wolfe gap at the solver's point.

    ``aux[b]``, ``domains[b]`` and ``mults[b]`` are the auxiliary values, their domains and the multipliers of
    the b-th constraint (whose Lagrangian term is ``lagrangians[b]``); ``f_and_grad(W)`` the objective.
    """
    N, K = W.shape
    best, fw_best = -math.inf, math.inf
    for k, point in enumerate([W, *extra_points]):
        b, fw = _bound_at(point, aux, domains, lagrangians, mults, f_and_grad, linear)
        if b > best:
            best = b
        if k == 0:
            fw_best = fw
    return best, fw_best


def _bound_at(W, aux, domains, lagrangians, mults, f_and_grad, linear) -> tuple[float, float]:
    N, K = W.shape
    Wc = _normalise(W)
    best, fw_best = -math.inf, math.inf
    deltas = (0.0,) if linear else (0.0, 1e-12, 1e-10, 1e-8, 1e-6, 1e-4)
    mults = [
        [np.clip(np.nan_to_num(np.atleast_1d(np.asarray(m, float))), 0.0, None) for m in ms] for ms in mults
    ]
    for delta in deltas:
        Wd = (1 - delta) * Wc + delta / K
        if not linear and delta == 0.0 and np.any(Wd <= 0):
            continue
        f, gW = f_and_grad(Wd)
        gW = np.array(gW, dtype=float)
        gabs = np.abs(gW)
        total, scale, terms = f, abs(f) + float(np.sum(gabs * Wd)), N * K
        aux_parts = []
        for b, lag in enumerate(lagrangians):
            pts = []
            for a, dom in zip(aux[b], domains[b]):
                a = np.clip(np.nan_to_num(np.asarray(a, float)), 0.0, None)
                if dom == "simplex":
                    s = a.sum(axis=1, keepdims=True)
                    a = np.where(s > 0, a / np.where(s > 0, s, 1.0), 1.0 / a.shape[1])
                    a = (1 - delta) * a + delta / a.shape[1]
                else:
                    a = (1 - delta) * np.minimum(a, 1.0) + delta * 0.5
                pts.append(a)
                terms += a.size
            term = lag(Wd, pts, mults[b])
            total += term.value
            scale += term.size
            gW = gW + term.gW
            gabs = gabs + term.gW_abs
            aux_parts.append((pts, domains[b], term.gaux, term.gaux_abs))
        # every gradient entry is off by at most ~k·u·gabs: the min picks up one entry per row
        lin = float(np.sum(gW.min(axis=1)) - np.sum(gW * Wd))
        scale += float(np.sum(gabs.max(axis=1))) + float(np.sum(gabs * Wd))
        for pts, doms, grads, absg in aux_parts:
            for a, dom, g, ga in zip(pts, doms, grads, absg):
                if dom == "simplex":
                    lin += float(np.sum(g.min(axis=1)) - np.sum(g * a))
                    scale += float(np.sum(ga.max(axis=1)))
                else:
                    lin += float(np.sum(np.minimum(g, 0.0)) - np.sum(g * a))
                    scale += float(np.sum(ga))
                scale += float(np.sum(ga * a))
        bound = total + lin
        if not math.isfinite(bound):
            continue
        bound -= 64.0 * terms * _U * (1.0 + scale)
        if bound > best:
            best, fw_best = bound, -lin
    return best, fw_best


def blahut_points(
    p: np.ndarray, G: np.ndarray, mu: float, W: np.ndarray, iters: int = 400, every: int = 25
) -> list[np.ndarray]:
    r"""Iterates of the Blahut–Arimoto map for :math:`\min_W \langle G, W
    angle + \mu I(X;Y)` over row-stochastic W.

        With q fixed the minimiser of each row is the Gibbs distribution :math:`W[x,\cdot] \propto q\,
        e^{-G[x,\cdot]/(\mu p(x))}`, then q ← pᵀW (Blahut 1972).  The iterates approach the minimiser of the
        Lagrangian in W, where the linearisation bound is tight; they serve only as evaluation points of the
        bound (any point gives a valid bound).
    """
    from scipy.special import logsumexp

    N, K = W.shape
    pos = p > 0
    q = np.clip(p @ _normalise(W), 1e-300, None)
    base = np.zeros((N, K))
    base[np.arange(N), np.argmin(G, axis=1)] = 1.0
    out = []
    scale = mu * np.where(pos, p, 1.0)[:, None]
    for k in range(1, iters + 1):
        logW = np.log(q)[None, :] - G / scale
        logW -= logsumexp(logW, axis=1, keepdims=True)
        Wk = np.where(pos[:, None], np.exp(logW), base)
        q = np.clip(p @ Wk, 1e-300, None)
        if k % every == 0:
            out.append(Wk)
    return out


def repair(
    W: np.ndarray | None, cons: list[PrivacyConstraint], ctx: ModelContext, objective, eta: float
) -> Repair:
    """Deprecated name of :func:`feasible_mixture` (removed in the next release)."""
    warnings.warn(
        "problems.model.certify.repair is now feasible_mixture (the old name stops working in the next "
        "release)",
        DeprecationWarning,
        stacklevel=2,
    )
    return feasible_mixture(W, cons, ctx, objective, eta)
