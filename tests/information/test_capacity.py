"""Channel capacity: published values, BA vs conic agreement, certificates, typed errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from problems.errors import InvalidChannelError, InvalidInputError
from problems.information import (
    blahut_arimoto,
    capacity_bounds,
    capacity_conic,
    channel_capacity,
    mutual_information,
)

LN2 = math.log(2)

PUBLISHED = [
    # (channel, capacity in bits, decimals to compare)
    (np.array([[0.75, 0.25], [0.25, 0.75]]), 0.1887, 4),  # BSC(0.25) = 1 - H(0.25)
    (np.array([[0.8, 0.2], [0.3, 0.7]]), 0.19123813831431799, 9),
    (np.array([[0.7, 0.3, 0.0], [0.0, 0.3, 0.7]]), 0.7, 9),  # BEC(0.3): 1 - 0.3
    (np.array([[0.4, 0.6, 0.0], [0.0, 0.6, 0.4]]), 0.4, 9),  # BEC(0.6)
    (np.array([[1.0, 0.0], [0.1, 0.9]]), 0.7628482520, 9),  # Z-channel, q = 0.1
]


@pytest.mark.parametrize("W,bits,dec", PUBLISHED)
@pytest.mark.parametrize("method", ["blahut-arimoto", "conic"])
def test_published_capacities(W, bits, dec, method):
    r = channel_capacity(W, method=method)
    assert round(r.capacity / LN2, dec) == pytest.approx(round(bits, dec), abs=10 ** (-dec))
    assert r.lower_bound <= r.upper_bound + 1e-12
    assert r.gap <= 1e-7
    assert r.certificate.ok


def test_ba_certified_gap_is_stopping_rule():
    W = np.array([[0.8, 0.2], [0.3, 0.7]])
    r = blahut_arimoto(W, tol=1e-12)
    assert r.upper_bound - r.lower_bound <= 1e-12
    lo, up = capacity_bounds(r.input_distribution, W)
    assert lo == pytest.approx(r.lower_bound, abs=1e-15) and up == pytest.approx(r.upper_bound, abs=1e-15)
    assert mutual_information(r.input_distribution, W) == pytest.approx(r.capacity, abs=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_ba_and_conic_agree(seed):
    rng = np.random.default_rng(seed)
    m, k = rng.integers(2, 6), rng.integers(2, 7)
    W = rng.dirichlet(np.ones(k) * 0.7, size=m)
    ba, cc = blahut_arimoto(W), capacity_conic(W)
    assert abs(ba.capacity - cc.capacity) <= 1e-7
    # each method's bracket contains the other's value
    assert cc.lower_bound <= ba.upper_bound + 1e-12 and ba.lower_bound <= cc.upper_bound + 1e-12
    assert cc.certificate.duality_gap <= 1e-7
    assert cc.to_dict()["method"] == "conic"


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(2, 6), st.integers(0, 10_000))
def test_capacity_properties(m, k, seed):
    W = np.random.default_rng(seed).dirichlet(np.ones(k), size=m)
    r = blahut_arimoto(W)
    assert -1e-12 <= r.capacity <= math.log(min(m, k)) + 1e-12
    # capacity dominates the MI of any input
    p = np.random.default_rng(seed + 1).dirichlet(np.ones(m))
    assert mutual_information(p, W) <= r.upper_bound + 1e-12


def test_identical_rows_zero_capacity():
    W = np.tile([0.2, 0.3, 0.5], (3, 1))
    assert blahut_arimoto(W).capacity == pytest.approx(0.0, abs=1e-14)


def test_bits_output():
    r = blahut_arimoto(np.array([[0.75, 0.25], [0.25, 0.75]]))
    assert r.to_dict("bits")["capacity"] == pytest.approx(0.18872187554, abs=1e-10)
    with pytest.raises(InvalidInputError, match="unit"):
        r.to_dict("bans")


@pytest.mark.parametrize(
    "bad,match",
    [
        (np.array([0.5, 0.5]), "2-D"),
        (np.array([[0.5, 0.6], [0.5, 0.5]]), "row 0"),
        (np.array([[1.5, -0.5], [0.5, 0.5]]), ">= 0"),
        (np.array([[np.nan, 1.0], [0.5, 0.5]]), "finite"),
        (np.zeros((0, 2)), "at least one row"),
    ],
)
def test_bad_channel_matrix(bad, match):
    with pytest.raises(InvalidChannelError, match=match):
        blahut_arimoto(bad)


def test_bad_arguments():
    W = np.eye(2)
    with pytest.raises(InvalidInputError, match="tol"):
        blahut_arimoto(W, tol=0)
    with pytest.raises(InvalidInputError, match="p0"):
        blahut_arimoto(W, p0=np.array([1.0, 0.5]))
    with pytest.raises(InvalidInputError, match="method"):
        channel_capacity(W, method="magic")
    with pytest.raises(InvalidInputError, match="input distribution"):
        mutual_information(np.array([1.0]), W)
