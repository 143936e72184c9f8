"""The interior-point iteration's elementwise work (step lengths, trial products, projections), on its threads.

NumPy's elementwise operations and reductions release the GIL, so a long vector cut into a few contiguous
parts is worked on by the iteration's thread pool at once; every part is also short enough that its
temporaries stay small (:data:`SLICE`).  Each function computes exactly what the whole-vector expression
computes — elementwise results are the same numbers, and a maximum does not depend on the order in which
the parts are taken — so the iterates do not change with the number of threads.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import TypeVar

import numpy as np

__all__ = [
    "SLICE",
    "MIN_PART",
    "parts",
    "map_parts",
    "with_errstate",
    "max_step",
    "steps",
    "trial_product",
]

T = TypeVar("T")
A = TypeVar("A")

#: at most this many elements per part (the temporaries of a part stay this small)
SLICE = 1 << 20
#: a vector is split over the threads only from this many elements per thread on (below it the threads' overhead
#: is larger than the work)
MIN_PART = 1 << 15


def parts(size: int, threads: int) -> list[slice]:
    """Contiguous slices covering ``range(size)``: at least ``threads`` of them when every one gets
    :data:`MIN_PART` elements, and none longer than :data:`SLICE`."""
    k = max(1, min(int(threads), size // MIN_PART), -(-size // SLICE))
    cuts = [size * i // k for i in range(k + 1)]
    return [slice(a, b) for a, b in zip(cuts[:-1], cuts[1:])]


def with_errstate(fn: Callable[[A], T]) -> Callable[[A], T]:
    """``fn`` run under the floating-point error handling of the thread that calls ``with_errstate``
    (``np.errstate`` holds for its own thread only: a pool thread would otherwise warn where the iteration
    does not)."""
    state = np.geterr()

    def run(arg: A) -> T:
        with np.errstate(**state):
            return fn(arg)

    return run


def map_parts(pool: Executor | None, size: int, fn: Callable[[slice], T]) -> list[T]:
    """``fn`` on every part of ``range(size)`` (:func:`parts`), on ``pool``'s threads when there is one; the
    results in the order of the parts.  Call it from the iteration's own thread only (a pool thread that waits
    for the pool can deadlock it)."""
    threads = 1 if pool is None else getattr(pool, "_max_workers", 1)
    sl = parts(size, threads)
    if pool is None or len(sl) == 1:
        return [fn(c) for c in sl]
    return list(pool.map(with_errstate(fn), sl))


def max_step(x: np.ndarray, dx: np.ndarray, pool: Executor | None = None) -> float:
    """Largest α ∈ (0, 1] with x + α dx ≥ 0 (x > 0)."""
    xf, df = x.reshape(-1), dx.reshape(-1)

    def worst(c: slice) -> float:
        return float(np.max(-df[c] / xf[c], initial=-np.inf))

    w = float(np.max(map_parts(pool, xf.size, worst)))  # (a NaN in any part is kept, as by one np.max)
    return 1.0 if w <= 1.0 else 1.0 / w  # α·(−dx/x) ≤ 1 for every component


def steps(
    zt: np.ndarray,
    w: np.ndarray,
    lam: np.ndarray,
    s: np.ndarray,
    d: tuple[np.ndarray | None, ...],
    bounded: bool,
    pool: Executor | None = None,
) -> tuple[float, float]:
    """Largest primal and dual steps in (0, 1] keeping (z, w) and (λ, s) non-negative (z, s only if bounded);
    ``d`` is the direction (Δz, Δw, Δν, Δλ, Δs)."""
    dz, dw, _, dlam, ds = d
    assert dz is not None and dw is not None and dlam is not None and ds is not None
    if not bounded:
        return max_step(w, dw, pool), max_step(lam, dlam, pool)
    return (
        min(max_step(zt, dz, pool), max_step(w, dw, pool)),
        min(max_step(lam, dlam, pool), max_step(s, ds, pool)),
    )


def trial_product(
    x: np.ndarray,
    a: float,
    dx: np.ndarray,
    y: np.ndarray,
    b: float,
    dy: np.ndarray,
    pool: Executor | None = None,
    then: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """(x + a·dx) ∘ (y + b·dy) (the same values as the plain expression), or ``then`` of it for an elementwise
    ``then``: one part at a time (the temporaries stay small), in C order whatever the order of the inputs (each
    part is written through the result's flat view)."""
    out = np.empty(x.shape)
    xf, dxf, yf, dyf, of = x.reshape(-1), dx.reshape(-1), y.reshape(-1), dy.reshape(-1), out.reshape(-1)

    def part(c: slice) -> None:
        v = (xf[c] + a * dxf[c]) * (yf[c] + b * dyf[c])
        of[c] = v if then is None else then(v)

    map_parts(pool, xf.size, part)
    return out
