"""The block method's active-block probe: its sub-solves (:mod:`problems.lp.active_blocks`) on the block method.

:func:`active_probe` builds the :class:`~problems.lp.active_blocks.ActiveBlockProbe` that
:class:`~problems.solvers.backends.BlockBackend` hands to its iteration: the restricted LP of the proposed blocks
is solved by the block method to its own certificate (:data:`ACTIVE_RESTRICTED_RTOL`), the pricing LP by the
block method with banded factors along the joint-type layers, stopped at the first iterate that the caller's
test accepts (at most :data:`~problems.lp.active_blocks.PRICING_MAX_ITER` iterations), both within the
attempt's time limit.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from ..lp.active_blocks import (
    PRICING_CHECK_EVERY,
    PRICING_CHECK_FROM,
    PRICING_MAX_ITER,
    ActiveBlockProbe,
    blocks_of,
)
from ..lp.fold import Fold, folded
from ..lp.spec import RatioLPSpec
from ..progress import note
from . import settings
from .settings import BLOCK_LP_TOL

__all__ = ["active_probe", "run_block_lp", "sub_enough", "ACTIVE_RESTRICTED_RTOL"]

#: The restricted LP of the active blocks is small: it is solved to this relative tolerance (its certificate),
#: so that the answer assembled from it is proved well inside the status rule's 1e-6.
ACTIVE_RESTRICTED_RTOL = 1e-9

Test = Callable[[np.ndarray, np.ndarray, np.ndarray], bool]


def run_block_lp(
    spec: RatioLPSpec,
    eps: float,
    time_limit: float,
    enough: Test | None,
    *,
    bounded: bool,
    threads: int | None,
    probe: Callable | None = None,
    max_iter: int = 150,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The block method on ``spec`` at ε: (u, ν, λ, iterations) in the spec's order.  With ``enough`` (a
    certificate to stop at) it runs to :data:`~problems.solvers.settings.BLOCK_LP_TOL`; a pricing LP (its
    ``cache["band_layer"]``) keeps banded factors along the joint-type layers.  A spec with a mirror symmetry
    (:func:`problems.lp.fold.folded`) is solved folded, on about half the variables; ``enough``, ``probe`` and
    the caller see the unfolded iterates."""
    from ..ipm.block import solve_block_lp

    fold = folded(spec) if settings.FOLD_MIRROR else None
    lp = spec if fold is None else fold.spec
    if fold is not None:
        note(folded=f"by its mirror, {lp.K:,} of {spec.K:,} variables")
        enough = None if enough is None else _Unfolded(fold, enough)
        probe = None if probe is None else _Unfolded(fold, probe)
    u, nu, lam, _s, iters, _secs = solve_block_lp(
        lp.c,
        lp.A,
        lp.b,
        lp.src,
        lp.dst,
        None,  # κ from ln κ where the block system needs it (no P-vector of κ kept through the solve)
        math.exp(eps),
        program=lp.program,
        bounded=bounded,
        threads=threads,
        time_limit=time_limit,
        enough=enough,
        probe=probe,
        tol=1e-9 if enough is None else BLOCK_LP_TOL,
        max_iter=max_iter,
        band_layer=lp.cache.get("band_layer"),
        log_kappa=lp.log_kappa,
    )
    if fold is not None:
        u, nu, lam = fold.unfold(u, nu, lam)
    return u, nu, lam, iters


class _Unfolded:
    """A test or probe of the original LP's iterates, asked with the folded ones (``finished`` passed on)."""

    def __init__(self, fold: Fold, fn: Callable) -> None:
        self.fold, self.fn = fold, fn

    @property
    def finished(self) -> bool:
        return bool(getattr(self.fn, "finished", False))

    def __call__(self, v: np.ndarray, nu: np.ndarray, lam: np.ndarray, *rest: int) -> bool:
        return bool(self.fn(*self.fold.unfold(v, nu, lam), *rest))


def sub_enough(sub: RatioLPSpec, eps: float) -> Test:
    """The certificate of a restricted LP (to :data:`ACTIVE_RESTRICTED_RTOL`) as its early stop."""
    from ..lp.bounds import certify

    def enough(z: np.ndarray, nu: np.ndarray, lam: np.ndarray) -> bool:
        return certify(sub, eps, z, nu, lam, face=False, rtol=ACTIVE_RESTRICTED_RTOL).refined

    return enough


def active_probe(
    spec: RatioLPSpec, eps: float, enough: Test, run: Callable, deadline: float
) -> ActiveBlockProbe | None:
    """The probe for ``spec`` at ε (``None`` for an LP of one block): ``enough`` is the chain's certificate,
    ``run(lp, ε, time_limit, enough, *, probe=None, max_iter=150)`` the block method (:func:`run_block_lp`
    with the back end's options), ``deadline`` the attempt's end (perf_counter)."""
    if blocks_of(spec)[0] < 2:
        return None

    def sub_solve(sub: RatioLPSpec, level: float, check: Test | None) -> tuple:
        left = deadline - time.perf_counter()
        if left <= 0:
            raise RuntimeError("no time left for the active blocks")
        if check is None:  # the restricted LP: to its own certificate
            return run(sub, level, left, sub_enough(sub, level))

        def look(z: np.ndarray, nu: np.ndarray, lam: np.ndarray, it: int) -> bool:
            return (
                it >= PRICING_CHECK_FROM
                and (it - PRICING_CHECK_FROM) % PRICING_CHECK_EVERY == 0
                and bool(check(z, nu, lam))
            )

        return run(sub, level, left, None, probe=look, max_iter=PRICING_MAX_ITER)

    return ActiveBlockProbe(spec, eps, enough, sub_solve)
