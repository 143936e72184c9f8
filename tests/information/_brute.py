"""Independent brute force for Theorem 2: local maximisation of I(X_i;Y) over the full joint p(x)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize


def mi_and_grad(p: np.ndarray, W: np.ndarray, i: int) -> tuple[float, np.ndarray]:
    """I(X_i;Y) for the joint p (shape record_sizes) and channel W (record_sizes + (|Y|,)), with d/dp."""
    n = p.ndim
    pm = np.moveaxis(p, i, 0)
    Wm = np.moveaxis(W, i, 0)
    A = pm.shape[0]
    J = np.einsum("ar,ary->ay", pm.reshape(A, -1), Wm.reshape(A, -1, W.shape[-1]))
    P = J.sum(1)
    Q = J.sum(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.where(J > 0, np.log(J) - np.log(P)[:, None] - np.log(Q)[None, :], 0.0)
        val = float(np.sum(J * L))
        logJ = np.log(np.maximum(J, 1e-300))
        logQ = np.log(np.maximum(Q, 1e-300))
        logP = np.log(np.maximum(P, 1e-300))
    # dI/dp(x) = sum_y W(y|x)(log J(a,y) - log Q_y) - log P_a - 1
    g = np.einsum("a...y,ay->a...", Wm, logJ - logQ[None, :]) - logP.reshape((A,) + (1,) * (n - 1)) - 1
    return val, np.moveaxis(g, 0, i)


def brute_force_c1(W: np.ndarray, *, starts: int = 12, seed: int = 0, bound: float = 40.0) -> float:
    """max_i max_p I(X_i;Y) by multistart L-BFGS-B over softmax logits of the joint p(x)."""
    rng = np.random.default_rng(seed)
    sizes = W.shape[:-1]
    N = int(np.prod(sizes))
    best = 0.0
    for i in range(len(sizes)):

        def f(z, i=i):
            e = np.exp(z - z.max())
            p = (e / e.sum()).reshape(sizes)
            v, g = mi_and_grad(p, W, i)
            g = g.reshape(-1)
            pf = p.reshape(-1)
            return -v, -(pf * (g - pf @ g))

        for _ in range(starts):
            z0 = rng.normal(scale=3.0, size=N)
            r = minimize(
                f,
                z0,
                jac=True,
                method="L-BFGS-B",
                bounds=[(-bound, bound)] * N,
                options={"maxiter": 5000, "ftol": 1e-15, "gtol": 1e-12},
            )
            best = max(best, -float(r.fun))
    return best
