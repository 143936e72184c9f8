r"""
Modelling layer: (ε, δ)-differential privacy on a binary input
==============================================================

With two inputs, a uniform prior and the 0–1 loss, the least error of an :math:`(\epsilon, \delta)`-DP
mechanism is

.. math::

    \min \Pr[Y \ne X] = \frac{1 - \delta}{1 + e^\epsilon}:

add the two hockey-stick inequalities :math:`P_{FA} + e^\epsilon P_{MD} \ge 1 - \delta` and
:math:`e^\epsilon P_{FA} + P_{MD} \ge 1 - \delta`; randomized response shifted by :math:`\delta` attains
the bound. The model states the constraint as the hockey-stick divergence
:math:`\sum_y \max(0, W[x, y] - e^\epsilon W[x', y]) \le \delta`, a convex program that the toolkit
certifies.
"""

import numpy as np

from problems.model import MechanismModel, losses, privacy
from problems.plotting import new_figure

eps_grid = np.linspace(0.0, 3.0, 7)
fig, ax = new_figure(figsize=(6.0, 3.8))
for k, delta in enumerate((0.0, 0.05, 0.2)):
    values = []
    for eps in eps_grid:
        res = (
            MechanismModel([0.5, 0.5], losses.zero_one(2)).add(privacy.approximate(float(eps), delta)).solve()
        )
        assert res.certified
        values.append(res.value)
    closed = (1 - delta) / (1 + np.exp(eps_grid))
    print(
        f"delta = {delta}: path {res.path}, largest |model - (1-delta)/(1+e^eps)| = "
        f"{np.max(np.abs(np.array(values) - closed)):.2e}"
    )
    assert np.allclose(values, closed, rtol=0, atol=1e-9)
    fine = np.linspace(0, 3.1, 200)
    ax.plot(fine, (1 - delta) / (1 + np.exp(fine)), "-", lw=1, color=f"C{k}")
    ax.plot(eps_grid, values, "o", color=f"C{k}", label=rf"$\delta$ = {delta}: model optimum")
ax.set_xlabel(r"$\epsilon$ (nats)")
ax.set_ylabel(r"error $\Pr[Y \neq X]$")
ax.set_title(r"lines: $(1 - \delta)/(1 + e^\epsilon)$", fontsize=10)
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
