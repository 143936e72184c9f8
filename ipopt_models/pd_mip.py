r"""PD-MIP as a smooth NLP (Wang, Ying & Zhang 2016, (28)–(30)), checked against the exponential-cone optimum.

.. math::

    \epsilon^*_{\mathrm m}(D) = \min_{W}\ \sum_x p_X(x)\sum_y W(y|x)\ln W(y|x) - \sum_y q(y)\ln q(y)
    \quad\text{s.t.}\quad \sum_{x,y} p_X(x)W(y|x)d(x,y)\le D,\ \ \sum_y W(y|x)=1,\ \ W\ge 0,

with :math:`q = p_X^\top W`.  The objective is :math:`I(X;Y)`, convex in the channel, so every KKT point is
global and the multistart should collapse to one value: the check is agreement with
:class:`problems.programs.PDMIP` (Clarabel/SCS on exponential cones) to the stated tolerance, from IPOPT with
exact second derivatives — an independent algorithm on an independent formulation.  The reported value is at
a point made exactly feasible (rows renormalised; if the distortion exceeds D, mixed with the identity
channel, which has zero distortion), so it is a certified upper bound on :math:`\epsilon^*_{\mathrm m}(D)`.
"""

from __future__ import annotations

import time

import numpy as np

from problems.closed_forms import check_distortion
from problems.errors import InvalidInputError
from problems.measures import mutual_information
from problems.priors import Prior

from ._common import MultistartResult, check_starts, ipopt_options, require_casadi, run_multistart

__all__ = ["pd_mip_nlp", "PD_MIP_SIZE_LIMIT"]

#: Largest N accepted (N² variables).
PD_MIP_SIZE_LIMIT = 64


def pd_mip_nlp(
    prior: Prior,
    distortion: float,
    *,
    starts: int = 5,
    seed: int = 0,
    tolerance: float = 1e-5,
    compare: bool = True,
) -> MultistartResult:
    """Multistart IPOPT on PD-MIP; ``reference`` is :class:`problems.programs.PDMIP`'s value (nats).

    The default ``tolerance`` (1e-5) reflects the conic solver's accuracy, not IPOPT's (see the docs).
    """
    t0 = time.perf_counter()
    starts, seed = check_starts(starts, seed)
    space = prior.space
    N = space.size
    if N > PD_MIP_SIZE_LIMIT:
        raise InvalidInputError(f"the PD-MIP NLP accepts N ≤ {PD_MIP_SIZE_LIMIT} databases, got N = {N}")
    D = check_distortion(distortion, space.n)
    d = space.hamming_matrix().astype(float)
    p = prior.pmf
    ca = require_casadi()
    w = ca.SX.sym("w", N * N)
    W = ca.reshape(w, N, N).T  # row-major: W[x, y] = w[x*N + y]
    q = (ca.DM(p).T @ W).T
    keep = p > 0
    obj = 0
    for x in np.flatnonzero(keep):
        row = W[int(x), :]
        obj += float(p[x]) * ca.sum2(row * ca.log(row))
    obj -= ca.sum1(q * ca.log(q))
    dist = ca.sum1(ca.sum2(ca.DM(p[:, None] * d) * W))
    g = ca.vertcat(ca.sum2(W), dist)
    solver = ca.nlpsol("pd_mip", "ipopt", {"x": w, "f": obj, "g": g}, ipopt_options())
    bounds = {
        "lbx": np.zeros(N * N),
        "ubx": np.ones(N * N),
        "lbg": np.concatenate([np.ones(N), [-np.inf]]),
        "ubg": np.concatenate([np.ones(N), [D]]),
    }
    rng = np.random.default_rng(seed)
    x0s = [rng.dirichlet(np.ones(N), size=N).ravel() for _ in range(starts)]

    def evaluate(xv: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        Wv = np.clip(xv.reshape(N, N), 0.0, None)
        Wv /= Wv.sum(axis=1, keepdims=True)
        e = float(np.sum(p[:, None] * d * Wv))
        if e > D:  # mix with the identity (distortion 0): exact feasibility
            t = (e - D) / e
            Wv = (1 - t) * Wv + t * np.eye(N)
        return mutual_information(Wv, p), {"mechanism": Wv, "expected_distortion": np.array(min(e, D))}

    reference = None
    extras: dict = {"distortion_bound": D}
    if compare:
        from problems.programs import PDMIP

        ref = PDMIP(prior).solve(D)
        reference = float(ref.value)
        extras["conic_lower_bound"] = float(ref.extras["lower_bound_nats"])
        extras["conic_solver"] = ref.stats.solver
    return run_multistart(
        model="pd-mip-nlp",
        sense="min",
        solver=solver,
        starts=x0s,
        bounds=bounds,
        evaluate=evaluate,
        seed=seed,
        t_start=t0,
        reference=reference,
        reference_name="PD-MIP exponential-cone program (problems.programs.PDMIP)" if compare else None,
        tolerance=tolerance,
        extras=extras,
    )
