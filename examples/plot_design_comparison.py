r"""
Capacity-limited design against the calibrated channels
=======================================================

Information privacy (Wu, Xia & He (2020)) limits the *individual channel capacity*
:math:`C_1 = \max_i \max_{X} I(X_i; Y)` of a mechanism. By Theorem 2 the maximum over adversaries is
attained at finitely many *vertex channels*, so the minimum-distortion mechanism under :math:`C_1 \le
\epsilon` is a convex program with one capacity constraint per vertex channel:

.. math::

    \min_{W}\ \mathbb E\, d(f(X), Y) \quad\text{s.t.}\quad C(B) \le \epsilon
    \ \text{for every vertex channel } B \text{ of every individual.}

Here the query is the count of four binary records under the uniform prior. The designed mechanism is
compared with the basic channels of Wu (2019b), each calibrated to :math:`C_1 = \epsilon`, and with the
optimal :math:`\epsilon`-DP mechanism.
"""

import numpy as np

from problems import DatabaseSpace
from problems.design import design_problem
from problems.design.compare import comparison_table
from problems.reproduce.figures import comparison_figure

problem = design_problem(DatabaseSpace(4, 2), "count")
rows = comparison_table(problem, np.round(np.linspace(0.05, 0.6, 6), 3), factor=True)

print(f"{'eps':>5} {'optimal':>8} {'lower bd':>8} {'C1':>7}  baselines (distortion)")
for r in rows:
    others = ", ".join(
        f"{k} {r[k]:.4f}" for k in ("randomized-response", "exponential", "optimal_dp") if k in r
    )
    print(
        f"{r['eps']:5.3f} {r['optimal_ip']:8.5f} {r['optimal_ip_lower_bound']:8.5f} {r['optimal_ip_C1']:7.4f}  {others}"
    )

# Every designed mechanism meets its capacity limit and is certified by its Lagrangian lower bound.
assert all(r["optimal_ip_C1"] <= r["eps"] + 1e-7 for r in rows)
assert all(r["optimal_ip"] - r["optimal_ip_lower_bound"] <= 1e-6 for r in rows)

fig = comparison_figure(rows, title="count of 4 binary records, uniform prior")
