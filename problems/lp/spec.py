r"""One specification of the ratio linear program shared by every privacy–distortion LP.

.. math::

    \min_{z}\ c^\top z \quad\text{s.t.}\quad
    z_{s_p} \le e^{\epsilon}\kappa_p\, z_{d_p}\ \ (p = 1..P),\qquad
    \textstyle\sum_{j:\,g(j)=k} z_j = b_k\ \ (k = 1..G),\qquad z \ge 0,

with :math:`c \ge 0`, :math:`b > 0` and every variable in exactly one normalisation group :math:`g(j)`
(a product of scaled simplices).  So :math:`0 \le z_j \le b_{g(j)}` on the feasible set, which the safe
bounds of :mod:`problems.lp.bounds` use.

Two builders give every program of the toolkit:

* :func:`dense_spec` — from a :class:`~problems.database.DatabaseSpace`: z is the N×N matrix flattened
  (index ``x*N + y``), one ratio row per ordered neighbour pair and output (row ``p*N + y``);
  PD-DP (κ = 1, rows sum to 1), PD-I in W = q/p_X (κ_p = p_X(x')/p_X(x), rows sum to 1) and R-PD (κ = 1,
  one group of total mass 1);
* :func:`reduced_spec` — from joint types or distances (:mod:`problems.orbit`), with the coefficients of
  the orbit reduction.

Each spec also carries ``log_profile(ε)``: the logarithm of the exponential mechanism E_d at level ε in the
spec's variables.  It serves as the column scaling of the back ends for large ε and, at a level below ε, as
the strictly feasible reference point of the exact repair (:func:`problems.lp.bounds.repair`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..errors import ShapeMismatchError
from ..indexing import index_dtype

__all__ = ["RatioLPSpec", "DenseLayout", "dense_spec", "reduced_spec", "LOG_KAPPA_ERROR"]

#: Assumed bound on the absolute error of the stored ln κ_p (relative error of κ_p); the exact repair keeps
#: this margin, so the returned point is feasible for the exact coefficients (docs/certificates.md).
LOG_KAPPA_ERROR = 1e-12


@dataclass(frozen=True)
class DenseLayout:
    """The dense structure (N×N matrix, pairs) that the structured interior-point method needs."""

    N: int
    pi: np.ndarray
    pj: np.ndarray
    kappa: np.ndarray  # (P_pairs,)


@dataclass(eq=False)
class RatioLPSpec:
    """The ratio LP of the module docstring.

    Attributes
    ----------
    c:
        Objective, length K, non-negative.
    group, b:
        ``group[j]`` is the normalisation row of variable j; ``b[k] > 0`` its right-hand side.
    src, dst, log_kappa:
        Ratio rows ``z[src_p] ≤ e^ε exp(log_kappa_p) z[dst_p]``.
    program:
        Name for messages (``"pd-dp"``, …).
    log_profile:
        ``ε ↦ ln z`` of the exponential mechanism at ε in these variables (length K).
    eps_min:
        The LP has a strictly feasible point for ε > eps_min (ε_X for PD-I, 0 otherwise).
    dense:
        The dense layout, for the structured interior-point method (``None`` for reduced LPs).
    log_kappa_error:
        Bound on the absolute error of ``log_kappa`` (see :data:`LOG_KAPPA_ERROR`).
    scale_from:
        From this ε on, the sparse back ends solve the LP scaled by ``log_profile`` (see
        :mod:`problems.solvers.backends`).
    constant:
        The best constant mechanism in these variables (or ``None``): feasible at every ε ≥ eps_min (ratio 1 for
        PD-DP; p_X(x)/p_X(x') ≤ e^{ε_X} for PD-I), so an upper-bound candidate of the exact repair, verified like
        any other point.  Where the optimum is that mechanism (small ε, i.i.d. priors) no back-end point needs to
        be repaired.  A 0/1 mechanism may be given as booleans (an eighth of the memory).
    alt_log_scale:
        ``ε ↦ ln s`` of a second column scaling, tried by the ``CLARABEL-ALT`` back end (PD-I: the shape of
        the identifiability mechanism E_i).  Scaling only: it never enters a proof.
    log_group_mass:
        ln of the prior mass behind each normalisation row (length G), where the objective weighs row g by it
        (PD-DP: c = p_X(x)·d), or ``None``.  It raises the floor of the E_d column scaling for rows of
        negligible mass (:func:`problems.solvers.scaled_lp.scaled_lp`).  Scaling only: it never enters a proof.
    """

    c: np.ndarray
    group: np.ndarray
    b: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    log_kappa: np.ndarray
    program: str
    log_profile: Callable[[float], np.ndarray]
    eps_min: float = 0.0
    dense: DenseLayout | None = None
    log_kappa_error: float = LOG_KAPPA_ERROR
    scale_from: float = 6.0
    alt_log_scale: Callable[[float], np.ndarray] | None = None
    constant: np.ndarray | None = None
    log_group_mass: np.ndarray | None = None
    cache: dict = field(default_factory=dict, repr=False)
    #: The sizes: K variables, G normalisation rows, P ratio rows (fixed when the spec is built).
    K: int = field(init=False, repr=False)
    G: int = field(init=False, repr=False)
    P: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.c = np.ascontiguousarray(self.c, dtype=float)
        # index arrays in 32 bits where the sizes allow (m = 2, n = 200: 21 MB instead of 41 MB per array); keys
        # formed from them (src·K + dst) are computed in 64 bits (problems.indexing)
        index = index_dtype(self.c.size, np.size(self.src))
        self.group = np.ascontiguousarray(self.group, dtype=index)
        self.b = np.ascontiguousarray(self.b, dtype=float)
        self.src = np.ascontiguousarray(self.src, dtype=index)
        self.dst = np.ascontiguousarray(self.dst, dtype=index)
        self.log_kappa = np.ascontiguousarray(self.log_kappa, dtype=float)
        self.K, self.G, self.P = self.c.size, self.b.size, self.src.size
        K = self.K
        if self.group.shape != (K,):
            raise ShapeMismatchError(f"group must have one entry per variable ({K}), got {self.group.shape}")
        if self.src.shape != self.dst.shape or self.src.shape != self.log_kappa.shape:
            raise ShapeMismatchError("src, dst and log_kappa must have the same length")
        if np.any(self.c < 0) or not np.all(np.isfinite(self.c)):
            raise ValueError("the ratio LP needs a finite objective c ≥ 0")
        if np.any(self.b <= 0):
            raise ValueError("the ratio LP needs normalisation masses b > 0")
        if self.log_group_mass is not None:
            self.log_group_mass = np.ascontiguousarray(self.log_group_mass, dtype=float)
            if self.log_group_mass.shape != (self.G,):
                raise ShapeMismatchError(
                    f"log_group_mass must have one entry per normalisation row ({self.G}), "
                    f"got {self.log_group_mass.shape}"
                )

    # ------------------------------------------------------------------ matrices
    @property
    def kappa(self) -> np.ndarray:
        """exp(log_kappa), formed on each use (not cached: a P-vector, 41 MiB at m = 2, n = 200)."""
        return np.exp(self.log_kappa)

    @property
    def A(self) -> sp.csr_matrix:
        """The normalisation rows (G × K, 0/1)."""
        if "A" not in self.cache:
            self.cache["A"] = sp.csr_matrix(
                (np.ones(self.K), (self.group, np.arange(self.K))), shape=(self.G, self.K)
            )
        return self.cache["A"]

    @property
    def upper(self) -> np.ndarray:
        """z_j ≤ b_{g(j)} on the feasible set (z ≥ 0 and the group sums)."""
        return self.b[self.group]

    def S(self) -> tuple[sp.csr_matrix, sp.csr_matrix]:
        """Selection matrices (P × K) of the two sides of the ratio rows."""
        if "S" not in self.cache:
            rows = np.arange(self.P)
            one = np.ones(self.P)
            self.cache["S"] = (
                sp.csr_matrix((one, (rows, self.src)), shape=(self.P, self.K)),
                sp.csr_matrix((one, (rows, self.dst)), shape=(self.P, self.K)),
            )
        return self.cache["S"]

    def ratio_matrix(self, eps: float) -> sp.csr_matrix:
        """G(ε) = S₁ − e^ε diag(κ) S₂ (P × K)."""
        S1, S2 = self.S()
        return (S1 - sp.diags(math.exp(eps) * self.kappa) @ S2).tocsr()

    def objective(self, z: np.ndarray) -> float:
        return float(self.c @ z)

    def reference(self, eps: float) -> np.ndarray:
        """A point meant to be strictly feasible at ε > eps_min: E_d at a level below ε − eps_min, normalised."""
        slack = eps - self.eps_min
        level = max(0.0, eps - self.eps_min - min(1.0, 0.5 * slack))
        z0 = np.exp(np.maximum(self.log_profile(level), -700.0))
        sums = np.bincount(self.group, weights=z0, minlength=self.G)
        return z0 * (self.b / sums)[self.group]


def _hamming_log_profile(space, joint: bool) -> Callable[[float], np.ndarray]:  # noqa: ANN001
    d = space.hamming_matrix().ravel().astype(float)
    n, m, N = space.n, space.m, space.size

    def log_profile(eps: float) -> np.ndarray:
        out = -eps * d - n * math.log1p((m - 1) * math.exp(-eps))
        return out - math.log(N) if joint else out

    return log_profile


def dense_spec(
    space,  # noqa: ANN001 - DatabaseSpace (import cycle avoided)
    cost: np.ndarray,
    *,
    program: str,
    row_mass: np.ndarray | None,
    pair_log_kappa: np.ndarray | None = None,
    eps_min: float = 0.0,
) -> RatioLPSpec:
    """The dense ratio LP on ``space``: z = Z.ravel() (``x*K + y``), ratio row ``p*K + y``.

    ``cost`` is N×K: K = N outputs (the databases, as in Wang, Ying & Zhang (2016)) or any output alphabet (mechanism design).
    ``row_mass`` gives the row sums (``None``: a single total-mass-one constraint, as R-PD);
    ``pair_log_kappa`` the per-pair ln κ (default 0).
    """
    space.require_dense()
    N = space.size
    K_out = int(np.shape(cost)[1]) if np.ndim(cost) == 2 else N
    from ..resources import BASE_MEMORY, BYTES_PER_RATIO_ROW, require_memory

    require_memory(
        BASE_MEMORY + BYTES_PER_RATIO_ROW * float(N) * K_out * space.n * (space.m - 1),
        f"the dense {program} LP on N = {N} databases ({N}×{K_out} variables, "
        f"{N * K_out * space.n * (space.m - 1)} ratio rows)",
        "Use the reduced program (uniform, iid or exchangeable priors: --formulation reduced), the theorem "
        "where it applies (--method theorem), or a smaller n.",
    )
    cost = np.asarray(cost, dtype=float)
    if cost.ndim != 2 or cost.shape[0] != N or cost.shape[1] < 1:
        raise ShapeMismatchError(
            f"cost matrix must have {N} rows (one per database of {space}), got {cost.shape}"
        )
    K = cost.shape[1]
    pi, pj = space.neighbour_pairs
    P = pi.size
    lk_pairs = np.zeros(P) if pair_log_kappa is None else np.asarray(pair_log_kappa, dtype=float)
    if lk_pairs.shape != (P,):
        raise ShapeMismatchError(
            f"pair_log_kappa must have one entry per neighbour pair ({P}), got {lk_pairs.shape}"
        )
    cols = np.arange(K)
    src = (pi[:, None] * K + cols).ravel()
    dst = (pj[:, None] * K + cols).ravel()
    if row_mass is None:
        group = np.zeros(N * K, dtype=np.int64)
        b = np.ones(1)
    else:
        group = np.repeat(np.arange(N), K)
        b = np.asarray(row_mass, dtype=float)
    square = K == N
    dense = DenseLayout(N, pi, pj, np.exp(lk_pairs)) if (row_mass is not None and square) else None
    if square:
        log_profile = _hamming_log_profile(space, joint=row_mass is None)
    else:  # no exponential mechanism on a general output alphabet: the constant mechanism (0-DP)

        def log_profile(eps: float) -> np.ndarray:
            return np.zeros(N * K)

    constant = None
    if row_mass is not None:  # the best constant mechanism: every row's mass on the column y* of least cost
        y_star = int(np.argmin(b @ cost))
        Z = np.zeros((N, K))
        Z[:, y_star] = b
        constant = Z.ravel()
    return RatioLPSpec(
        c=cost.ravel(),
        group=group,
        b=b,
        src=src,
        dst=dst,
        log_kappa=np.repeat(lk_pairs, K),
        program=program,
        log_profile=log_profile,
        eps_min=eps_min,
        dense=dense,
        constant=constant,
    )


def reduced_spec(
    c: np.ndarray,
    group: np.ndarray,
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
    log_group_mass: np.ndarray | None = None,
) -> RatioLPSpec:
    """The orbit-reduced ratio LP (joint types or distances); see :mod:`problems.orbit.programs`."""
    return RatioLPSpec(
        c=c,
        group=group,
        b=b,
        src=src,
        dst=dst,
        log_kappa=log_kappa,
        program=program,
        log_profile=log_profile,
        eps_min=eps_min,
        scale_from=scale_from,
        constant=constant,
        log_group_mass=log_group_mass,
    )
