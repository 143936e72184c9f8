"""Active blocks (problems.lp.active_blocks): the joint-type LP answered from its heaviest y-type blocks.

References independent of the code under test: a plain SciPy/HiGHS call on the same LP (``highs_optimum``), and
the reduced costs c + Aᵀν + Gᵀλ recomputed here from the LP's matrices (dual feasibility of the assembled
multipliers, whatever the solver said).
"""

from __future__ import annotations

import numpy as np
import pytest

from problems.ipm.layered import Layers
from problems.lp.active_blocks import (
    PRICING_REJECT,
    PROBE_EVERY,
    PROBE_FROM_ITERATION,
    ActiveBlockProbe,
    active_answer,
    blocks_of,
    pricing_upper_values,
    proposed_blocks,
    sub_spec,
)
from problems.lp.bounds import certify, verify
from problems.orbit import ReducedPDDP, ReducedPDI
from problems.orbit.symmetric_prior import parse_symmetric_prior
from problems.solvers.active import run_block_lp, sub_enough

MIXTURE = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"


def _spec(prior: str, n: int, program: str = "pd-dp"):  # noqa: ANN202
    sym = parse_symmetric_prior(prior, n, 2)
    return (ReducedPDI if program == "pd-i" else ReducedPDDP)(sym).lp.spec


def _solve(sub, eps, check):  # noqa: ANN001, ANN202 - the block method as the sub-solver, to its certificate
    return run_block_lp(sub, eps, 120.0, sub_enough(sub, eps), bounded=True, threads=1)


def _reduced_costs(spec, eps, nu, lam) -> np.ndarray:  # noqa: ANN001
    return spec.c + spec.A.T @ nu + spec.ratio_matrix(eps).T @ lam


@pytest.mark.parametrize(("prior", "n"), [(MIXTURE, 30), ("iid:0.3,0.7", 30), (MIXTURE, 40)])
def test_small_eps_answered_from_the_active_blocks(prior, n, highs_optimum):
    """PD-DP at ε = 0.5 through the chain: the block method ends on an answer from a few blocks, certified,
    holding the plain HiGHS optimum of the same LP to 1e-9 relative."""
    prog = ReducedPDDP(parse_symmetric_prior(prior, n, 2))
    spec = prog.lp.spec
    sol = prog.solve(0.5, method="lp")
    (name, outcome), *_ = sol.stats.attempts
    assert name == "BLOCK" and "active blocks" in outcome
    assert str(sol.status) == "optimal"
    ref = highs_optimum(spec, 0.5)
    assert sol.bounds.lower - 1e-9 * ref <= ref <= sol.bounds.upper + 1e-9 * ref
    assert abs(sol.value - ref) <= 1e-6 * ref


def test_assembled_multipliers_are_dual_feasible():
    """The right blocks (the two that carry the optimum, and their neighbours): every τ_b ≥ 0, and the reduced
    costs recomputed from the matrices are non-negative up to rounding, so −bᵀν bounds the optimum."""
    spec, eps = _spec(MIXTURE, 30), 0.5
    ans = active_answer(spec, eps, np.array([0, 1, 29, 30]), _solve)
    assert ans is not None and ans.tau_min >= 0.0
    d = _reduced_costs(spec, eps, ans.nu, ans.lam)
    assert d.min() >= -1e-9 * np.abs(spec.c).max()
    assert verify(spec, ans.z, eps)
    cert = certify(spec, eps, ans.z, ans.nu, ans.lam)
    assert cert.certified and cert.bounds.upper - cert.bounds.lower <= 1e-8 * cert.bounds.upper


def test_a_wrong_guess_is_not_accepted(highs_optimum):
    """Only the block of output weight 0: its restricted optimum lies above the optimum, the pricing finds a
    block of negative reduced cost (τ < 0), and the certificate does not accept the answer."""
    spec, eps = _spec(MIXTURE, 30), 0.5
    ans = active_answer(spec, eps, np.array([0]), _solve)
    assert ans is not None and ans.tau_min < 0.0
    cert = certify(spec, eps, ans.z, ans.nu, ans.lam)
    assert not cert.refined
    ref = highs_optimum(spec, eps)
    assert cert.bounds.lower <= ref * (1 + 1e-9) and float(spec.c @ ans.z) > ref * (1 + 1e-3)


def test_pricing_gives_up_early_on_a_wrong_guess():
    """The same wrong guess with the caller's test: a pricing iterate already shows a block that prices far below
    zero, so the pricing LP ends after a few iterations and no answer comes back.  The exact pricing optimum (the
    pricing LP solved to its end) confirms that a block prices below the rejection level."""
    spec, eps = _spec(MIXTURE, 30), 0.5
    seen: list[int] = []

    def solve(sub, level, check):  # noqa: ANN001, ANN202 - as problems.solvers.active.active_probe
        if check is None:
            return _solve(sub, level, None)

        def look(z, nu, lam, it):  # noqa: ANN001, ANN202
            seen.append(it)
            return it >= 4 and (it - 4) % 3 == 0 and bool(check(z, nu, lam))

        return run_block_lp(sub, level, 120.0, None, bounded=True, threads=1, probe=look, max_iter=80)

    assert active_answer(spec, eps, np.array([0]), solve, accept=lambda *_: False) is None
    assert 4 <= max(seen) < 30
    full = active_answer(spec, eps, np.array([0]), _solve)
    assert full is not None
    assert full.tau_min < -PRICING_REJECT * float(spec.c @ full.z) / spec.G


def test_pricing_upper_values_bound_the_block_costs():
    """Per block, the iterate's cost per unit mass (plus the shift); no bound from a point that violates a row."""
    import scipy.sparse as sp

    c = np.array([1.0, 3.0, 2.0, 0.0])
    group = np.array([0, 0, 1, 1])
    shift = np.array([-1.0, 0.5])
    G = sp.csr_matrix(np.array([[1.0, -2.0, 0.0, 0.0], [0.0, 0.0, -2.0, 1.0]]))  # u0 ≤ 2u1, u3 ≤ 2u2
    got = pricing_upper_values(c, group, shift, np.array([1.0, 1.0, 1.0, 2.0]), G)
    assert got is not None and np.allclose(got, [-1.0 + 2.0, 0.5 + 2.0 / 3.0])
    assert pricing_upper_values(c, group, shift, np.array([3.0, 1.0, 1.0, 1.0]), G) is None


def test_no_proposal_once_the_gap_is_small():
    """A stable proposal is tried while the iterate's duality gap is large; once the gap is below the floor the
    probe is finished (the caller then stops unscaling iterates for it) and proposes nothing more."""
    spec = _spec(MIXTURE, 30)
    _, block = blocks_of(spec)
    z = np.where(np.isin(block, [0, 30]), 1.0, 0.0)
    value = float(spec.c @ z)
    closed = np.full(spec.G, -value / float(spec.b.sum()))  # −bᵀν = cᵀz: no gap
    far = np.zeros(spec.G)  # gap ≈ 1
    lam = np.zeros(spec.P)
    tried: list[int] = []

    def solve(sub, level, check):  # noqa: ANN001, ANN202
        tried.append(1)
        raise RuntimeError("not solved in this test")

    probe = ActiveBlockProbe(spec, 0.5, lambda *_: False, solve)
    it = PROBE_FROM_ITERATION
    assert not probe(z, far, lam, it)  # first sight of these blocks: not yet stable
    assert not probe(z, far, lam, it + 1)  # stable, gap ≈ 1: tried (and failed)
    assert tried == [1] and not probe.finished
    assert not probe(z, closed, lam, it + 2)  # no gap: finished
    assert probe.finished
    assert not probe(z, far, lam, it + 2 + PROBE_EVERY)
    assert tried == [1]


def test_no_proposal_when_most_blocks_carry_mass():
    """At ε = 2 every block of the optimum carries mass: no proposal (the restricted LP would be the whole LP)."""
    spec = _spec(MIXTURE, 20)
    nb, block = blocks_of(spec)
    assert nb == 21 and block.shape == (spec.K,)
    assert proposed_blocks(spec, np.ones(spec.K)) is None
    z = np.zeros(spec.K)
    z[block == 0] = 1.0
    z[block == 20] = 0.5
    z[block == 10] = 0.001  # 0.6 % of the heaviest block's mass (block 10 has 121 variables, block 0 has 21)
    assert proposed_blocks(spec, z).tolist() == [0, 20]


def test_sub_spec_keeps_the_rows_inside_the_kept_blocks():
    spec = _spec(MIXTURE, 8)
    _, block = blocks_of(spec)
    keep = np.isin(block, [0, 3])
    sub, idx, rows = sub_spec(spec, keep)
    assert sub.K == int(keep.sum()) and np.array_equal(idx, np.flatnonzero(keep))
    assert np.all(keep[spec.src[rows]] & keep[spec.dst[rows]])
    assert rows.size == int(np.sum(keep[spec.src]))  # a ratio row never leaves its block
    assert np.array_equal(sub.group, spec.group[idx]) and np.array_equal(sub.b, spec.b)


def test_layers_with_one_linking_row_per_block():
    """Separate linking rows are accepted when each block lies in one of them, or each of its layers (a folded
    LP: layers 0 and 2 in one row), and refused when a layer spans two of them."""
    var_layer = np.array([0, 1, 2, 0, 1])
    block = np.array([0, 0, 0, 1, 1])
    src, dst = np.array([0, 1, 3]), np.array([1, 2, 4])
    lay = Layers(var_layer, block, 2, 2, src, dst, link=np.array([0, 0, 0, 1, 1]))
    assert [p.tolist() for _, p, _ in lay.block_layers] == [[0], [1]]
    assert lay.block_links == [None, None]
    lay = Layers(var_layer, block, 2, 2, src, dst, link=np.array([0, 1, 0, 1, 1]))
    assert [p.tolist() for _, p, _ in lay.block_layers] == [[0, 1, 2], [1]]
    assert lay.block_links[0].tolist() == [0, 1, 0] and lay.block_links[1] is None
    with pytest.raises(ValueError, match="every layer of a block"):
        Layers(
            np.array([0, 0, 1, 0, 1]),
            block,
            2,
            2,
            np.array([0, 3]),
            np.array([2, 4]),
            link=np.array([0, 1, 0, 1, 1]),
        )
