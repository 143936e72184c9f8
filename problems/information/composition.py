r"""Group and composition privacy (Wu, Xia & He 2020, §6–7; Wu 2019a).

* k-group channel capacity (Definition 17, eq. (125)): :math:`C_k=\max_{X,|I|=k} I(X_I;Y)`.  The group form of
  Theorem 2 treats :math:`X_I` as one record against :math:`X_{(I)}`: :math:`C_k=\max_{|I|=k}\max_{B\in\mathbb S_I}C(B)`
  (same convexity argument, :mod:`problems.information.vertex`).
* Basic composition (Definition 19, eq. (138)): independent channels on the same database,
  :math:`p(y|x)=\prod_j p(y^j|x)`; Theorem 5 (b = 0): :math:`C_1\le\sum_j C_1^{(j)}`.
* General composition (Definition 20, eq. (153)): channel :math:`j` reads dataset :math:`x^j`, individual
  :math:`i` owns the column :math:`(x_i^1,\dots,x_i^m)`.  Proposition 6: the cross capacity
  :math:`C_1^{2,1}` (information about :math:`X^2_i` in :math:`Y^1`) equals :math:`\max_i\max_{E\in\mathcal E_i}C_E`
  where :math:`E` has :math:`k_i=|\mathcal X_i^2|` columns drawn from the columns :math:`S_M` of :math:`M=p(y^1|x^1)`
  (in our row convention: :math:`k_i` rows of the matrix of channel 1) — eq. (164)–(165).
* Parallel composition (Definition 21, Proposition 7): disjoint parts with their own channels; the composite
  :math:`C_1` can exceed the worst part's :math:`C_1` (:func:`parallel_composition_example`).
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidInputError, ShapeMismatchError
from .basic_channels import binary_entropy
from .capacity import DEFAULT_GAP, blahut_arimoto_batch
from .channel import PrivacyChannel, as_channel
from .individual import IndividualCapacityResult, _assemble, individual_capacity
from .vertex import DEFAULT_MAX_VERTICES, vertex_search

__all__ = [
    "group_capacity",
    "compose_independent",
    "BasicCompositionReport",
    "basic_composition",
    "general_composition_channel",
    "cross_capacity",
    "ParallelCompositionExample",
    "parallel_composition_example",
]


def group_capacity(
    channel: PrivacyChannel | np.ndarray,
    k: int,
    *,
    tol: float = DEFAULT_GAP,
    max_vertices: int = DEFAULT_MAX_VERTICES,
) -> IndividualCapacityResult:
    r"""k-group channel capacity :math:`C_k` (Wu, Xia & He 2020 Definition 17) by the group form of Theorem 2.

    The returned result's ``group`` is the maximising :math:`I` (0-based; 1-based in ``to_dict``), ``vertex`` lists
    :math:`x_{(I)}` chosen for each value of :math:`x_I` (product order over ``group``), ``input_distribution`` is
    over :math:`x_I`.
    """
    start = time.perf_counter()
    ch = as_channel(channel)
    if not (isinstance(k, (int, np.integer)) and 1 <= int(k) <= ch.n):
        raise InvalidInputError(
            f"group size k must be an integer in [1, {ch.n}] (number of individuals), got {k!r}"
        )
    groups = [list(g) for g in itertools.combinations(range(ch.n), int(k))]
    vs = vertex_search(ch, groups, tol=tol, max_vertices=max_vertices)
    return _assemble(ch, vs, start)


def compose_independent(*channels: PrivacyChannel | np.ndarray) -> PrivacyChannel:
    r"""Basic composition (Wu, Xia & He 2020 eq. (138)): :math:`p(y^1,\dots,y^m|x)=\prod_j p(y^j|x)` on the same database.

    The composite output :math:`(y^1,\dots,y^m)` is flattened in product order (last channel fastest).
    """
    chs = [as_channel(c) for c in channels]
    if not chs:
        raise InvalidInputError("compose_independent needs at least one channel")
    sizes = chs[0].record_sizes
    for c in chs[1:]:
        if c.record_sizes != sizes:
            raise ShapeMismatchError(
                f"channels to compose must share record sizes; got {sizes} and {c.record_sizes}"
            )
    out = chs[0].array
    for c in chs[1:]:
        out = (out[..., :, None] * c.array[..., None, :]).reshape(sizes + (-1,))
    return PrivacyChannel(out)


@dataclass(frozen=True)
class BasicCompositionReport:
    """C₁ of each part, of the composition, and their sum (nats)."""

    parts: tuple[float, ...]
    composite: float
    sum_of_parts: float

    @property
    def within_sum(self) -> bool:
        """Theorem 5 with b = 0: composite C₁ ≤ Σ parts (up to 1e-9)."""
        return self.composite <= self.sum_of_parts + 1e-9

    def to_dict(self) -> dict:
        return {
            "parts_C1": list(self.parts),
            "composite_C1": self.composite,
            "sum_of_parts": self.sum_of_parts,
            "within_sum": self.within_sum,
            "unit": "nats",
        }


def basic_composition(*channels: PrivacyChannel | np.ndarray) -> BasicCompositionReport:
    """Compose independently (138) and compare C₁ of the composite with the sum of the parts' C₁."""
    parts = tuple(individual_capacity(c).c1 for c in channels)
    comp = individual_capacity(compose_independent(*channels)).c1
    return BasicCompositionReport(parts, comp, float(sum(parts)))


def general_composition_channel(
    ch1: PrivacyChannel | np.ndarray, ch2: PrivacyChannel | np.ndarray
) -> PrivacyChannel:
    r"""General composition (Wu, Xia & He 2020 eq. (153)) of two channels on datasets :math:`x^1, x^2` of the same ``n``.

    Individual :math:`i` owns the record :math:`(x_i^1, x_i^2)`, encoded as ``x_i^1 * |X_i^2| + x_i^2``; the
    output :math:`(y^1, y^2)` is encoded as ``y^1 * |Y^2| + y^2``.
    """
    a, b = as_channel(ch1), as_channel(ch2)
    if a.n != b.n:
        raise ShapeMismatchError(f"both datasets need the same number of individuals, got {a.n} and {b.n}")
    n = a.n
    full = np.multiply.outer(a.array, b.array)  # axes: x^1 (n), y1, x^2 (n), y2
    full = np.moveaxis(full, n, 2 * n)  # x^1 (n), x^2 (n), y1, y2
    order = [ax for i in range(n) for ax in (i, n + i)] + [2 * n, 2 * n + 1]
    full = np.transpose(full, order)
    sizes = tuple(a.record_sizes[i] * b.record_sizes[i] for i in range(n))
    return PrivacyChannel(full.reshape(sizes + (a.n_outputs * b.n_outputs,)))


def cross_capacity(
    ch1: PrivacyChannel | np.ndarray, record_sizes2: tuple[int, ...] | list[int], *, tol: float = DEFAULT_GAP
) -> float:
    r"""Cross capacity :math:`C_1^{2,1}` of Proposition 6 (Wu, Xia & He 2020, eqs. (164)–(165)), in nats.

    Information about an individual's record in dataset 2 revealed by the output :math:`Y^1` of channel 1 on
    dataset 1, for adversaries that correlate the datasets arbitrarily:
    :math:`\max_i\max_{E\in\mathcal E_i} C_E`, :math:`E` any :math:`k_i=|\mathcal X^2_i|` rows of
    :math:`M=p(y^1|x^1)`.  Adding rows never lowers capacity, so it suffices to take all subsets of
    :math:`\min(k_i, L)` distinct rows (:math:`L` = number of distinct rows of :math:`M`).
    """
    a = as_channel(ch1)
    ks = [int(k) for k in record_sizes2]
    if not ks or any(k < 1 for k in ks):
        raise InvalidInputError(
            f"record_sizes2 must be a non-empty list of integers >= 1, got {record_sizes2!r}"
        )
    rows = np.unique(np.round(a.matrix, 13), axis=0)
    L = len(rows)
    best = 0.0
    for k in sorted(set(ks)):
        size = min(k, L)
        if size < 2:
            continue
        subsets = np.array(list(itertools.combinations(range(L), size)))
        lo, _up, _p, _it = blahut_arimoto_batch(rows[subsets], tol=tol)
        best = max(best, float(lo.max()))
    return best


@dataclass(frozen=True)
class ParallelCompositionExample:
    r"""Two individuals, each with a randomized response of flip probability ``p`` on their own bit (Def. 21).

    ``part_c1`` = :math:`\log2-H(p)` (each part alone), ``composite_c1`` = :math:`C_1` of
    :math:`p(r_1,r_2|x_1,x_2)=p(r_1|x_1)p(r_2|x_2)`, ``tau`` = the excess of Proposition 7 (eq. (177)), attained by
    the adversary that makes :math:`X_2 = X_1`.
    """

    p: float
    part_c1: float
    composite_c1: float
    tau: float
    result: IndividualCapacityResult

    def to_dict(self) -> dict:
        return {
            "p": self.p,
            "part_C1": self.part_c1,
            "composite_C1": self.composite_c1,
            "tau": self.tau,
            "worst_vertex_databases": [list(v) for v in self.result.vertex_databases],
            "unit": "nats",
        }


def parallel_composition_example(p: float = 0.2) -> ParallelCompositionExample:
    r"""Proposition 7 of Wu, Xia & He (2020) on a concrete channel (see :class:`ParallelCompositionExample`)."""
    if not (0 <= p <= 1):
        raise InvalidInputError(f"flip probability p must lie in [0, 1], got {p!r}")
    bsc = np.array([[1 - p, p], [p, 1 - p]])
    arr = np.einsum("ar,bs->abrs", bsc, bsc).reshape(2, 2, 4)
    res = individual_capacity(arr)
    part = math.log(2) - float(binary_entropy(p))
    return ParallelCompositionExample(float(p), part, res.c1, res.c1 - part, res)
