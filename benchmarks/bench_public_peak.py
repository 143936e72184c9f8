"""Where the public call's resident memory peaks: one m = 2 reduced PD-DP or PD-I point, sampled every 10 ms.

Run: ``python benchmarks/bench_public_peak.py --n 200 --prior contagious:0.9:0.3,0.7 --eps 1 [--out F]``;
``--program pd-i --eps 0.3 --above-eps-x`` solves PD-I at ε = ε_X + 0.3.

Runs ``ReducedPDDP(prior).solve(eps, method="lp")`` (or ``ReducedPDI``; ``--method auto`` for the default path,
``--progress`` for the library's progress lines on stderr) in this process with
``bench_block_ipm.py``'s sampler on a thread (the resident memory and the main thread's innermost frames every
10 ms) and prints one JSON line: wall seconds, status, bounds, the process's peak RSS, the largest sample with where the call was then, and the six places with
the largest samples.  ``--out`` also writes the line to a file (atomically).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_block_ipm import _PeakSampler  # noqa: E402 - the benchmarks' own sampler


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--prior", default="contagious:0.9:0.3,0.7")
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--program", choices=("pd-dp", "pd-i"), default="pd-dp")
    ap.add_argument("--above-eps-x", action="store_true", help="PD-I: ε is ε_X + EPS")
    ap.add_argument(
        "--method", default="lp", help="the solve's method= (lp: the LP alone; auto: the default path)"
    )
    ap.add_argument("--progress", action="store_true", help="the library's progress lines on stderr")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    from problems.export import atomic_write_text
    from problems.orbit import ReducedPDDP, ReducedPDI
    from problems.orbit.symmetric_prior import parse_symmetric_prior

    prior = parse_symmetric_prior(args.prior, args.n, 2)
    program = ReducedPDDP(prior) if args.program == "pd-dp" else ReducedPDI(prior)
    eps = args.eps + (program.eps_X if args.above_eps_x and args.program == "pd-i" else 0.0)
    if args.progress:
        from problems.progress import enable_ticker

        enable_ticker()
    sampler = _PeakSampler()
    t = time.perf_counter()
    res = program.solve(eps, method=args.method)
    wall = time.perf_counter() - t
    sampler.stop()
    line = json.dumps(
        {
            "n": args.n,
            "prior": args.prior,
            "program": args.program,
            "eps": eps,
            "method": args.method,
            "path": (res.extras or {}).get("path"),
            "attempts": [list(a) for a in res.stats.attempts] if res.stats is not None else None,
            "bounds": [res.bounds.lower, res.bounds.upper],
            "wall_s": round(wall, 1),
            "status": str(res.status),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1),
            "sampled_peak_mib": round(sampler.peak, 1),
            "peak_at": sampler.where,
            "peak_outside_certificate_mib": round(sampler.outside, 1),
            "peak_outside_certificate_at": sampler.outside_where,
            "peak_places": sampler.top(6),
        }
    )
    print(line)
    if args.out:
        atomic_write_text(args.out, line + "\n")


if __name__ == "__main__":
    main()
