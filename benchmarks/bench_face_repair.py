"""The face repair against the repair alone, on the same back-end answers: how many certify, and at what cost.

Run: ``python benchmarks/bench_face_repair.py [--quick]``.  Prints a markdown table and writes
``benchmarks/results/face_repair.json`` (atomically).

For every LP below, each back end (HiGHS, Clarabel, SCS) is called once (``problems.solvers.backends``) and its
point and multipliers are certified twice, side by side: ``certify(..., face=False)`` (the exact repair of
``problems.lp.bounds`` alone) and ``certify(...)`` (the repair, then the face points of ``problems.lp.face``).
Reported per answer: the relative width (upper − lower)/lower of both enclosures, whether each is refined (the
chain needs no further attempt), and the seconds of the certificate with the face points.

LPs: dense PD-DP (ε = 0.3, 1, 3) and PD-I (ε_X + 0.05, ε_X + 0.5) at n = 3, 4 (m = 2) and n = 2 (m = 3) with
Dirichlet(1) priors (seeds 0, 1); reduced (m = 2) PD-DP (ε = 0.5, 2) and PD-I (ε_X + 0.3) at n = 10 and 30 with
the priors ``iid:0.3,0.7``, ``mixture:0.5,0.5/0.8,0.2/0.3,0.7`` and ``contagious:0.2``.  ``--quick``: the
reduced LPs at n = 30 only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from problems import DatabaseSpace, priors
from problems.lp.bounds import certify
from problems.orbit import ReducedPDDP, ReducedPDI
from problems.orbit.symmetric_prior import parse_symmetric_prior
from problems.programs import PDDP, PDI
from problems.solvers.backends import BackendError, backend

SOLVERS = ("HIGHS", "CLARABEL", "SCS")
REDUCED_PRIORS = ("iid:0.3,0.7", "mixture:0.5,0.5/0.8,0.2/0.3,0.7", "contagious:0.2")
OUT = Path(__file__).resolve().parent / "results" / "face_repair.json"


def _cases(quick: bool):  # noqa: ANN202 - (label, spec, ε)
    if not quick:
        for n, m in ((3, 2), (4, 2), (2, 3)):
            space = DatabaseSpace(n, m)
            for seed in (0, 1):
                prior = priors.from_pmf(space, np.random.default_rng(seed).dirichlet(np.ones(space.size)))
                for eps in (0.3, 1.0, 3.0):
                    yield f"dense PD-DP n={n} m={m} seed {seed} ε={eps}", PDDP(prior).lp.spec, eps
                prog = PDI(prior)
                for off in (0.05, 0.5):
                    yield f"dense PD-I n={n} m={m} seed {seed} ε_X+{off}", prog.lp.spec, prog.eps_X + off
    for prior in REDUCED_PRIORS:
        for n in (30,) if quick else (10, 30):
            sym = parse_symmetric_prior(prior, n, 2)
            for eps in (0.5, 2.0):
                yield f"reduced PD-DP {prior} n={n} ε={eps}", ReducedPDDP(sym).lp.spec, eps
            prog = ReducedPDI(sym)
            yield f"reduced PD-I {prior} n={n} ε_X+0.3", prog.lp.spec, prog.eps_X + 0.3


def _width(cert) -> float:  # noqa: ANN001
    lo, up = cert.bounds.lower, cert.bounds.upper
    return (up - lo) / lo if lo > 0 else float("inf")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    rows = []
    for label, spec, eps in _cases(args.quick):
        for name in SOLVERS:
            t0 = time.perf_counter()
            try:
                raw = backend(name).solve(spec, eps, time_limit=120)
            except BackendError as exc:
                rows.append({"lp": label, "solver": name, "error": str(exc).splitlines()[0][:120]})
                continue
            solve_s = time.perf_counter() - t0
            alone = certify(spec, eps, raw.z, raw.nu, raw.lam, face=False)
            t1 = time.perf_counter()
            both = certify(spec, eps, raw.z, raw.nu, raw.lam)
            cert_s = time.perf_counter() - t1
            row = {
                "lp": label,
                "solver": name,
                "variables": spec.K,
                "solve_s": solve_s,
                "repair_width": _width(alone),
                "repair_refined": alone.refined,
                "face_width": _width(both),
                "face_refined": both.refined,
                "certify_with_face_s": cert_s,
            }
            rows.append(row)
            print(
                f"| {label} | {name} | {row['repair_width']:.1e} {'✓' if alone.refined else '✗'} | "
                f"{row['face_width']:.1e} {'✓' if both.refined else '✗'} | {cert_s:.2f} |",
                flush=True,
            )
    done = [r for r in rows if "error" not in r]
    summary = {
        "answers": len(done),
        "refined_repair_alone": sum(r["repair_refined"] for r in done),
        "refined_with_face": sum(r["face_refined"] for r in done),
        "back_end_errors": len(rows) - len(done),
    }
    print(summary)
    payload = {
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "summary": summary,
        "rows": rows,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=OUT.parent, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(payload, fh, indent=1, default=float)
    os.replace(tmp, OUT)


if __name__ == "__main__":
    main()
