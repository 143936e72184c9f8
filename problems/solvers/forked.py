"""A back end's solve in a forked child process, stopped at the attempt's deadline.

SCS applies its time limit (``time_limit_secs``) to its iterations only: its setup, a sparse LDLᵀ factorisation
of the KKT matrix, runs to the end first.  Measured at m = 2, contagious (0.9; 0.3, 0.7), PD-DP ε = 2, with a 5 s
limit: 11.9 s in all at n = 100 and 96.9 s at n = 150; at n = 200 the setup took minutes.  So on a large LP SCS
could overrun the time the chain gave its attempt, and with it the point's budget that the chain states up
front.  On an LP with at least :data:`FORK_ABOVE` variables and ratio rows, SCS therefore runs in a child
process (``os.fork``: the child sees the parent's arrays without copying them) that is killed at the attempt's
deadline; its answer comes back through a pipe.  Its own limit on its iterations is then at most half the time
left, so that a setup of up to the other half still ends in an answer rather than in the kill.  Smaller LPs, and
platforms without ``fork``, solve in the process itself, as before.
"""

from __future__ import annotations

import math
import os
import pickle
import select
import signal
import time
import warnings
from collections.abc import Callable
from typing import TypeVar

__all__ = ["run_forked", "ForkedTimeout", "ForkedFailure", "FORK_ABOVE", "can_fork"]

T = TypeVar("T")

#: variables plus ratio rows from which SCS runs in a child process (m = 2: n ≥ 110 or so; its setup at
#: n = 100, 0.86 M, took about 7 s)
FORK_ABOVE = 1_000_000


class ForkedTimeout(Exception):
    """The child did not answer before its deadline; it has been killed."""


class ForkedFailure(Exception):
    """The child raised; the message is its exception's type and text."""


def can_fork() -> bool:
    """True where ``os.fork`` exists (POSIX)."""
    return hasattr(os, "fork")


def run_forked(fn: Callable[[], T], timeout: float) -> T:
    """``fn()`` computed in a forked child; :class:`ForkedTimeout` if it has not answered after ``timeout``
    seconds (the child is killed and reaped), :class:`ForkedFailure` if it raised.  The value must pickle."""
    r, w = os.pipe()
    # Python 3.12 warns on a fork in a process with threads; the child runs fn only, then leaves
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: compute, write, leave without running the parent's exit handlers
        try:
            os.close(r)
            try:
                payload = pickle.dumps((True, fn()), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:  # noqa: BLE001 - reported to the parent
                payload = pickle.dumps((False, f"{type(exc).__name__}: {exc}"))
            with os.fdopen(w, "wb") as fh:
                fh.write(payload)
        finally:
            os._exit(0)
    os.close(w)
    deadline = time.monotonic() + max(0.0, float(timeout))
    chunks: list[bytes] = []
    poller = select.poll()  # (not select.select: a descriptor above 1023 would be refused)
    poller.register(r, select.POLLIN | select.POLLHUP)
    try:
        while True:
            left = deadline - time.monotonic()
            ready = poller.poll(max(1, math.ceil(left * 1000))) if left > 0 else []
            if not ready:
                os.kill(pid, signal.SIGKILL)
                raise ForkedTimeout(f"no answer after {timeout:g} s")
            data = os.read(r, 1 << 22)
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(r)
        os.waitpid(pid, 0)
    if not chunks:
        raise ForkedFailure("the child ended without an answer")
    ok, value = pickle.loads(b"".join(chunks))
    if not ok:
        raise ForkedFailure(value)
    return value
