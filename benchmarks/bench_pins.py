"""The layered block method with and without its pinned deflation, side by side.

Run: ``python benchmarks/bench_pins.py [--points contagious:0.9:0.3,0.7/pd-dp/2/150 …] [--former REV]
[--rounds R] [--out FILE]``.  Prints a Markdown table and writes ``benchmarks/results/pins.json`` (rewritten
atomically after every run).

Each point (prior / program / ε or PD-I's offset from ε_X / n) runs twice, one fresh process after the other:
``bench_block_ipm.py --peak`` (the m = 2 layered method alone, the certificate as its stopping rule), with the
near-null directions pinned (:mod:`problems.ipm.band_deflation`) and with ``--no-pins`` (as before them).  With
``--former REV`` the second run is the pinned method of the package as it is at the git revision REV (``git
archive``d first on the child's ``PYTHONPATH``) instead, and ``--rounds`` repeats each pair with the order of its
two runs alternating.  Each row has the iterations, CPU and wall seconds of the solve, the peak resident memory of
the process, whether the returned point is certified and its proved bounds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import revision_tree, write  # noqa: E402 - the benchmarks' own helpers

DEFAULT_POINTS = [
    "contagious:0.9:0.3,0.7/pd-dp/2/100",
    "iid:0.3,0.7/pd-dp/1.5/100",
    "iid:0.3,0.7/pd-i/0.3/100",
    "mixture:0.5,0.5/0.8,0.2/0.3,0.7/pd-dp/0.5/100",
    "contagious:0.9:0.3,0.7/pd-dp/2/150",
    "contagious:0.9:0.3,0.7/pd-dp/2/200",
]


def _run(point: str, variant: str, former: str | None = None) -> dict:
    """One fresh ``bench_block_ipm.py --peak`` process: ``variant`` "pins", "no pins" or "former" (the library
    in the directory ``former``, first on the child's ``PYTHONPATH``)."""
    prior, program, eps, n = point.rsplit("/", 3)
    cmd = [sys.executable, str(HERE / "bench_block_ipm.py"), "--n", n, "--program", program]
    cmd += ["--prior", prior, "--eps", eps, "--peak"] + (["--no-pins"] if variant == "no pins" else [])
    env = None
    if variant == "former":
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(former), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"point": point, "variant": variant, "error": done.stderr.strip().splitlines()[-1:]}
    out = json.loads(lines[-1])
    out.pop("returned_point", None)
    out.pop("peak_places", None)
    return {"point": point, "variant": variant, "pins": variant != "no pins", **out}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--points", nargs="+", default=DEFAULT_POINTS, help="prior/program/eps/n")
    ap.add_argument("--former", help="git revision: its pinned method instead of --no-pins")
    ap.add_argument("--rounds", type=int, default=1, help="pairs per point, the order alternating")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "pins.json")
    args = ap.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    other = "no pins" if args.former is None else "former"
    rows: list[dict] = []
    print("| point | variant | iterations | CPU s | wall s | peak MiB | certified | lower | upper | width |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    with contextlib.ExitStack() as stack:
        former = None if args.former is None else stack.enter_context(revision_tree(args.former))
        for point in args.points:
            for k in range(args.rounds):
                for variant in ("pins", other) if k % 2 == 0 else (other, "pins"):
                    r = _run(point, variant, former)
                    rows.append(r if variant != "former" else {**r, "revision": args.former})
                    write(args.out, rows)
                    _print(r)


def _print(r: dict) -> None:
    if "error" in r:
        print(f"| {r['point']} | {r['variant']} | error: {r['error']} |", flush=True)
        return
    width = (r["upper"] - r["lower"]) / abs(r["upper"])
    print(
        f"| {r['point']} | {r['variant']} | {r['iterations']} | {r['cpu_s']} | {r['wall_s']} | "
        f"{r['peak_rss_mib']:.0f} | {'✓' if r['certified'] else '✗'} | {r['lower']:.10f} | "
        f"{r['upper']:.10f} | {width:.1e} |",
        flush=True,
    )


if __name__ == "__main__":
    main()
