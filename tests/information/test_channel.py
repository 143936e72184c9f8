"""PrivacyChannel construction and validation."""

from __future__ import annotations

import numpy as np
import pytest

from problems.errors import InvalidChannelError, InvalidInputError, ShapeMismatchError
from problems.information import PrivacyChannel, load_channel


def test_from_query_and_layout():
    noise = np.array([[0.9, 0.1], [0.2, 0.8]])
    ch = PrivacyChannel.from_query([2, 3], lambda x: int(x[0] == 1 and x[1] == 2), noise)
    assert ch.record_sizes == (2, 3) and ch.n == 2 and ch.n_outputs == 2 and ch.n_databases == 6
    assert np.allclose(ch.array[1, 2], [0.2, 0.8]) and np.allclose(ch.array[0, 2], [0.9, 0.1])
    # product order: last coordinate fastest
    assert np.allclose(ch.matrix[5], ch.array[1, 2])
    again = PrivacyChannel.from_matrix(ch.matrix, [2, 3])
    assert np.array_equal(again.array, ch.array)
    assert not ch.array.flags.writeable


def test_slices_layout():
    rng = np.random.default_rng(0)
    W = rng.dirichlet(np.ones(4), size=(2, 3, 2))
    ch = PrivacyChannel(W)
    s = ch.slices([1])
    assert s.shape == (3, 4, 4)
    assert np.allclose(s[2, 1 * 2 + 1], W[1, 2, 1])
    g = ch.slices([0, 2])
    assert g.shape == (4, 3, 4) and np.allclose(g[1 * 2 + 0, 2], W[1, 2, 0])


@pytest.mark.parametrize(
    "arr,match",
    [
        (np.array([0.5, 0.5]), "ndim >= 2"),
        (np.ones((2, 0)), "non-empty"),
        (np.array([[0.5, 0.6], [0.5, 0.5]]), r"input x = \(0,\)"),
        (np.array([[1.2, -0.2], [0.5, 0.5]]), "negative"),
        (np.array([[np.inf, 0.0], [0.5, 0.5]]), "finite"),
        ("abc", "numeric"),
    ],
)
def test_invalid_channel(arr, match):
    with pytest.raises(InvalidChannelError, match=match):
        PrivacyChannel(arr)


def test_invalid_query_and_shapes(tmp_path):
    noise = np.eye(2)
    with pytest.raises(InvalidInputError, match=r"query\(\(1,\)\) = 5"):
        PrivacyChannel.from_query([2], lambda x: 5 * x[0], noise)
    with pytest.raises(InvalidInputError, match="record_sizes"):
        PrivacyChannel.from_query([0], lambda x: 0, noise)
    with pytest.raises(ShapeMismatchError, match="does not fit"):
        PrivacyChannel.from_matrix(np.eye(3), [2, 2])
    with pytest.raises(InvalidInputError, match="group"):
        PrivacyChannel(np.full((2, 2, 2), 0.5)).slices([2])
    with pytest.raises(InvalidInputError, match="does not exist"):
        load_channel(tmp_path / "missing.npy")
    bad = tmp_path / "bad.npy"
    bad.write_text("not numpy")
    with pytest.raises(InvalidChannelError, match="is not a NumPy .npy file"):
        load_channel(bad)
    good = tmp_path / "good.npy"
    np.save(good, np.full((2, 2, 3), 1 / 3))
    assert load_channel(good).record_sizes == (2, 2)
