r"""PD-I and R-PD in the paper's own bilinear variables :math:`(p_{X|Y}, p_Y)` (Wang, Ying & Zhang 2016, (8)–(12), (20)–(24)).

The toolkit solves both programs exactly as linear programs in the joint :math:`q(x,y) = p_Y(y)p_{X|Y}(x|y)`
(:mod:`problems.programs.pd_i`, :mod:`problems.programs.r_pd`).  Here they are solved as the paper writes them,

.. math::

    \min_{P, p_Y}\ \sum_{x,y} p_Y(y)\,P(x,y)\,d(x,y)\quad\text{s.t.}\quad
    P(x,y) \le e^{\epsilon} P(x',y)\ (x\sim x',\ \forall y),\quad \sum_x P(x,y) = 1,\quad P \ge 0,\quad p_Y \ge 0,

plus :math:`\sum_y P(x,y)p_Y(y) = p_X(x)` for PD-I (11), or :math:`\sum_y p_Y(y) = 1` for R-PD (23), where
:math:`P(x,y) = p_{X|Y}(x|y)`.  The objective (and PD-I's constraint (11)) is *bilinear*, so the program is
non-convex and IPOPT returns local optima.

What it checks.  Every feasible :math:`(P,p_Y)` gives a feasible joint :math:`q`, so no local optimum can be
below the LP optimum :math:`D^*`; the multistart value is an upper bound on :math:`D^*`.  The check is that
no start beats the LP by more than the tolerance (which would expose a wrong LP reformulation) and that some
start reaches it (the LP's value is attained in the paper's variables).
"""

from __future__ import annotations

import time

import numpy as np

from problems.closed_forms import check_eps
from problems.database import DatabaseSpace
from problems.errors import InvalidInputError
from problems.priors import Prior

from ._common import (
    DEFAULT_REACH_TOL,
    MultistartResult,
    check_starts,
    ipopt_options,
    require_casadi,
    run_multistart,
)

__all__ = ["bilinear_pd_i", "bilinear_r_pd", "BILINEAR_SIZE_LIMIT"]

#: Largest number of databases N accepted (the model has N² + N variables).
BILINEAR_SIZE_LIMIT = 64


def _build(space: DatabaseSpace, d: np.ndarray, eps: float, p_x: np.ndarray | None):
    ca = require_casadi()
    N = space.size
    r = float(np.exp(eps))
    x = ca.SX.sym("x", N * N + N)
    P = ca.reshape(x[: N * N], N, N)  # column-major: P[x, y] = x[y*N + x]; column y is p_{X|Y}(.|y)
    py = x[N * N :]
    joint = P @ ca.diag(py)  # q(x, y) = P(x, y) p_Y(y)
    obj = ca.sum1(ca.sum2(joint * ca.DM(d)))
    pi, pj = space.neighbour_pairs
    ratio = ca.vertcat(*[P[int(i), :].T - r * P[int(j), :].T for i, j in zip(pi, pj)])
    cols = ca.sum1(P).T  # Σ_x P(x, y) = 1
    if p_x is None:
        mass = ca.sum1(py)  # (23)
        mass_rhs = np.ones(1)
    else:
        mass = ca.sum2(joint)  # (11): Σ_y P(x, y) p_Y(y) = p_X(x)
        mass_rhs = np.asarray(p_x, float)
    g = ca.vertcat(ratio, cols, mass)
    n_ratio = ratio.shape[0]
    lbg = np.concatenate([np.full(n_ratio, -np.inf), np.ones(N), mass_rhs])
    ubg = np.concatenate([np.zeros(n_ratio), np.ones(N), mass_rhs])
    # A small initial barrier parameter keeps IPOPT near structured starts (with the default μ₀ = 0.1 it
    # leaves even the exact optimum for a worse local optimum of the bilinear program).
    opts = ipopt_options(extra={"ipopt.mu_init": 1e-4})
    solver = ca.nlpsol("bilinear_pd", "ipopt", {"x": x, "f": obj, "g": g}, opts)
    bounds = {
        "lbx": np.zeros(N * N + N),
        "ubx": np.concatenate([np.ones(N * N), np.full(N, np.inf if p_x is not None else 1.0)]),
        "lbg": lbg,
        "ubg": ubg,
    }
    return solver, bounds


def _run(
    name: str,
    space: DatabaseSpace,
    d: np.ndarray,
    eps: float,
    p_x: np.ndarray | None,
    starts: int,
    seed: int,
    tolerance: float,
    reference: float | None,
    reference_name: str | None,
    t0: float,
) -> MultistartResult:
    N = space.size
    if N > BILINEAR_SIZE_LIMIT:
        raise InvalidInputError(
            f"the bilinear model has N² + N = {N * N + N} variables; it accepts N ≤ {BILINEAR_SIZE_LIMIT} "
            f"databases (got N = {N}); use the exact LP (problems.programs) for larger spaces"
        )
    solver, bounds = _build(space, d, eps, p_x)
    x0s, families = _starts(d, eps, p_x, starts, seed)
    pi, pj = space.neighbour_pairs
    r = float(np.exp(eps))

    def evaluate(xv: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        P = np.clip(xv[: N * N].reshape(N, N, order="F"), 0.0, None)
        py = np.clip(xv[N * N :], 0.0, None)
        q = P * py[None, :]
        value = float(np.sum(q * d))
        resid = max(
            float(np.max(P[pi] - r * P[pj], initial=0.0)),
            float(np.max(np.abs(P.sum(axis=0) - 1.0))),
            float(np.max(np.abs(q.sum(axis=1) - p_x))) if p_x is not None else abs(float(py.sum()) - 1.0),
        )
        if resid > 1e-6:  # an infeasible end point is not a value of the program
            return float("nan"), {}
        return value, {"posterior": P, "p_y": py, "joint": q, "max_residual": np.array(resid)}

    res = run_multistart(
        model=name,
        sense="min",
        solver=solver,
        starts=x0s,
        bounds=bounds,
        evaluate=evaluate,
        seed=seed,
        t_start=t0,
        reference=reference,
        reference_name=reference_name,
        tolerance=tolerance,
        extras={"eps": eps, "n": space.n, "m": space.m},
    )
    resid = float(res.solution.get("max_residual", np.nan))
    vals = np.asarray(res.values)
    fam = np.asarray(families)
    by_family = {}
    for f in sorted(set(families)):
        sel = fam == f
        by_family[f] = {
            "starts": int(sel.sum()),
            "reached_best": int(np.sum(np.abs(vals[sel] - res.value) <= tolerance)),
            "reached_reference": None
            if reference is None
            else int(np.sum(np.abs(vals[sel] - reference) <= tolerance)),
        }
    return MultistartResult(
        **{
            **res.__dict__,
            "extras": {**res.extras, "max_constraint_residual": resid, "start_families": by_family},
        }
    )


def _starts(
    d: np.ndarray, eps: float, p_x: np.ndarray | None, starts: int, seed: int
) -> tuple[list[np.ndarray], list[str]]:
    r"""Deterministic starts, alternating two families.

    * ``"kernel"`` (even k): :math:`P(x|y) \propto e^{-\epsilon d(x,y)}\,e^{u_{xy}}` with
      :math:`u_{xy}\sim U(-\sigma_k,\sigma_k)`, :math:`\sigma_k = 0.05\lfloor k/2\rfloor` (the first one
      unperturbed: every ratio constraint tight), and :math:`p_Y` the non-negative least-squares solution of
      (11) :math:`P p_Y = p_X` (uniform for R-PD).
    * ``"dirichlet"`` (odd k): every column of :math:`P` and :math:`p_Y` from Dirichlet(1) — uninformed.
    """
    from scipy.optimize import nnls

    rng = np.random.default_rng(seed)
    N = d.shape[0]
    x0s, fams = [], []
    for k in range(starts):
        if k % 2 == 0:
            sigma = 0.05 * (k // 2)
            P0 = np.exp(-eps * d + rng.uniform(-sigma, sigma, size=(N, N)))
            P0 /= P0.sum(axis=0, keepdims=True)
            if p_x is None:
                py0 = np.full(N, 1.0 / N)
            else:
                py0, _ = nnls(P0, p_x)
                py0 = py0 / py0.sum() if py0.sum() > 0 else np.full(N, 1.0 / N)
            fams.append("kernel")
        else:
            P0 = rng.dirichlet(np.ones(N), size=N).T
            py0 = rng.dirichlet(np.ones(N))
            fams.append("dirichlet")
        x0s.append(np.concatenate([P0.ravel(order="F"), py0]))
    return x0s, fams


def bilinear_pd_i(
    prior: Prior,
    eps: float,
    *,
    starts: int = 20,
    seed: int = 0,
    tolerance: float = DEFAULT_REACH_TOL,
    compare: bool = True,
) -> MultistartResult:
    r"""Multistart IPOPT on PD-I (Wang, Ying & Zhang 2016, (8)–(12)) in :math:`(p_{X|Y}, p_Y)`.

    With ``compare`` the LP optimum :math:`D^*_i(\epsilon)` of :class:`problems.programs.PDI` is the reference
    (raises :class:`~problems.errors.InfeasibleProgramError` below :math:`\epsilon_X`, as the LP does).
    Each start: every column of :math:`p_{X|Y}` and :math:`p_Y` drawn from Dirichlet(1).
    """
    t0 = time.perf_counter()
    starts, seed = check_starts(starts, seed)
    eps = check_eps(eps)
    space = prior.space
    reference = None
    if compare:
        from problems.programs import PDI

        lp = PDI(prior).solve(eps)
        reference = float(lp.value)
    res = _run(
        "pd-i-bilinear",
        space,
        space.hamming_matrix().astype(float),
        eps,
        prior.pmf,
        starts,
        seed,
        tolerance,
        reference,
        "PD-I linear program (problems.programs.PDI)" if compare else None,
        t0,
    )
    return _with_reference_bounds(res, lp if compare else None)


def bilinear_r_pd(
    space: DatabaseSpace,
    eps: float,
    *,
    starts: int = 20,
    seed: int = 0,
    tolerance: float = DEFAULT_REACH_TOL,
    compare: bool = True,
) -> MultistartResult:
    r"""Multistart IPOPT on R-PD (Wang, Ying & Zhang 2016, (20)–(24)) in :math:`(p_{X|Y}, p_Y)`.

    With ``compare`` the LP optimum of :class:`problems.programs.RPD` (which equals
    :math:`h(\epsilon) = n/(1+e^\epsilon/(m-1))`, Lemma 1) is the reference.
    """
    t0 = time.perf_counter()
    starts, seed = check_starts(starts, seed)
    eps = check_eps(eps)
    reference = None
    if compare:
        from problems.programs import RPD

        lp = RPD(space).solve(eps)
        reference = float(lp.value)
    res = _run(
        "r-pd-bilinear",
        space,
        space.hamming_matrix().astype(float),
        eps,
        None,
        starts,
        seed,
        tolerance,
        reference,
        "R-PD linear program (problems.programs.RPD)" if compare else None,
        t0,
    )
    return _with_reference_bounds(res, lp if compare else None)


def _with_reference_bounds(res: MultistartResult, lp) -> MultistartResult:  # noqa: ANN001
    """Record the LP's proved bounds (``reference_lower``, ``reference_upper``, ``reference_certified``)."""
    if lp is None:
        return res
    import dataclasses

    extras = {
        **res.extras,
        "reference_lower": float(lp.bounds.lower),
        "reference_upper": float(lp.bounds.upper),
        "reference_certified": bool(lp.certified),
    }
    return dataclasses.replace(res, extras=extras)
