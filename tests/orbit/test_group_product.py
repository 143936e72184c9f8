"""PD-DP over groups of rows (problems.orbit.group_product): the subadditive upper bound beyond the joint-type LP.

References independent of the code under test: a plain SciPy/HiGHS call on the n-row reduced LP
(``highs_optimum``), the one-row closed form min(min_a π(a), 1/(1 + e^ε))·n of an i.i.d. binary prior, and the
mixture sandwich's lower side.  The joint-type limit is lowered so that n = 40 counts as "beyond the LP".
"""

from __future__ import annotations

import math

import pytest

import problems.orbit.group_product as gp
from problems.orbit import ReducedPDDP
from problems.orbit.group_product import GROUP_LEVEL, group_product_theorem, group_split, joint_types_fit
from problems.orbit.mixture_prior import mixture_enclosure
from problems.orbit.symmetric_prior import parse_symmetric_prior
from problems.orbit.types import MAX_JOINT_TYPES

MIXTURE = "mixture:0.5,0.5/0.8,0.2/0.3,0.7"
#: n = 20 rows fit (1 771 joint types), n = 40 do not (12 341)
SMALL_LIMIT = 2_000


def test_group_split():
    assert group_split(400, 2) == (2, 200)
    assert group_split(1000, 2) == (5, 200)
    assert group_split(300, 2) == (2, 150)
    assert group_split(500, 2) == (4, 125)  # 250 rows would fit the joint-type limit, not GROUP_MAX_ROWS
    assert group_split(401, 2) is None  # prime: only single rows
    assert group_split(40, 2, SMALL_LIMIT) == (2, 20)
    assert group_split(60, 2, SMALL_LIMIT) == (3, 20)
    assert joint_types_fit(200, 2) and not joint_types_fit(400, 2)
    assert math.comb(203, 3) <= MAX_JOINT_TYPES < math.comb(403, 3)


@pytest.mark.parametrize(
    ("prior", "eps"),
    [
        (MIXTURE, 1.0),
        ("mixture:0.5,0.5/0.9,0.1/0.4,0.6", 1.0),
        pytest.param("contagious:0.2", 1.0, marks=pytest.mark.slow),  # its HiGHS reference: over 20 s
    ],
)
def test_enclosure_holds_the_lp_optimum(prior, eps, highs_optimum):
    """Two groups of 20 rows: the sandwich's lower side and twice the 20-row upper bound enclose the optimum of
    the 40-row LP (HiGHS); the answer's value is twice the group's, its mechanism one group's."""
    sym = parse_symmetric_prior(prior, 40, 2)
    lower = mixture_enclosure(sym, eps).lower
    res = group_product_theorem(ReducedPDDP(sym), eps, lower, limit=SMALL_LIMIT)
    assert res is not None
    ref = highs_optimum(ReducedPDDP(sym).lp.spec, eps)
    assert res.bounds.lower <= ref * (1 + 1e-9) and ref <= res.bounds.upper * (1 + 1e-9)
    assert res.bounds.lower <= res.value <= res.bounds.upper
    assert res.extras["mechanism_level"] == GROUP_LEVEL
    assert (res.extras["groups"], res.extras["group_rows"]) == (2, 20)
    assert res.mechanism.matrix.shape == (21, 21)
    piece = ReducedPDDP(parse_symmetric_prior(prior, 20, 2)).solve(eps)
    assert res.value == pytest.approx(2 * piece.value, rel=1e-12)
    assert res.bounds.upper >= 2 * piece.bounds.upper  # rounded up, never below the product's value
    # 40 rows are too few for the sandwich's lower side to meet the groups' upper bound: not certified
    assert str(res.status) == "inaccurate"


def test_iid_groups_are_certified():
    """An i.i.d. prior is a one-component mixture: PD-DP_n = n·PD-DP_1 (closed form), so the groups' product is
    optimal and, with the closed form as the lower side, certified."""
    eps = 1.0
    sym = parse_symmetric_prior("iid:0.3,0.7", 40, 2)
    exact = 40 * min(0.3, 1.0 / (1.0 + math.exp(eps)))
    res = group_product_theorem(ReducedPDDP(sym), eps, exact * (1 - 1e-15), limit=SMALL_LIMIT)
    assert res is not None and str(res.status) == "optimal"
    assert res.bounds.lower <= exact <= res.bounds.upper
    assert res.bounds.upper - res.bounds.lower <= 1e-6 * exact


def test_public_path_beyond_the_joint_type_limit(monkeypatch, highs_optimum):
    """Through ReducedPDDP.solve: the sandwich does not close at ε = 1 and the 40-row LP is 'too large', so the
    answer comes from two groups of 20 rows, with both bounds proved."""
    monkeypatch.setattr(gp, "MAX_JOINT_TYPES", SMALL_LIMIT)
    sym = parse_symmetric_prior(MIXTURE, 40, 2)
    res = ReducedPDDP(sym).solve(1.0)
    assert res.extras["reduction"] == "group-product"
    ref = highs_optimum(ReducedPDDP(sym).lp.spec, 1.0)
    assert res.bounds.lower <= ref <= res.bounds.upper * (1 + 1e-9)


def test_sample_draws_each_group_from_its_answer():
    """sample() of a group-product answer: an (size, n) array whose groups are drawn from the group's answer.  The
    output type of each group (its count of ones) follows the row of the group's type channel for that group's
    input type: total variation under 0.1 with 4 000 draws (about 0.03 expected)."""
    import numpy as np

    from problems.orbit.lift import sample

    sym = parse_symmetric_prior(MIXTURE, 40, 2)
    res = group_product_theorem(ReducedPDDP(sym), 1.0, mixture_enclosure(sym, 1.0).lower, limit=SMALL_LIMIT)
    assert res is not None
    x = np.r_[np.zeros(20, dtype=int), np.ones(20, dtype=int)]
    y = sample(res, x, 4000, rng=7)
    assert y.shape == (4000, 40) and set(np.unique(y)) <= {0, 1}
    mech = res.mechanism  # one group's type channel: rows and columns t = (#0, #1)
    for g, ones_in in ((0, 0), (1, 20)):
        row = mech.matrix[mech.input_labels.index(f"t=({20 - ones_in},{ones_in})")]
        counts = np.bincount(y[:, 20 * g : 20 * (g + 1)].sum(axis=1), minlength=21) / 4000
        expected = np.array([row[mech.output_labels.index(f"t=({20 - s},{s})")] for s in range(21)])
        assert 0.5 * np.abs(counts - expected).sum() < 0.1
    with pytest.raises(Exception, match="40 values"):
        sample(res, x[:10], 5)


@pytest.mark.slow
def test_n400_between_the_mixture_levels_is_certified():
    """The README mixture at n = 400, ε = 1 (10.8 M joint types, beyond the reduced LP): two groups of 200 rows and
    the sandwich's lower side, certified; the value lies in the sandwich."""
    sym = parse_symmetric_prior(MIXTURE, 400, 2)
    res = ReducedPDDP(sym).solve(1.0)
    assert str(res.status) == "optimal"
    enc = mixture_enclosure(sym, 1.0)
    assert enc.lower <= res.value <= enc.upper
    assert (res.extras["groups"], res.extras["group_rows"]) == (2, 200)
