r"""Vertex-channel search: the engine behind Theorem 2 of Wu, Xia & He (2020) (and its group form).

For a group of records :math:`I` (a single individual :math:`i` in Theorem 2), every adversary
:math:`X\in\Delta(\mathcal X)` induces the channel :math:`p(y\mid x_I)=\sum_{x_{(I)}} p(y\mid x_I,x_{(I)})
p(x_{(I)}\mid x_I)`, a convex combination of the *vertex channels* :math:`B\in\mathbb S_I` whose row for
:math:`x_I=a` is one row :math:`p(\cdot\mid a, x_{(I)}^{(a)})` of the slice :math:`x_I=a` (eqs. (42)–(47)).
Capacity is convex in the channel (Lemma 2), so the maximum over :math:`\mathbb Q_I` is attained at a vertex:

.. math:: \max_{X} I(X_I;Y) = \max_{B\in\mathbb S_I} C(B) \qquad (48).

Reductions used here, all exact:

1. *Column deduplication* — only distinct rows :math:`p(\cdot\mid x)` matter (e.g. channels that depend on
   :math:`x` only through :math:`f(x)`): in the slice :math:`x_I=a` keep one representative per distinct row.
2. *Permutation deduplication* — :math:`C(B)` is invariant under permuting rows, so vertex channels with the same
   multiset of distinct rows are evaluated once, across all groups with the same :math:`|\mathcal X_I|`.
3. *Pruning* — each remaining vertex gets a cheap rigorous upper bound
   :math:`\min\{\log(\#\text{distinct rows}),\ \log\sum_y\max_a B_{ay},\ \max_a D(B_a\|\bar B)\}` (the last is
   the min–max bound at the uniform-input output :math:`\bar B`).  Vertices are evaluated in decreasing order of
   that bound by a batched Blahut–Arimoto; a vertex whose bound (or, during the iteration, whose certified
   upper bound) does not exceed the best certified lower bound found so far cannot be the maximiser and is
   skipped.

The result brackets the maximum: ``lower`` is attained by a concrete vertex and input distribution,
``upper`` bounds every vertex (evaluated or pruned).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidInputError, PrivacyToolkitError, ProblemTooLargeError
from .capacity import DEFAULT_GAP, blahut_arimoto_batch, capacity_conic, divergences
from .channel import PrivacyChannel

__all__ = ["VertexSearch", "vertex_search", "DEFAULT_MAX_VERTICES"]

DEFAULT_MAX_VERTICES = 2_000_000
_BATCH = 512
_BA_ITER = 2_000


def _capacities(B: np.ndarray, tol: float, stop_below: float | None):
    """Certified capacity brackets of a batch of channels: batched Blahut–Arimoto for at most ``_BA_ITER``
    iterations, then, for the few channels still above ``tol`` (Blahut–Arimoto is slow when an input whose mass
    tends to 0 has divergence close to the capacity), the conic min–max program; the two brackets are
    intersected (each bound is rigorous on its own)."""
    lo, up, p, it = blahut_arimoto_batch(B, tol=tol, max_iter=_BA_ITER, stop_below=stop_below)
    slow = up - lo > tol
    if stop_below is not None:
        slow &= up > stop_below
    for j in np.flatnonzero(slow):
        try:
            r = capacity_conic(B[j])
        except PrivacyToolkitError:
            continue
        if r.lower_bound > lo[j]:
            lo[j], p[j] = r.lower_bound, r.input_distribution
        up[j] = min(up[j], r.upper_bound)
    return lo, up, p, it


@dataclass(frozen=True, eq=False)
class VertexSearch:
    """Raw outcome of :func:`vertex_search` (indices are 0-based)."""

    lower: float
    upper: float
    group: tuple[int, ...]
    group_index: int
    vertex_rest: tuple[int, ...]  # for each value a of x_I (product order): flat index of x_(I) chosen
    input_distribution: np.ndarray  # over x_I values (product order)
    total_vertices: int
    after_column_dedup: int
    distinct_vertices: int
    evaluated_vertices: int
    pruned_vertices: int
    iterations: int


def vertex_search(
    channel: PrivacyChannel,
    groups: Sequence[Sequence[int]],
    *,
    tol: float = DEFAULT_GAP,
    prune: bool = True,
    max_vertices: int = DEFAULT_MAX_VERTICES,
    batch_size: int = _BATCH,
) -> VertexSearch:
    r"""Maximise :math:`C(B)` over :math:`B\in\mathbb S_I` for every group ``I`` in ``groups``.

    Raises
    ------
    ProblemTooLargeError
        If the number of vertex channels after column deduplication exceeds ``max_vertices``.
    """
    if not (isinstance(tol, (int, float)) and np.isfinite(tol) and tol > 0):
        raise InvalidInputError(f"tol must be a positive number of nats, got {tol!r}")
    if not (isinstance(max_vertices, (int, np.integer)) and max_vertices >= 1):
        raise InvalidInputError(f"max_vertices must be an integer >= 1, got {max_vertices!r}")
    sizes = channel.record_sizes
    matrix = channel.matrix
    # Global distinct rows (exact up to 1e-13 rounding).
    keyrows = np.round(matrix, 13)
    _, first, uid = np.unique(keyrows, axis=0, return_index=True, return_inverse=True)
    uid = uid.reshape(sizes)
    rows = matrix[first]  # representative distribution of each distinct row id

    total = 0
    after_cols = 0
    by_arity: dict[int, list[tuple[np.ndarray, np.ndarray, int]]] = {}
    for gi, group in enumerate(groups):
        g = list(group)
        rest = [j for j in range(len(sizes)) if j not in g]
        A = int(np.prod([sizes[j] for j in g]))
        u = np.transpose(uid, g + rest).reshape(A, -1)
        R = u.shape[1]
        total += R**A
        ids_per_a, pos_per_a = [], []
        for a in range(A):
            ids, pos = np.unique(u[a], return_index=True)
            ids_per_a.append(ids)
            pos_per_a.append(pos)
        count = int(np.prod([len(x) for x in ids_per_a], dtype=object))
        after_cols += count
        if count > max_vertices:
            raise ProblemTooLargeError(
                f"group {[j + 1 for j in g]} (1-based) has {count} vertex channels after column deduplication; "
                f"the limit is max_vertices = {max_vertices}",
                size=count,
                limit=max_vertices,
            )
        if A < 2:
            continue  # a one-point record universe carries no information
        choice = np.indices([len(x) for x in ids_per_a]).reshape(A, -1).T  # (V, A)
        ids = np.stack([ids_per_a[a][choice[:, a]] for a in range(A)], axis=1)
        pos = np.stack([pos_per_a[a][choice[:, a]] for a in range(A)], axis=1)
        by_arity.setdefault(A, []).append((ids, pos, gi))

    best: tuple[float, float, int, tuple[int, ...], tuple[int, int, np.ndarray] | None]
    best = (0.0, 0.0, 0, (), None)  # lower, upper-of-best, group index, rest positions, p
    upper_all = 0.0
    distinct = evaluated = pruned = 0
    iterations = 0
    cands = []
    for A, items in by_arity.items():
        ids = np.concatenate([x[0] for x in items])
        pos = np.concatenate([x[1] for x in items])
        gidx = np.concatenate([np.full(len(x[0]), x[2]) for x in items])
        keys = np.sort(ids, axis=1)
        ukeys, rep = np.unique(keys, axis=0, return_index=True)
        distinct += len(ukeys)
        ndist = 1 + np.count_nonzero(np.diff(ukeys, axis=1), axis=1)
        informative = ndist > 1
        pruned += int(np.count_nonzero(~informative))  # a single distinct row: capacity 0
        ukeys, rep, ndist = ukeys[informative], rep[informative], ndist[informative]
        if not len(ukeys):
            continue
        cands.append((A, ukeys, ids[rep], pos[rep], gidx[rep], ndist))

    # Upper bounds and global ordering across arities.
    entries = []
    for ci, (_A, ukeys, _ids, _pos, _g, ndist) in enumerate(cands):
        B = rows[ukeys]  # (V, A, k)
        ub = np.log(ndist.astype(float))  # C <= log(number of distinct inputs)
        if prune:
            ub = np.minimum(ub, np.log(B.max(axis=1).sum(axis=1)))  # max-leakage bound
            ub = np.minimum(ub, divergences(B, B.mean(axis=1)).max(axis=1))  # min-max bound at uniform input
        entries.append((ci, ub))

    cis = np.concatenate([np.full(len(ub), ci) for ci, ub in entries]) if entries else np.zeros(0, int)
    js = np.concatenate([np.arange(len(ub)) for _, ub in entries]) if entries else np.zeros(0, int)
    ubs = np.concatenate([ub for _, ub in entries]) if entries else np.zeros(0)
    o = np.argsort(-ubs, kind="stable")
    cis, js, ubs = cis[o], js[o], ubs[o]

    start = 0
    step = 16  # small first batch: a good lower bound early makes the pruning bite
    N = len(ubs)
    while start < N:
        if prune and ubs[start] <= best[0]:
            pruned += N - start
            upper_all = max(upper_all, float(ubs[start]))
            break
        stop = min(N, start + step)
        step = min(2 * step, batch_size)
        sel_c, sel_j = cis[start:stop], js[start:stop]
        for ci in np.unique(sel_c):
            A, ukeys, ids_rep, pos_rep, g_rep, _ = cands[ci]
            jj = sel_j[sel_c == ci]
            B = rows[ukeys[jj]]
            lo, up, p, it = _capacities(B, tol, best[0] if prune else None)
            iterations += int(it.max(initial=0))
            evaluated += len(jj)
            upper_all = max(upper_all, float(up.max()))
            k = int(np.argmax(lo))
            if lo[k] > best[0]:
                best = (
                    float(lo[k]),
                    float(up[k]),
                    int(g_rep[jj[k]]),
                    tuple(pos_rep[jj[k]]),
                    (ci, jj[k], p[k]),
                )
        start = stop

    lower, _, gi, rest_pos, extra = best
    if extra is None:  # every vertex channel has a single distinct row: C = 0
        g0 = tuple(groups[0])
        A = int(np.prod([sizes[j] for j in g0]))
        return VertexSearch(
            lower=0.0,
            upper=upper_all,
            group=g0,
            group_index=0,
            vertex_rest=tuple([0] * A),
            input_distribution=np.full(A, 1.0 / A),
            total_vertices=total,
            after_column_dedup=after_cols,
            distinct_vertices=distinct,
            evaluated_vertices=evaluated,
            pruned_vertices=pruned,
            iterations=iterations,
        )
    ci, j, p_sorted = extra
    ids_rep = cands[ci][2][j]
    perm = np.argsort(ids_rep, kind="stable")
    p = np.empty_like(p_sorted)
    p[perm] = p_sorted
    return VertexSearch(
        lower=lower,
        upper=max(upper_all, lower),
        group=tuple(groups[gi]),
        group_index=gi,
        vertex_rest=tuple(int(v) for v in rest_pos),
        input_distribution=p,
        total_vertices=total,
        after_column_dedup=after_cols,
        distinct_vertices=distinct,
        evaluated_vertices=evaluated,
        pruned_vertices=pruned,
        iterations=iterations,
    )
