r"""
Modelling layer: k-ary randomized response
==========================================

Kairouz, Oh & Viswanath (2014) showed that under :math:`\epsilon`-local differential privacy — every pair
of inputs neighbours — with a uniform prior and the 0–1 loss, :math:`k`-ary randomized response is optimal:
it reports the true value with probability :math:`e^\epsilon / (e^\epsilon + k - 1)`, so its error is

.. math::

    \Pr[Y \ne X] = \frac{k - 1}{e^\epsilon + k - 1}.

The model below knows nothing of randomized response: it minimises the expected 0–1 loss over all
mechanisms under the local-DP constraints, and certifies the optimum.
"""

import math

import numpy as np

from problems.model import MechanismModel, losses, privacy
from problems.plotting import new_figure

grid = np.linspace(0.1, 4.0, 9)
fig, ax = new_figure(figsize=(6.0, 3.8))
for k in (2, 3, 5):
    values = []
    for eps in grid:
        res = MechanismModel(np.full(k, 1 / k), losses.zero_one(k)).add(privacy.local(float(eps))).solve()
        assert res.certified
        values.append(res.value)
    closed = (k - 1) / (np.exp(grid) + k - 1)
    print(f"k = {k}: largest |model - (k-1)/(e^eps+k-1)| = {np.max(np.abs(np.array(values) - closed)):.2e}")
    assert np.allclose(values, closed, rtol=0, atol=1e-9)
    fine = np.linspace(0, 4.2, 200)
    ax.plot(fine, (k - 1) / (np.exp(fine) + k - 1), "-", lw=1, color=f"C{k}")
    ax.plot(grid, values, "o", color=f"C{k}", label=f"k = {k}: model optimum")
ax.set_xlabel(r"local privacy level $\epsilon$ (nats)")
ax.set_ylabel(r"error $\Pr[Y \neq X]$")
ax.set_title("lines: (k − 1)/(e^ε + k − 1)", fontsize=10)
ax.legend(fontsize=8)
ax.grid(alpha=0.3)

# %%
# The optimal mechanism is randomized response
# --------------------------------------------

eps = 1.0
res = MechanismModel(np.full(3, 1 / 3), losses.zero_one(3)).add(privacy.local(eps)).solve()
print(np.round(res.matrix, 6))
print("e^eps / (e^eps + 2) =", round(math.exp(eps) / (math.exp(eps) + 2), 6))
