"""Tests of optimal mechanism design under information privacy (problems.design)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from problems.database import DatabaseSpace
from problems.design import IPDesign, design_mechanism, design_problem, enumerate_vertices, recompute_c1
from problems.design.compare import calibrated_channels, comparison_table, optimal_dp_mechanism
from problems.errors import (
    InvalidDistortionError,
    InvalidInputError,
    InvalidPrivacyLevelError,
    ProblemTooLargeError,
    ShapeMismatchError,
)
from problems.information import individual_capacity
from problems.priors import iid

CASES = [
    ("count", 3, 2, False, "hamming"),
    ("count", 4, 2, True, "absolute"),
    ("sum", 2, 3, False, "squared"),
    ("identity", 2, 2, False, "hamming"),
    ("max", 3, 2, True, "hamming"),
]


@pytest.mark.parametrize("query,n,m,factor,dist", CASES)
@pytest.mark.parametrize("eps", [0.0, 0.1, 0.4])
def test_recomputed_c1_never_exceeds_eps(query, n, m, factor, dist, eps):
    P = design_problem(DatabaseSpace(n, m), query, distortion=dist)
    r = design_mechanism(P, eps, factor=factor)
    # independent recomputation from the returned matrix
    c1 = individual_capacity(r.matrix.reshape(P.space.shape + (P.n_outputs,)), tol=1e-10)
    assert c1.upper_bound <= eps + 1e-7
    assert r.extras["C1"] <= eps + 1e-7
    assert r.extras["lower_bound"] <= r.value + 1e-9
    assert r.certificate.duality_gap <= 1e-5
    assert np.allclose(r.matrix.sum(axis=1), 1.0)


def _brute_force_c1(W: np.ndarray) -> float:
    """The independent multistart brute force of tests/information/_brute.py (max over joint priors of I(X_i;Y))."""
    here = str(Path(__file__).resolve().parents[1] / "information")
    if here not in sys.path:
        sys.path.insert(0, here)
    from _brute import brute_force_c1

    return brute_force_c1(W, starts=3, seed=1)


@pytest.mark.parametrize("query,n,m,factor,dist", CASES)
@pytest.mark.parametrize("eps", [0.1, 0.4])
def test_designed_c1_against_brute_force(query, n, m, factor, dist, eps):
    """C₁ of the designed mechanism re-checked by brute force over all joint priors p(x) (not recompute_c1).

    Any prior with I(X_i;Y) > ε would prove the mechanism infeasible, so the brute-force maximum must stay
    below ε.  At these ε the exact answer has C₁ > ε and the optimum has positive distortion, so the capacity
    constraint is active: the brute force must also reach ε (it is a lower bound on C₁, reached by multistart).
    """
    P = design_problem(DatabaseSpace(n, m), query, distortion=dist)
    r = design_mechanism(P, eps, factor=factor)
    assert r.status == "optimal"
    assert r.value > 1e-3
    W = r.matrix.reshape(P.space.shape + (P.n_outputs,))
    brute = _brute_force_c1(W)
    assert brute <= eps + 1e-7
    assert brute >= eps - 1e-6


def _binary_entropy(t: float) -> float:
    return -t * math.log(t) - (1 - t) * math.log(1 - t) if 0 < t < 1 else 0.0


def _binary_entropy_inverse(v: float) -> float:
    """H_b⁻¹(v) on [0, 1/2] (nats), by Brent's method."""
    return brentq(lambda t: _binary_entropy(t) - v, 0.0, 0.5, xtol=1e-15, rtol=1e-15, maxiter=500)


def test_single_record_optimum_is_the_bsc_of_capacity_eps():
    """n = 1, m = 2, uniform prior, identity query, Hamming distortion: C₁ is the plain capacity of the 2×2
    channel, and the optimum is the binary symmetric channel of capacity ε, D*(ε) = H_b⁻¹(ln 2 − ε).

    (Lower bound: with the uniform input I(X;Y) ≤ C ≤ ε, and the rate–distortion function of a uniform bit,
    R(D) = ln 2 − H_b(D), gives D ≥ H_b⁻¹(ln 2 − ε); the BSC with crossover H_b⁻¹(ln 2 − ε) attains it.)
    One compiled program is swept over ε: every re-solve must return its own, correct optimum.
    """
    P = design_problem(DatabaseSpace(1, 2), "identity", distortion="hamming")
    design = IPDesign(P)
    for k, eps in enumerate((0.02, 0.2, 0.45, 0.68)):
        ref = _binary_entropy_inverse(math.log(2) - eps)
        r = design.solve(eps)
        assert r.status == "optimal"
        assert r.value == pytest.approx(ref, abs=1e-6)
        assert r.bounds.lower <= ref + 1e-12 and ref - 1e-12 <= r.bounds.upper
        assert r.bounds.upper - r.bounds.lower <= 1e-6
        # compiled once (DPP): the first solve pays the compilation, the re-solves do not
        assert (r.stats.compile_time > 0.0) if k == 0 else (r.stats.compile_time == 0.0)
        # the channel is pinned only to second order by the value (capacity is stationary along the
        # antisymmetric perturbation of the BSC), hence the looser entry-wise tolerance
        np.testing.assert_allclose(r.matrix, [[1 - ref, ref], [ref, 1 - ref]], atol=1e-4)
        # C₁ of the returned channel by the independent brute force: the capacity budget is used up
        brute = _brute_force_c1(r.matrix.reshape(2, 2))
        assert eps - 1e-6 <= brute <= eps + 1e-7


@pytest.mark.parametrize("eps", [0.05, 0.3, 0.6])
def test_worst_case_objective(eps):
    P = design_problem(DatabaseSpace(3, 2), "count")
    r = design_mechanism(P, eps, objective="worst")
    exp = design_mechanism(P, eps)
    assert r.extras["C1"] <= eps + 1e-7
    assert r.value == pytest.approx(r.extras["worst_case_distortion"], abs=1e-9)
    assert r.value >= exp.value - 1e-7  # max_x E[d|x] >= E[d]
    assert exp.extras["worst_case_distortion"] >= r.value - 1e-6  # r minimises the worst case
    assert r.certificate.duality_gap <= 1e-5


@pytest.mark.parametrize(
    "query,n,m,factor",
    [("count", 4, 2, True), ("count", 3, 2, False), ("identity", 3, 2, False), ("sum", 2, 3, True)],
)
@pytest.mark.parametrize("eps", [0.05, 0.25, 0.5])
def test_optimum_never_worse_than_calibrated_channels(query, n, m, factor, eps):
    P = design_problem(DatabaseSpace(n, m), query)
    r = design_mechanism(P, eps, factor=factor)
    baselines = calibrated_channels(P, eps)
    assert baselines
    for b in baselines:
        assert b.c1 <= eps + 1e-7, b.name
        assert r.value <= b.distortion + 1e-7, b.name


@pytest.mark.parametrize("query,n,m", [("count", 4, 2), ("identity", 2, 2), ("sum", 2, 3)])
def test_distortion_zero_once_eps_reaches_c1_of_exact_answer(query, n, m):
    P = design_problem(DatabaseSpace(n, m), query)
    exact = P.expand(P.exact_channel())
    c1 = individual_capacity(exact.reshape(P.space.shape + (P.n_outputs,)), tol=1e-12).upper_bound
    r = design_mechanism(P, c1 + 1e-9)
    assert r.value <= 1e-6
    below = design_mechanism(P, 0.9 * c1)
    assert below.value > 1e-4


@pytest.mark.parametrize("prior_row", [None, (0.3, 0.7)])
@pytest.mark.parametrize("eps", [0.1, 0.35])
def test_factored_and_unfactored_agree(prior_row, eps):
    space = DatabaseSpace(4, 2)
    prior = None if prior_row is None else iid(space, prior_row)
    P = design_problem(space, "count", prior=prior)
    a = design_mechanism(P, eps, factor=True)
    b = design_mechanism(P, eps, factor=False)
    assert a.value == pytest.approx(b.value, abs=2e-6)
    # the factored optimum is feasible for the unfactored program: never better
    assert b.extras["lower_bound"] <= a.value + 1e-9


def test_factored_count_vertex_set_is_pairs_of_counts():
    for n in (3, 6, 9):
        P = design_problem(DatabaseSpace(n, 2), "count")
        vs = enumerate_vertices(P, factor=True)
        assert vs.count == n * (n + 1) // 2
        assert sorted(vs.sets()) == sorted((u, v) for u in range(n + 1) for v in range(u + 1, n + 1))
    P = design_problem(DatabaseSpace(4, 2), "count")
    assert enumerate_vertices(P, factor=False).count == math.comb(16, 2)


@pytest.mark.parametrize(
    "query,n,m,factor",
    [("count", 3, 2, False), ("identity", 3, 2, False), ("sum", 3, 3, True), ("count", 4, 2, True)],
)
def test_constraint_generation_matches_full_program(query, n, m, factor):
    P = design_problem(DatabaseSpace(n, m), query)
    for eps in (0.1, 0.4):
        full = IPDesign(P, factor=factor, method="full").solve(eps)
        cg = IPDesign(P, factor=factor, method="cg").solve(eps)
        assert cg.value == pytest.approx(full.value, abs=2e-6)
        assert cg.extras["C1"] <= eps + 1e-7
        assert cg.extras["iterations"] >= 1
        assert cg.extras["constraint_set_size"] <= full.extras["constraint_set_size"]
        assert len(cg.extras["cg_history"]) == cg.extras["iterations"]


def test_reverse_program_inverts_forward():
    P = design_problem(DatabaseSpace(3, 2), "identity")
    d = IPDesign(P)
    fwd = d.solve(0.3)
    rev = d.solve_reverse(fwd.value)
    assert rev.value == pytest.approx(0.3, abs=1e-5)
    assert rev.extras["expected_distortion"] <= fwd.value + 1e-7
    assert rev.certificate.dual_objective <= rev.value + 1e-9
    assert rev.certificate.duality_gap <= 1e-5
    assert d.solve_reverse(3.0).value <= 1e-7  # constant mechanism


def test_dpp_sweep_reuses_compiled_program():
    P = design_problem(DatabaseSpace(4, 2), "count")
    d = IPDesign(P, factor=True)
    r1 = d.solve(0.1)
    r2 = d.solve(0.2)
    assert r2.stats.compile_time == 0.0
    assert r2.value < r1.value


def test_units_and_duals():
    P = design_problem(DatabaseSpace(3, 2), "count")
    rn = design_mechanism(P, 0.2)
    rb = design_mechanism(P, 0.2 / math.log(2), unit="bits")
    assert rb.value == pytest.approx(rn.value, abs=1e-7)
    assert rb.extras["C1"] == pytest.approx(rn.extras["C1"] / math.log(2), abs=1e-7)
    act = rn.extras["active_vertices"]
    assert act and all(v["dual"] > 0 for v in act)
    for v in act:  # normalised duals of a vertex are an input distribution (the worst adversary)
        assert sum(v["adversary_input"]) == pytest.approx(1.0)
    # envelope theorem: dD/deps = -sum of capacity multipliers
    h = 1e-4
    num = (design_mechanism(P, 0.2 + h).value - design_mechanism(P, 0.2 - h).value) / (2 * h)
    assert num == pytest.approx(rn.extras["sensitivity_dD_deps"], rel=1e-2)


def test_dp_lp_and_comparison_table():
    P = design_problem(DatabaseSpace(3, 2), "count")
    W, val = optimal_dp_mechanism(P, 0.5)
    pi, pj = P.space.neighbour_pairs
    assert np.all(W[pi] <= math.exp(0.5) * W[pj] + 1e-7)
    rows = comparison_table(P, [0.1, 0.5], factor=True)
    assert len(rows) == 2
    for r in rows:
        assert r["optimal_ip"] <= r["randomized-response"] + 1e-7
        assert r["optimal_ip"] <= r["exponential"] + 1e-7
        assert r["optimal_ip_C1"] <= r["eps"] + 1e-7


def test_user_distortion_matrix_and_outputs():
    space = DatabaseSpace(3, 2)
    P = design_problem(space, "count", outputs=np.array([0.0, 1.5, 3.0]), distortion="absolute")
    assert P.distortion.shape == (4, 3)
    M = np.abs(np.subtract.outer(np.arange(4), np.arange(4))).astype(float)
    Q = design_problem(space, "count", distortion=M)
    R = design_problem(space, "count", distortion="absolute")
    assert design_mechanism(Q, 0.2).value == pytest.approx(design_mechanism(R, 0.2).value, abs=1e-7)
    r = design_mechanism(P, 0.2)
    assert recompute_c1(P, r.matrix).upper_bound <= 0.2 + 1e-7


def test_typed_errors():
    space = DatabaseSpace(3, 2)
    P = design_problem(space, "count")
    with pytest.raises(InvalidPrivacyLevelError):
        design_mechanism(P, -0.1)
    with pytest.raises(InvalidPrivacyLevelError):
        design_mechanism(P, float("nan"))
    with pytest.raises(InvalidInputError, match="query"):
        design_problem(space, "median-ish")
    with pytest.raises(InvalidDistortionError):
        design_problem(space, "count", distortion="cosine")
    with pytest.raises(ShapeMismatchError):
        design_problem(space, "count", distortion=np.ones((2, 2)))
    with pytest.raises(InvalidDistortionError):
        design_problem(space, "count", distortion=-np.ones((4, 4)))
    with pytest.raises(InvalidInputError, match="objective"):
        IPDesign(P, objective="median")
    with pytest.raises(InvalidInputError, match="method"):
        IPDesign(P, method="magic")
    with pytest.raises(InvalidDistortionError):
        IPDesign(P).solve_reverse(-1.0)
    with pytest.raises(ShapeMismatchError):
        design_problem(space, "count", prior=iid(DatabaseSpace(2, 2), [0.5, 0.5]))
    with pytest.raises(ProblemTooLargeError):
        IPDesign(design_problem(DatabaseSpace(12, 2), "count"), method="full")
    with pytest.raises(InvalidInputError):
        calibrated_channels(design_problem(space, "count", outputs=3), 0.1)


def test_cli_design_json(tmp_path, capsys):
    from problems.cli import main

    out = tmp_path / "mech.csv"
    rc = main(
        [
            "design",
            "--query",
            "count",
            "--n",
            "4",
            "--eps",
            "0.3",
            "--factor-through-query",
            "--json",
            "--export",
            str(out),
        ]
    )
    assert rc == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("status", "value", "C1", "eps", "iterations", "active_vertices", "certificate"):
        assert key in d
    assert d["C1"] <= 0.3 + 1e-7
    assert out.exists()
    rc = main(["design", "--query", "sum", "--n", "2", "--m", "3", "--eps", "-1"])
    assert rc == 2
    rc = main(
        [
            "design",
            "--query",
            "count",
            "--n",
            "3",
            "--eps",
            "0.2",
            "--prior",
            "iid:0.2,0.8",
            "--worst-case",
            "--bits",
        ]
    )
    assert rc == 0


def _import_cli_in_fresh_interpreter() -> list[str]:
    """Import ``problems.design.cli`` in a new interpreter; report whether cvxpy got imported."""
    import subprocess
    import sys

    code = (
        "import sys; import problems.design.cli as c; "
        "import problems.reproduce.design as f; "
        "print('cvxpy' in sys.modules, hasattr(c, 'register'), hasattr(f, 'reproduce_section'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_cli_module_import_is_cheap():
    """The CLI module exposes ``register``; the figures module ``reproduce_section``."""
    _cvxpy_loaded, has_register, has_reproduce = _import_cli_in_fresh_interpreter()
    assert has_register == "True"
    assert has_reproduce == "True"


def test_cli_module_import_does_not_import_cvxpy():
    import subprocess
    import sys

    code = "import sys; import problems.design.cli; print('cvxpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.slow
def test_reproduce_section(tmp_path):
    from problems.reproduce.design import reproduce_section

    paths = reproduce_section(tmp_path, lambda s: None)
    assert all(p.exists() for p in paths)
    assert {p.suffix for p in paths} == {".csv", ".png", ".svg"}
