r"""
Individual channel capacity through the vertex channels
=======================================================

The individual channel capacity of a privacy channel :math:`p(y \mid x_1, \dots, x_n)` is the most
information any adversary — any joint distribution of the records, correlations included — can learn about
one individual's record:

.. math::

    C_1 = \max_i \max_{X \in \Delta(\mathcal X)} I(X_i; Y).

Theorem 2 of Wu, Xia & He (2020) (also Wu (2019b)) reduces the maximum over the infinitely many adversaries
to the capacities of finitely many *vertex channels*: for individual :math:`i`, the row of a vertex channel
for :math:`x_i = a` is the row :math:`p(\cdot \mid a, x_{(i)}^{(a)})` for one choice of the other records
:math:`x_{(i)}^{(a)}`.

The channel here is randomized response on the XOR of two binary records (flip probability 0.2): by itself
each record says nothing about the XOR, but an adversary who knows the other record learns it exactly.
"""

import itertools

import numpy as np

from problems.information import PrivacyChannel, channel_capacity, individual_capacity
from problems.measures import mutual_information
from problems.plotting import new_figure

flip = 0.2
W = np.empty((2, 2, 2))  # W[x1, x2, y] = p(y | x1, x2)
for x1, x2 in itertools.product(range(2), repeat=2):
    y = x1 ^ x2
    W[x1, x2, y], W[x1, x2, 1 - y] = 1 - flip, flip

res = individual_capacity(PrivacyChannel(W))
print(f"C1 = {res.c1:.6f} nats, certified bracket [{res.lower_bound:.6f}, {res.upper_bound:.6f}]")
print(f"attained for individual {res.individual + 1} by the vertex channel with rows {res.vertex_databases}")
print(f"closed form log 2 - H(0.2) = {np.log(2) + flip * np.log(flip) + (1 - flip) * np.log(1 - flip):.6f}")

# %%
# The four vertex channels of individual 1, one by one
# ----------------------------------------------------
# A vertex channel picks, for each value ``a`` of the first record, one value of the second record.

vertex_capacities = {}
for choice in itertools.product(range(2), repeat=2):  # x2 chosen for x1 = 0 and for x1 = 1
    B = np.stack([W[a, choice[a]] for a in range(2)])
    vertex_capacities[choice] = channel_capacity(B).capacity
    print(f"x2 = {choice} for x1 = (0, 1):  C(B) = {vertex_capacities[choice]:.6f}")
assert abs(max(vertex_capacities.values()) - res.c1) <= 1e-6

# %%
# No adversary beats the vertex channels
# --------------------------------------
# Random joint distributions of (x1, x2) — most of them correlated — give I(X_1; Y) ≤ C_1, as Theorem 2
# says; the adversary that the search returns attains it.

rng = np.random.default_rng(0)
samples = []
for _ in range(3000):
    joint = rng.dirichlet(np.full(4, 0.3)).reshape(2, 2)  # p(x1, x2)
    p1 = joint.sum(axis=1)
    channel_1 = np.einsum("ab,aby->ay", joint, W) / p1[:, None]  # p(y | x1) under this adversary
    samples.append(mutual_information(channel_1, p1))
samples = np.array(samples)
print(f"largest I(X_1; Y) over 3000 random adversaries: {samples.max():.6f} <= C1 = {res.c1:.6f}")
assert samples.max() <= res.upper_bound + 1e-12

fig, ax = new_figure(figsize=(6.0, 3.6))
ax.hist(samples, bins=60, color="C0", alpha=0.7, label="random adversaries")
ax.axvline(res.c1, color="k", lw=2, label=r"$C_1$ (worst vertex channel)")
ax.set_xlabel(r"$I(X_1; Y)$ (nats)")
ax.set_ylabel("adversaries")
ax.legend(fontsize=8)
