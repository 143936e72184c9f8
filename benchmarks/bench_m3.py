"""m = 3 reduced PD-DP: the block interior-point method (dense / sparse block factors) against one plain HiGHS call.

Run: ``python benchmarks/bench_m3.py [--n 6 8 10] [--eps 1] [--limit 600] [--memory 3000000]``.  Prior i.i.d.
(0.2, 0.3, 0.5).  Every configuration runs in its own process under ``ulimit -v`` (``--memory`` KB) and a wall
time limit (``--limit`` s), so that the peak RSS is its own.  For each n:

* ``block``: :func:`problems.ipm.block.solve_block_lp` on the reduced LP (blocks above
  :data:`~problems.ipm.block.SPARSE_MIN_BLOCK` variables factorised sparsely, :mod:`problems.ipm.sparse_block`),
  certified by :func:`problems.lp.bounds.certify`;
* ``highs``: ``scipy.optimize.linprog(method="highs")`` on the same reduced LP
  (:func:`problems.lp.spec.reduced_spec`, rows ``spec.ratio_matrix(ε)``), plain;
* the dense block factors' size and flops per factorisation (Σ 8n_b², Σ n_b³/3), the sparse factors' entries, and
  Clarabel's predicted LDLᵀ memory (:func:`problems.solvers.kkt_memory.predicted_ldl_memory`).

Times are process CPU seconds (the machine is shared; wall time is inflated by other jobs).  Writes
``benchmarks/results/m3.json`` and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROW = [0.2, 0.3, 0.5]


def _spec(n: int):  # noqa: ANN202
    from problems.orbit import ReducedPDDP, symmetric_iid

    return ReducedPDDP(symmetric_iid(n, ROW)).lp.spec


def run_block(n: int, eps: float, sparse: bool | None = None) -> dict:
    import math

    import numpy as np

    import problems.ipm.sparse_block as SB
    from problems.ipm.block import solve_block_lp
    from problems.lp.bounds import certify
    from problems.solvers.scaled_lp import drop_nonneg

    spec = _spec(n)
    factors: list[int] = []
    original = SB.SparseBlockFactor.__init__

    def counting(self, *a, **k) -> None:  # noqa: ANN001, ANN002, ANN003
        original(self, *a, **k)
        factors.append(self.factor_entries)

    SB.SparseBlockFactor.__init__ = counting
    c0 = time.process_time()
    u, nu, lam, _s, iters, _secs = solve_block_lp(
        spec.c,
        spec.A,
        spec.b,
        spec.src,
        spec.dst,
        spec.kappa,
        math.exp(eps),
        bounded=not drop_nonneg(spec, eps),
        sparse=sparse,
    )
    cpu = time.process_time() - c0
    cert = certify(spec, eps, u, nu, lam)
    return {
        "iterations": iters,
        "cpu_s": cpu,
        "cpu_per_iteration_s": cpu / max(iters, 1),
        "certified": bool(cert.certified),
        "lower": cert.bounds.lower,
        "upper": cert.bounds.upper,
        "value": float(spec.c @ np.clip(u, 0, None)),
        "sparse_factor_entries": max(factors) if factors else 0,
    }


def run_sparse(n: int, eps: float) -> dict:
    """:func:`run_block` with every system factorised sparsely (whatever its block sizes)."""
    return run_block(n, eps, sparse=True)


def run_highs(n: int, eps: float, limit: float) -> dict:
    import numpy as np
    from scipy.optimize import linprog

    spec = _spec(n)
    c0 = time.process_time()
    res = linprog(
        spec.c,
        A_ub=spec.ratio_matrix(eps),
        b_ub=np.zeros(spec.P),
        A_eq=spec.A,
        b_eq=spec.b,
        bounds=(0, None),
        method="highs",
        options={"time_limit": limit},
    )
    return {"cpu_s": time.process_time() - c0, "status": int(res.status), "value": float(res.fun or np.nan)}


def sizes(n: int) -> dict:
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    from problems.solvers.kkt_memory import predicted_ldl_memory

    spec = _spec(n)
    g = sp.csr_matrix((np.ones(spec.P), (spec.src, spec.dst)), shape=(spec.K, spec.K))
    nb, lab = connected_components(g, directed=False)
    s = np.bincount(lab).astype(float)
    return {
        "variables": spec.K,
        "ratio_rows": spec.P,
        "blocks": int(nb),
        "largest_block": int(s.max()),
        "dense_factor_bytes": float(np.sum(8 * s**2)),
        "dense_factor_flops": float(np.sum(s**3 / 3)),
        "clarabel_predicted_bytes": predicted_ldl_memory(spec),
    }


def _child(kind: str, n: int, eps: float, limit: float, memory_kb: int) -> dict:
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_kb * 1024, memory_kb * 1024))

    code = (
        "import json, resource, sys; sys.path.insert(0, 'benchmarks'); import bench_m3 as b; "
        f"out = b.run_{kind}({n}, {eps}{', ' + str(limit) if kind == 'highs' else ''}); "
        "out['peak_rss_mb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024; print(json.dumps(out))"
    )
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=limit + 60,
            preexec_fn=limits,
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        )
    except subprocess.TimeoutExpired:
        return {"error": f"wall time limit {limit:g} s", "wall_s": time.perf_counter() - t0}
    if proc.returncode != 0:
        return {
            "error": (proc.stderr.strip().splitlines() or ["?"])[-1][:160],
            "wall_s": time.perf_counter() - t0,
        }
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["wall_s"] = time.perf_counter() - t0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[6, 8, 10])
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--limit", type=float, default=600.0)
    ap.add_argument("--memory", type=int, default=3_000_000, help="ulimit -v of each run, KB")
    ap.add_argument("--no-highs", action="store_true")
    ap.add_argument("--sparse", action="store_true", help="also run the sparse block factors at every n")
    args = ap.parse_args()
    rows = []
    for n in args.n:
        row = {"n": n, "eps": args.eps, **sizes(n)}
        row["block"] = _child("block", n, args.eps, args.limit, args.memory)
        if args.sparse:
            row["sparse"] = _child("sparse", n, args.eps, args.limit, args.memory)
        row["highs"] = {} if args.no_highs else _child("highs", n, args.eps, args.limit, args.memory)
        row["load"] = os.getloadavg()[0]
        rows.append(row)
        print(json.dumps(row), flush=True)
    out = Path("benchmarks/results/m3.json")
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print(
        "\n| n | variables | ratio rows | largest block | block: iterations | CPU s | s/iteration | peak RSS MB "
        "| certified | HiGHS CPU s | HiGHS status |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        b, h = r["block"], r["highs"]
        print(
            f"| {r['n']} | {r['variables']:,} | {r['ratio_rows']:,} | {r['largest_block']:,} | "
            f"{b.get('iterations', '–')} | {b.get('cpu_s', float('nan')):.1f} | "
            f"{b.get('cpu_per_iteration_s', float('nan')):.2f} | {b.get('peak_rss_mb', float('nan')):.0f} | "
            f"{b.get('certified', b.get('error', '–'))} | {h.get('cpu_s', float('nan')):.1f} | "
            f"{h.get('status', h.get('error', '–'))} |"
        )


if __name__ == "__main__":
    main()
