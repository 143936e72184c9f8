"""Progress of long runs on stderr: a bar with ETA on a terminal, one line per step otherwise.

``with Progress(total, "curve") as bar: … bar.step("ε*(D=0.3) = 1.2")`` — on a terminal (and with ``tqdm``
installed) a bar with the rate and the estimated time left; otherwise (a log file, a pipe, CI) one line per
step ``curve [3/30] ε*(D=0.3) = 1.2  (elapsed 4.1 s, ETA 37 s)``.  ``quiet=True`` prints nothing.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """A progress reporter for ``total`` steps (see the module docstring)."""

    def __init__(self, total: int, desc: str, *, quiet: bool = False, stream: TextIO | None = None) -> None:
        self.total, self.desc, self.quiet = int(total), desc, quiet
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self.start = time.perf_counter()
        self._bar = None
        if not quiet and getattr(self.stream, "isatty", lambda: False)():
            try:
                from tqdm import tqdm

                self._bar = tqdm(
                    total=self.total, desc=desc, file=self.stream, leave=True, dynamic_ncols=True
                )
            except ImportError:  # pragma: no cover - tqdm is a dependency
                self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def step(self, message: str = "") -> None:
        """One step done; ``message`` describes it."""
        self.done += 1
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
        if self._bar is not None:
            self._bar.close()
            self._bar = None
