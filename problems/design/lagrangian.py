r"""The design program's certificate: safe lower bounds from its Lagrangian.

With multipliers λ of the vertex-channel capacity rows, the Lagrangian of the capacity-limited design program
is minimised over mechanisms W for fixed output laws q (alternating minimisation) or bounded through its
linearisation at the returned W; either value is a lower bound on the optimum (weak duality), which
:class:`~problems.design.program.IPDesign` reports beside the returned mechanism's own distortion.
"""

from __future__ import annotations

import numpy as np
from scipy.special import rel_entr

from .problem import VertexSet

__all__: list[str] = []


def _lagrangian_terms(W, q, rows, vert, lam, C):
    Wk, Qk = W[rows], q[vert]
    L = float(np.sum(C * W) + lam @ rel_entr(Wk, Qk).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        gW_rows = lam[:, None] * (np.log(Wk / Qk) + 1.0)
        gq_rows = -lam[:, None] * Wk / Qk
    gW = C.copy()
    np.add.at(gW, rows, gW_rows)
    gq = np.zeros_like(q)
    np.add.at(gq, vert, gq_rows)
    return L, gW, gq


def _alternating(W, q, vs: VertexSet, lam, C, iters: int):
    """Block-coordinate minimisation of L(·, λ) over Z (closed-form blocks), yielding the iterates.

    q-step: q_B = λ-mixture of the rows of B; W-step: each row is a Gibbs distribution
    W_x ∝ exp(-(C_x - Σ_k λ_k log q_{B_k}) / Λ_x) (or the argmin of C_x when Λ_x = 0).
    """
    R, K = W.shape
    lam_row = np.bincount(vs.rows, weights=lam, minlength=R)
    lam_v = np.bincount(vs.vertex, weights=lam, minlength=vs.count)
    pos = lam_row > 0
    base = np.zeros((R, K))
    base[np.arange(R), np.argmin(C, axis=1)] = 1.0
    for _ in range(iters):
        mix = np.zeros_like(q)
        np.add.at(mix, vs.vertex, lam[:, None] * W[vs.rows])
        q = np.where(lam_v[:, None] > 0, mix / np.where(lam_v > 0, lam_v, 1.0)[:, None], q)
        S = np.zeros((R, K))
        np.add.at(S, vs.rows, lam[:, None] * np.log(np.maximum(q[vs.vertex], 1e-300)))
        E = -(C - S) / np.where(pos, lam_row, 1.0)[:, None]
        E -= E.max(axis=1, keepdims=True)
        G = np.exp(E)
        W = np.where(pos[:, None], G / G.sum(axis=1, keepdims=True), base)
        yield W, q


def _lagrangian_bound(W, q, vs: VertexSet, lam, C, const, iters: int = 60) -> tuple[float, float]:
    """Rigorous lower bound on the program's optimum from multipliers ``lam`` (:mod:`problems.design.program`).

    The linearisation bound is evaluated at the solver's point and along a few closed-form block-coordinate
    steps towards the minimiser of L(·, λ) (any point gives a valid bound; the best is kept).
    Returns ``(bound, frank_wolfe_gap)``; the gap is how far the solver's (W, q) is from minimising the
    Lagrangian over Z (a stationarity residual).
    """
    lam = np.clip(lam, 0.0, None)
    best, fw_gap = _linearised_bound(W, q, vs, lam, C, const)
    if vs.count and iters:
        Wc = np.clip(W, 0.0, None)
        Wc = Wc / Wc.sum(axis=1, keepdims=True)
        for k, (Wa, qa) in enumerate(_alternating(Wc, np.clip(q, 1e-300, None), vs, lam, C, iters)):
            if k % 10 == 9:
                b, _ = _linearised_bound(Wa, qa, vs, lam, C, const)
                best = max(best, b)
    return best, fw_gap


def _linearised_bound(W, q, vs: VertexSet, lam, C, const) -> tuple[float, float]:
    R, K = W.shape
    best, best_gap = -np.inf, np.inf
    Wc = np.clip(W, 0.0, None)
    Wc = Wc / Wc.sum(axis=1, keepdims=True)
    qc = np.clip(q, 0.0, None)
    if qc.size:
        qc = qc / np.maximum(qc.sum(axis=1, keepdims=True), 1e-300)
    for delta in (1e-12, 1e-10, 1e-8, 1e-6, 1e-4):
        Wd = (1 - delta) * Wc + delta / K
        qd = (1 - delta) * qc + delta / K
        L, gW, gq = _lagrangian_terms(Wd, qd, vs.rows, vs.vertex, lam, C)
        fw = float(np.sum(gW.min(axis=1)) - np.sum(gW * Wd))
        if qd.size:
            fw += float(np.sum(gq.min(axis=1)) - np.sum(gq * qd))
        bound = L + const + fw
        if np.isfinite(bound) and bound > best:
            best, best_gap = bound, -fw
        if vs.count:
            # partial minimisation over q in closed form: q_B = sum_a lam_a W_a / sum_a lam_a (the λ-mixture);
            # h(W) = min_q L(W, q) is convex with gradient ∂_W L(W, q*(W)) (envelope theorem).
            Lam = np.bincount(vs.vertex, weights=lam, minlength=vs.count)
            mix = np.zeros_like(qd)
            np.add.at(mix, vs.vertex, lam[:, None] * Wd[vs.rows])
            qs = np.where(Lam[:, None] > 0, mix / np.where(Lam > 0, Lam, 1.0)[:, None], qd)
            L2, gW2, _ = _lagrangian_terms(Wd, qs, vs.rows, vs.vertex, lam, C)
            fw2 = float(np.sum(gW2.min(axis=1)) - np.sum(gW2 * Wd))
            bound2 = L2 + const + fw2
            if np.isfinite(bound2) and bound2 > best:
                best, best_gap = bound2, -fw2
    return best, best_gap


def _divergence_rows(W, q, vs: VertexSet) -> np.ndarray:
    if not vs.count:
        return np.zeros(0)
    return rel_entr(W[vs.rows], q[vs.vertex]).sum(axis=1)
