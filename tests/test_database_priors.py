import itertools
import json

import numpy as np
import pytest

from problems import (
    DatabaseSpace,
    InvalidInputError,
    InvalidPriorError,
    ProblemTooLargeError,
    ShapeMismatchError,
    priors,
)


def test_enumeration_is_itertools_product_order():
    space = DatabaseSpace(3, 3)
    assert space.elements.tolist() == [list(t) for t in itertools.product(range(3), repeat=3)]
    assert space.index((1, 0, 2)) == 1 * 9 + 0 * 3 + 2
    assert space.labels[5] == "0,1,2"


def test_hamming_and_neighbours_match_brute_force():
    space = DatabaseSpace(3, 3)
    e = space.elements
    brute = np.array([[np.sum(a != b) for b in e] for a in e], dtype=float)
    np.testing.assert_array_equal(space.hamming_matrix(), brute)
    i, j = space.neighbour_pairs
    pairs = set(zip(i.tolist(), j.tolist()))
    assert pairs == {(a, b) for a in range(space.size) for b in range(space.size) if brute[a, b] == 1}
    assert len(i) == space.size * space.n * (space.m - 1)
    np.testing.assert_array_equal(space.distance_counts(), np.bincount(brute[0].astype(int)))


@pytest.mark.parametrize("n,m", [(0, 2), (2, 1), (2.5, 2), (True, 2)])
def test_bad_space(n, m):
    with pytest.raises(InvalidInputError):
        DatabaseSpace(n, m)


def test_dense_limit():
    with pytest.raises(ProblemTooLargeError, match="N ≤"):
        DatabaseSpace(13, 2).hamming_matrix()


def test_iid_and_uniform_priors():
    space = DatabaseSpace(2, 3)
    p = priors.iid(space, [0.2, 0.3, 0.5])
    np.testing.assert_allclose(p.tensor(), np.outer([0.2, 0.3, 0.5], [0.2, 0.3, 0.5]))
    np.testing.assert_allclose(priors.uniform(space).pmf, 1 / 9)


def test_contagious_prior_is_exchangeable_and_correlated():
    space = DatabaseSpace(3, 2)
    p = priors.contagious(space, 0.5, [0.5, 0.5])
    t = p.tensor()
    assert t[0, 0, 0] == pytest.approx(0.5 / 8 + 0.25)
    assert t[0, 1, 0] == pytest.approx(0.5 / 8)
    assert np.allclose(t, np.transpose(t, (1, 0, 2)))  # exchangeable
    # correlated: P(x1=0, x2=0) != P(x1=0) P(x2=0)
    m12 = t.sum(axis=2)
    assert abs(m12[0, 0] - m12.sum(1)[0] * m12.sum(0)[0]) > 0.05


@pytest.mark.parametrize(
    "pmf,err,match",
    [
        ([0.5, 0.6, -0.1, 0.0], InvalidPriorError, "negative entry -0.1"),
        ([0.25, 0.25, 0.25, 0.2], InvalidPriorError, "sums to 0.95"),
        ([0.25, 0.25, 0.5], ShapeMismatchError, "shape"),
        ([np.nan, 0.5, 0.25, 0.25], InvalidPriorError, "non-finite"),
    ],
)
def test_bad_priors_name_the_value(pmf, err, match):
    with pytest.raises(err, match=match):
        priors.from_pmf(DatabaseSpace(2, 2), pmf)


def test_sum_tolerance_is_1e_9_and_renormalisation_below_1e_6():
    """Within 1e-9: accepted as is; within 1e-6: divided by its sum with a warning naming the sum; beyond: error."""
    import warnings

    space = DatabaseSpace(1, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        priors.from_pmf(space, [0.5, 0.5 + 5e-10])
    with pytest.warns(priors.RenormalisedWarning, match="sums to 1.000000005"):
        p = priors.from_pmf(space, [0.5, 0.5 + 5e-9])
    assert abs(p.pmf.sum() - 1.0) <= 1e-15
    with pytest.raises(InvalidPriorError, match="sums to 1.000002"):
        priors.from_pmf(space, [0.5, 0.5 + 2e-6])
    with pytest.raises(InvalidPriorError, match=r"sums to 0.9999;.*1/3"):  # off by 1e-4: say how to fix it
        priors.parse_prior("iid:0.3333,0.3333,0.3333", DatabaseSpace(2, 3))
    with pytest.warns(priors.RenormalisedWarning):
        p = priors.parse_prior("iid:0.333333333,0.333333333,0.333333333", DatabaseSpace(2, 3))
    q = priors.parse_prior("iid:1/3,1/3,1/3", DatabaseSpace(2, 3))
    np.testing.assert_allclose(p.pmf, q.pmf, rtol=1e-14)


def test_zero_mass_is_said_in_words():
    p = priors.from_pmf(DatabaseSpace(2, 2), [0.5, 0.5, 0.0, 0.0])
    with pytest.raises(InvalidPriorError, match="ε_X = ∞"):
        p.require_full_support()


@pytest.mark.parametrize("suffix", [".npy", ".csv", ".json"])
def test_prior_files(tmp_path, suffix):
    space = DatabaseSpace(2, 2)
    pmf = np.array([0.1, 0.2, 0.3, 0.4])
    path = tmp_path / f"prior{suffix}"
    if suffix == ".npy":
        np.save(path, pmf)
    elif suffix == ".csv":
        path.write_text("0.1,0.2\n0.3,0.4\n")
    else:
        path.write_text(json.dumps({"pmf": pmf.tolist()}))
    np.testing.assert_allclose(priors.from_file(space, path).pmf, pmf)
    np.testing.assert_allclose(priors.parse_prior(f"file:{path}", space).pmf, pmf)


def test_parse_prior_specs():
    space = DatabaseSpace(2, 2)
    assert priors.parse_prior("uniform", space).kind == "uniform"
    assert priors.parse_prior("iid:0.3,0.7", space).pmf[0] == pytest.approx(0.09)
    assert priors.parse_prior("pmf:0.1,0.2,0.3,0.4", space).pmf[3] == pytest.approx(0.4)
    assert priors.parse_prior("contagious:0.2", space).kind == "exchangeable"
    with pytest.raises(InvalidInputError, match="unknown prior spec"):
        priors.parse_prior("gaussian:1", space)
    with pytest.raises(InvalidInputError, match="does not exist"):
        priors.parse_prior("file:/nonexistent.npy", space)
