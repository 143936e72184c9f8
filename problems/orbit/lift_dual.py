r"""Lift a reduced primal–dual pair to the full (dense) ratio LP and certify it there.

The dense LP of :class:`problems.programs.ratio_lp.RatioLP` (PD-DP: κ = 1; PD-I in W = q/p_X: κ_{xx'} =
p_X(x')/p_X(x)) is

.. math::

    \min_W \sum_{x,y} p_X(x) d(x,y) W_{xy}\ \text{s.t.}\ \sum_y W_{xy} = 1,\
    W_{xy} - e^{\epsilon}\kappa_{xx'} W_{x'y} \le 0\ (x\sim x',\ y),\ -W \le 0 .

The reduced LP (joint types T, u_T = c(T|t) W_{xy} for (x, y) ∈ T, ratio row of move p'
u_T − e^ε κ' u_T' ≤ 0) has multipliers ν'_t, λ'_{p'}, μ'_T.  With N_t = n!/Π_a t_a! (databases of type t) the
*lift* is

* W_{xy} = u_{T(x,y)} / c(T|t(x)),
* ν_x = ν'_{t(x)} / N_{t(x)},
* λ_{(x,x'),y} = λ'_{p'} / (N_t T_{ab}) for the move p' from T(x,y) to T(x',y) (a = x_k, b = y_k in the
  row k where x and x' differ),
* μ_{xy} = μ'_{T(x,y)} / N_{t(x)}.

Why: a move p' is the image of N_t c(T|t) T_ab dense triples (x, x', y) (pick (x, y) in the orbit, then one of
the T_ab rows with (x_k, y_k) = (a, b)), each dense row equals (u_T − e^ε κ' u_T')/c(T|t), so the lifted
Lagrangian restricted to orbit-constant W *is* the reduced Lagrangian; the lifted multipliers are
group-invariant, so the dense Lagrangian gradient is orbit-constant and equals (reduced gradient)/N_t.  Hence
the dense stationarity residual is the reduced one divided by N_t ≥ 1, complementarity products are divided
by N_t c(T|t) T_ab, and the objective and the gap are equal.  :func:`lifted_certificate` repairs the lifted
point on the dense LP and bounds the dense optimum from the lifted multipliers
(:func:`problems.lp.bounds.certify`): an independent proof, on the dense LP, of the reduced value
(``tests/orbit/test_lift_dual.py``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from ..certificate import Certificate
from ..errors import InvalidInputError
from ..indexing import pair_keys
from ..lp.bounds import certify
from ..result import SolveResult
from ..solvers.chain import certificate_of

__all__ = ["lift_duals", "lifted_certificate"]


def lift_duals(program, result: SolveResult, pairs: tuple[np.ndarray, np.ndarray]):
    """``(W, ν, λ, μ)`` of the dense LP lifted from a joint-type reduced ``result`` of ``program``.

    ``program`` is a :class:`~problems.orbit.ReducedPDDP` or :class:`~problems.orbit.ReducedPDI` with a
    joint-type reduction; ``pairs`` are the dense neighbour pairs (``DatabaseSpace.neighbour_pairs``), whose
    ratio rows are ordered (pair p, output y) → p·N + y as in :class:`~problems.programs.ratio_lp.RatioLP`.
    """
    J = getattr(program, "types", None)
    if J is None or result.extras.get("reduction") != "joint-type":
        raise InvalidInputError("lift_duals needs a joint-type reduced program and its result")
    lp = program.lp
    n, m = J.n, J.m
    space = program.space
    X = space.elements
    idx = J.pair_index(X, X)  # (N, N) joint-type index of (x, y)
    u = np.asarray(result.extras["u"], dtype=float)
    logc = J.log_count_given_x
    W = u[idx] / np.exp(logc[idx])
    t_of_x = J.x_type_index(np.stack([(X == a).sum(axis=1) for a in range(m)], axis=1))
    logN_t = gammaln(n + 1.0) - gammaln(J.x_types + 1.0).sum(axis=1)  # ln N_t
    Nx = np.exp(logN_t[t_of_x])
    nu = np.asarray(result.duals["normalisation"], dtype=float)[t_of_x] / Nx
    mu = np.asarray(result.duals["nonnegativity"], dtype=float)[idx] / Nx[:, None]
    # reduced move of every dense row (p, y): src T(x, y), dst T(x', y)
    pi, pj = pairs
    src = idx[pi]  # (P, N)
    dst = idx[pj]
    key = pair_keys(lp.spec.src, lp.spec.dst, J.size)
    order = np.argsort(key)
    wanted = pair_keys(src, dst, J.size).ravel()
    pos = np.searchsorted(key[order], wanted)
    move = order[np.clip(pos, 0, key.size - 1)]
    if not np.array_equal(key[move], wanted):
        raise InvalidInputError("some dense ratio row has no reduced move (wrong program or pairs?)")
    # T_ab of the source cell: a = x_k, b = y_k in the row k where x and x' differ
    k = np.argmax(X[pi] != X[pj], axis=1)  # (P,)
    a = X[pi, k]
    b = X[:, k].T  # (P, N): y_k for every y
    cell = a[:, None] * m + b
    T_ab = J.flat[src, cell].astype(float)
    lam_red = np.asarray(result.duals["ratio"], dtype=float)
    lam = lam_red[move].reshape(src.shape) / (Nx[pi][:, None] * T_ab)
    return W, nu, lam.ravel(), mu


def lifted_certificate(program, result: SolveResult, dense_lp) -> Certificate:  # noqa: ANN001
    """Certificate of the lifted pair on the dense LP ``dense_lp`` (a ``RatioLP`` with the κ of the program):
    KKT residuals at the lifted point and rigorous bounds on the *dense* optimum."""
    W, nu, lam, _mu = lift_duals(program, result, dense_lp.pairs)
    spec = dense_lp.spec
    if result.eps is None:
        raise InvalidInputError(
            "a lifted certificate needs the result of a PD-DP / PD-I / R-PD solve at some ε"
        )
    proof = certify(spec, float(result.eps), W.ravel(), nu, lam)
    z = proof.z if proof.z is not None else W.ravel()
    return certificate_of(
        spec, float(result.eps), z, nu, np.clip(lam, 0.0, None), proof.reduced_costs, proof.bounds
    )
