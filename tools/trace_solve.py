"""Measure the way through one ``python -m problems solve``: which files of ``problems/`` it enters, and how often.

Runs ``python -m problems solve ARGS`` in this process under :func:`sys.setprofile` and follows the innermost
frame that belongs to a file of ``problems/`` from the moment :func:`problems.cli._cmd_solve` is entered until
it returns.  The walk is the sequence of those files with consecutive repeats collapsed.  Printed:

* ``files``    — distinct files of ``problems/`` entered;
* ``climbs``   — steps of the walk that go back up to a calling file (a return into a file lower on the stack);
* ``returns``  — steps of the walk into a file that the walk had already left (by a call or by a return).

Imports made during the solve are not followed (a module body and what it calls are skipped).  With
``--depth K`` only the first K files of each call chain count (the solve command's file is 1): ``--depth 3``
shows the way through the layers, without the helpers they call.

Usage::

    python tools/trace_solve.py                       # solve pd-dp --n 3 --m 2 --prior iid:0.3,0.7 --eps 1
    python tools/trace_solve.py solve pd-i --n 4 --m 2 --eps 2 -v   # -v also prints the walk
    python tools/trace_solve.py --depth 3                # the layers only
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = str(ROOT / "problems") + "/"
DEFAULT = ["solve", "pd-dp", "--n", "3", "--m", "2", "--prior", "iid:0.3,0.7", "--eps", "1"]


def _stack(frame, top) -> list[str] | None:  # noqa: ANN001
    """The problems/ files on the stack from ``top`` (the solve command) down to ``frame``, consecutive repeats
    collapsed; None while an import runs (a module body on the stack) or outside the solve."""
    files: list[str] = []
    while frame is not None:
        code = frame.f_code
        if code.co_name == "<module>":
            return None
        name = code.co_filename
        if name.startswith(PACKAGE):
            name = name[len(PACKAGE) :]
            if not files or files[-1] != name:
                files.append(name)
        if code is top:
            return files[::-1]
        frame = frame.f_back
    return None


def trace(argv: list[str], depth: int | None = None) -> tuple[list[str], list[str]]:
    """The walk (files, collapsed) and the kind of each step ("call" or "return")."""
    sys.path.insert(0, str(ROOT))
    import problems.cli as cli

    walk: list[str] = []
    steps: list[str] = []
    state = {"on": False, "depth": 0, "done": False}
    target = cli._cmd_solve.__code__

    def profile(frame, event, arg) -> None:  # noqa: ANN001
        if state["done"] or event not in ("call", "return"):
            return
        if frame.f_code is target:
            if event == "call":
                state["on"] = True
            else:
                state["done"] = True
                return
        if not state["on"]:
            return
        # the file we are in after this event: the callee on a call, the caller on a return
        files = _stack(frame if event == "call" else frame.f_back, target)
        if not files:
            return
        where = files[min(len(files), depth or len(files)) - 1]
        if not walk or walk[-1] != where:
            walk.append(where)
            steps.append(event)

    out = io.StringIO()
    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(out):
            code = cli.main(argv)
    finally:
        sys.setprofile(None)
    if code != 0:
        raise SystemExit(f"the solve ended with exit code {code}:\n{out.getvalue()}")
    return walk, steps


def measure(walk: list[str], steps: list[str]) -> dict[str, int]:
    seen: set[str] = set()
    climbs = returns = 0
    for k, (f, step) in enumerate(zip(walk, steps)):
        if step == "return":
            climbs += 1
        if f in seen and k > 0:
            returns += 1
        seen.add(f)
    return {"files": len(seen), "climbs": climbs, "returns": returns, "steps": len(walk)}


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "-v"]
    depth = None
    if "--depth" in args:
        k = args.index("--depth")
        depth = int(args[k + 1])
        del args[k : k + 2]
    walk, steps = trace(args or DEFAULT, depth)
    if "-v" in sys.argv:
        for f, step in zip(walk, steps):
            print(f"{'↑' if step == 'return' else '↓'} {f}")
    m = measure(walk, steps)
    print(f"files {m['files']}, climbs {m['climbs']}, returns {m['returns']} (walk of {m['steps']} steps)")


if __name__ == "__main__":
    main()
