"""PD-DP beyond the joint-type LP: groups of rows (subadditivity) against the mixture sandwich, one process per point.

Run: ``python benchmarks/bench_group_product.py [--n 400] [--eps 1] [--prior SPEC]``.  Prints one JSON line per
point and adds it to ``benchmarks/results/group_product.json`` (a point measured again replaces its row).

Each point is ``ReducedPDDP(prior).solve(ε)`` (the public path, ``method="auto"``) in a fresh child process: where
the mixture sandwich does not close and the joint types at n exceed the reduced path's limit, the answer comes
from q equal groups of n₀ ≤ 200 rows (``problems.orbit.group_product``): q times the certified n₀-row upper bound
against the sandwich's lower side.  Recorded: the status, the bounds and their relative gap, the group split, wall
and CPU seconds, and the child's peak RSS (``ru_maxrss``); the mixture sandwich's enclosure at n (computed in the
parent, milliseconds) is the independent check — the value must lie inside it.  No plain HiGHS call reaches these
sizes (10.8 M joint types at n = 400), so none is run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import resource
import time
from pathlib import Path

OUT = Path(__file__).parent / "results" / "group_product.json"


def _point(prior: str, n: int, eps: float, queue: mp.Queue) -> None:
    from problems.orbit import ReducedPDDP
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    t, c = time.perf_counter(), time.process_time()
    res = ReducedPDDP(parse_symmetric_prior(prior, n, 2)).solve(eps)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    lo, up = res.bounds.lower, res.bounds.upper
    queue.put(
        {
            "prior": prior,
            "n": n,
            "eps": eps,
            "status": str(res.status),
            "value": res.value,
            "lower": lo,
            "upper": up,
            "relative_gap": (up - lo) / up,
            "reduction": res.extras.get("reduction"),
            "groups": res.extras.get("groups"),
            "group_rows": res.extras.get("group_rows"),
            "wall_s": round(wall, 1),
            "cpu_s": round(cpu, 1),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        }
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prior", default="mixture:0.5,0.5/0.8,0.2/0.3,0.7")
    ap.add_argument("--n", type=int, nargs="+", default=[400])
    ap.add_argument("--eps", type=float, nargs="+", default=[1.0])
    args = ap.parse_args()
    from problems.orbit.mixture_prior import mixture_enclosure
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    rows = []
    ctx = mp.get_context("spawn")
    for n in args.n:
        for eps in args.eps:
            queue = ctx.Queue()
            proc = ctx.Process(target=_point, args=(args.prior, n, eps, queue))
            proc.start()
            row = queue.get()
            proc.join()
            enc = mixture_enclosure(parse_symmetric_prior(args.prior, n, 2), eps)
            row["sandwich"] = [enc.lower, enc.upper]
            row["inside_sandwich"] = bool(enc.lower <= row["value"] <= enc.upper)
            print(json.dumps(row), flush=True)
            rows.append(row)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    meta = {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()}
    # keep the points of earlier runs (other priors, n, ε); a point measured again replaces its old row
    key = ("prior", "n", "eps")
    done = {tuple(r[k] for k in key) for r in rows}
    old = json.loads(OUT.read_text())["points"] if OUT.exists() else []
    rows = [r for r in old if tuple(r[k] for k in key) not in done] + rows
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"meta": meta, "points": rows}, indent=1))
    os.replace(tmp, OUT)


if __name__ == "__main__":
    main()
