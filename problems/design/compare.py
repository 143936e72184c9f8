r"""Baselines for the optimal information-private mechanism, and the comparison table.

* Calibrated basic channels of Wu, Xia & He (2020) (:mod:`problems.information.basic_channels`), applied to the query
  answer (scalar queries, outputs = answers):

  - ``randomized-response``: :math:`k`-ary randomized response :math:`p(y|a)=1-p` for :math:`y=a`,
    :math:`p/(k-1)` otherwise; data independent (Definition 12), so :math:`C_1\le\log k-H(Z)` (63)/(64) with
    :math:`H(Z)=h(p)+p\log(k-1)`; calibrated by solving :math:`\log k-H(Z)=\epsilon` (for :math:`k=2` this is
    (57), :func:`~problems.information.calibrate_randomized_response`).
  - ``exponential``: the discrete exponential channel (69) with :math:`\lambda` from (83)
    (:func:`~problems.information.calibrate_exponential`), ranks by the problem's distortion.
  - ``gaussian``: the Gaussian channel with :math:`N=T^2/(e^{2\epsilon}-1)` (117), :math:`T` the half-range of the
    answers, quantised to the output grid (bins between consecutive outputs).  Quantisation is
    post-processing and :math:`\tfrac12\log(1+T^2/N)` bounds the amplitude-limited capacity, so
    :math:`C_1\le\epsilon` still holds.

  For ``identity`` (synthetic database) the baselines are the exponential channel over databases (ranks by
  the distortion) and per-record :math:`m`-ary randomized response calibrated by bisection on the *recomputed*
  :math:`C_1` (the data-independent bound is not tight there: a correlated adversary sees all records).
  Every baseline's :math:`C_1` is recomputed with :func:`problems.information.individual_capacity`.
* The optimal :math:`\epsilon`-DP mechanism for the same query, output alphabet, distortion and prior: the LP
  :math:`\min\mathbb E[d]` s.t. :math:`p(y|x)\le e^\epsilon p(y|x')` for neighbours :math:`x\sim x'` (Wang, Ying & Zhang 2016,
  (13)–(15) with a general output alphabet).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

from ..errors import InvalidInputError
from ..lp import dense_spec
from ..solvers.chain import solve as solve_lp
from .problem import DesignProblem
from .program import IPDesign, _check_eps, recompute_c1

__all__ = ["Baseline", "calibrated_channels", "optimal_dp_mechanism", "comparison_table"]


@dataclass(frozen=True, eq=False)
class Baseline:
    """A baseline mechanism: ``matrix`` is (N, K); ``c1`` its recomputed individual capacity (nats)."""

    name: str
    matrix: np.ndarray
    distortion: float
    c1: float
    parameter: str
    value: float

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "distortion": self.distortion,
            "C1": self.c1,
            "parameter": self.parameter,
            "value": self.value,
        }


def _expected(problem: DesignProblem, W: np.ndarray) -> float:
    return float(np.sum(problem.prior.pmf[:, None] * problem.database_distortion * W))


def _rr_entropy(p: float, k: int) -> float:
    from ..information import binary_entropy

    return float(binary_entropy(p)) + (p * math.log(k - 1) if k > 2 else 0.0)


def _calibrate_rr(eps: float, k: int) -> float:
    """Smallest flip probability p in [0, (k-1)/k] with log k - H(Z) <= eps (H increasing there)."""
    if k < 2 or eps >= math.log(k):
        return 0.0
    target = math.log(k) - eps
    top = (k - 1) / k
    if eps == 0:
        return top
    return float(brentq(lambda p: _rr_entropy(p, k) - target, 0.0, top, xtol=1e-15, rtol=1e-14))


def _rr_matrix(p: float, k: int) -> np.ndarray:
    M = np.full((k, k), p / (k - 1) if k > 1 else 0.0)
    np.fill_diagonal(M, 1 - p)
    return M


def _exp_matrix(lam: float, dist: np.ndarray) -> np.ndarray:
    """Exponential channel (69): p(y|a) ∝ exp(-λ·rank of y by d(a, y)) (ties broken by output index)."""
    A, K = dist.shape
    order = np.lexsort((np.tile(np.arange(K), (A, 1)), dist), axis=1)
    phi = np.empty((A, K))
    np.put_along_axis(phi, order, np.tile(np.arange(K, dtype=float), (A, 1)), axis=1)
    if not math.isfinite(lam):
        return (phi == 0).astype(float)
    w = np.exp(-lam * phi)
    return w / w.sum(axis=1, keepdims=True)


def _per_record_rr(problem: DesignProblem, p: float) -> np.ndarray:
    """Identity release with independent m-ary randomized response on each record (flip probability p)."""
    space = problem.space
    M = _rr_matrix(p, space.m)
    e = space.elements
    # outputs are the answers = databases in the problem's (sorted = product) order
    y = problem.outputs.astype(int)
    W = np.ones((space.size, y.shape[0]))
    for k in range(space.n):
        W *= M[e[:, k][:, None], y[:, k][None, :]]
    return W


def calibrated_channels(problem: DesignProblem, eps: float, *, unit: str = "nats") -> list[Baseline]:
    """The calibrated basic channels of the module docstring at privacy level ε (all with C₁ ≤ ε)."""
    e = _check_eps(eps, unit)
    same = problem.n_answers == problem.n_outputs and np.array_equal(problem.answers, problem.outputs)
    if not same:
        raise InvalidInputError(
            "the calibrated basic channels need the output alphabet to equal the set of answers (outputs=None)"
        )
    k = problem.n_outputs
    out: list[Baseline] = []
    from ..information import calibrate_exponential, calibrate_gaussian

    def add(name: str, W_answers: np.ndarray | None, W_full: np.ndarray | None, parameter: str, value: float):
        if W_full is None:
            assert W_answers is not None  # one of the two is given
            W_full = problem.expand(W_answers)
        W = W_full
        c1 = recompute_c1(problem, W).c1 if k > 1 else 0.0
        out.append(Baseline(name, W, _expected(problem, W), float(c1), parameter, float(value)))

    if k == 1:
        add("constant", np.ones((1, 1)), None, "-", 0.0)
        return out
    lam = calibrate_exponential(e, k).value
    add("exponential", _exp_matrix(lam, problem.distortion), None, "lambda", lam)
    if problem.query == "identity":
        lo, hi = 0.0, (problem.space.m - 1) / problem.space.m
        if recompute_c1(problem, _per_record_rr(problem, lo)).c1 > e:
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                if recompute_c1(problem, _per_record_rr(problem, mid)).upper_bound <= e:
                    hi = mid
                else:
                    lo = mid
            p = hi
        else:
            p = lo
        add("randomized-response", None, _per_record_rr(problem, p), "p (per record)", p)
        return out
    p = _calibrate_rr(e, k)
    add("randomized-response", _rr_matrix(p, k), None, "p", p)
    if problem.answers.shape[1] == 1 and e > 0:
        a = problem.answers[:, 0]
        T = 0.5 * float(a.max() - a.min())
        if T > 0:
            N = calibrate_gaussian(e, T).value
            yv = problem.outputs[:, 0]
            srt = np.argsort(yv)
            mids = 0.5 * (yv[srt][1:] + yv[srt][:-1])
            edges = np.concatenate([[-np.inf], mids, [np.inf]])
            cdf = norm.cdf((edges[None, :] - a[:, None]) / math.sqrt(N))
            G = np.zeros((len(a), k))
            G[:, srt] = np.diff(cdf, axis=1)
            G = np.clip(G, 0, None)
            add("gaussian (quantised)", G / G.sum(axis=1, keepdims=True), None, "N", N)
    return out


def optimal_dp_mechanism(
    problem: DesignProblem, eps: float, *, unit: str = "nats"
) -> tuple[np.ndarray, float]:
    r"""Optimal ε-DP mechanism for the problem's query/outputs/distortion/prior: ``(W (N, K), E[d])``.

    LP: :math:`\min\sum_x p_X(x)\sum_y p(y|x)d(f(x),y)` s.t. :math:`p(y|x)\le e^\epsilon p(y|x')` (x ∼ x'),
    solved by the LP core (:func:`problems.solvers.solve`); W is exactly ε-DP (its rows are renormalised only by
    their float sums).
    """
    e = _check_eps(eps, unit)
    space = problem.space
    cost = problem.prior.pmf[:, None] * problem.database_distortion
    spec = dense_spec(space, cost, program="dp-design", row_mass=np.ones(space.size))
    sol = solve_lp(spec, e)  # the LP core: certified, exactly DP as returned
    Wv = sol.z.reshape(space.size, problem.n_outputs)
    return Wv, _expected(problem, Wv)


def comparison_table(
    problem: DesignProblem, eps_values, *, factor: bool = False, unit: str = "nats"
) -> list[dict]:
    """Expected distortion against ε: optimal IP mechanism, calibrated channels, optimal ε-DP mechanism.

    One row per ε (in ``unit``): ``optimal_ip``, ``optimal_ip_C1``, ``optimal_ip_lower_bound``,
    ``<baseline>`` and ``<baseline>_C1`` for each calibrated channel, ``optimal_dp`` and ``optimal_dp_C1``
    (the information privacy C₁ of the ε-DP optimum, for reference).  All C₁ in nats.
    """
    design = IPDesign(problem, factor=factor)
    rows = []
    for eps in np.atleast_1d(np.asarray(eps_values, dtype=float)):
        res = design.solve(float(eps), unit=unit)
        row = {
            "eps": float(eps),
            "unit": unit,
            "optimal_ip": res.value,
            "optimal_ip_C1": res.extras["C1"],
            "optimal_ip_lower_bound": res.extras["lower_bound"],
        }
        for b in calibrated_channels(problem, float(eps), unit=unit):
            row[b.name] = b.distortion
            row[f"{b.name}_C1"] = b.c1
        Wdp, ddp = optimal_dp_mechanism(problem, float(eps), unit=unit)
        row["optimal_dp"] = ddp
        row["optimal_dp_C1"] = float(recompute_c1(problem, Wdp).c1)
        rows.append(row)
    return rows
