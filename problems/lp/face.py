r"""The face repair: an exactly feasible point on the face of the ratio rows that a back end's point makes tight.

A back end's point of the ratio LP (:mod:`problems.lp.spec`) lies on, or next to, a face of the feasible set:
the ratio rows :math:`z_{s_p} \le e^{\epsilon}\kappa_p z_{d_p}` that it satisfies with a relative slack below
a threshold τ are (numerically) tight.  A vertex solution or an over-converged interior point satisfies those
rows only up to rounding, and the exact repair (:func:`problems.lp.bounds.repair`), which must keep a margin
on every row, then pays for the largest relative violation anywhere: measured at m = 2, n = 30
(``mixture:0.5,0.5/0.8,0.2/0.3,0.7``), the points of HiGHS, Clarabel and SCS repaired to upper bounds 5.6e-4 –
47 % above the optimum.

This module rebuilds the point *on* the face instead, with the tight rows holding with room to spare:

1. the tight rows (relative slack below τ) form a graph on the variables; a spanning forest of it (smallest
   slack first: :func:`scipy.sparse.csgraph.minimum_spanning_tree`) has components :math:`C_1, \dots, C_q`;
2. on each component the forest's rows, made tight at the slightly lower level ε − δ, fix the shape:
   :math:`\ln v_t = \ln v_{\mathrm{parent}(t)} \pm (\epsilon - \delta + \ln\kappa_p)` (computed in logarithms,
   by pointer doubling along the forest, so that entries of 1e-300 lose nothing);
3. the component weights :math:`\alpha_c \ge 0` are the back end's own (the least-squares fit of z on
   :math:`v_c`), corrected by the smallest weighted change that restores every normalisation row:
   :math:`\min \sum_c (\alpha_c - \hat\alpha_c)^2/\hat\alpha_c^2` subject to :math:`M\alpha = b`, where
   :math:`M_{gc} = \sum_{t \in C_c,\ g(t) = g} v_t` (a G × G solve).

The point :math:`z_t = \alpha_{c(t)} v_t` satisfies every forest row with relative slack :math:`1 - e^{-\delta}`
(δ = 1e-9·max(1, ε): far above the rounding that :func:`~problems.lp.bounds.verify` accounts for, far below the
certificate's 1e-6); the other tight rows close cycles of the face and hold with the same slack when the face is
consistent; the rows that were loose keep the back end's slack.  When the back end's point is optimal to a
relative accuracy η, the rebuilt point's cost is within about η + δ of the optimum: on a vertex the weights
are the vertex's own, on a larger optimal face the cost does not change along the face.

Nothing here is trusted: the point goes through the same exact normalisation and :func:`verify` as every
other candidate of :func:`~problems.lp.bounds.certify`, which keeps the candidate with the lowest proved upper
bound.  Several thresholds τ are tried (:data:`TIGHT_SLACKS`), since a back end's accuracy is not known in
advance.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, connected_components, minimum_spanning_tree

from ..indexing import pair_keys
from .spec import RatioLPSpec

__all__ = ["face_point", "face_points", "TIGHT_SLACKS", "face_level_gap"]

#: Relative slacks below which a ratio row counts as tight, tried in this order.
TIGHT_SLACKS = (1e-3, 1e-5, 1e-7)


def face_level_gap(eps: float) -> float:
    """δ: the forest's rows are made tight at ε − δ, so that they hold at ε with relative slack 1 − e^{−δ}."""
    return 1e-9 * max(1.0, abs(float(eps)))


def _forest(spec: RatioLPSpec, z: np.ndarray, eps: float, tau: float) -> np.ndarray:
    """The ratio rows of a spanning forest of the rows with relative slack below ``tau`` (smallest first)."""
    K, src, dst = spec.K, spec.src, spec.dst
    cap = np.exp(eps + spec.log_kappa) * z[dst]
    with np.errstate(divide="ignore", invalid="ignore"):
        slack = np.where(cap > 0, 1.0 - z[src] / cap, np.inf)
    rows = np.flatnonzero((slack < tau) & (z[src] > 0))
    if rows.size == 0:
        return rows
    lo = np.minimum(src[rows], dst[rows])
    hi = np.maximum(src[rows], dst[rows])
    # one row per unordered pair of variables (the tighter one); weights > 0 (scipy drops explicit zeros)
    order = np.lexsort((slack[rows], hi, lo))
    rows, lo, hi = rows[order], lo[order], hi[order]
    first = np.ones(rows.size, dtype=bool)
    first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    rows, lo, hi = rows[first], lo[first], hi[first]
    weight = 1.0 + np.maximum(slack[rows], 0.0)
    tree = minimum_spanning_tree(sp.csr_matrix((weight, (lo, hi)), shape=(K, K))).tocoo()
    # back from the tree's (lo, hi) pairs to the rows: the pairs are unique and sorted by (lo, hi)
    key = pair_keys(lo, hi, K)
    pos = np.searchsorted(key, pair_keys(tree.row, tree.col, K))
    return rows[pos]


def face_point(spec: RatioLPSpec, z: np.ndarray, eps: float, tau: float) -> np.ndarray | None:
    """The point on the face of the rows that ``z`` makes tight to relative slack ``tau`` (module docstring),
    normalised; ``None`` when there is nothing to rebuild (no tight row, or weights that are not finite)."""
    z = np.clip(np.nan_to_num(np.asarray(z, dtype=float), nan=0.0, posinf=0.0, neginf=0.0), 0.0, None)
    if z.shape != (spec.K,) or not np.any(z > 0):
        return None
    K, src, dst = spec.K, spec.src, spec.dst
    rows = _forest(spec, z, eps, tau)
    if rows.size == 0:
        return None
    ncomp, comp = connected_components(
        sp.csr_matrix((np.ones(rows.size), (src[rows], dst[rows])), shape=(K, K)), directed=False
    )
    # the root of a component: its largest entry of z (the last of the ascending order wins)
    by_z = np.argsort(z, kind="stable")
    root = np.empty(ncomp, dtype=np.int64)
    root[comp[by_z]] = by_z
    # one breadth-first search from a virtual node K joined to every root gives every variable its parent
    graph = sp.csr_matrix(
        (
            np.ones(2 * rows.size + ncomp),
            (
                np.concatenate([src[rows], dst[rows], np.full(ncomp, K)]),
                np.concatenate([dst[rows], src[rows], root]),
            ),
        ),
        shape=(K + 1, K + 1),
    )
    _, pred = breadth_first_order(graph, K, directed=True, return_predecessors=True)
    parent = pred[:K].astype(np.int64)
    parent[(parent == K) | (parent < 0)] = -1  # the roots
    # the step from a variable's parent: + (ε − δ + ln κ) when the variable is the row's source
    level = eps - face_level_gap(eps)
    step = np.zeros(K)
    s_r, d_r = src[rows], dst[rows]
    child_is_src = parent[s_r] == d_r
    step[s_r[child_is_src]] = level + spec.log_kappa[rows[child_is_src]]
    child_is_dst = ~child_is_src & (parent[d_r] == s_r)
    step[d_r[child_is_dst]] = -(level + spec.log_kappa[rows[child_is_dst]])
    # ln v_t − ln v_root: the sum of the steps to the root, by pointer doubling (⌈log₂ depth⌉ passes)
    up = np.where(parent >= 0, parent, np.arange(K))
    logv = step
    while True:
        nxt = up[up]
        if np.array_equal(nxt, up):
            break
        logv = logv + logv[up]  # a root's entry is 0 (its own parent), so adding it changes nothing
        up = nxt
    top = np.full(ncomp, -np.inf)
    np.maximum.at(top, comp, logv)
    v = np.exp(logv - top[comp])
    # the weights: the back end's own (least squares on each component), then the smallest weighted change
    # that restores the normalisation rows M α = b
    fit = np.bincount(comp, weights=z * v, minlength=ncomp) / np.bincount(
        comp, weights=v * v, minlength=ncomp
    )
    fit = np.where(np.isfinite(fit) & (fit > 0), fit, 0.0)
    M = sp.csr_matrix((v, (spec.group, comp)), shape=(spec.G, ncomp))
    MD = M @ sp.diags(fit**2)
    S = (MD @ M.T).toarray()
    resid = spec.b - M @ fit
    try:
        y = np.linalg.solve(S, resid)
    except np.linalg.LinAlgError:
        y = np.linalg.lstsq(S, resid, rcond=None)[0]
    alpha = np.clip(fit + MD.T @ y, 0.0, None)
    out = alpha[comp] * v
    if not np.all(np.isfinite(out)):
        return None
    sums = np.bincount(spec.group, weights=out, minlength=spec.G)
    if not np.all(sums > 0):
        return None
    return out * (spec.b / sums)[spec.group]


def face_points(spec: RatioLPSpec, z: np.ndarray | None, eps: float):  # noqa: ANN201 - a generator
    """The face points of ``z`` for each threshold of :data:`TIGHT_SLACKS` (skipping those that give none)."""
    if z is None or not math.isfinite(eps):
        return
    for tau in TIGHT_SLACKS:
        p = face_point(spec, z, eps, tau)
        if p is not None:
            yield p
