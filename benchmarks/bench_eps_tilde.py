"""Benchmark: ε̃_X (`problems.prior_constants.eps_tilde`) on the priors whose posterior polynomials have multiple
roots, the library as it is against the library of a git revision, side by side in one run.

Cases: i.i.d. rows entered as explicit pmfs (an n-fold root at π_min), the n = 12 exchangeable mixtures with
components near 0 or 1, and Dirichlet priors (simple roots).  Each case prints the value, the wall time and
whether :class:`~problems.prior_constants.EpsTildeBoundWarning` was raised.

Run: ``python benchmarks/bench_eps_tilde.py [--former REV] [--quick]`` (writes ``benchmarks/results/eps_tilde.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "results" / "eps_tilde.json"

CASES = [
    ("iid", 7, 4, "0.1,0.2,0.3,0.4"),
    ("iid", 8, 3, "0.2,0.2000001,0.5999999"),
    ("iid", 14, 2, "0.3,0.7"),
    ("symmetric", 12, 2, "mixture:0.000000001,0.999999999/0.2,0.8/0.9,0.1"),
    ("symmetric", 12, 2, "mixture:0,1/0,1/0.2,0.8"),
    ("symmetric", 12, 2, "contagious:0:0.000001,0.999999"),
    ("dirichlet", 12, 2, "3"),
    ("dirichlet", 8, 3, "3"),
]

CHILD = r"""
import json, sys, time, warnings
import numpy as np
from problems import DatabaseSpace, priors
from problems.prior_constants import eps_tilde
kind, n, m, arg = json.loads(sys.argv[1])
space = DatabaseSpace(n, m)
if kind == "iid":
    prior = priors.from_pmf(space, priors.iid(space, np.array([float(v) for v in arg.split(",")])).pmf)
elif kind == "symmetric":
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    prior = parse_symmetric_prior(arg, n, m).to_prior()
else:
    prior = priors.from_pmf(space, np.random.default_rng(int(arg)).dirichlet(np.full(m**n, 4.0)))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    start = time.perf_counter()
    value = eps_tilde(prior)
    wall = time.perf_counter() - start
warned = any(type(w.message).__name__ == "EpsTildeBoundWarning" for w in caught)
print(json.dumps({"value": value, "wall": wall, "warned": warned}))
"""


def run(case: tuple, path: str | None) -> dict:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = path
    out = subprocess.run(
        [sys.executable, "-P", "-c", CHILD, json.dumps(case)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--former", help="a git revision to compare with (its `problems` on the child's path)"
    )
    parser.add_argument("--quick", action="store_true", help="leave out the n = 14 case")
    args = parser.parse_args()
    cases = [c for c in CASES if not (args.quick and c[1] == 14)]
    rows = []
    with _former(args.former) as former:
        for case in cases:
            row = {"case": list(case), "now": run(case, None)}
            if former is not None:
                row["former"] = run(case, former)
            rows.append(row)
            print(json.dumps(row), flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    tmp = OUT.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"former": args.former, "rows": rows}, indent=1))
    tmp.replace(OUT)


def _former(rev: str | None):  # noqa: ANN202 - a context manager yielding a path or None
    import contextlib

    if rev is None:
        return contextlib.nullcontext(None)
    from side_by_side import revision_tree

    return revision_tree(rev)


if __name__ == "__main__":
    main()
