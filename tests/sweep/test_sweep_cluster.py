"""A sweep on separately started ``dask scheduler`` / ``dask worker`` processes; one worker is killed
mid-sweep and every point must still be present exactly once and equal to a direct solve."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from problems import DatabaseSpace
from problems.priors import iid
from problems.programs import PDDP
from problems.sweep import SweepSpec, run_sweep

TOL = 1e-9


def _start(args: list[str], log) -> subprocess.Popen:  # noqa: ANN001
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen(
        [sys.executable, "-m", "dask", *args],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )


def _wait_for(path, timeout: float = 60.0):  # noqa: ANN001, ANN202
    t0 = time.time()
    while time.time() - t0 < timeout:
        if path.exists() and path.stat().st_size > 0:
            try:
                return json.loads(path.read_text())
            except ValueError:
                pass
        time.sleep(0.2)
    raise TimeoutError(f"{path} not written in {timeout} s")


@pytest.fixture
def cluster(tmp_path):
    sched_file = tmp_path / "scheduler.json"
    log = (tmp_path / "dask.log").open("w")
    procs = [_start(["scheduler", "--port", "0", "--no-dashboard", "--scheduler-file", str(sched_file)], log)]
    info = _wait_for(sched_file)
    address = info["address"]
    for _ in range(2):  # no nanny: killing the worker process kills the worker
        procs.append(
            _start(
                [
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--memory-limit",
                    "2GiB",
                ],
                log,
            )
        )
    from distributed import Client

    with Client(address, timeout="30s") as c:
        c.wait_for_workers(2, timeout=60)
        pids = c.run(os.getpid)  # worker address → process id
    yield address, procs[1:], {pid: addr for addr, pid in pids.items()}
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=30)
    log.close()


def test_killed_worker_loses_nothing(cluster, tmp_path):
    address, workers, address_of = cluster
    victim = address_of[workers[0].pid]
    # 16 dense PD-DP points at n = 4 (≈0.2 s each): both workers are busy when one is killed
    spec = SweepSpec(
        programs=("pd-dp",),
        priors=("iid:0.3,0.7",),
        n=(4,),
        m=(2,),
        eps=tuple(0.25 * k for k in range(1, 17)),
        formulation="dense",
    )
    killed = []

    def echo(line: str) -> None:
        if not killed:  # after the first finished point, kill one worker mid-sweep
            os.killpg(workers[0].pid, signal.SIGKILL)
            killed.append(line)

    s = run_sweep(spec, tmp_path / "out", scheduler=address, progress=True, echo=echo, figures=False)
    assert killed and workers[0].poll() is not None  # the worker really died
    assert s.points == 16 and s.computed == 16 and s.failed == 0
    keys = [r["key"] for r in s.rows]
    assert keys == [p.key for p in spec.points()] and len(set(keys)) == 16  # every point exactly once
    space = DatabaseSpace(4, 2)
    prog = PDDP(iid(space, [0.3, 0.7]))
    for r in s.rows:
        assert r["certified"], r
        direct = prog.solve(r["eps"], method="lp").value
        assert abs(r["value"] - direct) <= TOL * max(1.0, direct), r
    # the killed worker's rows are the few it returned before dying; the survivor computed the rest,
    # including the points that were queued or running on the killed worker
    by_victim = sum(r["worker"] == victim for r in s.rows)
    assert by_victim <= 3 and sum(r["worker"] == address_of[workers[1].pid] for r in s.rows) == 16 - by_victim
    # a second run skips everything, on the same cluster
    s2 = run_sweep(spec, tmp_path / "out", scheduler=address, progress=False, figures=False)
    assert (s2.computed, s2.skipped) == (0, 16)


def test_cli_on_a_running_scheduler(cluster, tmp_path):
    address, _, _ = cluster
    argv = ["sweep", "--program", "r-pd", "--program", "pd-dp", "--n", "3", "--m", "2", "--eps", "1,2"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    cmd = [sys.executable, "-m", "problems", *argv, "--scheduler", address, "--out", str(tmp_path), "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["scheduler"] == address and out["workers"] == 2 and out["computed"] == 4
    assert {r["worker"] for r in out["table"]} <= set(_addresses(address))


def _addresses(address: str) -> list[str]:
    from distributed import Client

    with Client(address, timeout="30s") as c:
        return list(c.scheduler_info()["workers"])
