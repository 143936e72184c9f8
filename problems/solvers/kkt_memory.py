r"""Predicted memory of a sparse LDLᵀ back end (Clarabel, SCS, CVXPY) and of HiGHS on a reduced ratio LP.

Clarabel (QDLDL) and SCS factorise the KKT matrix of the stacked LP once per iteration.  A minimum-degree
ordering eliminates the ratio rows (two entries each) first and the linking rows (one per x-type, touching
every block) last, so the factor holds, for the joint-type LPs,

* per block of the ratio-row graph (one y-type, :math:`n_b` joint types, a lattice of dimension d): the fill of
  a d-dimensional lattice, :math:`C_d\,n_b^{2-2/d}` entries (d ≥ 3; nested-dissection order) or
  :math:`C_2\,n_b\log_2 n_b` (d = 2);
* per block, a dense column of the :math:`e_b` linking rows it touches under each of its variables:
  :math:`n_b e_b` entries;
* the ratio rows themselves (2P) and the diagonal.

The lattice dimension is read from the graph: d = ⌈P/K⌉ / 2 rounded, at least 2, since a lattice of dimension d
has about 2d moves per point (m = 2: 4, d = 2; m = 3: 12, d = 6).  The constants are calibrated on SuperLU's
minimum-degree factors of the m = 3 blocks (nnz(L) = 18.5 M for the largest block at n = 16, n_b = 12 348) and
the m = 2 grids (50–80 entries per variable at n_b = 10⁴); each entry costs :data:`BYTES_PER_ENTRY` (value,
index and the solver's copies of the matrix).  The estimate is a guard, not a measurement: it errs high.
Measured, m = 3, i.i.d. (0.2, 0.3, 0.5), PD-DP at ε = 1: n = 16 (735 471 variables, 8.8 M ratio rows),
Clarabel used 14 GB before it was stopped; this model predicts about 20 GB (n = 8 and 10: 0.21 and
0.47 GB predicted, 217 and 520 MB peak RSS measured).

SCS (:func:`predicted_scs_memory`) factorises the same KKT matrix but peaks higher: measured peak RSS less the
process before it, m = 2, contagious (0.9; 0.3, 0.7), PD-DP at ε = 2 (its setup, a sparse factorisation, runs
to the end whatever its time limit): n = 100, 1.30 GB, and n = 150, 4.67 GB, 1.36 and 1.35 times
:func:`predicted_ldl_memory` (0.95 and 3.45 GB); at n = 200 the process peaked at 12.4 GB against 9.4 GB
predicted.  Clarabel on the n = 100 LP: 0.54 GB.  :data:`SCS_MEMORY_FACTOR` keeps a margin of about 30 %.

HiGHS (:func:`predicted_highs_memory`) keeps SciPy's sparse copies of the LP, its own model, the presolved model
and the simplex's factor of a basis of G + P rows: linear in the variables and ratio rows.  Measured peak RSS
of :func:`scipy.optimize.linprog` (``method="highs"``) less the process before it, PD-DP at ε = 1: m = 3,
i.i.d. (0.2, 0.3, 0.5), n = 6, 8, 10 (K + P = 26 169, 128 700, 481 338): 35, 154, 546 MB, 1415, 1253 and
1190 bytes per variable and ratio row; m = 2, i.i.d. (0.3, 0.7), n = 50, 100 (111 826, 863 651): 130 and
955 MB, 1216 and 1159 bytes (every run but n = 6 stopped at its time limit, 200 s under load, so
:data:`HIGHS_BYTES_PER_ROW` keeps a margin of 40 % over the largest).  At m = 3, n = 16 (9.5 M variables and
rows) it predicts 19 GB, and HiGHS is not run within a smaller budget.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..lp.spec import RatioLPSpec
from ..resources import BASE_MEMORY

__all__ = [
    "ldl_factor_entries",
    "predicted_ldl_memory",
    "predicted_highs_memory",
    "predicted_scs_memory",
    "SCS_MEMORY_FACTOR",
    "BYTES_PER_ENTRY",
    "BYTES_PER_ROW",
    "HIGHS_BYTES_PER_ROW",
    "LATTICE_FILL",
]

#: fill constants C_d of a d-dimensional lattice block (d = 2: C_2 n log₂ n; d ≥ 3: C_d n^{2−2/d})
LATTICE_FILL = {2: 6.0, "high": 2.8}
#: bytes per factor entry, with the KKT matrix, its permuted copy and the solver's work vectors (Clarabel at
#: m = 3, n = 10: about 20 bytes per entry of the model's factor)
BYTES_PER_ENTRY = 20
#: bytes per variable and ratio row outside the factor (the stacked matrix, the KKT matrix, the spec's arrays)
BYTES_PER_ROW = 200
#: SCS: its peak over :func:`predicted_ldl_memory` (measured 1.35–1.36, see the module docstring)
SCS_MEMORY_FACTOR = 1.75
#: HiGHS: peak bytes per variable and ratio row (measured 1160–1415, see the module docstring)
HIGHS_BYTES_PER_ROW = 2000


def _block_fill(sizes: np.ndarray, d: int) -> float:
    s = np.asarray(sizes, dtype=float)
    if d <= 2:
        return float(np.sum(LATTICE_FILL[2] * s * np.log2(np.maximum(s, 2.0))))
    fill = LATTICE_FILL["high"] * s ** (2.0 - 2.0 / d)
    return float(np.sum(np.minimum(fill, s * (s + 1) / 2)))


def ldl_factor_entries(spec: RatioLPSpec) -> float:
    """Predicted entries of the LDLᵀ factor of the reduced LP's KKT matrix (see the module docstring).

    The blocks (connected components of the ratio rows) and the linking rows each touches are found once per
    spec (``spec.cache``).
    """
    if "ldl_entries" in spec.cache:
        return spec.cache["ldl_entries"]
    K, P = spec.K, spec.P
    if P == 0:
        entries = float(K)
    else:
        graph = sp.csr_matrix((np.ones(P, dtype=np.int8), (spec.src, spec.dst)), shape=(K, K))
        nblocks, label = connected_components(graph, directed=False)
        sizes = np.bincount(label, minlength=nblocks)
        pairs = np.unique(label.astype(np.int64) * max(spec.G, 1) + spec.group)  # (block, linking row) pairs
        e_b = np.bincount(pairs // max(spec.G, 1), minlength=nblocks)
        d = max(2, round(P / K / 2))
        entries = _block_fill(sizes, d) + float(np.sum(sizes.astype(float) * e_b)) + 2.0 * P + K
    spec.cache["ldl_entries"] = entries
    return entries


def predicted_ldl_memory(spec: RatioLPSpec) -> float:
    """Predicted peak bytes of Clarabel or CVXPY (a sparse LDLᵀ of the KKT matrix) on ``spec``."""
    return BASE_MEMORY + BYTES_PER_ENTRY * ldl_factor_entries(spec) + BYTES_PER_ROW * (spec.K + spec.P)


def predicted_scs_memory(spec: RatioLPSpec) -> float:
    """Predicted peak bytes of SCS on ``spec``: :data:`SCS_MEMORY_FACTOR` times :func:`predicted_ldl_memory`."""
    return SCS_MEMORY_FACTOR * predicted_ldl_memory(spec)


def predicted_highs_memory(spec: RatioLPSpec, rows: int | None = None) -> float:
    """Predicted peak bytes of HiGHS (:func:`scipy.optimize.linprog`) on ``spec``: :data:`HIGHS_BYTES_PER_ROW`
    per variable and ratio row, over the toolkit's base (see the module docstring).  ``rows``: the ratio rows HiGHS
    is given, where a scaled LP leaves out the rows that cannot bind (default: all of them)."""
    return BASE_MEMORY + HIGHS_BYTES_PER_ROW * float(spec.K + (spec.P if rows is None else rows))
