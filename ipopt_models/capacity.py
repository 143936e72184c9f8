r"""Individual channel capacity over the full joint: :math:`\max_{p\in\Delta(\mathcal X)} \max_i I(X_i;Y)`.

Wu, Xia & He (2020), Definition 5 defines :math:`C_1 = \max_{i\in[n],\,X\in\Delta(\mathcal X)} I(X_i;Y)` over *every* joint
distribution of the database, correlated records included.  Theorem 2 reduces it to a finite maximum of
ordinary capacities, :math:`C_1 = \max_i \max_{B\in\mathbb S_i} C(B)` (vertex channels, eq. (48)); the
toolkit evaluates that reduction (:mod:`problems.information`).  This module attacks Definition 5 *directly*:

.. math::

    \max_{i}\ \max_{p\in\Delta(\mathcal X)}\ I_i(p) := \sum_{a,y} J_i(a,y)\ln J_i(a,y)
    - \sum_a p_i(a)\ln p_i(a) - \sum_y q(y)\ln q(y)\qquad [\text{s.t. } H(p)\ge b\,],

with :math:`J_i(a,y) = \sum_{x:\,x_i=a} p(x)W(y|x)`, :math:`p_i = ` the i-th marginal and :math:`q = W^\top p` —
all linear in :math:`p`.  The outer maximum over individuals is taken by
the multistart itself: start ``k`` maximises :math:`I_i` for :math:`i = k \bmod n` (a one-hot CasADi parameter
selects :math:`i`, so one build serves all individuals).  :math:`I_i` is neither concave nor convex in the joint (Lemma 2 of Wu, Xia & He (2020) gives
convexity only in the *channel*), so IPOPT finds local maxima.  Each multistart value is a certified lower
bound on :math:`C_1` (re-evaluated in numpy at a point of the simplex).

What it checks.  No local maximum may exceed the Theorem 2 value (else the reduction (48) would be wrong),
and some start should reach it (the maximum over joints is attained).  The optional entropy constraint
:math:`H(p)\ge b` gives :math:`C_1^b` of Definition 11 (see :mod:`ipopt_models.balance`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from problems.errors import InvalidChannelError, InvalidInputError

from ._common import (
    DEFAULT_REACH_TOL,
    MultistartResult,
    check_starts,
    entropy,
    ipopt_options,
    repair_entropy,
    require_casadi,
    run_multistart,
)

__all__ = [
    "JointCapacityModel",
    "individual_informations",
    "theorem2_value",
    "joint_capacity",
    "JOINT_SIZE_LIMIT",
]

#: Largest number of databases |X| for the joint model (|X| variables, dense linear maps).
JOINT_SIZE_LIMIT = 4096


def _as_array(channel) -> np.ndarray:
    arr = np.asarray(getattr(channel, "array", channel), dtype=float)
    if arr.ndim < 2:
        raise InvalidChannelError(
            f"a privacy channel is an array with one axis per individual and the output axis last; got shape "
            f"{arr.shape}"
        )
    if np.any(arr < -1e-12) or np.any(np.abs(arr.sum(axis=-1) - 1) > 1e-9):
        raise InvalidChannelError("every fibre W[x, :] of the channel must be a pmf over the outputs")
    return np.clip(arr, 0.0, None)


def _maps(W: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Linear maps p ↦ J_i (|X_i|·K × |X|), p ↦ p_i (|X_i| × |X|) and p ↦ q (K × |X|)."""
    sizes = W.shape[:-1]
    K = W.shape[-1]
    D = int(np.prod(sizes))
    M = W.reshape(D, K)
    elems = np.stack(np.unravel_index(np.arange(D), sizes), axis=1)
    A, S = [], []
    for i, s in enumerate(sizes):
        Si = np.zeros((s, D))
        Si[elems[:, i], np.arange(D)] = 1.0
        Ai = (Si[:, None, :] * M.T[None, :, :]).reshape(s * K, D)  # J_i(a, y) = Σ_x 1[x_i=a] W(y|x) p(x)
        A.append(Ai)
        S.append(Si)
    return A, S, M.T.copy()


def _xlogx(v: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v > 0, v * np.log(np.where(v > 0, v, 1.0)), 0.0)


def individual_informations(channel, p: np.ndarray) -> np.ndarray:
    r""":math:`(I(X_1;Y), \dots, I(X_n;Y))` in nats for the joint ``p`` (flat, product order, or shaped)."""
    W = _as_array(channel)
    A, S, Q = _maps(W)
    p = np.asarray(p, dtype=float).ravel()
    return _infos(A, S, Q, p[None, :])[0]


def _infos(A: list[np.ndarray], S: list[np.ndarray], Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Rows of ``P`` are joints; returns (len(P), n) individual informations."""
    hq = _xlogx(P @ Q.T).sum(axis=1)
    out = np.empty((P.shape[0], len(A)))
    for i, (Ai, Si) in enumerate(zip(A, S)):
        out[:, i] = _xlogx(P @ Ai.T).sum(axis=1) - _xlogx(P @ Si.T).sum(axis=1) - hq
    return np.maximum(out, 0.0)


# --------------------------------------------------------------------------------------------- Theorem 2
def _blahut_arimoto(B: np.ndarray, tol: float = 1e-10, max_iter: int = 100_000) -> tuple[float, float]:
    """Capacity bracket (lower, upper) of one channel matrix (fallback when problems.information is absent)."""
    p = np.full(B.shape[0], 1.0 / B.shape[0])
    lo = up = 0.0
    for _ in range(max_iter):
        q = p @ B
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.sum(
                np.where(B > 0, B * np.log(np.where(B > 0, B, 1) / np.where(q > 0, q, 1)), 0.0), axis=1
            )
        lo, up = float(p @ d), float(d.max())
        if up - lo <= tol:
            break
        p = p * np.exp(d - d.max())
        p /= p.sum()
    return lo, up


def theorem2_value(channel) -> tuple[float, float, str]:
    r"""Certified bracket ``(lower, upper, source)`` of :math:`C_1` by Theorem 2 of Wu, Xia & He (2020).

    Uses :func:`problems.information.individual_capacity` when present; otherwise a
    brute-force enumeration of the vertex channels :math:`\mathbb S_i` with a Blahut–Arimoto bracket
    (small channels only).
    """
    W = _as_array(channel)
    try:
        from problems.information.individual import individual_capacity
    except ImportError:  # pragma: no cover - the sibling package is expected
        individual_capacity = None  # type: ignore[assignment]  # the fallback below
    if individual_capacity is not None:
        r = individual_capacity(W, tol=1e-10)
        return float(r.lower_bound), float(r.upper_bound), "problems.information.individual_capacity"
    import itertools

    n = W.ndim - 1
    best_lo = best_up = 0.0
    for i in range(n):
        sl = np.moveaxis(W, i, 0).reshape(W.shape[i], -1, W.shape[-1])
        for choice in itertools.product(range(sl.shape[1]), repeat=sl.shape[0]):
            lo, up = _blahut_arimoto(sl[np.arange(sl.shape[0]), list(choice)])
            best_lo, best_up = max(best_lo, lo), max(best_up, up)
    return best_lo, best_up, "ipopt_models brute-force vertex enumeration"


# ----------------------------------------------------------------------------------------------- model
@dataclass(frozen=True, eq=False)
class JointCapacityModel:
    r"""The IPOPT model :math:`\max_p I_i(p)` s.t. :math:`\sum p = 1`, :math:`H(p)\ge b`; ``b`` and the
    individual ``i`` (one-hot weights) are CasADi parameters, so one build serves a whole δ(b) curve."""

    W: np.ndarray
    solver: object
    A: tuple[np.ndarray, ...]
    S: tuple[np.ndarray, ...]
    Q: np.ndarray

    @classmethod
    def build(cls, channel) -> JointCapacityModel:
        ca = require_casadi()
        W = _as_array(channel)
        D = int(np.prod(W.shape[:-1]))
        if D > JOINT_SIZE_LIMIT:
            raise InvalidInputError(
                f"the joint model has |X| = {D} variables; it accepts |X| ≤ {JOINT_SIZE_LIMIT}"
            )
        A, S, Q = _maps(W)
        n = len(A)
        p = ca.SX.sym("p", D)
        par = ca.SX.sym("par", 1 + n)  # (b, one-hot individual weights)
        b, w = par[0], par[1:]

        def xlogx_sum(mat: np.ndarray) -> Any:  # a casadi.SX expression (CasADi ships no types)
            keep = np.any(mat != 0, axis=1)  # rows that are identically zero contribute 0·log 0 = 0
            v = ca.DM(mat[keep]) @ p
            return ca.sum1(v * ca.log(v))

        hq = xlogx_sum(Q)
        infos = [xlogx_sum(Ai) - xlogx_sum(Si) - hq for Ai, Si in zip(A, S)]
        H = -ca.sum1(p * ca.log(p))
        obj = -sum(w[i] * infos[i] for i in range(n))
        g = ca.vertcat(ca.sum1(p), H - b)
        solver = ca.nlpsol(
            "joint_capacity", "ipopt", {"x": p, "f": obj, "g": g, "p": par}, ipopt_options(max_iter=1000)
        )
        return cls(W, solver, tuple(A), tuple(S), Q)

    @property
    def n_databases(self) -> int:
        return int(np.prod(self.W.shape[:-1]))

    def infos(self, P: np.ndarray) -> np.ndarray:
        """Individual informations of the joints in the rows of ``P`` (numpy)."""
        return _infos(list(self.A), list(self.S), self.Q, np.atleast_2d(P))

    def starts(self, starts: int, seed: int) -> list[np.ndarray]:
        r"""Deterministic starts: joints from Dirichlet(α), α cycling through 1, 0.3, 0.1 (sparser joints,
        nearer the vertex-supported maximisers of Theorem 2)."""
        rng = np.random.default_rng(seed)
        D = self.n_databases
        out = []
        for k in range(starts):
            alpha = (1.0, 0.3, 0.1)[k % 3]
            p0 = rng.dirichlet(np.full(D, alpha))
            p0 = 0.999 * p0 + 0.001 / D  # strictly inside: logs finite at the start
            out.append(p0)
        return out

    def solve(
        self,
        *,
        b: float = 0.0,
        starts: int = 20,
        seed: int = 0,
        tolerance: float = DEFAULT_REACH_TOL,
        reference: float | None = None,
        reference_name: str | None = None,
        model_name: str | None = None,
    ) -> MultistartResult:
        r"""Multistart :math:`C_1^b = \max\{\max_i I(X_i;Y) : H(X)\ge b\}` (``b = 0``: :math:`C_1`)."""
        t0 = time.perf_counter()
        starts, seed = check_starts(starts, seed)
        D = self.n_databases
        hmax = math.log(D)
        b = float(b)
        if not (math.isfinite(b) and -1e-12 <= b <= hmax + 1e-12):
            raise InvalidInputError(f"b must lie in [0, log|X|] = [0, {hmax:.6g}] nats, got {b!r}")
        b = min(max(b, 0.0), hmax)
        name = model_name or ("c1-joint" if b == 0 else "c1b-joint")

        def evaluate(z: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
            p = repair_entropy(z[:D], b) if b > 0 else np.clip(z[:D], 0, None) / np.clip(z[:D], 0, None).sum()
            I = self.infos(p)[0]
            return float(I.max()), {"p_x": p.reshape(self.W.shape[:-1]), "informations": I}

        extras = {"b": b, "log_X": hmax}
        if b >= hmax - 1e-9:  # Δ(X)_b is the single point u (uniform): evaluate, no optimisation needed
            u = np.full(D, 1.0 / D)
            I = self.infos(u)[0]
            return MultistartResult(
                model=name,
                sense="max",
                value=float(I.max()),
                status="uniform_only_feasible_point",
                iterations=0,
                n_starts=1,
                n_success=1,
                n_reached=1,
                tolerance=tolerance,
                reference=reference,
                reference_name=reference_name,
                n_reached_reference=None
                if reference is None
                else int(abs(float(I.max()) - reference) <= tolerance),
                solution={"p_x": u.reshape(self.W.shape[:-1]), "informations": I},
                values=(float(I.max()),),
                status_counts={"uniform_only_feasible_point": 1},
                seed=seed,
                solve_time=time.perf_counter() - t0,
                extras={**extras, "exact": True, "entropy": hmax},
            )
        n = len(self.A)
        bounds = {"lbx": np.zeros(D), "ubx": np.ones(D), "lbg": np.array([1.0, 0.0]), "ubg": [1.0, np.inf]}
        onehot = np.eye(n)
        res = run_multistart(
            model=name,
            sense="max",
            solver=self.solver,
            starts=self.starts(starts, seed),
            bounds=bounds,
            parameters=[np.concatenate([[b], onehot[k % n]]) for k in range(starts)],
            evaluate=evaluate,
            seed=seed,
            t_start=t0,
            reference=reference,
            reference_name=reference_name,
            tolerance=tolerance,
            extras=extras,
        )
        p = np.asarray(res.solution["p_x"]).ravel()
        return MultistartResult(**{**res.__dict__, "extras": {**res.extras, "entropy": entropy(p)}})


def joint_capacity(
    channel,
    *,
    starts: int = 20,
    seed: int = 0,
    tolerance: float = DEFAULT_REACH_TOL,
    compare: bool = True,
) -> MultistartResult:
    r"""Multistart IPOPT on Definition 5 of Wu, Xia & He (2020), checked against Theorem 2 (``compare=True``).

    ``extras`` carries the Theorem 2 bracket (``theorem2_lower``, ``theorem2_upper``); ``reference`` is its
    lower end (attained by a concrete adversary).
    """
    model = JointCapacityModel.build(channel)
    ref = ref_name = None
    extra = {}
    if compare:
        lo, up, src = theorem2_value(model.W)
        ref, ref_name = lo, f"Theorem 2 of Wu, Xia & He (2020) ({src})"
        extra = {"theorem2_lower": lo, "theorem2_upper": up}
    res = model.solve(
        b=0.0,
        starts=starts,
        seed=seed,
        tolerance=tolerance,
        reference=ref,
        reference_name=ref_name,
        model_name="c1-joint",
    )
    return MultistartResult(**{**res.__dict__, "extras": {**res.extras, **extra}})
