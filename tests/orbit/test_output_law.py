r"""Lemma 4's E_i as its output law per type (no joint types), and the no-interior band above ε_X at large n.

References independent of :mod:`problems.orbit.output_law` and :mod:`problems.orbit.mixture_pd_i`:

* p_Y = K⁻¹p_X computed here by applying the inverse of one row of E_d along every axis of the prior's tensor, and
  the type channel P(s(Y) | t(X)) summed here from the N × N mechanism p_Y(y)K(x|y)/p_X(x) (n = 12);
* the closed form h(ε) (Lemma 1: PD-I ⊂ R-PD = h(ε), attained by E_i) up to n = 400;
* the mean Hamming distance of samples against h(ε) (the distance law of E_d is Binomial(n, (m−1)t/(1 + (m−1)t)));
* the best constant mechanism's distortion n(1 − max_a π̄(a)) in closed form.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from problems.orbit import ReducedPDI, lift_mechanism, sample
from problems.orbit.symmetric_prior import parse_symmetric_prior

MIXTURE = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"
REL = 1e-6


def _h(eps: float, n: int, m: int) -> float:
    t = (m - 1) * math.exp(-eps)
    return n * t / (1.0 + t)


def _independent_type_channel(spec: str, n: int, level: float) -> np.ndarray:
    """m = 2: P(s(Y) = s | t(X) = t) of E_i at ``level``, from the N × N mechanism built here."""
    w, *rows = spec.split(":")[1].split("/")
    weights = [float(v) for v in w.split(",")]
    pis = [np.array([float(v) for v in r.split(",")]) for r in rows]
    N = 2**n
    ones = np.array([bin(i).count("1") for i in range(N)])  # itertools.product order: bit k is row n−1−k
    p_x = sum(wj * pi[1] ** ones * pi[0] ** (n - ones) for wj, pi in zip(weights, pis))
    t = math.exp(-level)
    K1 = np.array([[1.0, t], [t, 1.0]]) / (1.0 + t)  # K1[a, b] = K₁(a | b)
    inv = np.linalg.inv(K1)
    p_y = p_x.reshape((2,) * n)
    for axis in range(n):  # K⁻¹ = (K₁⁻¹)^⊗n, one axis at a time
        p_y = np.moveaxis(np.tensordot(inv, p_y, axes=([1], [axis])), 0, axis)
    p_y = p_y.reshape(N)
    assert p_y.min() >= -1e-15
    d = ones[np.bitwise_xor.outer(np.arange(N), np.arange(N))]  # Hamming distance: popcount of x XOR y
    K = (t**d) / (1.0 + t) ** n  # K(x | y)
    W = p_y[None, :] * K / p_x[:, None]
    C = np.zeros((n + 1, n + 1))
    for k in range(n + 1):  # x-type (n − k zeros, k ones) ↔ row n − k of compositions(n, 2)
        for s in range(n + 1):
            C[n - k, n - s] = W[np.ix_(ones == k, ones == s)].sum(axis=1).mean()
    return C


def test_type_channel_matches_the_independent_mechanism():
    """n = 12 (N = 4096, above the lift limit: the answer carries the type channel)."""
    n = 12
    program = ReducedPDI(parse_symmetric_prior(MIXTURE, n, 2))
    res = program.solve(program.eps_X + 0.3)
    assert res.status == "optimal" and res.extras["reduction"] == "output-law"
    assert res.extras["mechanism_level"] == "type"
    C = np.asarray(res.mechanism.matrix)
    ref = _independent_type_channel(MIXTURE, n, res.extras["level"])
    assert np.max(np.abs(C - ref)) <= 1e-12


@pytest.mark.parametrize(
    "n,off",
    [(200, off) for off in (1e-10, 0.01, 0.3, 20.0)]
    + [(400, 0.3)]
    + [pytest.param(400, off, marks=pytest.mark.slow) for off in (1e-10, 0.01, 20.0)],
)
def test_large_n_equals_h_without_joint_types(n, off):
    """PD-I of the README's mixture at n = 200, 400: h(ε), certified, and the joint types are never built."""
    program = ReducedPDI(parse_symmetric_prior(MIXTURE, n, 2))
    eps = program.eps_X + off
    res = program.solve(eps)
    h = _h(eps, n, 2)
    assert res.status == "optimal" and res.extras["reduction"] == "output-law"
    assert res.bounds.lower <= h * (1 + 1e-12) and h * (1 - 1e-12) <= res.bounds.upper
    assert abs(res.value - h) <= REL * h
    assert program.__dict__.get("_deferred") is True


def test_contagious_at_n100_by_the_theorem():
    """contagious:0.2 at n = 100 (ε_X ≈ 67, values near 1e-28): certified by Lemma 4, relative to h(ε)."""
    program = ReducedPDI(parse_symmetric_prior("contagious:0.2", 100, 2))
    for off in (0.01, 2.0):
        eps = program.eps_X + off
        res = program.solve(eps)
        h = _h(eps, 100, 2)
        assert res.status == "optimal" and res.extras["reduction"] == "output-law"
        assert abs(res.value - h) <= REL * h


def test_samples_follow_the_independent_type_channel():
    """n = 12: the output types of 20 000 samples for one x match the independently built channel's row within five
    standard errors per type; every sample is a database of n values in {0, 1}."""
    n = 12
    program = ReducedPDI(parse_symmetric_prior(MIXTURE, n, 2))
    res = program.solve(program.eps_X + 0.3)
    ref = _independent_type_channel(MIXTURE, n, res.extras["level"])
    x = np.array([0] * 7 + [1] * 5)
    y = sample(res, x, 20_000, rng=7)
    assert y.shape == (20_000, n) and set(np.unique(y)) <= {0, 1}
    freq = np.bincount(n - y.sum(axis=1), minlength=n + 1) / len(y)  # row of compositions(n, 2): #zeros first
    p = ref[7]  # x has 7 zeros: type (7, 5), row n − 5 = 7
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / len(y)) + 1e-4)


def test_distortion_of_samples_is_h_over_the_prior():
    """n = 200: over x drawn from the prior and y ~ W(·|x), the mean distance is h(ε) within five standard errors
    (E d(X, Y) = h(ε) for E_i; the one-x means vary)."""
    n = 200
    program = ReducedPDI(parse_symmetric_prior(MIXTURE, n, 2))
    eps = program.eps_X + 0.3
    res = program.solve(eps)
    rng = np.random.default_rng(3)
    means = []
    for _ in range(300):
        p1 = 0.2 if rng.random() < 0.5 else 0.7  # the component, then its i.i.d. rows
        x = (rng.random(n) < p1).astype(int)
        y = sample(res, x, 8, rng=rng)
        means.append(float((y != x[None, :]).sum(axis=1).mean()))
    means = np.asarray(means)
    assert abs(means.mean() - _h(eps, n, 2)) <= 5 * means.std(ddof=1) / math.sqrt(len(means))


def test_lift_matches_the_answer_at_small_n():
    """n = 8: the lifted matrix of ``lift_mechanism`` is the verified database-level mechanism of the answer."""
    program = ReducedPDI(parse_symmetric_prior(MIXTURE, 8, 2))
    res = program.solve(program.eps_X + 0.3)
    assert res.extras["reduction"] == "output-law" and res.extras["mechanism_level"] == "database"
    assert np.allclose(np.asarray(lift_mechanism(res).matrix), np.asarray(res.mechanism.matrix), atol=1e-15)


def test_band_above_eps_x_answers_bounds_at_once():
    """contagious:0.2 at n = 200, ε_X + 1e-9 (no interior; Lemma 4 not proved there): bounds in well under a
    second, ``inaccurate``, the upper bound the best constant's closed form n(1 − max π̄), the LP not run."""
    program = ReducedPDI(parse_symmetric_prior("contagious:0.2", 200, 2))
    eps = program.eps_X + 1e-9
    start = time.perf_counter()
    res = program.solve(eps)
    assert time.perf_counter() - start < 5.0
    assert res.status == "inaccurate" and res.extras["lp_skipped"]
    assert res.bounds.lower <= _h(eps, 200, 2) and res.bounds.lower <= res.bounds.upper
    row_law = np.asarray(program.prior.to_dict()["row_law"]) if "row_law" in program.prior.to_dict() else None
    best_constant = 200 * 0.5  # contagious:0.2 is symmetric in 0 and 1: π̄ = (0.5, 0.5)
    assert row_law is None or np.allclose(row_law, 0.5)
    assert abs(res.bounds.upper - best_constant) <= 1e-9 * best_constant
    y = sample(res, np.zeros(200, dtype=int), 10, rng=1)
    assert np.all(y == y[:, :1])  # a constant database
