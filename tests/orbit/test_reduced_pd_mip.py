"""Reduced PD-MIP for i.i.d. priors (single-letterisation R_n(D) = n R_1(D/n)) against the dense PD-MIP,
closed forms, the tensorised certificate, the row-wise sampler and the typed errors."""

from __future__ import annotations

import io
import json
import math
import sys
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from problems.cli import main
from problems.database import DatabaseSpace
from problems.errors import (
    InvalidDistortionError,
    InvalidInputError,
    InvalidPriorError,
    ProblemTooLargeError,
    ShapeMismatchError,
)
from problems.orbit import (
    ReducedPDMIP,
    make_program,
    product_channel,
    resolve_path,
    symmetric_iid,
    symmetric_mixture,
    symmetric_uniform,
)
from problems.priors import exchangeable_mixture, from_pmf, iid
from problems.programs import PDMIP, rate_distortion_lower_bound

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from reference.rate_distortion import hamming as _hamming  # noqa: E402
from reference.rate_distortion import rd_point as _rd_point4  # noqa: E402


def _rd_point(p, d, D, s_hi=60.0):  # noqa: ANN001, ANN202
    R, s, W, _gap = _rd_point4(p, d, D, s_hi)
    return R, s, W


def _hb(p: float) -> float:
    return -p * math.log(p) - (1 - p) * math.log(1 - p)


def _row(n: int, m: int) -> np.ndarray:
    return np.random.default_rng(10 * n + m).dirichlet(np.full(m, 3.0))


# ------------------------------------------------------------------ (a), (c): reduced = R(D) of the full alphabet
@pytest.mark.parametrize("n,m", [(2, 2), (3, 2), (4, 2), (2, 3), (3, 3)])
def test_reduced_equals_independent_rate_distortion(n, m):
    """n·R₁(D/n) (single-letterisation) against Blahut–Arimoto on all mⁿ databases (no library numerics)."""
    row = _row(n, m)
    prior = iid(DatabaseSpace(n, m), row)
    red = ReducedPDMIP(prior)
    assert isinstance(make_program("pd-mip", prior), ReducedPDMIP)
    p, d = prior.pmf, _hamming(n, m)
    d_max = n * (1 - row.max())  # R_n(D) = 0 from here on
    for frac in (0.15, 0.5, 1.3):
        D = min(frac * d_max, n)
        b = red.solve(D)
        W = product_channel(b).matrix()
        assert float(np.sum(p[:, None] * W * d)) <= D + 1e-12
        if frac < 1:  # 0 < D < D_max: the optimum (and λ > 0) is unique
            R, s, W_ref = _rd_point(p, d, D)
            assert b.status == "optimal"
            assert abs(b.value - R) <= 1e-6 * max(1.0, R)
            assert b.bounds.lower <= R + 1e-9 and R - 1e-9 <= b.bounds.upper
            np.testing.assert_allclose(W, W_ref, atol=1e-5)
            assert b.extras["lambda_certified"] == pytest.approx(s, rel=1e-5)
            # the n-row lower bound n·β_1 is below the true optimum (it bounds every mechanism on Dⁿ)
            assert b.certificate.dual_objective <= R + 1e-9
        else:
            assert b.value == 0.0 and b.status == "optimal"


def test_binary_uniform_closed_form_n200():
    """Uniform bits, n = 200: R_n(D) = n (ln 2 − H_b(D/n)) for D ≤ n/2, 0 above."""
    n = 200
    prog = ReducedPDMIP(symmetric_uniform(n, 2))
    for delta in (0.01, 0.1, 0.25, 0.4):
        ref = n * (math.log(2) - _hb(delta))
        res = prog.solve(n * delta)
        assert res.status == "optimal"
        assert abs(res.value - ref) <= 1e-6 * ref
        assert res.bounds.lower <= ref * (1 + 1e-12) and ref * (1 - 1e-12) <= res.bounds.upper
    assert prog.solve(0.5 * n).value == 0.0


# ------------------------------------------------------------------ (b): closed forms at n = 200
@pytest.mark.filterwarnings(
    "ignore:Solution may be inaccurate"
)  # the conic solve at D = 0 (exact endpoint kept)
@pytest.mark.parametrize("p", [0.3, 0.8])
def test_binary_closed_form_n200(p):
    n = 200
    prog = ReducedPDMIP(symmetric_iid(n, [p, 1 - p]))
    pmin = min(p, 1 - p)
    for D in (1.0, 10.0, 0.5 * n * pmin, 0.9 * n * pmin):
        res = prog.solve(D)
        delta = D / n
        assert res.value == pytest.approx(n * (_hb(p) - _hb(delta)), abs=1e-8)
        assert res.extras["lambda_certified"] == pytest.approx(math.log((1 - delta) / delta), abs=1e-8)
        res.certificate.check(1e-9)
    assert prog.solve(0.0).value == pytest.approx(n * _hb(p), abs=1e-8)
    assert prog.solve(n * pmin).value == pytest.approx(0.0, abs=1e-8)
    assert prog.solve(n).value == pytest.approx(0.0, abs=1e-12)
    assert prog.solve(10.0, unit="bits").value == pytest.approx(
        n * (_hb(p) - _hb(0.05)) / math.log(2), abs=1e-8
    )


def test_uniform_closed_form():
    """Uniform π on m letters: R_1(δ) = ln m − H_b(δ) − δ ln(m − 1) for δ ≤ (m−1)/m, λ = ln((m−1)(1−δ)/δ)."""
    n, m = 50, 3
    prog = make_program("pd-mip", symmetric_uniform(n, m))
    assert isinstance(prog, ReducedPDMIP)
    for delta in (0.05, 0.3, 0.6):
        res = prog.solve(n * delta)
        exact = n * (math.log(m) - _hb(delta) - delta * math.log(m - 1))
        assert res.value == pytest.approx(exact, abs=1e-9)
        # λ is pinned only to ~1e-7 here: with q uniform the bound is flat (quadratic) in λ at the optimum
        assert res.extras["lambda_certified"] == pytest.approx(
            math.log((m - 1) * (1 - delta) / delta), abs=1e-6
        )


# ------------------------------------------------------------------ (d): certificate and sampler
def test_certificate_tensorises():
    """(λ, c^⊗n) is an n-row dual point with normaliser Mⁿ and value n·β_1: check it on the full space."""
    n, m = 3, 3
    row = _row(n, m)
    space = DatabaseSpace(n, m)
    res = ReducedPDMIP(symmetric_iid(n, row)).solve(0.8)
    single = res.extras["single_letter_certificate"]
    c = res.certificate
    assert c.duality_gap == pytest.approx(n * single["duality_gap"], rel=1e-9, abs=1e-14)
    assert c.dual_objective == pytest.approx(n * single["dual_objective"], rel=1e-12)
    assert c.dual_objective <= c.primal_objective + 1e-12
    c.check(1e-9)
    q1 = res.extras["single_letter_p_y"]
    q = q1
    for _ in range(n - 1):
        q = np.kron(q, q1)
    bound, M = rate_distortion_lower_bound(
        iid(space, row).pmf, space.hamming_matrix(), q, res.extras["lambda_certified"], 0.8
    )
    assert bound == pytest.approx(c.dual_objective, abs=1e-10)
    assert M == pytest.approx((1 + single["dual_residual"]) ** n, abs=1e-12)


def test_sampler_matches_kronecker_power():
    n, m = 3, 3
    space = DatabaseSpace(n, m)
    res = ReducedPDMIP(symmetric_iid(n, [0.2, 0.3, 0.5])).solve(0.9)
    channel = product_channel(res)
    row = channel.matrix()[space.index([0, 2, 1])]
    assert (row > 1e-3).sum() > 5
    size = 40_000
    ys = channel.sample([0, 2, 1], np.random.default_rng(7), size=size)
    assert ys.shape == (size, n) and channel.sample([0, 2, 1], 1).shape == (n,)
    observed = np.bincount(ys @ (m ** np.arange(n - 1, -1, -1)), minlength=space.size)
    keep = row * size >= 5
    stat = ((observed[keep] - row[keep] * size) ** 2 / (row[keep] * size)).sum()
    assert stats.chi2.sf(stat, keep.sum() - 1) > 1e-3
    assert observed[~keep].sum() <= 3 * row[~keep].sum() * size + 20


def test_sampler_at_n200_and_no_matrix():
    n, p = 200, 0.3
    res = ReducedPDMIP(symmetric_iid(n, [p, 1 - p])).solve(20.0)
    channel = product_channel(res)
    with pytest.raises(ProblemTooLargeError):
        channel.matrix()
    rng = np.random.default_rng(3)
    x = (rng.random(n) > p).astype(np.int64)
    ys = channel.sample(x, rng, size=500)
    dist = (ys != x[None, :]).sum(axis=1).mean()  # E d(x, Y) given x; averages to D = 20 over x
    expected = float(sum(1 - res.extras["single_letter_channel"][a, a] for a in x))
    assert abs(dist - expected) < 5 * math.sqrt(expected / 500) + 0.1


# ------------------------------------------------------------------ (e): errors and dispatch
def test_mixture_and_bad_input_raise_typed_errors():
    mix = symmetric_mixture(5, [[0.2, 0.8], [0.7, 0.3]], [0.5, 0.5])
    for prior in (mix, exchangeable_mixture(DatabaseSpace(2, 2), [[0.2, 0.8], [0.7, 0.3]], [0.5, 0.5])):
        with pytest.raises(InvalidPriorError, match="i.i.d. priors only"):
            ReducedPDMIP(prior)
        with pytest.raises(InvalidPriorError, match="i.i.d. priors only"):
            make_program("pd-mip", prior, formulation="reduced")
        assert resolve_path("pd-mip", prior) == "dense"
    assert isinstance(
        make_program("pd-mip", symmetric_mixture(2, [[0.2, 0.8]] * 2, [0.4, 0.6])), ReducedPDMIP
    )
    with pytest.raises(InvalidPriorError):
        ReducedPDMIP(from_pmf(DatabaseSpace(2, 2), [0.1, 0.2, 0.3, 0.4]))
    prog = ReducedPDMIP(symmetric_iid(4, [0.4, 0.6]))
    for D in (-0.1, 4.5, float("nan"), "x"):
        with pytest.raises(InvalidDistortionError):
            prog.solve(D)
    with pytest.raises(InvalidInputError):
        prog.solve(1.0, unit="hartleys")
    res = prog.solve(1.0)
    with pytest.raises(ShapeMismatchError):
        product_channel(res).sample([0, 1, 2, 0])
    with pytest.raises(InvalidInputError):
        product_channel(PDMIP(iid(DatabaseSpace(2, 2), [0.4, 0.6])).solve(0.5))


def test_cli_reduced_pd_mip():
    out = io.StringIO()
    argv = [
        "solve",
        "pd-mip",
        "--n",
        "100",
        "--m",
        "2",
        "--prior",
        "iid:0.3,0.7",
        "--distortion",
        "10",
        "--json",
    ]
    with redirect_stdout(out):
        assert main(argv) == 0
    data = json.loads(out.getvalue())
    assert data["value"] == pytest.approx(100 * (_hb(0.3) - _hb(0.1)), abs=1e-9)
    assert data["certificate"]["ok"] and data["extras"]["path"] == "reduced"
