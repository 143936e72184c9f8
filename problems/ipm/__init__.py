"""Interior-point methods of the toolkit's own, for the ratio LPs whose structure a general solver misses.

* :mod:`problems.ipm.structured` — dense row-normalised LPs (block-angular, one N×N block per output);
* :mod:`problems.ipm.block` — the joint-type LPs (one dense block per y-type);
* :mod:`problems.ipm.sparse_block` — sparse factors of those blocks (m ≥ 3, large blocks; SuperLU);
* :mod:`problems.ipm.lapack` — optional GIL-free LAPACK kernels and BLAS thread control;
* :mod:`problems.ipm.shift` — the diagonal shift of a block that Cholesky refuses;
* :mod:`problems.ipm.schur` — the factorised Schur complement that couples the blocks, and the solve steps the
  block factorisations share;
* :mod:`problems.ipm.rows` — ratio-row helpers shared by both.

They take arrays and return ``(z, ν, λ, s, iterations, seconds)``; they are used through the back-end
interface of :mod:`problems.solvers.backends`, which certifies every answer.
"""

__all__: list[str] = []
