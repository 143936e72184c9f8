"""The layered block method with and without its pinned deflation, side by side.

Run: ``python benchmarks/bench_pins.py [--points contagious:0.9:0.3,0.7/pd-dp/2/150 …] [--out FILE]``.  Prints a
Markdown table and writes ``benchmarks/results/pins.json`` (rewritten atomically after every run).

Each point (prior / program / ε or PD-I's offset from ε_X / n) runs twice, one fresh process after the other:
``bench_block_ipm.py --peak`` (the m = 2 layered method alone, the certificate as its stopping rule), with the
near-null directions pinned (:mod:`problems.ipm.band_deflation`) and with ``--no-pins`` (as before them).  Each
row has the iterations, CPU and wall seconds of the solve, the peak resident memory of the process, whether the
returned point is certified and its proved bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_POINTS = [
    "contagious:0.9:0.3,0.7/pd-dp/2/100",
    "iid:0.3,0.7/pd-dp/1.5/100",
    "iid:0.3,0.7/pd-i/0.3/100",
    "mixture:0.5,0.5/0.8,0.2/0.3,0.7/pd-dp/0.5/100",
    "contagious:0.9:0.3,0.7/pd-dp/2/150",
    "contagious:0.9:0.3,0.7/pd-dp/2/200",
]


def _write(path: Path, rows: list[dict]) -> None:
    """The results so far, written atomically (a temporary file in the same folder, then renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(rows, fh, indent=1)
    os.replace(tmp, path)


def _run(point: str, pins: bool) -> dict:
    prior, program, eps, n = point.rsplit("/", 3)
    cmd = [sys.executable, str(HERE / "bench_block_ipm.py"), "--n", n, "--program", program]
    cmd += ["--prior", prior, "--eps", eps, "--peak"] + ([] if pins else ["--no-pins"])
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"point": point, "pins": pins, "error": done.stderr.strip().splitlines()[-1:]}
    out = json.loads(lines[-1])
    out.pop("returned_point", None)
    out.pop("peak_places", None)
    return {"point": point, "pins": pins, **out}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--points", nargs="+", default=DEFAULT_POINTS, help="prior/program/eps/n")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "pins.json")
    args = ap.parse_args()
    rows: list[dict] = []
    print("| point | pins | iterations | CPU s | wall s | peak MiB | certified | lower | upper | width |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for point in args.points:
        for pins in (True, False):
            r = _run(point, pins)
            rows.append(r)
            _write(args.out, rows)
            if "error" in r:
                print(f"| {point} | {'yes' if pins else 'no'} | error: {r['error']} |", flush=True)
                continue
            width = (r["upper"] - r["lower"]) / abs(r["upper"])
            print(
                f"| {point} | {'yes' if pins else 'no'} | {r['iterations']} | {r['cpu_s']} | {r['wall_s']} | "
                f"{r['peak_rss_mib']:.0f} | {'✓' if r['certified'] else '✗'} | {r['lower']:.10f} | "
                f"{r['upper']:.10f} | {width:.1e} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
