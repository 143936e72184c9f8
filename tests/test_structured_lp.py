"""The structured (block-angular) interior-point method, alone and as the STRUCTURED back end of the chain."""

from __future__ import annotations

import numpy as np
import pytest

from problems import DatabaseSpace
from problems.errors import InvalidInputError, SolverFailedError
from problems.ipm.structured import SOLVER_NAME, solve_ratio_lp_structured
from problems.priors import from_pmf
from problems.programs import PDDP, PDI
from problems.solvers import backends as backends_module

NAME = "STRUCTURED"


def _arrays(lp):  # noqa: ANN001, ANN202
    """(cost N×N, row sums, pi, pj, κ per pair) of a dense RatioLP."""
    lay = lp.spec.dense
    return lp.spec.c.reshape(lay.N, lay.N), lp.spec.b, lay.pi, lay.pj, lay.kappa


def _prior(n: int, m: int, seed: int):
    space = DatabaseSpace(n, m)
    return from_pmf(space, np.random.default_rng(seed).dirichlet(np.ones(space.size)))


CASES = [(4, 2, 0), (3, 3, 1), (6, 2, 2)]  # N = 16, 27, 64


@pytest.mark.parametrize(("n", "m", "seed"), CASES)
@pytest.mark.parametrize("eps", [0.0, 0.4, 1.5])
def test_pd_dp_matches_cvxpy(n: int, m: int, seed: int, eps: float) -> None:
    lp = PDDP(_prior(n, m, seed)).lp
    if eps == 0.0:  # no interior at ε = 0: the programs answer by the theorem path; the LP is inaccurate
        return
    ref = lp.solve(eps, method="cvxpy")
    sol = lp.solve(eps, method="structured")
    assert sol.stats.solver == NAME and sol.status == "optimal" and ref.status == "optimal"
    assert max(sol.bounds.lower, ref.bounds.lower) <= min(sol.bounds.upper, ref.bounds.upper) * (1 + 1e-12)
    assert abs(sol.value - ref.value) <= 1e-6 * ref.value


@pytest.mark.parametrize(("n", "m", "seed"), CASES)
@pytest.mark.parametrize("offset", [0.0, 0.3, 1.2])
def test_pd_i_matches_cvxpy(n: int, m: int, seed: int, offset: float) -> None:
    prog = PDI(_prior(n, m, seed))
    eps = prog.eps_X + offset
    ref = prog.lp.solve(eps, method="cvxpy")
    sol = prog.lp.solve(eps, method="structured")
    # both answers' bounds enclose the optimum, so they overlap
    assert max(sol.bounds.lower, ref.bounds.lower) <= min(sol.bounds.upper, ref.bounds.upper) * (1 + 1e-12)
    if offset > 0:  # at ε = ε_X the feasible set has no interior and nothing is certified
        assert sol.status == "optimal"
        assert abs(sol.value - ref.value) <= 1e-6 * ref.value


def test_layout_and_signs_are_those_of_cvxpy_path() -> None:
    lp = PDDP(_prior(4, 2, 5)).lp
    z, nu, lam, s, iters, seconds = solve_ratio_lp_structured(*_arrays(lp), 0.7)
    N, P = lp.N, lp.pairs[0].size
    assert z.shape == (N * N,) and nu.shape == (N,) and lam.shape == (P * N,) and s.shape == (N * N,)
    assert iters > 0 and seconds > 0
    assert lam.min() >= 0 and s.min() >= 0
    spec = lp.spec
    station = spec.c + spec.A.T @ nu + spec.ratio_matrix(0.7).T @ lam - s
    assert np.max(np.abs(station)) < 1e-8


def test_auto_uses_structured_from_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    lp = PDDP(_prior(4, 2, 3)).lp
    monkeypatch.setattr(backends_module, "STRUCTURED_MIN_N", 16)
    assert lp.solve(0.5).stats.solver == NAME
    monkeypatch.setattr(backends_module, "STRUCTURED_MIN_N", 17)
    assert lp.solve(0.5).stats.solver != NAME
    # a named solver runs first
    monkeypatch.setattr(backends_module, "STRUCTURED_MIN_N", 16)
    assert lp.solve(0.5, solver="CLARABEL").stats.solver == "CLARABEL"


def test_failure_falls_back_to_the_next_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    lp = PDDP(_prior(4, 2, 4)).lp
    with pytest.raises(SolverFailedError) as info:
        solve_ratio_lp_structured(*_arrays(lp), 0.5, max_iter=2)
    assert info.value.attempts[0][0] == SOLVER_NAME

    import problems.ipm.structured as structured

    def broken(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise SolverFailedError(lp.program, [(SOLVER_NAME, "forced failure")])

    monkeypatch.setattr(structured, "solve_ratio_lp_structured", broken)
    sol = lp.solve(0.5, method="structured")
    assert sol.stats.attempts[0][0] == NAME and "forced failure" in sol.stats.attempts[0][1]
    assert sol.stats.solver != NAME and sol.status == "optimal"


def test_time_limit_ends_the_iteration() -> None:
    lp = PDDP(_prior(4, 2, 4)).lp
    with pytest.raises(SolverFailedError, match="time limit"):
        solve_ratio_lp_structured(*_arrays(lp), 0.5, time_limit=0.0)


def test_total_mass_lp_has_no_structured_backend() -> None:
    from problems.programs import RPD

    lp = RPD(DatabaseSpace(3, 2)).lp
    with pytest.raises(InvalidInputError, match="does not apply"):
        lp.solve(0.5, method="structured")


def test_bad_method_name() -> None:
    lp = PDDP(_prior(3, 2, 0)).lp
    with pytest.raises(InvalidInputError):
        lp.solve(0.5, method="simplex")


def test_gil_free_lapack_kernels_invert_spd_blocks() -> None:
    """The ctypes LAPACKE kernels (when found) give the inverse in the C-order upper triangle."""
    from problems.ipm.lapack import lapack_kernels

    kernels = lapack_kernels()
    if kernels is None:
        pytest.skip("no OpenBLAS LAPACKE symbols in this SciPy/NumPy build")
    rng = np.random.default_rng(3)
    A = rng.standard_normal((40, 60))
    H = A @ A.T + 0.1 * np.eye(40)
    work = H.copy()
    assert kernels.potrf(work) == 0 and kernels.potri(work) == 0
    ref = np.linalg.inv(H)
    np.testing.assert_allclose(np.triu(work), np.triu(ref), rtol=1e-10, atol=1e-12)
    bad = -np.eye(3)
    assert kernels.potrf(bad) > 0  # not positive definite: LAPACK's info > 0, no exception


def test_threads_and_correctors_do_not_change_the_optimum() -> None:
    """One thread vs two, with and without Gondzio correctors: the same certified optimum."""
    import problems.ipm.structured as S

    lp = PDDP(_prior(6, 2, 7)).lp
    ref = lp.solve(0.8, method="cvxpy")
    for threads, correctors in ((1, 0), (2, 2)):
        data = S.StructuredIPMData(*_arrays(lp), float(np.exp(0.8)))
        zt, nu, lam, s, iters = S.solve_block_angular(data, threads=threads, max_correctors=correctors)
        value = float(np.sum(data.ct * zt)) * data.cost_scale
        assert abs(value - ref.value) <= 1e-7 * ref.value, (threads, correctors)
        assert iters > 0


def test_block_shift_is_local() -> None:
    """A block that is not positive definite is shifted alone; the other blocks are factorised unshifted."""
    import problems.ipm.structured as S

    lp = PDDP(_prior(4, 2, 1)).lp
    # at ε = 0 (r = 1) G0ᵀDG0 is a weighted graph Laplacian: singular, with the all-ones null vector
    data = S.StructuredIPMData(*_arrays(lp), 1.0)
    N, P = data.N, data.P
    D = np.ones((N, P))
    E = np.ones((N, N))
    E[3] = -1e-13  # block 3 slightly indefinite
    diag, off = data.H_parts(D, E)
    fac = S._BlockFactor(data, diag, off, threads=1)
    assert fac.shifted == 1
    E[3] = 1.0
    clean = S._BlockFactor(data, *data.H_parts(D, E), threads=1)
    assert clean.shifted == 0
    # an unshifted block's inverse is the exact inverse of H_y
    Hy = np.zeros((N, N))
    Hy[data.pi, data.pj] = off[0]
    Hy[np.arange(N), np.arange(N)] = diag[0]
    np.testing.assert_allclose(fac.Hinv[0] @ Hy, np.eye(N), atol=1e-9)


def test_implied_bounds_left_out_give_the_same_optimum(monkeypatch: pytest.MonkeyPatch) -> None:
    """Z ≥ 0 follows from a ratio row and its reverse for e^ε > 1; without those rows (s ≡ 0) the structured
    method reaches the same certified optimum as with them, for PD-DP and PD-I."""
    import problems.ipm.structured as S

    prior = _prior(4, 3, 0)  # N = 81
    for prog, eps in ((PDDP(prior), 1.0), (PDI(prior), None)):
        e = prog.eps_X + 0.5 if eps is None else eps
        values = []
        for drop in (True, False):
            monkeypatch.setattr(S, "DROP_IMPLIED_BOUNDS", drop)
            data = S.StructuredIPMData(*_arrays(prog.lp), float(np.exp(e)))
            assert data.bounds_implied()
            sol = prog.lp.solve(e, method="structured")
            assert sol.status == "optimal"
            values.append(sol.value)
        assert values[0] == pytest.approx(values[1], rel=2e-6)
    # at ε = 0 (r = 1) the bounds are not implied and are kept
    assert not S.StructuredIPMData(
        prior.pmf[:, None] * np.ones((81, 81)),
        np.ones(81),
        *PDDP(prior).lp.pairs,
        np.ones(PDDP(prior).lp.pairs[0].size),
        1.0,
    ).bounds_implied()
