"""The exact repair's choice of local repair, side by side: the cheapest one against the first one that needs no mixing.

Run: ``python benchmarks/bench_repair.py [--n 60 100] [--eps 0.5 1 2] [--priors …]``.  Prints a markdown table
and writes ``benchmarks/results/repair_choice.json`` (rewritten atomically after every point).

For every point (m = 2, reduced PD-DP, ``prog.solve(eps, method="lp")``) two fresh subprocesses run the public
call, interleaved: one with :func:`problems.lp.bounds.repair` as it is (a local repair that costs more than
:data:`~problems.lp.bounds.REPAIR_LOSS` above the back end's point does not end the search; the closure
renormalises in up to :data:`~problems.lp.bounds.CLOSURE_ROUNDS` rounds), one as it was (the first local repair
that needs no mixing is kept, whatever it costs; one round of the closure).  Each records its wall seconds,
status, certified bounds, the attempt that answered and every attempt's outcome (``bench_reduced_scale.py``'s
child).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import cell, run, write  # noqa: E402 - the benchmarks' own helpers


def child(point: dict) -> dict:
    from bench_reduced_scale import child_toolkit

    if point["variant"] == "former":
        from problems.lp import bounds

        bounds.REPAIR_LOSS = math.inf  # the first repair without mixing ends the search
        bounds.CLOSURE_ROUNDS = 1
    return child_toolkit(point)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, nargs="+", default=[60, 100])
    ap.add_argument("--eps", type=float, nargs="+", default=[0.5, 1.0, 2.0])
    ap.add_argument(
        "--priors",
        nargs="+",
        default=["contagious:0.9:0.5,0.5", "contagious:0.2:0.3,0.7", "mixture:0.5,0.5/0.8,0.2/0.3,0.7"],
    )
    ap.add_argument("--out", default=str(HERE / "results" / "repair_choice.json"))
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child(json.loads(args.child))))
        return
    rows: list[dict] = []
    print(
        "| n | prior | ε | now: s, answered by | former: s, answered by | bounds (now) | attempts (now / former) |"
    )
    print("|---|---|---|---|---|---|---|")
    for n in args.n:
        for prior in args.priors:
            for eps in args.eps:
                base = {"program": "pd-dp", "prior": prior, "n": n, "m": 2, "eps_arg": eps}
                got = {}
                for variant in ("now", "former"):
                    got[variant] = run(__file__, {**base, "variant": variant})
                    rows.append({**base, "variant": variant, "load": os.getloadavg()[0], **got[variant]})
                    write(Path(args.out), rows)
                c = got["now"]
                bounds = f"[{c['lower']:.9e}, {c['upper']:.9e}]" if "lower" in c else "—"
                tries = " / ".join(str(len(got[v].get("attempts", []))) for v in ("now", "former"))
                print(
                    f"| {n} | {prior} | {eps:g} | {cell(c)} | {cell(got['former'])} | {bounds} | {tries} |",
                    flush=True,
                )
    print(f"(written {args.out}, {time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
