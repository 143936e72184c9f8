"""The interior-point iteration's elementwise work on threads (problems/ipm/elementwise.py) and what it must not
change: the iterates of the block method do not depend on the number of threads.

References: plain NumPy expressions over the whole arrays, written here independently of the parts and threads
of the code under test.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from problems.ipm import iteration
from problems.ipm.block import solve_block_lp
from problems.ipm.elementwise import MIN_PART, SLICE, max_step, parts, steps, trial_product
from problems.orbit import ReducedPDDP
from problems.orbit.symmetric_prior import parse_symmetric_prior


@pytest.fixture(scope="module")
def pool():
    with ThreadPoolExecutor(2) as p:
        yield p


def _arrays(shape: tuple[int, ...], order: str, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [np.asarray(rng.random(shape) + 0.01, order=order) for _ in range(2)] + [
        np.asarray(rng.standard_normal(shape), order=order) for _ in range(2)
    ]


@pytest.mark.parametrize("size", [0, 1, 1000, 2 * MIN_PART + 7, SLICE + 3, 3 * SLICE])
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_parts_cover_the_range_in_order_with_small_parts(size, threads):
    sl = parts(size, threads)
    assert sl[0].start == 0 and sl[-1].stop == size
    assert all(a.stop == b.start for a, b in zip(sl[:-1], sl[1:]))
    assert all(c.stop - c.start <= SLICE for c in sl)
    if size >= threads * MIN_PART:
        assert len(sl) >= threads  # every thread gets a part


@pytest.mark.parametrize("shape, order", [((3 * MIN_PART + 5,), "C"), ((40, 2000), "F"), ((40, 2000), "C")])
def test_elementwise_results_equal_the_whole_array_expressions(shape, order, pool):
    x, y, dx, dy = _arrays(shape, order)
    a, b = 0.37, 0.91
    for p in (None, pool):
        # step to the boundary: α = min(1, min over dx < 0 of −x/dx)
        ref = min(1.0, float(np.min(np.where(dx < 0, -x / np.where(dx < 0, dx, -1.0), np.inf))))
        assert max_step(x, dx, p) == pytest.approx(ref, rel=4e-16)
        assert max_step(x, np.abs(dx), p) == 1.0
        assert steps(x, y, x, y, (dx, dy, None, dx, dy), True, p) == (
            min(max_step(x, dx), max_step(y, dy)),
            min(max_step(x, dx), max_step(y, dy)),
        )
        # the trial product, and a function of it (the correctors' projection): the same numbers, in any order
        v = (x + a * dx) * (y + b * dy)
        assert np.array_equal(trial_product(x, a, dx, y, b, dy, p), v)
        lo, hi = np.quantile(v, 0.2), np.quantile(v, 0.9)
        got = trial_product(x, a, dx, y, b, dy, p, lambda t, lo=lo, hi=hi: np.clip(t, lo, hi))
        assert got.shape == v.shape and np.array_equal(got, np.clip(v, lo, hi))


def test_a_nan_in_any_part_is_not_lost(pool):
    x, _, dx, _ = _arrays((3 * MIN_PART,), "C")
    dx[-1] = np.nan
    assert math.isnan(max_step(x, dx, pool))


def _layered_args(n: int = 14, eps: float = 1.0) -> tuple:
    spec = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", n, 2)).lp.spec
    return spec, (spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(eps))


def test_the_layered_iterates_do_not_depend_on_the_threads():
    """One thread, or two (the products with G and Gᵀ, the Newton solves' elementwise work and the step lengths
    split over them): the same iterates to the last bit."""
    _, args = _layered_args()
    one = solve_block_lp(*args, threads=1)
    two = solve_block_lp(*args, threads=2)
    assert one[4] == two[4]
    for a, b in zip(one[:4], two[:4]):
        assert np.array_equal(a, b)


def _asked_iterates(args: tuple) -> list[int]:
    """The iterates at which the block method asks a certificate that refuses every one (to its rounding floor)."""
    seen: list[int] = []
    asked: list[int] = []

    def probe(u, nu, lam, it) -> bool:  # noqa: ANN001 - asked at every iterate, after ``enough``
        seen.append(it)
        return False

    def enough(u, nu, lam) -> bool:  # noqa: ANN001
        asked.append(len(seen))  # the iterate being tested
        return False

    solve_block_lp(*args, enough=enough, probe=probe, tol=1e-14)
    return asked


def test_a_refused_early_stop_is_asked_again_after_at_most_two_iterations(monkeypatch):
    """The certificate (``enough``) is not asked at every iterate once it has refused one: again when the gap has
    halved, or ENOUGH_EVERY iterations later.  Without the first rule (ENOUGH_STEP = 0) the tests are exactly
    ENOUGH_EVERY iterations apart.  (ε = 2: a run that refuses four times; at ε = 1 the pinned directions of
    :mod:`problems.ipm.band_deflation` reach the KKT tolerance after two refusals.)"""
    _, args = _layered_args(eps=2.0)
    for step in (0.0, iteration.ENOUGH_STEP):
        monkeypatch.setattr(iteration, "ENOUGH_STEP", step)
        gaps = np.diff(_asked_iterates(args))
        assert gaps.size >= 2 and np.all(gaps >= 1) and np.all(gaps <= iteration.ENOUGH_EVERY)
        if step == 0.0:
            assert np.all(gaps == iteration.ENOUGH_EVERY)


@pytest.mark.parametrize("prior", ["contagious:0.9:0.3,0.7", "contagious:0.2:0.3,0.7"])
def test_the_early_stop_is_asked_only_once_the_gap_is_small_against_the_value(prior, monkeypatch):
    """The certificate's tolerances are relative to the value (or absolute, in the caller's units): an iterate
    whose duality gap is above ENOUGH_RELATIVE of its own objective, and above ENOUGH_ABSOLUTE, is not tested,
    however small its gap relative to 1 + |objective| in the scaled costs.  Values far below the costs' scale
    (contagious priors at n = 20: 0.59 against costs of 12.6 at ε = 1; 2.1e-6 against 3.1 at ε = 16) are where
    the two differ; without
    the rule the same runs ask more often, and earlier."""
    spec = ReducedPDDP(parse_symmetric_prior(prior, 20, 2)).lp.spec
    eps = 1.0 if prior.startswith("contagious:0.9") else 16.0
    args = (spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(eps))
    cs = float(np.max(np.abs(spec.c)))

    def asked_gaps() -> list[float]:
        gaps: list[float] = []

        def enough(u, nu, lam) -> bool:  # noqa: ANN001
            pobj, dobj = float(spec.c @ u), -float(spec.b @ nu)
            gaps.append(
                abs(pobj - dobj) / max(abs(pobj), iteration.ENOUGH_ABSOLUTE / iteration.ENOUGH_RELATIVE)
            )
            return False

        solve_block_lp(*args, enough=enough, tol=1e-14, threads=1)
        return gaps

    rel = iteration.ENOUGH_RELATIVE
    gated = asked_gaps()
    assert gated and max(gated) <= rel * (1 + 1e-6)
    assert cs > 10 * abs(float(spec.c @ solve_block_lp(*args, threads=1)[0]))  # a value far below the costs
    monkeypatch.setattr(iteration, "ENOUGH_RELATIVE", math.inf)
    ungated = asked_gaps()
    assert len(ungated) > len(gated) and max(ungated) > rel


def test_a_half_writes_its_product_with_g_into_the_given_array():
    """``Half.G(u, out)`` (SciPy's kernel into ``out``) is ``Half.G(u)`` (``M @ u``) to the last bit."""
    from problems.ipm.block import RaggedBlockSystem

    spec, args = _layered_args()
    s = RaggedBlockSystem(*args)
    u = np.random.default_rng(2).random(spec.K)
    with ThreadPoolExecutor(2) as p:
        s.use_pool(p)
        halves = s.halves()
        assert halves is not None and len(halves) == 2
        for h in halves:
            ref = h.G(u[h.z])
            out = np.full(ref.size, np.nan)
            assert h.G(u[h.z], out) is out and np.array_equal(out, ref)
        s.use_pool(None)
    assert s.halves() is None  # without the pool: the whole products
