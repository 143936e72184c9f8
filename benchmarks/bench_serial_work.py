"""The block methods' serial work moved onto their threads, side by side with the library before the change.

Run: ``python benchmarks/bench_serial_work.py [--former REV] [--n 100] [--eps 0.5 1 2] [--priors …] [--dense
SEED …]``.  Prints a markdown table and writes ``benchmarks/results/serial_work.json`` (rewritten atomically
after every point).

At m = 2, n = 100 the layered block method's main thread worked about 17 s of a 44 s solve on its own while the
two threads of the pool waited (step lengths, the Newton solves' elementwise work and products with G and Gᵀ,
the centrality correctors' targets, filling the band storage, the certificate asked at every late iterate).  The
change: that work runs on the pool in parts (:mod:`problems.ipm.elementwise`; halves of the blocks in
:meth:`problems.ipm.iteration._Newton.raw`), each block's band storage is filled on the thread that factorises
it, and a refused certificate is asked again
only once the gap has halved or two iterations later.  The arithmetic of every iterate is unchanged, so a point
certifies at the same iterate with the same bounds unless the certificate's thinning moves its stop.

For every point two fresh subprocesses run the public call, interleaved: "now" with the library of this tree,
"former" with the package ``problems`` as it is at the git revision ``--former`` (default: the commit before the
change), unpacked by ``git archive`` into a temporary directory on the child's ``PYTHONPATH``.  Points: m = 2
reduced PD-DP (``ReducedPDDP(prior).solve(ε, method="lp")``) for each prior and ε, and with ``--dense`` the
dense PD-DP at N = 256 (n = 8, m = 2; a Dirichlet(1, …, 1) prior of each seed, ε = 1; ``PDDP(prior).solve(1,
method="lp")``, the structured method), whose centrality correctors the change also fixes (their targets were
written to a copy when the iterate was stored in Fortran order).
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from side_by_side import arguments, now_against_former  # noqa: E402 - the benchmarks' own helpers

FORMER = "b2fd583"


def child(point: dict) -> dict:
    """One public call in this process (the library on its ``PYTHONPATH``): wall and CPU seconds, the answer."""
    if point["program"] == "dense-pd-dp":
        from bench_dense import make_prior

        from problems.programs import PDDP

        t0 = time.perf_counter()
        prog = PDDP(make_prior(point["n"], point["m"], int(point["prior"].removeprefix("dirichlet"))))
    else:
        from problems.orbit import ReducedPDDP
        from problems.orbit.symmetric_prior import parse_symmetric_prior

        t0 = time.perf_counter()
        prog = ReducedPDDP(parse_symmetric_prior(point["prior"], point["n"], point["m"]))
    build = time.perf_counter() - t0
    t1, c1 = time.perf_counter(), time.process_time()
    res = prog.solve(point["eps_arg"], method="lp")
    solve, cpu = time.perf_counter() - t1, time.process_time() - c1
    from bench_reduced_scale import answer_fields

    import problems

    return {
        "library": str(Path(problems.__file__).parent),
        "build_s": build,
        "solve_s": solve,
        "cpu_s": cpu,
        **answer_fields(res),
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _iterations(got: dict) -> str:
    return " / ".join(str(got[v].get("iterations", "?")) for v in ("now", "former"))


def _cpu(got: dict) -> str:
    return " / ".join(f"{got[v].get('cpu_s', float('nan')):.1f}" for v in ("now", "former"))


def _options(ap) -> None:  # noqa: ANN001 - an argparse.ArgumentParser
    ap.add_argument("--former", default=FORMER, help="the git revision of the former library")
    ap.add_argument("--dense", type=int, nargs="*", default=[], help="seeds of the dense N = 256 points")


def main() -> None:
    args = arguments(
        __doc__,
        [100],
        [0.5, 1.0, 2.0],
        [
            "contagious:0.9:0.5,0.5",
            "contagious:0.2:0.3,0.7",
            "mixture:0.5,0.5/0.8,0.2/0.3,0.7",
            "iid:0.3,0.7",
        ],
        HERE / "results" / "serial_work.json",
        more=_options,
    )
    former, dense = args.former, args.dense
    points = [
        {"program": "pd-dp", "prior": prior, "n": n, "m": 2, "eps_arg": eps}
        for n in args.n
        for prior in args.priors
        for eps in args.eps
    ]
    points += [
        {"program": "dense-pd-dp", "prior": f"dirichlet{seed}", "n": 8, "m": 2, "eps_arg": 1.0}
        for seed in dense
    ]
    extra = [("iterations (now / former)", _iterations), ("CPU s (now / former)", _cpu)]
    now_against_former(__file__, args, child, extra, former=former, points=points)


if __name__ == "__main__":
    main()
