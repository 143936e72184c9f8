"""The memory budget is the tightest of $PRIVACY_PROBLEMS_MEMORY_LIMIT, MemAvailable, RLIMIT_AS and the cgroup."""

from __future__ import annotations

import resource

import pytest

from problems import resources
from problems.errors import ProblemTooLargeError


def test_cgroup_v2_and_v1_files(tmp_path) -> None:
    v2max, v2cur = tmp_path / "memory.max", tmp_path / "memory.current"
    v2max.write_text("max\n")
    v2cur.write_text("100\n")
    v1lim, v1use = tmp_path / "limit", tmp_path / "usage"
    v1lim.write_text(str(3 * 2**30))
    v1use.write_text(str(2**30))
    # v2 "max" means no limit: the v1 files decide
    assert resources.cgroup_room(((str(v2max), str(v2cur)), (str(v1lim), str(v1use)))) == 2 * 2**30
    v2max.write_text(str(2**30))
    assert resources.cgroup_room(((str(v2max), str(v2cur)), (str(v1lim), str(v1use)))) == 2**30 - 100
    v1lim.write_text("9223372036854771712")  # v1's "unlimited"
    assert resources.cgroup_room(((str(v1lim), str(v1use)),)) is None
    assert resources.cgroup_room(((str(tmp_path / "absent"), str(v1use)),)) is None


def test_the_tightest_limit_binds_and_is_named(monkeypatch) -> None:
    monkeypatch.setenv(resources.MEMORY_LIMIT_ENV, "8G")
    monkeypatch.setattr(resources, "available_memory", lambda: 6 * 2**30)
    monkeypatch.setattr(resources, "address_space_room", lambda: 3 * 2**30)
    monkeypatch.setattr(resources, "cgroup_room", lambda: 5 * 2**30)
    assert resources.memory_budget() == 3 * 2**30
    with pytest.raises(ProblemTooLargeError, match=r"budget is 3 GiB \(RLIMIT_AS") as info:
        resources.require_memory(4 * 2**30, "a test array")
    assert info.value.limit == 3 * 2**30
    monkeypatch.setattr(resources, "cgroup_room", lambda: 2**30)
    with pytest.raises(ProblemTooLargeError, match=r"budget is 1 GiB \(the cgroup memory limit"):
        resources.require_memory(2 * 2**30, "a test array")
    monkeypatch.setattr(resources, "available_memory", lambda: 2**29)  # less free memory than the env says
    assert resources.memory_budget() == 2**29
    monkeypatch.delenv(resources.MEMORY_LIMIT_ENV)
    assert resources.memory_budget() == 2**28  # half of MemAvailable without the variable


def test_address_space_room_uses_the_soft_limit(monkeypatch) -> None:
    monkeypatch.setattr(resource, "getrlimit", lambda which: (2**40, resource.RLIM_INFINITY))
    room = resources.address_space_room()
    assert room is not None and 0 < room < 2**40
    monkeypatch.setattr(resource, "getrlimit", lambda which: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert resources.address_space_room() is None


def test_progress_heartbeat_when_steps_are_slow() -> None:
    import io
    import time

    from problems.progress import Progress

    out = io.StringIO()
    with Progress(3, "sweep", stream=out, heartbeat=0.2) as bar:
        time.sleep(1.5)
        bar.step("one")
    lines = out.getvalue().splitlines()
    assert any(line.startswith("sweep [0/3] running") for line in lines), lines
    assert any("[1/3] one" in line for line in lines), lines
    quiet = io.StringIO()
    with Progress(3, "sweep", stream=quiet, heartbeat=0.2, quiet=True):
        time.sleep(0.5)
    assert quiet.getvalue() == ""


def test_memory_room_ignores_the_half_default(monkeypatch) -> None:
    monkeypatch.delenv(resources.MEMORY_LIMIT_ENV, raising=False)
    monkeypatch.setattr(resources, "available_memory", lambda: 8 * 2**30)
    monkeypatch.setattr(resources, "address_space_room", lambda: None)
    monkeypatch.setattr(resources, "cgroup_room", lambda: 6 * 2**30)
    assert resources.memory_room() == 6 * 2**30  # the sweep's workers share the cgroup, not half of it
    assert resources.memory_budget() == 4 * 2**30  # one solve: half of MemAvailable


def test_contagious_rows_share_one_identity() -> None:
    """The δ_a rows of a contagious prior are the rows of one m×m identity, not views keeping m of them alive."""
    import tracemalloc

    from problems import DatabaseSpace, priors
    from problems.orbit.symmetric_prior import symmetric_contagious

    m = 300
    tracemalloc.start()
    dense = priors.contagious(DatabaseSpace(1, m), 0.2)
    symmetric = symmetric_contagious(50, m, 0.2)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20 * m * m * 8, f"{peak / 2**20:.0f} MiB"  # m identities would be 300× one (216 MB)
    assert dense.pmf[0] == 0.8 / m + 0.2 / m  # (1 − w)π(0) + w π(0) at n = 1
    assert len(symmetric.row_pmfs) == m + 1
