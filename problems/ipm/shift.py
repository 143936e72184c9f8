r"""The diagonal shift of a block of the normal equations that is not numerically positive definite.

The blocks :math:`H = G^\top DG + \operatorname{diag}(s/z)` are positive definite in exact arithmetic; near the
optimum cancellation can leave a block that Cholesky (dense, banded or sparse) refuses.  Such a block is factorised
again with its diagonal multiplied by :math:`1 + \delta`, for the first δ of :data:`SHIFTS` that succeeds, and the
iterative refinement on the unreduced KKT residual absorbs the perturbation.

The shift is relative to each diagonal entry, not to the largest: Cholesky's rounding is invariant under a
symmetric diagonal scaling :math:`H \mapsto \Sigma H\Sigma`, so :math:`\delta\,\operatorname{diag}(H)` perturbs
the scaled matrix by δ whatever the scaling.  Near the optimum the diagonal spans twenty and more orders of
magnitude (s/z on entries of 1e-28), and a shift of δ times the largest entry perturbed the small entries by
orders of magnitude, so that the shifted factor no longer preconditioned the true system: measured at m = 2,
n = 100 (contagious (0.2; 0.3, 0.7) PD-DP, ε = 1, the last iterations), the shifted factor's unrefined Newton
solves were off by 1e5 in the refinement's measure and no refinement recovered them, the steps collapsed and a
second solve was needed (78.5 s); with the relative shift they are off by 1e-1, refined to 1e-12, and one solve
certifies (31.0 s, ``benchmarks/bench_shift.py``).
"""

from __future__ import annotations

from typing import Final

import numpy as np

__all__ = ["SHIFTS", "TRIES", "shifted"]

#: The relative shifts δ tried in turn on a block that is not numerically positive definite.
SHIFTS: Final = (1e-14, 1e-12, 1e-10, 1e-8, 1e-6, 1e-4)
#: A factorisation's tries: unshifted, then each of :data:`SHIFTS`.
TRIES: Final = (0.0, *SHIFTS)


def shifted(diag: np.ndarray, delta: float) -> np.ndarray:
    """The diagonal ``diag`` times 1 + δ (a new array; ``diag`` itself when δ = 0)."""
    return diag * (1.0 + delta) if delta else diag
