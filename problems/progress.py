"""Progress of long runs on stderr: a bar with ETA on a terminal, one line per step otherwise, and a ticker.

``with Progress(total, "curve") as bar: … bar.step("ε*(D=0.3) = 1.2")`` — on a terminal (and with ``tqdm``
installed) a bar with the rate and the estimated time left; otherwise (a log file, a pipe, CI) one line per
step ``curve [3/30] ε*(D=0.3) = 1.2  (elapsed 4.1 s, ETA 37 s)``.  ``quiet=True`` prints nothing.

``with ticking("pd-dp ε = 1.5: attempt 1/4 BLOCK (first choice)"): …`` — while the block runs, a line every
:data:`TICK_SECONDS` seconds says what is running, for how long, and what the running method last reported
through :func:`note` (an interior-point method notes its iteration and KKT measure).  Silent unless
:func:`enable_ticker` was called (the command line does): a library does not write to stderr on its own.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

__all__ = ["Progress", "ticking", "note", "enable_ticker", "say", "TICK_SECONDS"]

#: Seconds between two ticker lines.
TICK_SECONDS = 10.0
_TICKER: dict = {"stream": None, "every": TICK_SECONDS}
_STATE: dict = {}


def enable_ticker(stream: TextIO | None = None, every: float = TICK_SECONDS) -> None:
    """Let :func:`ticking` and :func:`say` write to ``stream`` (default: whatever ``sys.stderr`` is when a line is
    written) every ``every`` seconds."""
    _TICKER["stream"] = stream if stream is not None else "stderr"
    _TICKER["every"] = float(every)


def _write(line: str) -> None:
    stream = _TICKER["stream"]
    if stream == "stderr":
        stream = sys.stderr
    try:
        print(line, file=stream, flush=True)
    except (ValueError, OSError):  # a closed or broken stream: a progress line never stops a solve
        pass


def say(message: str) -> None:
    """One line on the ticker's stream, if it is enabled."""
    if _TICKER["stream"] is not None:
        _write(message)


def note(**state: object) -> None:
    """What the running method reports (for example ``iteration=12, kkt="3e-7"``); shown by the ticker."""
    _STATE.update(state)


@contextmanager
def ticking(label: str) -> Iterator[None]:
    """While the block runs, a line every :data:`TICK_SECONDS` s: ``label: running 20 s (iteration 31, …)``."""
    stream = _TICKER["stream"]
    if stream is None:
        yield
        return
    _STATE.clear()
    stop = threading.Event()
    start = time.perf_counter()

    def run() -> None:
        while not stop.wait(_TICKER["every"]):
            extra = ", ".join(f"{k} {v}" for k, v in list(_STATE.items()))
            _write(f"{label}: running {time.perf_counter() - start:.0f} s" + (f" ({extra})" if extra else ""))

    thread = threading.Thread(target=run, name="problems-ticker", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


class Progress:
    """A progress reporter for ``total`` steps (see the module docstring).

    With ``heartbeat=s`` (and not quiet) a line ``desc [k/total] running 40 s, last step 12 s ago`` is written
    whenever ``s`` seconds pass without a step, so a run whose steps are long (a sweep point on a worker) still
    says it is alive.
    """

    def __init__(
        self,
        total: int,
        desc: str,
        *,
        quiet: bool = False,
        stream: TextIO | None = None,
        heartbeat: float | None = None,
    ) -> None:
        self.total, self.desc, self.quiet = int(total), desc, quiet
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.start = time.perf_counter()
        self.last = self.start
        self._bar = None
        self._stop = threading.Event()
        self._thread = None
        if heartbeat is not None and not quiet:
            self._thread = threading.Thread(
                target=self._beat, args=(float(heartbeat),), name="problems-heartbeat", daemon=True
            )
            self._thread.start()
        if not quiet and getattr(self.stream, "isatty", lambda: False)():
            try:
                from tqdm import tqdm

                self._bar = tqdm(
                    total=self.total, desc=desc, file=self.stream, leave=True, dynamic_ncols=True
                )
            except ImportError:  # pragma: no cover - tqdm is a dependency
                self._bar = None

    def _beat(self, every: float) -> None:
        while not self._stop.wait(min(every, 1.0)):
            now = time.perf_counter()
            if now - self.last >= every:
                self.last = now
                try:
                    print(
                        f"{self.desc} [{self.done}/{self.total}] running {now - self.start:.0f} s",
                        file=self.stream,
                        flush=True,
                    )
                except (ValueError, OSError):  # a closed stream never stops the run
                    return

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def step(self, message: str = "") -> None:
        """One step done; ``message`` describes it."""
        self.done += 1
        self.last = time.perf_counter()
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(message.strip()[:60], refresh=False)
            self._bar.update(1)
            return
        elapsed = time.perf_counter() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else float("nan")
        print(
            f"{self.desc} [{self.done}/{self.total}] {message.strip()}  (elapsed {elapsed:.1f} s, ETA {eta:.0f} s)",
            file=self.stream,
            flush=True,
        )

    def __call__(self, message: str = "") -> None:
        self.step(message)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._bar is not None:
            self._bar.close()
            self._bar = None
