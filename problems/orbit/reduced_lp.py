r"""The orbit-reduced ratio LP, solved through the LP core (:mod:`problems.lp`).

Every reduced program of this package is an LP of the form

.. math::

    \min_{u}\ c^\top u \quad\text{s.t.}\quad A u = b,\qquad
    u_{s_p} - e^{\epsilon}\kappa_p\, u_{d_p} \le 0\ \ (p = 1..P),\qquad u \ge 0,

where p runs over the *moves* of :class:`~problems.orbit.types.JointTypes` (or over the distance chain),
:math:`\kappa_p > 0` are fixed coefficients, and every variable belongs to exactly one row of A (an x-type,
or the single distance row).  :class:`ReducedLP` turns it into a :class:`~problems.lp.spec.RatioLPSpec`
(:func:`~problems.lp.spec.reduced_spec`) and solves it with the chain of :func:`problems.solvers.solve`:
Clarabel called directly (default), the block interior-point method of :mod:`problems.ipm.block`
(``prefer="block"``, chosen for m ≥ 3 and large LPs), or CVXPY (``prefer="cvxpy"``), each certified by
the safe bounds, with HiGHS and SCS as fallbacks; a ``solver=`` named by the user goes first.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from .._lazy import deprecated_aliases
from ..closed_forms import check_eps
from ..errors import InvalidInputError, ShapeMismatchError
from ..lp import reduced_spec
from ..lp.solution import LPSolution
from ..lp.tiny import tiny_solution
from ..solve_choice import warn_deprecated
from ..solvers.chain import solve as solve_lp
from ..solvers.settings import SMALL_LP_SIZE

__all__ = ["ReducedLP", "REDUCED_BACKENDS", "SMALL_LP_SIZE", "deprecated_backend"]

#: The back ends a reduced program may prefer (``ReducedLP.solve(prefer=)``, ``choose_backend``): names
#: of the LP back-end registry ``problems.solvers.BACKENDS``, of which ``solver=`` names any.
REDUCED_BACKENDS = ("clarabel", "block", "highs", "highs-scaled", "highs-mass", "cvxpy")


def deprecated_backend(backend: str | None) -> None:
    """The reduced programs' old keyword ``backend=`` (their first back end, now ``solver=``): checked, and
    warned about (:class:`DeprecationWarning`) when given."""
    if backend is None:
        return
    if backend != "auto" and backend not in REDUCED_BACKENDS:
        raise InvalidInputError(f"backend must be 'auto' or one of {REDUCED_BACKENDS}, got {backend!r}")
    warn_deprecated(f"backend={backend!r}", "solver= (the back end tried first)", stacklevel=4)


#: Old names kept for one release (each access warns): ``ReducedLPSolution`` is
#: :class:`~problems.lp.solution.LPSolution` (its u, eq_duals, ratio_duals and nonneg_duals remain), and
#: ``BACKENDS`` is :data:`REDUCED_BACKENDS` (renamed: ``problems.solvers.BACKENDS`` is the registry of LP back ends).
__getattr__ = deprecated_aliases(
    __name__,
    {
        "ReducedLPSolution": (LPSolution, "problems.lp.LPSolution"),
        "BACKENDS": (REDUCED_BACKENDS, "problems.orbit.reduced_lp.REDUCED_BACKENDS"),
    },
)


def _groups(A: sp.spmatrix, K: int) -> np.ndarray:
    """The row of each column of a 0/1 matrix with exactly one 1 per column."""
    C = sp.csc_matrix(A)
    C.sum_duplicates()
    if C.shape[1] != K or not np.array_equal(np.diff(C.indptr), np.ones(K, dtype=C.indptr.dtype)):
        raise ShapeMismatchError("every variable of a reduced LP must lie in exactly one normalisation row")
    if not np.all(C.data == 1.0):
        raise ShapeMismatchError("the normalisation rows of a reduced LP must have unit coefficients")
    return C.indices.astype(np.int64)


class ReducedLP:
    """``min c'u`` s.t. ``A u = b``, ``u[src] ≤ e^ε κ u[dst]``, ``u ≥ 0`` (see the module docstring).

    Parameters
    ----------
    c, A, b:
        Objective (length K), normalisation rows (sparse, one unit entry per column) and masses.
    src, dst, log_kappa:
        The ratio rows ``u[src_p] ≤ e^ε · exp(log_kappa_p) · u[dst_p]``.
    log_profile:
        ``ε ↦ ln u`` of the exponential mechanism at ε (column scaling and exact-repair reference); a function
        of ε, not of e^ε, so that it is defined at every finite ε.
    eps_min:
        The LP has a strictly feasible point for ε > eps_min (ε_X for PD-I).
    constant:
        The best constant mechanism in u (feasible for every ε ≥ eps_min), an upper-bound candidate.
    m:
        The alphabet size of the joint types, if known (m = 2: the layered block method's memory estimate).
    log_group_mass:
        ln of the prior mass behind each row of ``A`` (PD-DP: ln P(t(X) = t)), for the column scaling at
        large ε (:attr:`problems.lp.spec.RatioLPSpec.log_group_mass`).
    """

    def __init__(
        self,
        c: np.ndarray,
        A: sp.spmatrix,
        b: np.ndarray,
        src: np.ndarray,
        dst: np.ndarray,
        log_kappa: np.ndarray,
        *,
        program: str,
        log_profile: Callable[[float], np.ndarray],
        eps_min: float = 0.0,
        scale_from: float = 6.0,
        constant: np.ndarray | None = None,
        m: int | None = None,
        log_group_mass: np.ndarray | None = None,
    ) -> None:
        start = time.perf_counter()
        self.program = program
        self.m = m  # joint types of m symbols (the memory estimate), if known
        c = np.asarray(c, dtype=float)
        self.K = c.size
        self.spec = reduced_spec(
            c,
            _groups(A, self.K),
            np.asarray(b, dtype=float),
            src,
            dst,
            log_kappa,
            program=program,
            log_profile=log_profile,
            eps_min=eps_min,
            scale_from=scale_from,
            constant=constant,
            log_group_mass=log_group_mass,
        )
        self.P = self.spec.P
        self.build_time = time.perf_counter() - start

    @property
    def c(self) -> np.ndarray:
        return self.spec.c

    def solve(
        self,
        eps: float,
        *,
        prefer: str | tuple[str, ...] = "clarabel",
        solver: str | None = None,
        time_limit: float | None = None,
        backend: str | None = None,
        known_lower: float = 0.0,
    ) -> LPSolution:
        """Solve at ε ≥ 0: ``prefer`` is the program's first choice (or its first choices, in order), ``solver``
        (if named) overrides it
        (``backend``: the deprecated name of ``prefer``); ``known_lower`` is a rigorous lower bound on this LP's
        optimum proved elsewhere (a back end may stop once its exactly feasible point meets it)."""
        eps = check_eps(eps)
        if backend is not None:
            warn_deprecated(f"backend={backend!r}", f"prefer={backend!r}")
            prefer = backend
        first = (prefer,) if isinstance(prefer, str) else tuple(prefer)
        if not first or any(p not in REDUCED_BACKENDS for p in first):
            raise InvalidInputError(
                f"prefer must be one of {REDUCED_BACKENDS} (or a tuple of them), got {prefer!r}"
            )
        from ..resources import require_reduced_lp

        require_reduced_lp(self.K, self.P, self.m)  # before the back end allocates its factorisation
        tiny = tiny_solution(self.spec, eps)
        return tiny or solve_lp(
            self.spec,
            eps,
            solver=solver,
            prefer=first,
            time_limit=time_limit,
            known_lower=known_lower,
        )

    def sensitivity(self, sol: LPSolution) -> float:
        """dD*/dε by the envelope theorem: −e^ε Σ_p λ_p κ_p u[d_p] (one-sided where the active set changes)."""
        return -math.exp(sol.eps) * float(sol.ratio_duals @ (self.spec.kappa * sol.u[self.spec.dst]))
