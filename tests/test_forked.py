"""SCS in a forked child on large LPs (problems/solvers/forked.py): the same answer as in the process, and a setup
that runs past the attempt's time limit is stopped there (SCS bounds only its iterations by its own limit)."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from problems.orbit import ReducedPDDP
from problems.orbit.symmetric_prior import parse_symmetric_prior
from problems.solvers import forked
from problems.solvers.backends import BackendError, ScsBackend

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="needs os.fork")


def _boom() -> None:
    raise ValueError("bad value 3")


def test_the_child_answers_raises_or_is_stopped(monkeypatch):
    pids = []
    fork = os.fork

    def recorded() -> int:
        pid = fork()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(forked.os, "fork", recorded)
    assert forked.run_forked(lambda: np.arange(5) * 2, 30.0).tolist() == [0, 2, 4, 6, 8]
    with pytest.raises(forked.ForkedFailure, match="ValueError: bad value 3"):
        forked.run_forked(_boom, 30.0)
    t = time.monotonic()
    with pytest.raises(forked.ForkedTimeout):
        forked.run_forked(lambda: time.sleep(120), 0.5)
    assert time.monotonic() - t < 60  # killed at its deadline, not waited for
    assert len(pids) == 3
    for pid in pids:  # every child has been reaped
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


@pytest.fixture
def spec():
    return ReducedPDDP(parse_symmetric_prior("iid:0.3,0.7", 8, 2)).lp.spec


def test_scs_in_a_child_answers_as_in_the_process(spec, monkeypatch):
    here = ScsBackend().solve(spec, 1.0, time_limit=60.0)
    monkeypatch.setattr(forked, "FORK_ABOVE", 0)
    there = ScsBackend().solve(spec, 1.0, time_limit=60.0)
    assert there.status == here.status and there.iterations == here.iterations
    np.testing.assert_array_equal(there.z, here.z)
    np.testing.assert_array_equal(there.lam, here.lam)


def test_a_setup_past_the_time_limit_is_stopped_there(spec, monkeypatch):
    import scs

    class SlowSetup:  # an SCS whose setup takes longer than the attempt's limit
        def __init__(self, *args, **kwargs) -> None:
            time.sleep(120)

    monkeypatch.setattr(scs, "SCS", SlowSetup)
    monkeypatch.setattr(forked, "FORK_ABOVE", 0)
    t = time.monotonic()
    with pytest.raises(BackendError, match="stopped at the attempt's time limit of 1 s"):
        ScsBackend().solve(spec, 1.0, time_limit=1.0)
    assert time.monotonic() - t < 60
