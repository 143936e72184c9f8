r"""Channel capacity :math:`C(W)=\max_p I(p,W)` with certified bounds (nats).

Two independent methods:

* :func:`blahut_arimoto` — the Blahut–Arimoto iteration :math:`p_a \leftarrow p_a e^{D(W_a\|pW)}/Z`, vectorised
  over a batch of channels (array of shape ``(batch, |X|, |Y|)``).
* :func:`capacity_conic` — the Csiszár–Gallager min–max form solved as an exponential-cone program,

  .. math:: C(W) = \min_{q\in\Delta(\mathcal Y)} \max_a D(W_a\,\|\,q)
            = \min_{q,t}\; t \ \text{ s.t. }\ \textstyle\sum_y \mathrm{rel\_entr}(W_{ay}, q_y) \le t\ \forall a,

  whose constraint multipliers :math:`\lambda_a\ge0,\ \sum_a\lambda_a=1` are an optimal input distribution.

Certificate (both methods).  For *any* input pmf :math:`p` with output :math:`q=pW`,

.. math:: I(p,W) = \sum_a p_a D(W_a\|q) \;\le\; C(W) \;\le\; \max_a D(W_a\|q),

the right inequality being the min–max identity (Gallager 1968, Theorem 4.5.1;
Csiszár & Körner 2011).  The gap :math:`\max_a D(W_a\|q) - I(p,W)` is therefore a rigorous bound on the
error and is used as the stopping rule of Blahut–Arimoto.  The :class:`~problems.certificate.Certificate`
records it as ``duality_gap``; ``primal_objective`` is the upper bound, ``dual_objective`` the lower bound,
``complementary_slackness`` is :math:`\max_a p_a(\max_b D_b - D_a)` (KKT: :math:`D_a=C` on the support).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cvxpy as cp
import numpy as np

from ..certificate import Certificate
from ..errors import InvalidChannelError, InvalidInputError, SolverFailedError
from ..measures import mutual_information  # noqa: F401  (the former home of the name)
from ..solvers.conic import solve_with_fallback
from ..solvers.stats import SolverStats
from ..units import check_unit, to_unit
from .bracket import BracketStatus

__all__ = [
    "CapacityResult",
    "divergences",
    "capacity_bounds",
    "blahut_arimoto",
    "blahut_arimoto_batch",
    "capacity_conic",
    "channel_capacity",
    "DEFAULT_GAP",
]

DEFAULT_GAP = 1e-10
_TINY = 1e-300


def _as_matrix(W: np.ndarray) -> np.ndarray:
    w = np.asarray(W, dtype=float)
    if w.ndim != 2:
        raise InvalidChannelError(f"a channel matrix must be 2-D (inputs x outputs), got shape {w.shape}")
    if w.shape[0] == 0 or w.shape[1] == 0:
        raise InvalidChannelError(
            f"channel matrix must have at least one row and column, got shape {w.shape}"
        )
    if not np.all(np.isfinite(w)) or np.any(w < -1e-12):
        raise InvalidChannelError("channel matrix entries must be finite and >= 0")
    s = w.sum(axis=1)
    if np.any(np.abs(s - 1) > 1e-9 * w.shape[1]):
        r = int(np.argmax(np.abs(s - 1)))
        raise InvalidChannelError(f"row {r} of the channel matrix sums to {s[r]:.12g}; rows must sum to 1")
    w = np.clip(w, 0, None)
    return w / w.sum(axis=1, keepdims=True)


def _check_pmf(p: np.ndarray, size: int, what: str = "input distribution") -> np.ndarray:
    v = np.asarray(p, dtype=float)
    if v.shape != (size,):
        raise InvalidInputError(f"{what} must have shape ({size},), got {v.shape}")
    if not np.all(np.isfinite(v)) or np.any(v < -1e-12) or abs(v.sum() - 1) > 1e-9:
        raise InvalidInputError(f"{what} must be non-negative and sum to 1, got sum {v.sum():.12g}")
    return np.clip(v, 0, None) / np.clip(v, 0, None).sum()


def _wlogw(W: np.ndarray) -> np.ndarray:
    """Row sums of W log W (negative row entropies), with 0 log 0 = 0; works on (..., m, k) arrays."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(W > 0, W * np.log(np.where(W > 0, W, 1.0)), 0.0).sum(axis=-1)


def divergences(W: np.ndarray, q: np.ndarray) -> np.ndarray:
    r""":math:`D(W_a\|q)` for every row ``a`` (nats); ``inf`` where :math:`W_{ay}>0=q_y`.  Batched over leading axes."""
    W = np.asarray(W, dtype=float)
    q = np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        logq = np.log(q)
        cross = np.where(W > 0, W * logq[..., None, :], 0.0).sum(axis=-1)
    return _wlogw(W) - cross


def capacity_bounds(p: np.ndarray, W: np.ndarray) -> tuple[float, float]:
    r"""Certified bounds :math:`I(p,W) \le C(W) \le \max_a D(W_a\|pW)` for an input pmf ``p``."""
    w = _as_matrix(W)
    pv = _check_pmf(p, w.shape[0])
    d = divergences(w, pv @ w)
    return float(np.sum(np.where(pv > 0, pv * d, 0.0))), float(np.max(d))


@dataclass(frozen=True, eq=False)
class CapacityResult(BracketStatus):
    r"""Capacity of one channel matrix, with certified bounds.

    Attributes
    ----------
    capacity:
        Reported value (nats): the certified lower bound :math:`I(p,W)` of the returned input distribution.
    lower_bound, upper_bound:
        :math:`I(p,W)` and :math:`\max_a D(W_a\|pW)`; the true capacity lies in between.
    input_distribution, output_distribution:
        Capacity-achieving :math:`p` (within the gap) and :math:`q = pW`.
    method:
        ``"blahut-arimoto"`` or ``"conic"``.
    iterations:
        Blahut–Arimoto iterations or solver iterations.
    certificate:
        See the module docstring.
    solver:
        :class:`~problems.solvers.stats.SolverStats` for the conic method, ``None`` otherwise.
    """

    capacity: float
    lower_bound: float
    upper_bound: float
    input_distribution: np.ndarray
    output_distribution: np.ndarray
    method: str
    iterations: int
    certificate: Certificate
    solve_time: float = 0.0
    solver: SolverStats | None = None

    @property
    def gap(self) -> float:
        """Certified gap ``upper_bound - lower_bound`` (nats)."""
        return self.upper_bound - self.lower_bound

    def to_dict(self, unit: str = "nats") -> dict:
        check_unit(unit)
        return {
            **self.bracket_dict(unit),
            "capacity": float(to_unit(self.capacity, unit)),
            "gap": float(to_unit(self.gap, unit)),
            "unit": unit,
            "input_distribution": self.input_distribution.tolist(),
            "output_distribution": self.output_distribution.tolist(),
            "method": self.method,
            "iterations": self.iterations,
            "solve_time": self.solve_time,
            "certificate": self.certificate.to_dict(),
            "solver": None if self.solver is None else self.solver.to_dict(),
        }


def _certificate(p: np.ndarray, d: np.ndarray, tolerance: float) -> Certificate:
    lower = float(np.sum(np.where(p > 0, p * d, 0.0)))
    upper = float(np.max(d))
    return Certificate(
        primal_residual=float(max(abs(p.sum() - 1.0), float(np.max(-p, initial=0.0)))),
        dual_residual=0.0,
        complementary_slackness=float(np.max(p * (upper - d))),
        duality_gap=max(upper - lower, 0.0),
        primal_objective=upper,
        dual_objective=lower,
        tolerance=tolerance,
    )


def blahut_arimoto_batch(
    W: np.ndarray,
    *,
    tol: float = DEFAULT_GAP,
    max_iter: int = 100_000,
    p0: np.ndarray | None = None,
    stop_below: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    r"""Blahut–Arimoto on a batch of channels ``W`` of shape ``(B, m, k)`` (rows stochastic, unchecked).

    Iterates :math:`p_a \leftarrow p_a\exp(D(W_a\|pW)) / \sum_b p_b \exp(D(W_b\|pW))` for every channel still
    active and freezes a channel as soon as its certified gap :math:`\max_a D_a - \sum_a p_a D_a \le` ``tol``,
    or — when ``stop_below`` is given — as soon as its certified upper bound :math:`\max_a D_a` is
    :math:`\le` ``stop_below`` (used for pruning: such a channel cannot beat the best value found so far).

    Returns
    -------
    lower, upper, p, iterations
        Arrays of shape ``(B,)``, ``(B,)``, ``(B, m)``, ``(B,)``.
    """
    W = np.asarray(W, dtype=float)
    B, m, _k = W.shape
    wlw = _wlogw(W)  # (B, m)
    p = np.full((B, m), 1.0 / m) if p0 is None else np.array(p0, dtype=float)
    lower = np.zeros(B)
    upper = np.full(B, np.inf)
    iters = np.zeros(B, dtype=np.int64)
    active = np.arange(B)
    it = 0
    while active.size:
        Wa, pa = W[active], p[active]
        q = np.einsum("bm,bmk->bk", pa, Wa)
        logq = np.log(np.maximum(q, _TINY))
        d = wlw[active] - np.einsum("bmk,bk->bm", Wa, logq)
        lo = np.einsum("bm,bm->b", pa, d)
        up = d.max(axis=1)
        lower[active], upper[active] = lo, up
        iters[active] = it
        done = (up - lo) <= tol
        if stop_below is not None:
            done |= up <= stop_below
        if it >= max_iter:
            break
        keep = ~done
        active = active[keep]
        if not active.size:
            break
        dk = d[keep]
        z = pa[keep] * np.exp(dk - dk.max(axis=1, keepdims=True))
        p[active] = z / z.sum(axis=1, keepdims=True)
        it += 1
    return lower, upper, p, iters


def blahut_arimoto(
    W: np.ndarray, *, tol: float = DEFAULT_GAP, max_iter: int = 100_000, p0: np.ndarray | None = None
) -> CapacityResult:
    r"""Capacity of the row-stochastic matrix ``W`` by Blahut–Arimoto with a certified stopping rule.

    Stops when :math:`\max_a D(W_a\|q) - I(p,W) \le` ``tol`` (nats), with :math:`q=pW`; the returned
    ``lower_bound``/``upper_bound`` bracket the capacity.  Reference: Blahut (1972), Arimoto (1972);
    Cover & Thomas §10.8.

    Raises
    ------
    InvalidChannelError
        If ``W`` is not a row-stochastic matrix.
    InvalidInputError
        If ``tol`` is not positive or ``p0`` is not a pmf of the right size.
    """
    w = _as_matrix(W)
    if not (np.isfinite(tol) and tol > 0):
        raise InvalidInputError(f"tol must be a positive number of nats, got {tol!r}")
    start = time.perf_counter()
    p0b = None if p0 is None else _check_pmf(p0, w.shape[0], "p0")[None, :]
    if p0b is not None:
        p0b = np.maximum(p0b, 1e-300)
        p0b = p0b / p0b.sum()
    lo, up, p, it = blahut_arimoto_batch(w[None], tol=tol, max_iter=max_iter, p0=p0b)
    pv = p[0]
    q = pv @ w
    d = divergences(w, q)
    cert = _certificate(pv, d, tolerance=max(tol, 1e-9))
    return CapacityResult(
        capacity=float(lo[0]),
        lower_bound=float(lo[0]),
        upper_bound=float(up[0]),
        input_distribution=pv,
        output_distribution=q,
        method="blahut-arimoto",
        iterations=int(it[0]),
        certificate=cert,
        solve_time=time.perf_counter() - start,
    )


def capacity_conic(W: np.ndarray, *, solver: str | None = None) -> CapacityResult:
    r"""Capacity by the exponential-cone min–max program (Csiszár–Gallager form).

    .. math:: \min_{q,t}\ t\quad\text{s.t.}\quad \sum_y W_{ay}\log\frac{W_{ay}}{q_y}\le t\ \ (a\in\mathcal X),
              \qquad \mathbf 1^\top q = 1,\ q\ge 0.

    The optimal :math:`t` is :math:`C(W)`; the constraint multipliers :math:`\lambda_a` sum to 1 and form a
    capacity-achieving input distribution (Lagrangian stationarity in :math:`q` gives :math:`q=\lambda W`).
    The certificate evaluates, in numpy, :math:`I(\lambda,W)\le C\le\max_a D(W_a\|q^\star)` with the solver's
    :math:`q^\star` — a rigorous bracket independent of the solver's own tolerances.

    Raises
    ------
    InvalidChannelError
        If ``W`` is not row-stochastic.
    SolverFailedError
        If no conic solver returned an optimal solution.
    """
    w = _as_matrix(W)
    m, k = w.shape
    start = time.perf_counter()
    # Outputs that no input can produce carry no information: drop them (q_y = 0 there).
    used = w.max(axis=0) > 0
    wu = w[:, used]
    q = cp.Variable(wu.shape[1], nonneg=True)
    t = cp.Variable()
    cons = []
    for a in range(m):
        sup = np.flatnonzero(wu[a] > 0)  # 0 log(0/q) = 0: only the row's support enters its cone constraint
        cons.append(cp.sum(cp.rel_entr(wu[a, sup], q[sup])) <= t)
    simplex = cp.sum(q) == 1
    prob = cp.Problem(cp.Minimize(t), cons + [simplex])
    stats = solve_with_fallback(prob, program="capacity (min-max conic)", solver=solver)
    if q.value is None:
        raise SolverFailedError("capacity (min-max conic)", list(stats.attempts))
    lam = np.array([float(c.dual_value) for c in cons])
    lam = np.clip(lam, 0.0, None)
    if lam.sum() <= 0:
        lam = np.full(m, 1.0 / m)
    lam = lam / lam.sum()
    qs = np.zeros(k)
    qs[used] = np.clip(q.value, 0.0, None)
    qs = qs / qs.sum()
    # Upper bound from the solver's q (min-max: C <= max_a D(W_a || q) for any q).
    d_q = divergences(w, qs)
    upper = float(np.max(d_q))
    # Lower bound from the multipliers: I(lambda, W).
    q_lam = lam @ w
    d_lam = divergences(w, q_lam)
    lower = float(np.sum(np.where(lam > 0, lam * d_lam, 0.0)))
    cert = Certificate(
        primal_residual=float(max(abs(qs.sum() - 1.0), 0.0)),
        dual_residual=float(abs(np.clip(np.array([c.dual_value for c in cons]), None, 0.0)).max(initial=0.0)),
        complementary_slackness=float(np.max(lam * (upper - d_q))),
        duality_gap=max(upper - lower, 0.0),
        primal_objective=upper,
        dual_objective=lower,
        tolerance=1e-7,
    )
    return CapacityResult(
        capacity=lower,
        lower_bound=lower,
        upper_bound=upper,
        input_distribution=lam,
        output_distribution=q_lam,
        method="conic",
        iterations=int(stats.iterations or 0),
        certificate=cert,
        solve_time=time.perf_counter() - start,
        solver=stats,
    )


def channel_capacity(
    W: np.ndarray, *, method: str = "blahut-arimoto", tol: float = DEFAULT_GAP
) -> CapacityResult:
    """Capacity of ``W`` by ``method`` (``"blahut-arimoto"`` or ``"conic"``)."""
    if method == "blahut-arimoto":
        return blahut_arimoto(W, tol=tol)
    if method == "conic":
        return capacity_conic(W)
    raise InvalidInputError(f"method must be 'blahut-arimoto' or 'conic', got {method!r}")
