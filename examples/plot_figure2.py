r"""
Figure 2 of Wang, Ying & Zhang (2016)
=====================================

The privacy–distortion functions :math:`\epsilon_i^*(D)` (identifiability, PD-I) and
:math:`\epsilon_d^*(D)` (differential privacy, PD-DP) for a database of :math:`n` binary rows, drawn with
the bounds of Theorem 1:

.. math::

    \epsilon_i^*(D) = h^{-1}(D) \quad\text{and}\quad
    \epsilon_i^*(D) - \epsilon_X \le \epsilon_d^*(D) \le \epsilon_i^*(D)
    \qquad\text{for } D \text{ in the range of Theorem 1.}

Every point of each curve is the exact inversion of a certified linear program (not a grid search over
ε); for a uniform prior :math:`\epsilon_X = 0` and the two curves coincide.
"""

from problems import DatabaseSpace, eps_X, priors
from problems.curves import privacy_distortion_curve
from problems.plotting import privacy_distortion_figure

space = DatabaseSpace(n=3, m=2)
prior = priors.iid(space, [0.3, 0.7])
print(f"eps_X = {eps_X(prior):.6f} nats")

curves = [privacy_distortion_curve(prior, notion, points=12) for notion in ("i", "d")]
eps_i, eps_d = curves[0].eps, curves[1].eps
slack = 1e-6
print(
    "Theorem 1 holds at every D:",
    bool(((curves[1].lower_dp <= eps_d + slack) & (eps_d <= eps_i + slack)).all()),
)
for D, ei, ed in zip(curves[0].distortion[::3], eps_i[::3], eps_d[::3], strict=True):
    print(f"D = {D:.3f}:  eps_i* = {ei:.5f}   eps_d* = {ed:.5f}")

fig = privacy_distortion_figure(curves, title="three i.i.d. binary rows, p = (0.3, 0.7)")

# %%
# The uniform prior: the two curves coincide
# -------------------------------------------
# For the uniform prior :math:`\epsilon_X = 0`, so Theorem 1 forces :math:`\epsilon_i^* = \epsilon_d^*`.

uniform = priors.uniform(space)
curves_u = [privacy_distortion_curve(uniform, notion, points=12) for notion in ("i", "d")]
gap = max(abs(a - b) for a, b in zip(curves_u[0].eps, curves_u[1].eps, strict=True))
print(f"max |eps_i* - eps_d*| under the uniform prior: {gap:.2e}")
fig_uniform = privacy_distortion_figure(curves_u, title="three uniform binary rows")
