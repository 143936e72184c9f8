r"""
Modelling layer: the truncated geometric mechanism
==================================================

Ghosh, Roughgarden & Sundararajan (2009) proved that for a count query on :math:`\{0, \dots, n\}`
(neighbours :math:`|i - j| = 1`), *any* prior and any loss monotone in :math:`|i - r|`, an optimal
:math:`\epsilon`-differentially private mechanism is a remapping of one mechanism: the truncated geometric
mechanism with :math:`\alpha = e^{-\epsilon}`,

.. math::

    G[i, r] = \frac{1 - \alpha}{1 + \alpha}\, \alpha^{|i - r|}\ (0 < r < n), \qquad
    G[i, 0] = \frac{\alpha^{i}}{1 + \alpha}, \qquad G[i, n] = \frac{\alpha^{n - i}}{1 + \alpha}.

The modelling layer poses the question directly — prior, loss, privacy constraint — and returns a certified
optimum. The reference is computed without the model: the best remap of :math:`G`, a small linear program
solved by SciPy.
"""

import math

import numpy as np
from scipy.optimize import linprog

from problems.model import MechanismModel, losses, privacy
from problems.plotting import new_figure

n = 5
prior = np.random.default_rng(0).dirichlet(np.ones(n + 1))
L = losses.absolute(np.arange(n + 1))  # L[i, r] = |i - r|
line = np.stack([np.arange(n), np.arange(1, n + 1)], axis=1)  # neighbours i ~ i + 1


def truncated_geometric(eps: float) -> np.ndarray:
    a = math.exp(-eps)
    i, r = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    G = (1 - a) / (1 + a) * a ** np.abs(i - r)
    G[:, 0] = a ** i[:, 0] / (1 + a)
    G[:, n] = a ** (n - i[:, 0]) / (1 + a)
    return G


def best_remap(G: np.ndarray) -> float:
    """min over row-stochastic remaps T of E L(X, T(G(X))), by scipy.optimize.linprog."""
    R, S = G.shape[1], L.shape[1]
    C = (prior[:, None] * G).T @ L
    res = linprog(C.ravel(), A_eq=np.kron(np.eye(R), np.ones((1, S))), b_eq=np.ones(R), bounds=(0, None))
    return float(res.fun)


for eps in (0.25, 0.5, 1.0, 2.0):
    res = MechanismModel(prior, L).add(privacy.differential(eps, neighbours=line)).solve()
    ref = best_remap(truncated_geometric(eps))
    print(f"eps = {eps}: model {res.value:.9f} ({res.status}, {res.path})   GRS remap {ref:.9f}")
    assert res.certified and abs(res.value - ref) <= 1e-8

# %%
# The optimal mechanism at ε = 1
# ------------------------------
# Rows are inputs, columns outputs; mass concentrates near the diagonal and at the ends, as in :math:`G`.

res = MechanismModel(prior, L).add(privacy.differential(1.0, neighbours=line)).solve()
fig, ax = new_figure(figsize=(4.6, 3.8))
image = ax.imshow(res.matrix, cmap="viridis", vmin=0, vmax=1)
ax.set_xlabel("output r")
ax.set_ylabel("input i (count)")
ax.set_title(rf"optimal 1-DP mechanism, E|i − r| = {res.value:.4f}", fontsize=10)
fig.colorbar(image, ax=ax, label="p(r | i)")
