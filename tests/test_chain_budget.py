"""The chain's time budget and its progress lines (problems.solvers.chain, problems.progress)."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest

from problems import progress
from problems.orbit import ReducedPDDP
from problems.orbit.symmetric_prior import parse_symmetric_prior
from problems.solvers import chain
from problems.solvers.backends import RawSolution


class _Slow:
    """A back end that takes ``seconds`` and returns the uniform point with zero multipliers (never certified)."""

    def __init__(self, name: str, seconds: float) -> None:
        self.name, self.seconds, self.limits = name, seconds, []

    def solve(self, spec, eps, *, time_limit, enough=None):  # noqa: ANN001, ANN201
        self.limits.append(time_limit)
        progress.note(iteration=1)
        time.sleep(self.seconds)
        z = np.full(spec.K, 1.0)
        return RawSolution(z, np.zeros(spec.G), np.zeros(spec.P), "slow", 1, self.seconds)


@pytest.fixture
def ticker():
    buf = io.StringIO()
    progress.enable_ticker(buf, every=0.05)
    yield buf
    progress._TICKER["stream"] = None


def test_the_point_budget_is_stated_and_enforced(monkeypatch, ticker):
    spec = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 6, 2)).lp.spec
    slow = [_Slow("A", 0.35), _Slow("B", 0.35), _Slow("C", 0.35)]
    monkeypatch.setattr(chain, "resolve_order", lambda *a, **k: slow)
    monkeypatch.setattr(chain, "ANNOUNCE_SIZE", 1)
    sol = chain.solve(spec, 0.5, time_limit=0.2)  # the point: at most 3 × 0.2 s
    outcomes = dict(sol.stats.attempts)
    assert "budget" in outcomes["C"] and slow[2].limits == []
    assert slow[0].limits == [0.2] and 0 < slow[1].limits[0] <= 0.2
    text = ticker.getvalue()
    assert "each attempt at most 0.2 s, the point at most 0.6 s" in text
    assert "attempt 1 A (first choice): running" in text and "iteration 1" in text
    assert "attempt 2 B (after A:" in text


def test_the_ticker_is_silent_unless_enabled(capsys):
    with progress.ticking("nothing"):
        time.sleep(0.02)
    assert capsys.readouterr().err == ""


def test_face_repair_certifies_clarabels_first_answer(highs_optimum):
    """Mixture prior, n = 30, PD-DP ε = 0.5 with Clarabel first: its point repairs to 47 % above the optimum by
    mixing alone; rebuilt on the face of its tight rows (problems.lp.face) it is certified in the first attempt,
    with no re-solve, and matches HiGHS on the same LP (tight tolerances)."""
    spec = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 30, 2)).lp.spec
    sol = chain.solve(spec, 0.5, solver="clarabel")
    assert [a for a, _ in sol.stats.attempts] == ["CLARABEL"]
    assert str(sol.status) == "optimal"
    ref = highs_optimum(spec, 0.5)
    assert sol.bounds.lower - 1e-9 <= ref <= sol.bounds.upper + 1e-9
    assert abs(sol.value - ref) <= 1e-6 * ref


def test_tightened_resolve_certifies_what_the_mixture_repair_could_not(highs_optimum, monkeypatch):
    """The same point with the face repair switched off: Clarabel's point repairs to 47 % above the optimum by
    mixing; the re-solve at ε − δ is certified and matches HiGHS on the same LP (tight tolerances)."""
    import problems.lp.bounds as bounds

    monkeypatch.setattr(bounds, "face_points", lambda *a, **k: iter(()))
    spec = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 30, 2)).lp.spec
    sol = chain.solve(spec, 0.5, solver="clarabel")
    names = [a for a, _ in sol.stats.attempts]
    assert names[0] == "CLARABEL" and any(a.startswith("CLARABEL@ε−") for a in names)
    assert str(sol.status) == "optimal"
    ref = highs_optimum(spec, 0.5)
    assert sol.bounds.lower - 1e-9 <= ref <= sol.bounds.upper + 1e-9
    assert abs(sol.value - ref) <= 1e-6 * ref


def test_tightened_level_pays_the_target_cost():
    spec = ReducedPDDP(parse_symmetric_prior("iid:0.3,0.7", 8, 2)).lp.spec
    z = np.full(spec.K, 0.01)
    lam = np.full(spec.P, 0.1)
    value = float(spec.c @ z)
    slope = np.exp(1.0) * float(lam @ (spec.kappa * z[spec.dst]))
    level = chain.tightened_level(spec, 1.0, z, lam)
    delta = 1.0 - level
    assert chain.TIGHTEN_MIN <= delta <= chain.TIGHTEN_MAX
    assert delta == pytest.approx(
        min(max(chain.TIGHTEN_COST * value / slope, chain.TIGHTEN_MIN), chain.TIGHTEN_MAX)
    )
    # never past half of the interior
    assert chain.tightened_level(spec, 1e-7, z, lam) >= 0.5e-7


class _Expecting:
    name = "E"

    def __init__(self, seconds):  # noqa: ANN001
        self.seconds = seconds

    def expected_seconds(self, spec):  # noqa: ANN001, ANN201
        return self.seconds


def test_the_default_limit_grows_with_the_expected_time():
    """Without time_limit an attempt gets DEFAULT_TIME_LIMIT, or EXPECTED_TIME_MARGIN × its back end's expected
    wall time where that is longer (m = 2, n = 200 would otherwise be cut while on course)."""
    from problems.resources import layered_lp_seconds, m2_joint_type_rows
    from problems.solvers.backends import BlockBackend, ClarabelBackend
    from problems.solvers.settings import DEFAULT_TIME_LIMIT, EXPECTED_TIME_MARGIN

    spec = ReducedPDDP(parse_symmetric_prior("iid:0.3,0.7", 6, 2)).lp.spec
    assert m2_joint_type_rows(spec.K, spec.G) == 6
    assert m2_joint_type_rows(spec.K + 1, spec.G) is None
    assert chain.default_time_limit(spec, [BlockBackend()]) == DEFAULT_TIME_LIMIT  # n = 6: well below
    assert chain.default_time_limit(spec, [ClarabelBackend()]) == DEFAULT_TIME_LIMIT  # no estimate
    assert chain.default_time_limit(spec, [_Expecting(1000.0)]) == EXPECTED_TIME_MARGIN * 1000.0
    assert chain.default_time_limit(spec, [_Expecting(float("nan"))]) == DEFAULT_TIME_LIMIT
    # the calibration: n = 200 measured 473 s on an idle machine, the work grows like n⁴
    assert layered_lp_seconds(200) == pytest.approx(473.0)
    assert layered_lp_seconds(100) == pytest.approx(473.0 / 16)
    assert EXPECTED_TIME_MARGIN * layered_lp_seconds(200) > 3 * DEFAULT_TIME_LIMIT


def test_the_stated_budget_uses_the_expected_time(monkeypatch, ticker):
    spec = ReducedPDDP(parse_symmetric_prior("iid:0.3,0.7", 6, 2)).lp.spec

    class _Quick(_Slow):
        def expected_seconds(self, spec):  # noqa: ANN001, ANN201
            return 250.0

    quick = _Quick("Q", 0.0)
    monkeypatch.setattr(chain, "resolve_order", lambda *a, **k: [quick])
    monkeypatch.setattr(chain, "ANNOUNCE_SIZE", 1)
    chain.solve(spec, 0.5)
    assert quick.limits == [1000.0]
    assert "each attempt at most 1000 s, the point at most 3000 s" in ticker.getvalue()


def test_a_long_certificate_is_not_silent(monkeypatch, ticker):
    """The steps after a back end returns (exact repair, safe bound) tick too, naming what they certify."""
    spec = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 6, 2)).lp.spec
    monkeypatch.setattr(chain, "resolve_order", lambda *a, **k: [_Slow("A", 0.0)])
    real = chain.certify

    def slow_certify(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        time.sleep(0.3)
        return real(*args, **kwargs)

    monkeypatch.setattr(chain, "certify", slow_certify)
    chain.solve(spec, 0.5, time_limit=5.0)
    assert "certifying attempt 1 A's answer (exact repair, safe bound): running" in ticker.getvalue()


def test_the_hinted_blocks_say_what_they_do(monkeypatch, highs_optimum):
    """The constant-output hint (restricted LP, pricing), its answer and its rejection are named on the ticker.
    At ε = 0.05 the constant outputs are optimal (HiGHS on the same LP agrees to 1e-6) and the hint answers; at
    ε = 1 they are not, and the same hint is priced, rejected and the whole LP answers."""
    from problems.lp import active_blocks
    from problems.orbit.constant_output import constant_output_blocks

    steps: list[str] = []
    monkeypatch.setattr(active_blocks, "note", lambda **kw: steps.append(str(kw.get("step"))))
    prog = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 20, 2))
    res = prog.solve(0.05)
    assert res.status == "optimal" and "hinted blocks" in res.stats.attempts[0][1]
    assert any("hinted blocks: restricted LP, then pricing" in s for s in steps)
    assert res.value == pytest.approx(highs_optimum(prog.lp.spec, 0.05), rel=1e-6)
    steps.clear()
    prog.lp.spec.cache["active_hint"] = constant_output_blocks(prog)
    sol = prog.lp.solve(1.0, prefer="block")
    assert sol.status == "optimal"
    assert any(s.startswith("the whole LP (the hinted blocks were not proved optimal") for s in steps)
    assert sol.value == pytest.approx(highs_optimum(prog.lp.spec, 1.0), rel=1e-6)


def test_an_iterate_the_early_stop_certified_is_not_certified_again(highs_optimum, monkeypatch):
    """The block method stops at the first iterate the chain's certificate accepts; the chain then reuses that
    certificate (one certify per accepted iterate, no final lower-bound recomputation) and reports the same bounds
    as a fresh certificate of the returned point would.  Reference: HiGHS on the same LP, and ``certify`` called
    here on the answer's point and duals."""
    from problems.lp.bounds import certify, lower_bound

    spec = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 30, 2)).lp.spec
    calls = {"certify": [], "lower_bound": 0}
    real_certify, real_lower = chain.certify, chain.lower_bound

    def counting_certify(*args, **kw):  # noqa: ANN002, ANN003, ANN202
        out = real_certify(*args, **kw)
        calls["certify"].append(out.refined)
        return out

    def counting_lower(*args, **kw):  # noqa: ANN002, ANN003, ANN202
        calls["lower_bound"] += 1
        return real_lower(*args, **kw)

    monkeypatch.setattr(chain, "certify", counting_certify)
    monkeypatch.setattr(chain, "lower_bound", counting_lower)
    sol = chain.solve(spec, 1.0, solver="block")
    assert [a for a, _ in sol.stats.attempts] == ["BLOCK"] and str(sol.status) == "optimal"
    # every certify ran on an iterate (the last one accepted it): none on the returned point afterwards
    assert calls["certify"] and calls["certify"][-1] and not any(calls["certify"][:-1])
    assert calls["lower_bound"] == 0
    assert certify(spec, 1.0, sol.z, sol.nu, sol.lam, face=False).refined
    lo, _ = lower_bound(spec, 1.0, sol.nu, sol.lam, sol.bounds.upper)
    assert sol.bounds.lower == lo  # what the final recomputation would have given, to the bit
    ref = highs_optimum(spec, 1.0)
    assert sol.bounds.lower - 1e-9 <= ref <= sol.bounds.upper + 1e-9


@pytest.mark.parametrize("prefer", ["block", "BLOCK", "block-ipm", ("highs", "block")])
def test_a_preferred_back_end_is_tried_once_whatever_its_spelling(prefer):
    """The chain's order names every back end once: a preferred one given in lower case or by an alias is the
    default order's own, not a second attempt of the same method (the order with ``prefer="BLOCK"`` is the
    reference)."""
    from problems.errors import InvalidInputError
    from problems.solvers.backends import default_order

    spec = ReducedPDDP(parse_symmetric_prior("iid:0.3,0.7", 6, 2)).lp.spec
    order = default_order(spec, prefer)
    assert len(order) == len(set(order))
    first = ["HIGHS", "BLOCK"] if isinstance(prefer, tuple) else ["BLOCK"]
    assert order[: len(first)] == first
    assert sorted(order) == sorted(default_order(spec, "BLOCK"))
    with pytest.raises(InvalidInputError, match="unknown solver"):
        default_order(spec, "blocks")
