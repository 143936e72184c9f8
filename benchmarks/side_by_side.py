"""Helpers of the side-by-side benchmarks: one point's public call in a fresh subprocess per variant, interleaved.

A benchmark script parses its command line with :func:`arguments` and loops over :func:`compare`, which runs
the script itself with ``--child POINT`` for every point (m = 2, reduced PD-DP; a dict with the keys of
``bench_reduced_scale.child_toolkit`` and the variant under the script's key) and variant in turn; the child
sets its variant up and prints the child's JSON line.  The results are rewritten atomically after every child
(:func:`write`); :func:`cell` and :func:`bounds` format one answer for a markdown table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

__all__ = [
    "arguments",
    "answered_as_child",
    "compare",
    "now_against_former",
    "revision_tree",
    "run",
    "write",
    "cell",
    "bounds",
    "points_of",
    "paired_columns",
]


def arguments(
    doc: str,
    n: list[int],
    eps: list[float],
    priors: list[str],
    out: Path,
    more: Callable[[argparse.ArgumentParser], object] | None = None,
) -> argparse.Namespace:
    """``--n``, ``--eps``, ``--priors``, ``--out`` (with these defaults), the hidden ``--child`` and whatever
    ``more`` adds to the parser."""
    ap = argparse.ArgumentParser(description=doc)
    if more is not None:
        more(ap)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, nargs="+", default=n)
    ap.add_argument("--eps", type=float, nargs="+", default=eps)
    ap.add_argument("--priors", nargs="+", default=priors)
    ap.add_argument("--out", default=str(out))
    return ap.parse_args()


def answered_as_child(args: argparse.Namespace, child: Callable[[dict], dict]) -> bool:
    """With ``--child POINT``: run ``child`` on the point, print its JSON line and return True (the caller then
    returns); otherwise False."""
    if args.child is None:
        return False
    print(json.dumps(child(json.loads(args.child))))
    return True


def compare(
    script: str,
    args: argparse.Namespace,
    key: str,
    variants: Sequence[str],
    paths: dict[str, str] | None = None,
    points: Sequence[dict] | None = None,
) -> Iterator[tuple[dict, dict]]:
    """Every point of ``args`` (n, prior, ε; or the given ``points``) in every variant, one fresh child each,
    interleaved; yields the point and ``{variant: answer}``, the rows written to ``args.out`` after every child.
    ``paths[variant]``, where given, goes first on the child's ``PYTHONPATH`` (the library of another revision:
    :func:`revision_tree`)."""
    rows: list[dict] = []
    if points is None:
        points = points_of(args)
    for base in points:
        got = {}
        for v in variants:
            got[v] = run(script, {**base, key: v}, path=(paths or {}).get(v))
            rows.append({**base, key: v, "load": os.getloadavg()[0], **got[v]})
            write(Path(args.out), rows)
        yield base, got


def points_of(args: argparse.Namespace, pd_i: Sequence[float] = ()) -> list[dict]:
    """m = 2 reduced PD-DP at every (n, prior, ε) of ``args``, then PD-I at ε_X + each ``pd_i`` offset for every
    n and prior."""
    grid = [(n, prior) for n in args.n for prior in args.priors]
    return [
        {"program": "pd-dp", "prior": p, "n": n, "m": 2, "eps_arg": e} for n, p in grid for e in args.eps
    ] + [{"program": "pd-i", "prior": p, "n": n, "m": 2, "eps_arg": off} for n, p in grid for off in pd_i]


def paired_columns(other: str) -> list[tuple[str, Callable[[dict], str]]]:
    """The extra columns of a now-against-``other`` table: ε, CPU seconds, iterations, peak RSS ("now / other")."""

    def pair(key: str, fmt: str) -> Callable[[dict], str]:
        def show(got: dict) -> str:
            return " / ".join(format(got[v][key], fmt) if key in got[v] else "—" for v in ("now", "former"))

        return show

    return [
        ("ε", pair("eps", ".6g")),
        (f"CPU s (now / {other})", pair("cpu_s", ".1f")),
        ("iterations", pair("iterations", "")),
        ("peak RSS MiB", pair("peak_rss_mib", ".0f")),
    ]


def run(script: str, point: dict, timeout: float = 1800.0, path: str | None = None) -> dict:
    """``script --child POINT`` in a fresh interpreter (``path`` first on its ``PYTHONPATH``): its last stdout
    line as JSON, or ``{"error": …}``."""
    env = None
    if path is not None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([path, os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run(
        [sys.executable, script, "--child", json.dumps(point)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:] or [f"exit {out.returncode}"]}
    return json.loads(out.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def revision_tree(rev: str) -> Iterator[str]:
    """A temporary directory holding the package ``problems`` as it is at the git revision ``rev`` (``git
    archive``), for a child's ``PYTHONPATH``: the former code itself runs beside the current one."""
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="former-") as tmp:
        archive = subprocess.run(
            ["git", "-C", str(root), "archive", "--format=tar", rev, "problems"],
            capture_output=True,
            check=True,
        )
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        yield tmp


def write(path: Path, rows: list[dict]) -> None:
    """``rows`` as JSON at ``path``, written to a temporary file and renamed."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(rows, fh, indent=1)
    os.replace(tmp, path)


def cell(r: dict) -> str:
    """Wall seconds and the attempt that answered (and the status when it is not ``optimal``)."""
    if "error" in r:
        return f"error: {r['error']}"
    mark = "" if r["status"] == "optimal" else f" **{r['status']}**"
    return f"{r['solve_s']:.1f} {r['solver']}{mark}"


def bounds(r: dict) -> str:
    """The certified bounds of one answer, or a dash."""
    return f"[{r['lower']:.9e}, {r['upper']:.9e}]" if "lower" in r else "—"


def now_against_former(
    script: str,
    args: argparse.Namespace,
    child: Callable[[dict], dict],
    extra: Sequence[tuple[str, Callable[[dict], str]]] = (),
    former: str | None = None,
    points: Sequence[dict] | None = None,
) -> None:
    """The main of a benchmark of the code as it is ("now") against the former code — the one its ``child`` sets
    up for the variant "former", or the library at the git revision ``former`` (:func:`revision_tree`): as a
    child, the point's JSON line; otherwise every point (``points``, or those of ``args``) in both variants as a
    markdown table, with the ``extra`` columns (a header and a function of ``{variant: answer}``) before the
    bounds."""
    if answered_as_child(args, child):
        return
    with contextlib.ExitStack() as stack:
        paths = None if former is None else {"former": stack.enter_context(revision_tree(former))}
        _table(script, args, extra, paths, points)


def _table(
    script: str,
    args: argparse.Namespace,
    extra: Sequence[tuple[str, Callable[[dict], str]]],
    paths: dict[str, str] | None,
    points: Sequence[dict] | None,
) -> None:
    variants = ("now", "former")
    heads = ["n", "prior", "ε", "now: s, answered by", "former: s, answered by", *(h for h, _ in extra)]
    heads += ["bounds (now)", "attempts (now / former)"]
    print("| " + " | ".join(heads) + " |")
    print("|" + "---|" * len(heads))
    for p, got in compare(script, args, "variant", variants, paths, points):
        tries = " / ".join(str(len(got[v].get("attempts", []))) for v in variants)
        cells = [str(p["n"]), p["prior"], f"{p['eps_arg']:g}", cell(got["now"]), cell(got["former"])]
        cells += [fn(got) for _, fn in extra] + [bounds(got["now"]), tries]
        print("| " + " | ".join(cells) + " |", flush=True)
    print(f"(written {args.out}, {time.strftime('%Y-%m-%d %H:%M')})")
