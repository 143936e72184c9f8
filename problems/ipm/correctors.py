r"""Gondzio's multiple centrality correctors for the block-angular interior-point iteration
(:func:`problems.ipm.iteration.solve_block_angular`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .elementwise import steps, trial_product

if TYPE_CHECKING:
    from .iteration import _Newton

__all__ = ["centrality_correctors", "MAX_CORRECTORS"]

MAX_CORRECTORS = 2  #: at most this many Gondzio centrality correctors per iteration (0 disables them)
#: Gondzio correctors: target box [β_min, β_max]·σμ, trial step min(1, stretch·α + plus), gain needed to keep one
MCC_BETA = (0.1, 10.0)
MCC_STRETCH = 1.5
MCC_PLUS = 0.1
MCC_GAIN = 1.01


def centrality_correctors(
    newton: _Newton,
    zt: np.ndarray,
    w: np.ndarray,
    lam: np.ndarray,
    s: np.ndarray,
    direction: tuple[np.ndarray, ...] | list[tuple[np.ndarray, ...]],
    target: float,
    max_correctors: int,
    refine: bool = False,
) -> tuple[tuple[np.ndarray, ...], int]:
    r"""Gondzio's multiple centrality correctors (Gondzio 1996; Colombo & Gondzio 2008).

    With the predictor–corrector direction and its step lengths :math:`\alpha_p, \alpha_d`, take the trial
    point at the enlarged steps :math:`\tilde\alpha = \min(1, 1.5\alpha + 0.1)`, project its complementarity
    products :math:`v` onto :math:`[\beta_{\min}\sigma\mu, \beta_{\max}\sigma\mu]` (outliers above are
    pulled down by at most :math:`\beta_{\max}\sigma\mu`), and add the Newton direction for that change
    (zero feasibility residuals, the same factorisation).  A corrector is kept only if it lengthens the
    shorter step by at least 1 %; otherwise the loop stops.  Returns the direction and the number kept.

    ``direction`` may be handed over as a one-element list, which is emptied: a direction replaced by a kept
    corrector's is then freed (peak memory: at most two directions are alive, the kept one and the trial).
    """
    if isinstance(direction, list):
        direction = direction.pop()
    bmin, bmax = MCC_BETA
    lo, hi = bmin * target, bmax * target

    def lengths(d: tuple[np.ndarray, ...]) -> tuple[float, float]:
        return steps(zt, w, lam, s, d, newton.bounded, newton.pool)

    def push(v: np.ndarray) -> np.ndarray:
        out = np.where(v < lo, lo - v, 0.0)
        big = v > hi  # few entries: written in place (fewer full-length temporaries)
        out[big] = np.maximum(hi - v[big], -hi)
        return out

    ap, ad = lengths(direction)
    kept = 0
    for _ in range(max_correctors):
        if min(ap, ad) >= 1.0:
            break
        tp, td = min(1.0, MCC_STRETCH * ap + MCC_PLUS), min(1.0, MCC_STRETCH * ad + MCC_PLUS)
        dz, dw, dnu, dlam, ds = direction
        # push((z + tp·Δz)(s + td·Δs)), part by part on the iteration's threads
        vz = trial_product(zt, tp, dz, s, td, ds, newton.pool, push)
        vw = [trial_product(w, tp, dw, lam, td, dlam, newton.pool, push)]  # handed over
        corr = newton.solve(vz, vw, homogeneous=True, refine=refine)
        del vz
        for x, y in zip(corr, direction):  # the trial direction, built in the corrector's own arrays
            x += y
        trial = corr
        ap1, ad1 = lengths(trial)
        if min(ap1, ad1) < MCC_GAIN * min(ap, ad):
            break
        direction, ap, ad = trial, ap1, ad1
        kept += 1
    return direction, kept
