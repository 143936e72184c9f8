r"""Folding a ratio LP by a symmetry of its own: half the variables for mirror-symmetric priors.

Let σ be an involution of the variables of a ratio LP (:mod:`problems.lp.spec`) that maps the LP onto itself:
:math:`c_{\sigma(t)} = c_t`, σ maps every normalisation row g onto a row σ(g) with the same b, and every ratio row
p onto a ratio row σ(p) with the same κ.  For the joint-type LPs (:mod:`problems.orbit.programs`) the *mirror*
x ↦ m − 1 − x, y ↦ m − 1 − y (the alphabet reversed in both databases) is one whenever the prior is invariant
under it — for m = 2, P(|X| = k) = P(|X| = n − k): the uniform prior, i.i.d. (½, ½), contagious priors with
π = (½, ½), mixtures closed under the swap.

**The folded LP.**  If z is optimal, so is its mirror image, and so is their average: the LP has an optimal point
with :math:`z_t = z_{\sigma(t)}`.  Write :math:`v_o = \sum_{t \in o} z_t` for the orbits o of σ (one or two
variables), so that :math:`z_t = v_{o(t)}/|o(t)|`.  On that subspace the LP reads

.. math::

    \min_v\ \sum_o c_{r(o)}\, v_o \quad\text{s.t.}\quad
    v_{o(s_p)} \le e^{\epsilon}\kappa_p \frac{|o(s_p)|}{|o(d_p)|}\, v_{o(d_p)}\ \ \text{(one row per orbit of
    ratio rows)},\qquad \sum_{o \subset \gamma} v_o = |\gamma|\, b_\gamma\ \ \text{(one row per orbit γ of
    normalisation rows)},\qquad v \ge 0,

a ratio LP of the same form with about half the variables and rows (r(o) is the orbit's representative).  A
ratio row between a variable and its own mirror image would read v ≤ e^ε κ v, which this form cannot hold: such
an LP is not folded (the joint types with m ≥ 3, where the reversal maps a move from symbol 0 to symbol 2 onto
its own reverse; m = 2 has none).  For m = 2 the representatives are whole output-weight blocks j < n/2 and half
of the block j = n/2, and a variable's layer (its input weight k) still orders the block as a band
(:mod:`problems.ipm.layered`); only its linking row becomes the orbit {k, n − k}.

**Back to the LP.**  The folded point gives :math:`z_t = v_{o(t)}/|o(t)|`; folded multipliers (ν', λ') give

.. math::

    \nu_g = \nu'_{\gamma(g)}, \qquad \lambda_p = \frac{|o(s_p)|}{|q(p)|}\, \lambda'_{q(p)}

(q(p) the orbit of ratio row p): symmetric multipliers whose reduced costs c + Aᵀν + Gᵀλ at t are the folded ones
at o(t), and whose bound −bᵀν is the folded −b'ᵀν'.  The toolkit certifies the unfolded (z, ν, λ) on the LP itself
(:func:`problems.lp.bounds.certify`), so nothing here is trusted: a symmetry that holds only to rounding costs
accuracy, never a wrong proof.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..indexing import index_dtype, pair_keys
from .active_blocks import blocks_of
from .spec import RatioLPSpec

__all__ = ["Fold", "fold", "folded", "SYMMETRY_RTOL"]

#: The data of the LP must map onto itself to this relative accuracy (c, b and κ — ln κ to this absolute accuracy —
#: of the mirror images are computed in floating point); a larger asymmetry means no symmetry: nothing is folded.
SYMMETRY_RTOL = 1e-9


@dataclass(frozen=True)
class Fold:
    """A ratio LP folded by an involution of its variables (module docstring).

    Attributes
    ----------
    spec:
        The folded LP, in orbit sums v; ``spec.cache["band_layer"]`` holds each folded variable's original
        normalisation row (its layer in the banded factors).
    var_orbit, orbit_size:
        The orbit of each original variable and the size (1 or 2) of each orbit.
    group_orbit:
        The folded normalisation row of each original one.
    row_orbit, row_weight:
        The folded ratio row of each original one, and λ_p/λ'_{q(p)} = |o(s_p)|/|q(p)|.
    """

    spec: RatioLPSpec
    var_orbit: np.ndarray
    orbit_size: np.ndarray
    group_orbit: np.ndarray
    row_orbit: np.ndarray
    row_weight: np.ndarray

    def unfold(
        self, v: np.ndarray, nu: np.ndarray, lam: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(z, ν, λ) of the original LP from the folded (v, ν', λ')."""
        z = v[self.var_orbit] / self.orbit_size[self.var_orbit]
        return z, nu[self.group_orbit], lam[self.row_orbit] * self.row_weight


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.all(np.abs(a - b) <= SYMMETRY_RTOL * np.maximum(np.abs(a), np.abs(b))))


def fold(spec: RatioLPSpec, sigma: np.ndarray, block: np.ndarray | None = None) -> Fold | None:
    """The LP folded by the involution ``sigma`` of its variables, or ``None`` when σ does not map the LP onto
    itself (to :data:`SYMMETRY_RTOL`) or leaves nothing to fold.

    ``block`` (one label per variable, e.g. the connected components of the ratio rows) picks the orbits'
    representatives: the member of the smaller block, then of the smaller normalisation row, then the smaller
    index — so that for the joint-type LPs whole blocks are kept, and the layers of a block mapped onto itself are
    kept from its first half.
    """
    K, G, P = spec.K, spec.G, spec.P
    sigma = np.asarray(sigma, dtype=np.int64)
    t = np.arange(K, dtype=np.int64)
    if sigma.shape != (K,) or np.any(sigma[sigma] != t) or np.all(sigma == t):
        return None
    group = spec.group
    # normalisation rows: σ must map each row onto one row with the same mass
    gmap = np.empty(G, dtype=np.int64)
    gmap[group] = group[sigma]
    if (
        np.any(gmap[group] != group[sigma])
        or not _close(spec.b[gmap], spec.b)
        or not _close(spec.c[sigma], spec.c)
    ):
        return None
    # ratio rows: the image of row p is the row (σ(s_p), σ(d_p)), with the same κ
    keys = pair_keys(spec.src, spec.dst, K)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    if P > 1 and np.any(sorted_keys[1:] == sorted_keys[:-1]):
        return None
    image = pair_keys(sigma[spec.src], sigma[spec.dst], K)
    at = np.minimum(np.searchsorted(sorted_keys, image), max(P - 1, 0))
    if P and np.any(sorted_keys[at] != image):
        return None
    rmap = order[at]
    del keys, order, sorted_keys, image, at
    if np.any(np.abs(spec.log_kappa[rmap] - spec.log_kappa) > SYMMETRY_RTOL):  # ln κ: relative error of κ
        return None
    # representatives: the smaller (block, row, index) of each orbit
    lab = np.zeros(K, dtype=np.int64) if block is None else np.asarray(block, dtype=np.int64)
    ls, gs = lab[sigma], group[sigma]
    is_rep = (lab < ls) | ((lab == ls) & ((group < gs) | ((group == gs) & (t <= sigma))))
    reps = np.flatnonzero(is_rep)
    orbit = np.empty(K, dtype=np.int64)
    orbit[reps] = np.arange(reps.size)
    orbit[~is_rep] = orbit[sigma[~is_rep]]
    size = np.where(sigma[reps] != reps, 2.0, 1.0)
    # normalisation rows: one per orbit {g, σ(g)}
    gfirst = np.minimum(np.arange(G), gmap)
    gids = np.unique(gfirst)
    group_orbit = np.searchsorted(gids, gfirst)
    gsize = np.where(gmap[gids] != gids, 2.0, 1.0)
    # ratio rows: one per orbit {p, σ(p)}
    rfirst = np.minimum(np.arange(P), rmap)
    qids = np.flatnonzero(rfirst == np.arange(P))
    row_orbit = np.searchsorted(qids, rfirst)
    qsize = np.where(rmap[qids] != qids, 2.0, 1.0)
    fsrc, fdst = orbit[spec.src[qids]], orbit[spec.dst[qids]]
    if np.any(fsrc == fdst):  # a row within one orbit: v ≤ r v, not a ratio row of this form
        return None
    log_kappa = spec.log_kappa[qids] + np.log(size[fsrc]) - np.log(size[fdst])
    log_size = np.log(size)
    profile = spec.log_profile

    def log_profile(e: float) -> np.ndarray:  # E_d's orbit sums
        return profile(e)[reps] + log_size

    folded_spec = RatioLPSpec(
        c=spec.c[reps],
        group=group_orbit[group[reps]],
        b=spec.b[gids] * gsize,
        src=fsrc,
        dst=fdst,
        log_kappa=log_kappa,
        program=spec.program,
        log_profile=log_profile,
        eps_min=spec.eps_min,
        log_kappa_error=spec.log_kappa_error,
        scale_from=spec.scale_from,
    )
    folded_spec.cache["band_layer"] = group[reps]
    row_weight = size[orbit[spec.src]] / qsize[row_orbit]
    index = index_dtype(K, P)  # kept for the whole solve: P-vectors of 4 bytes
    return Fold(folded_spec, orbit.astype(index), size, group_orbit, row_orbit.astype(index), row_weight)


def folded(spec: RatioLPSpec) -> Fold | None:
    """The spec folded by its mirror (``spec.cache["mirror"]``: a callable returning the involution of its
    variables, set by the joint-type programs), or ``None`` (no mirror, or the prior is not mirror-symmetric);
    computed once per spec."""
    if "fold" not in spec.cache:
        mirror = spec.cache.get("mirror")
        result = None
        if mirror is not None:
            result = fold(spec, mirror(), blocks_of(spec)[1])
        spec.cache["fold"] = result
    return spec.cache["fold"]
