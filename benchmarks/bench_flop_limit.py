"""The machine's limit for the m = 2 layered block method: its work per iteration against measured rates.

Run: ``python benchmarks/bench_flop_limit.py --n 100 200 [--counts 200:75:75:914] [--kernels] [--former REV]
[--out FILE.json]``.

For each n the reduced PD-DP LP (i.i.d. (0.3, 0.7); the block structure depends on n only) is built and its
layered block system (:class:`problems.ipm.block.RaggedBlockSystem`) laid out, and the work of one
factorisation and one Newton solve is counted from the blocks' sizes, half-bandwidths and layers
(flops = 2 × multiply–adds):

* the banded Cholesky factors, Σ_b n_b·kd_b·(kd_b + 3);
* X_b = L_b⁻¹A_bᵀ on its staircase (column q from its layer's first row on), Σ_b Σ_q 2·kd_b·(n_b − first_q);
* the Schur complement Σ_b X_bᵀX_b on the staircase, with symmetry, Σ_b Σ_q 2·(q + 1)·(n_b − first_q);
* a Newton solve reads the band factors four times (two banded solves forward and back), 32·Σ_b n_b(kd_b + 1)
  bytes, and does 8·Σ_b n_b·kd_b flops (the products with G, Gᵀ and A and the iteration's vector work are left
  out: the bound below is a lower bound).

The machine's rates are measured in the same run: DGEMM (3 000 × 3 000, one and two OpenBLAS threads) for the
factorisation's level-3 work, and the memory bandwidth of a NumPy triad (c = a + s·b on 400 MB arrays, 24 bytes
per entry) for the solves, which are bound by memory.  With ``--counts N:ITERATIONS:FACTORS:SOLVES`` (from
``benchmarks/bench_block_ipm.py --breakdown``) it prints the shortest time those counts could take on this
machine: the factorisations at the two-thread DGEMM rate plus the solves' bytes at the measured bandwidth.
``--kernels`` also times the method's own kernels on that system (two threads, positive D and E drawn
log-uniform in [e⁻², e²]): one factorisation, one H⁻¹f over all blocks, and the products G u, Gᵀv and A u
(shortest of five), against the work and the bytes counted above.  ``--former REV`` times the factorisation of
this tree against that of the library at the git revision REV, side by side: fresh processes alternating
(``--rounds`` each), each building the system and timing ``--repeats`` factorisations of the same H (the median
wall time, and the median user and system CPU seconds of the process per factorisation).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time


def _best(fn, repeats: int = 3) -> float:  # noqa: ANN001
    """The shortest wall time of ``repeats`` calls."""
    out = math.inf
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def machine_rates() -> dict:
    """DGEMM GFLOP/s on one and two BLAS threads; the bandwidth of a triad in GB/s."""
    import numpy as np

    from problems.ipm.lapack import BlasThreads

    rng = np.random.default_rng(0)
    A = rng.standard_normal((3000, 3000))
    B = rng.standard_normal((3000, 3000))
    rates = {}
    for threads in (1, 2):
        with BlasThreads(threads):
            t = _best(lambda: A @ B)
        rates[f"dgemm_gflops_{threads}_threads"] = round(2 * 3000**3 / t / 1e9, 1)
    a = np.ones(50_000_000)
    b = np.ones(50_000_000)
    c = np.empty_like(a)

    def triad() -> None:
        np.multiply(b, 0.5, out=c)
        np.add(c, a, out=c)

    # two passes: c = s·b (16 bytes per entry), c += a (24): 40 bytes per entry
    t = _best(triad)
    rates["triad_gbytes_per_s"] = round(40 * a.size / t / 1e9, 1)
    return rates


def layered_system(n: int):  # noqa: ANN201 - (RatioLPSpec, RaggedBlockSystem)
    """The m = 2 reduced PD-DP LP at n (i.i.d. (0.3, 0.7)) and its layered block system."""
    from problems.ipm.block import RaggedBlockSystem
    from problems.orbit import ReducedPDDP, symmetric_iid

    spec = ReducedPDDP(symmetric_iid(n, [0.3, 0.7])).lp.spec
    sysm = RaggedBlockSystem(spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.e, bounded=True)
    return spec, sysm


def _scaling(sysm, rng):  # noqa: ANN001, ANN202
    """Positive D (one per ratio row) and E (one per variable) drawn log-uniform in [e⁻², e²]."""
    import numpy as np

    return np.exp(rng.uniform(-2.0, 2.0, sysm.P)), np.exp(rng.uniform(-2.0, 2.0, sysm.K))


def normal_parts(n: int):  # noqa: ANN201 - (RaggedBlockSystem, Layers, diag, off)
    """:func:`layered_system`'s block system at n, its layers and the diagonal and off-diagonal parts of its normal
    matrix for :func:`_scaling`'s D and E (seed 0): the inputs of one factorisation."""
    import numpy as np

    _spec, sysm = layered_system(n)
    D, E = _scaling(sysm, np.random.default_rng(0))
    diag, off = sysm.H_parts(D, E)
    return sysm, sysm.layers, diag, off


def kernels(sysm) -> dict:  # noqa: ANN001 - a layered RaggedBlockSystem
    """Wall seconds of the layered method's kernels on ``sysm`` with two threads (shortest of five)."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    from problems.ipm.lapack import BlasThreads

    rng = np.random.default_rng(0)
    D, E = _scaling(sysm, rng)
    f = rng.standard_normal(sysm.K)
    v = rng.standard_normal(sysm.P)
    out = {}
    with ThreadPoolExecutor(2) as pool, BlasThreads(1):
        sysm.use_pool(pool)
        diag, off = sysm.H_parts(D, E)
        out["factor_s"] = _best(lambda: sysm.factor(diag, off, 2, {}, pool), 2)  # each factor freed at once
        fac = sysm.factor(diag, off, 2, {}, pool)
        out["hinv_s"] = _best(lambda: fac.hinv(f), 5)
        out["G_u_s"] = _best(lambda: sysm.G(f), 5)
        out["GT_v_s"] = _best(lambda: sysm.GT(v), 5)
        out["A_u_s"] = _best(lambda: sysm.A(f), 5)
        sysm.use_pool(None)
    return {k: round(x, 4) for k, x in out.items()}


def factor_times(n: int, repeats: int) -> dict:
    """Median wall, user and system seconds of one factorisation (two threads) of :func:`layered_system`'s."""
    import resource
    import statistics
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    import problems
    from problems.ipm.lapack import BlasThreads, trim_heap

    _spec, sysm = layered_system(n)
    D, E = _scaling(sysm, np.random.default_rng(0))
    wall, user, system = [], [], []
    with ThreadPoolExecutor(2) as pool, BlasThreads(1):
        sysm.use_pool(pool)
        diag, off = sysm.H_parts(D, E)
        sysm.factor(diag, off, 2, {}, pool)  # the tile plans are made once per layout
        for _ in range(repeats):
            trim_heap()
            r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            sysm.factor(diag, off, 2, {}, pool)
            t1, r1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
            wall.append(t1 - t0)
            user.append(r1.ru_utime - r0.ru_utime)
            system.append(r1.ru_stime - r0.ru_stime)
        sysm.use_pool(None)
    med = statistics.median
    return {
        "library": os.path.dirname(problems.__file__),
        "n": n,
        "wall_s": round(med(wall), 3),
        "user_s": round(med(user), 3),
        "sys_s": round(med(system), 3),
        "walls": [round(x, 3) for x in wall],
    }


def against_former(ns: list[int], former: str, rounds: int, repeats: int) -> list[dict]:
    """:func:`factor_times` in fresh processes, this tree ("now") and revision ``former`` alternating."""
    from side_by_side import revision_tree, run

    rows = []
    with revision_tree(former) as path:
        for n in ns:
            for k in range(rounds):
                order = ("now", "former") if k % 2 == 0 else ("former", "now")
                for v in order:
                    got = run(__file__, {"n": n, "repeats": repeats}, path=path if v == "former" else None)
                    row = {"variant": v, "revision": former if v == "former" else "this tree", **got}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    return rows


def work(n: int, timed: bool = False) -> dict:
    """Flops of one factorisation (band Cholesky, staircase solves, Schur complement) and of one Newton solve,
    and the bytes a Newton solve reads from the band factors, for the m = 2 reduced PD-DP LP at n."""
    import numpy as np

    spec, sysm = layered_system(n)
    lay = sysm.layers
    assert lay is not None, "the m = 2 joint-type LP is layered"
    cholesky = staircase = schur = solve_flops = band = 0.0
    for b in range(lay.nblocks):
        n_b, kd = float(lay.sizes[b]), float(lay.kd[b])
        _lb, _present, first = lay.block_layers[b]
        rows = n_b - first.astype(float)
        cholesky += n_b * kd * (kd + 3)
        staircase += 2 * kd * float(rows.sum())
        schur += 2 * float(((np.arange(rows.size) + 1.0) * rows).sum())
        solve_flops += 8 * n_b * kd
        band += n_b * (kd + 1)
    row = {
        "n": n,
        "variables": int(spec.K),
        "ratio_rows": int(spec.P),
        "blocks": int(lay.nblocks),
        "band_mib": round(8 * band / 2**20, 1),
        "factor_gflop": round((cholesky + staircase + schur) / 1e9, 2),
        "cholesky_gflop": round(cholesky / 1e9, 2),
        "staircase_gflop": round(staircase / 1e9, 2),
        "schur_gflop": round(schur / 1e9, 2),
        "solve_gflop": round(solve_flops / 1e9, 3),
        "solve_gbytes": round(32 * band / 1e9, 2),
    }
    if timed:
        row.update(kernels(sysm))
        row["factor_gflops_achieved"] = round(row["factor_gflop"] / row["factor_s"], 1)
        row["hinv_gbytes_per_s_achieved"] = round(16 * band / 1e9 / row["hinv_s"], 1)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, nargs="+", default=[100, 200])
    ap.add_argument("--counts", nargs="*", default=[], help="N:ITERATIONS:FACTORS:SOLVES of a measured run")
    ap.add_argument("--kernels", action="store_true", help="time the method's kernels too")
    ap.add_argument("--former", default=None, help="time the factorisation against this git revision's")
    ap.add_argument("--rounds", type=int, default=2, help="with --former: processes per variant")
    ap.add_argument("--repeats", type=int, default=4, help="with --former: factorisations per process")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.child is not None:
        point = json.loads(args.child)
        print(json.dumps(factor_times(point["n"], point["repeats"])))
        return
    if args.former is not None:
        rows = against_former(args.n, args.former, args.rounds, args.repeats)
        if args.out:
            _write(args.out, {"machine": os.uname().nodename, "cpus": os.cpu_count(), "rows": rows})
        return
    rates = machine_rates()
    print(json.dumps(rates))
    rows = []
    for n in args.n:
        row = work(n, args.kernels)
        rows.append(row)
        print(json.dumps(row))
    limits = []
    by_n = {r["n"]: r for r in rows}
    for item in args.counts:
        n, iterations, factors, solves = (int(x) for x in item.split(":"))
        row = by_n.get(n) or work(n)
        t_factor = factors * row["factor_gflop"] / rates["dgemm_gflops_2_threads"]
        t_solve = solves * row["solve_gbytes"] / rates["triad_gbytes_per_s"]
        limit = {
            "n": n,
            "iterations": iterations,
            "factorisations": factors,
            "solves": solves,
            "factor_s_at_dgemm_rate": round(t_factor, 1),
            "solve_s_at_triad_bandwidth": round(t_solve, 1),
            "lower_bound_s": round(t_factor + t_solve, 1),
        }
        limits.append(limit)
        print(json.dumps(limit))
    if args.out:
        out = {
            "machine": os.uname().nodename,
            "cpus": os.cpu_count(),
            **rates,
            "work": rows,
            "limits": limits,
        }
        _write(args.out, out)


def _write(path: str, obj: dict) -> None:
    """``obj`` as JSON at ``path``, written to a temporary file and renamed."""
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(obj, fh, indent=2)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
