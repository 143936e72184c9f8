"""Measure every case of the bad-input catalogue and regenerate the table of ``docs/errors.md``.

``python benchmarks/bad_inputs.py`` (from the repository root) runs each command-line case as a real
``python -m …`` process and records its wall time and peak resident memory (``wait4``'s ``ru_maxrss``: the
interpreter and NumPy included), and each Python case in this process, recording the call's wall time and the
peak of its traced allocations (``tracemalloc``).  It checks each outcome against the catalogue (a mismatch
is printed and the table is not written), then rewrites the table between the markers of ``docs/errors.md``
with a summary line.  ``--check`` only runs and compares.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from bad_input_catalogue import (  # noqa: E402
    API_CASES,
    BUDGET,
    CLI_CASES,
    argv_of,
    make_files,
    run_api,
    subprocess_env,
    table_row,
    write_doc,
)


def measure_cli(argv: list[str]) -> tuple[int, str, float, int, str]:
    """(exit code, stderr, wall seconds, peak RSS bytes, stdout) of ``python *argv`` in a fresh process."""
    with tempfile.TemporaryFile("w+") as err, tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, *argv], stdout=out, stderr=err, env=subprocess_env(), cwd=ROOT
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        out.seek(0)
        return proc.returncode, err.read(), wall, usage.ru_maxrss * 1024, out.read()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="run and compare only; do not write docs/errors.md"
    )
    args = parser.parse_args(argv)
    os.environ["PRIVACY_PROBLEMS_MEMORY_LIMIT"] = BUDGET
    d = make_files(Path(tempfile.mkdtemp(prefix="bad_inputs.")))
    rows, bad, cli_walls, cli_peaks = [], [], [], []
    for case in CLI_CASES:
        code, err, wall, peak, out = measure_cli(argv_of(case, d))
        text = err if case.expect != 0 else out + err  # an answer is checked on its output
        ok = code == case.expect and re.search(case.match, text) and "Traceback" not in err
        if not ok:
            bad.append(f"{case.id}: exit {code}, expected {case.expect}: {err.strip()[:300]}")
        cli_walls.append(wall)
        cli_peaks.append(peak)
        rows.append(table_row(case, wall, peak))
        print(f"{case.id:40s} exit {code}  {wall:5.2f} s  {peak / 2**20:6.0f} MiB", flush=True)
    api_walls = []
    for case in API_CASES:
        out = run_api(case, d)
        if out.code != case.expect or not re.search(case.match, out.text):
            bad.append(f"{case.id}: {out.code}, expected {case.expect}: {out.text[:300]}")
        api_walls.append(out.seconds)
        rows.append(table_row(case, out.seconds, out.peak))
        print(f"{case.id:40s} {out.code:24s}  {out.seconds:5.2f} s  {out.peak / 2**20:6.0f} MiB", flush=True)
    for line in bad:
        print("MISMATCH", line, file=sys.stderr)
    summary = (
        f"{len(CLI_CASES)} command lines and {len(API_CASES)} Python calls. Command lines (a fresh process each, "
        f"imports included): median {statistics.median(cli_walls):.2f} s, slowest {max(cli_walls):.2f} s; peak "
        f"resident memory median {statistics.median(cli_peaks) / 2**20:.0f} MiB, largest "
        f"{max(cli_peaks) / 2**20:.0f} MiB. Python calls (traced allocations of the call): slowest "
        f"{max(api_walls):.2f} s. Measured by `python benchmarks/bad_inputs.py` on {os.cpu_count()} shared cores "
        f"(load {os.getloadavg()[0]:.1f})."
    )
    print(summary)
    if bad:
        return 1
    if not args.check:
        write_doc(rows, summary)
        print(f"updated {ROOT / 'docs' / 'errors.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
