"""The mirror fold of the joint-type LP (``problems.lp.fold``): its algebra, and its answers against references.

The algebra is checked on the data alone: a symmetric point of the LP and its orbit sums have the same cost and
the same residuals, and unfolded multipliers have the folded reduced costs and dual objective (identities of the
module docstring, checked on random multipliers).  The answers of the block method on the folded LP are checked
against the separately written HiGHS model of the joint-type LP (``test_reduced_independent_highs``), which knows
nothing of the fold, for mirror-symmetric priors at even and odd n.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_reduced_independent_highs import HIGHS_ABS, REL, reference

from problems.ipm import block
from problems.lp.fold import fold, folded
from problems.orbit import ReducedPDDP, ReducedPDI
from problems.orbit.symmetric_prior import parse_symmetric_prior
from problems.orbit.types import JointTypes

SYMMETRIC = ("contagious:0.9:0.5,0.5", "mixture:0.5,0.5/0.8,0.2/0.2,0.8", "iid:0.5,0.5")
#: the last one symmetric but for 2e-7 of its weights: more than rounding, so not folded
ASYMMETRIC = (
    "contagious:0.2:0.3,0.7",
    "mixture:0.5,0.5/0.8,0.2/0.3,0.7",
    "contagious:0.9:0.3,0.7",
    "mixture:0.5000001,0.4999999/0.8,0.2/0.2,0.8",
)


def _program(prior: str, n: int, program: str = "pd-dp", m: int = 2):
    sym = parse_symmetric_prior(prior, n, m)
    return (ReducedPDI if program == "pd-i" else ReducedPDDP)(sym)


@pytest.mark.parametrize("n", [5, 6])
@pytest.mark.parametrize("m", [2, 3])
def test_mirror_is_the_reversed_alphabet(n, m):
    J = JointTypes(n, m)
    mirror = J.mirror()
    assert np.array_equal(J.flat[mirror], J.flat[:, ::-1])
    assert np.array_equal(mirror[mirror], np.arange(J.size))


@pytest.mark.parametrize("prior", ASYMMETRIC)
def test_no_fold_without_the_symmetry(prior):
    assert folded(_program(prior, 8).lp.spec) is None


@pytest.mark.parametrize("program", ["pd-dp", "pd-i"])
@pytest.mark.parametrize("prior", SYMMETRIC)
@pytest.mark.parametrize("n", [7, 8])
def test_fold_algebra(prior, n, program):
    spec = _program(prior, n, program).lp.spec
    f = folded(spec)
    assert f is not None
    fs = f.spec
    assert fs.K < spec.K and 2 * fs.K >= spec.K and fs.G == (n + 2) // 2
    eps = 1.0 + spec.eps_min
    # a symmetric point of the LP (E_d, whose profile is mirror-symmetric for these priors) and its orbit sums
    z = np.exp(spec.log_profile(eps))
    assert np.allclose(z[spec.cache["mirror"]()], z, rtol=1e-12)
    v = np.bincount(f.var_orbit, weights=z, minlength=fs.K)
    assert np.allclose(f.unfold(v, np.zeros(fs.G), np.zeros(fs.P))[0], z, rtol=1e-12, atol=0)
    assert math.isclose(float(fs.c @ v), float(spec.c @ z), rel_tol=1e-12)
    assert np.allclose(fs.A @ v, fs.b, rtol=1e-12)
    r = math.exp(eps)
    full = z[spec.src] - r * spec.kappa * z[spec.dst]
    part = v[fs.src] - r * fs.kappa * v[fs.dst]
    # each folded row is |o(s)| times a row of the LP (either member of its orbit: z is symmetric)
    assert np.allclose(part[f.row_orbit], f.orbit_size[f.var_orbit[spec.src]] * full, rtol=1e-9, atol=1e-15)
    # multipliers: random folded ones, unfolded; reduced costs and dual objective are the folded ones
    rng = np.random.default_rng(n)
    nu_f, lam_f = rng.normal(size=fs.G), rng.exponential(size=fs.P)
    _, nu, lam = f.unfold(v, nu_f, lam_f)
    assert np.all(lam >= 0)
    red = spec.c + nu[spec.group]
    np.add.at(red, spec.src, lam)
    np.add.at(red, spec.dst, -r * spec.kappa * lam)
    red_f = fs.c + nu_f[fs.group]
    np.add.at(red_f, fs.src, lam_f)
    np.add.at(red_f, fs.dst, -r * fs.kappa * lam_f)
    assert np.allclose(red, red_f[f.var_orbit], rtol=1e-9, atol=1e-9)
    assert math.isclose(float(spec.b @ nu), float(fs.b @ nu_f), rel_tol=1e-12, abs_tol=1e-12)


def test_fold_refuses_a_non_involution():
    spec = _program("contagious:0.9:0.5,0.5", 6).lp.spec
    perm = np.roll(np.arange(spec.K), 1)
    assert fold(spec, perm) is None
    assert fold(spec, np.arange(spec.K)) is None


def _spy(monkeypatch) -> list[int]:
    sizes: list[int] = []
    solve = block.solve_block_lp

    def spy(c, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        sizes.append(int(np.asarray(c).size))
        return solve(c, *args, **kwargs)

    monkeypatch.setattr(block, "solve_block_lp", spy)
    return sizes


CASES = [
    ("contagious:0.9:0.5,0.5", 10, "pd-dp", 0.5),
    ("contagious:0.9:0.5,0.5", 11, "pd-dp", 2.0),
    ("contagious:0.9:0.5,0.5", 12, "pd-i", 0.3),
    ("mixture:0.5,0.5/0.8,0.2/0.2,0.8", 11, "pd-dp", 1.0),
    ("mixture:0.5,0.5/0.8,0.2/0.2,0.8", 10, "pd-i", 2.0),
    ("iid:0.5,0.5", 12, "pd-dp", 1.5),
]


@pytest.mark.parametrize("prior,n,program,eps", CASES)
def test_folded_block_method_matches_independent_highs(monkeypatch, prior, n, program, eps):
    sizes = _spy(monkeypatch)
    prog = _program(prior, n, program)
    level = eps + (prog.eps_X if program == "pd-i" else 0.0)
    res = prog.solve(level, method="lp", solver="block")
    ref = reference(prior, n, program, level)
    detail = f"{prior} n={n} {program} ε={level}: {res.status} {res.bounds} ref={ref!r}"
    assert str(res.status) == "optimal", detail
    assert res.bounds.lower - HIGHS_ABS <= ref <= res.bounds.upper + HIGHS_ABS, detail
    assert abs(res.value - ref) <= REL * ref, detail
    # the block method ran on the folded LP (about half the joint types)
    assert sizes and sizes[0] < prog.lp.spec.K, (sizes, prog.lp.spec.K)


def test_m3_is_not_folded():
    """m = 3: the reversal 0 ↔ 2 maps some moves onto a move between a joint type and its own mirror image (a row
    v ≤ e^ε κ v on the orbit sums), which the folded LP does not represent: nothing is folded."""
    spec = _program("iid:0.3,0.4,0.3", 5, m=3).lp.spec
    sigma = spec.cache["mirror"]()
    assert np.any(sigma[spec.src] == spec.dst)
    assert folded(spec) is None


@pytest.mark.slow
def test_folded_n100_against_the_sandwich():
    """n = 100, contagious (0.9; ½, ½), PD-DP ε = 2, folded: certified, and its upper bound (an exactly feasible
    mechanism) within 2e-6 of the mixture sandwich's lower side n·(1 − W)/(1 + e^ε) — a closed form (the uniform
    row's PD-DP₁ = 1/(1 + e^ε); the point masses cost nothing), proved below the optimum (docs §14)."""
    n, eps = 100, 2.0
    res = _program("contagious:0.9:0.5,0.5", n).solve(eps, method="lp")
    lower_side = n * 0.1 / (1.0 + math.exp(eps))
    assert str(res.status) == "optimal"
    assert lower_side - 1e-12 <= res.bounds.upper <= lower_side * (1 + 2e-6)
