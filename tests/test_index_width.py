"""32-bit index arrays in the ratio LP: keys formed from them (src·K + dst) must not wrap.

The spec keeps its src, dst and group arrays in 32 bits where the sizes allow.  A key src·K + dst exceeds 2³¹ as
soon as K > 46 341 (m = 2 from n ≈ 66), so every key is checked here on an LP with K = 70 000 against keys
computed in Python integers.
"""

from __future__ import annotations

import numpy as np

from problems.ipm.rows import reverse_pairs
from problems.lp.face import _forest
from problems.lp.fold import fold
from problems.lp.spec import RatioLPSpec

K = 70_000  # K² = 4.9e9 > 2³¹


def _chain_spec() -> RatioLPSpec:
    """Variables 0..K−1 in mirrored pairs {i, K−1−i} (one normalisation row each), ratio rows both ways between
    neighbours within each half: a mirror-symmetric LP (σ(i) = K−1−i) with keys up to K² − 1."""
    h = K // 2
    i = np.arange(h - 1)
    lo = np.concatenate([i, i + 1, K - 1 - i, K - 2 - i])
    hi = np.concatenate([i + 1, i, K - 2 - i, K - 1 - i])
    t = np.arange(K)
    return RatioLPSpec(
        c=np.ones(K),
        group=np.minimum(t, K - 1 - t),
        b=np.ones(h),
        src=lo,
        dst=hi,
        log_kappa=np.zeros(lo.size),
        program="test",
        log_profile=lambda e: np.zeros(K),
    )


def test_the_spec_keeps_its_indices_in_32_bits():
    spec = _chain_spec()
    assert spec.src.dtype == spec.dst.dtype == spec.group.dtype == np.int32


def test_reverse_pairs_of_32_bit_indices_beyond_32_bit_keys():
    # (1, 2) and (61 357, 47 298) have keys 70 002 and 70 002 + 2³²: equal if the keys wrapped at 32 bits
    src = np.array([1, 2, 61_357, 47_298], dtype=np.int32)
    dst = np.array([2, 1, 47_298, 61_357], dtype=np.int32)
    assert 61_357 * K + 47_298 == 1 * K + 2 + 2**32
    rev, found = reverse_pairs(src, dst, K)
    assert found.all()
    assert rev.tolist() == [1, 0, 3, 2]


def test_the_mirror_fold_maps_every_row_of_a_large_lp():
    spec = _chain_spec()
    f = fold(spec, np.arange(K)[::-1].copy())
    assert f is not None
    assert f.spec.K == K // 2 and f.spec.P == spec.P // 2
    # the image of every row is the row with the mirrored ends (keys in Python integers)
    rows = {(int(a), int(b)): p for p, (a, b) in enumerate(zip(spec.src, spec.dst))}
    q = f.row_orbit
    for p in (0, 1, spec.P // 2, spec.P - 1):
        image = rows[(K - 1 - int(spec.src[p]), K - 1 - int(spec.dst[p]))]
        assert q[p] == q[image]


def test_the_face_forest_finds_its_rows_by_64_bit_keys():
    spec = _chain_spec()
    z = np.full(K, 0.5)  # every row tight (κ = 1, ε = 0): a forest of K − 2 rows (two paths of K/2 variables)
    rows = _forest(spec, z, 0.0, 1e-9)
    assert rows.size == K - 2
    ends = {(min(int(spec.src[p]), int(spec.dst[p])), max(int(spec.src[p]), int(spec.dst[p]))) for p in rows}
    assert len(ends) == K - 2
