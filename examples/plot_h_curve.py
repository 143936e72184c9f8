r"""
h(ε) with the mechanisms E_i and E_d
====================================

The R-PD optimum :math:`h(\epsilon) = n / (1 + e^{\epsilon}/(m-1))` (Wang, Ying & Zhang (2016), Lemma 1,
eq. (32)) is the distortion of two explicit mechanisms:

* :math:`E_d` (eq. (27)), :math:`p(y\mid x) \propto e^{-\epsilon d(x, y)}`, which is
  :math:`\epsilon`-differentially private for every prior (Lemma 5);
* :math:`E_i` (eq. (26)), which is :math:`\epsilon`-identifiable for a given prior once
  :math:`\epsilon \ge \tilde\epsilon_X` (Lemma 4).

Here both mechanisms are built for three binary rows with an i.i.d. prior, and their privacy levels and
expected distortions are measured independently of the closed form.
"""

import numpy as np

from problems import DatabaseSpace, eps_tilde, exponential_mechanism, h, identifiability_mechanism, priors
from problems.measures import dp_level, expected_distortion, identifiability_level
from problems.plotting import h_figure

space = DatabaseSpace(n=3, m=2)
prior = priors.iid(space, [0.3, 0.7])
print(f"eps_tilde_X = {eps_tilde(prior):.6f}  (E_i exists from here on)")

# %%
# Measure E_d and E_i on a grid of privacy levels
# -----------------------------------------------

grid = np.linspace(max(eps_tilde(prior), 0.05), 5.0, 12)
rows = []
for eps in grid:
    E_d = exponential_mechanism(space, eps)
    E_i = identifiability_mechanism(prior, eps)
    rows.append(
        (
            eps,
            h(eps, space.n, space.m),
            expected_distortion(E_d, prior),
            dp_level(E_d, space),
            expected_distortion(E_i, prior),
            identifiability_level(E_i, prior),
        )
    )
print(f"{'eps':>6} {'h(eps)':>9} {'D(E_d)':>9} {'DP(E_d)':>8} {'D(E_i)':>9} {'ID(E_i)':>8}")
for r in rows:
    print(" ".join(f"{v:{w}.5f}" for v, w in zip(r, (6, 9, 9, 8, 9, 8))))
table = np.array(rows)
assert np.allclose(table[:, 2], table[:, 1]) and np.allclose(table[:, 4], table[:, 1])
assert np.allclose(table[:, 3], table[:, 0]) and np.allclose(table[:, 5], table[:, 0])

# %%
# The closed form, with the measured distortions on top
# -----------------------------------------------------

fig = h_figure(space.n, space.m, eps_max=5.0)
ax = fig.axes[0]
ax.plot(table[:, 0], table[:, 2], "s", mfc="none", ms=8, label=r"$E_d$ (measured)")
ax.plot(table[:, 0], table[:, 4], "o", ms=4, label=r"$E_i$ (measured)")
ax.legend(fontsize=8, loc="upper right")
