"""Benchmark: individual channel capacity C1 (Theorem 2 of Wu, Xia & He (2020)) — fast path vs a plain CVXPY loop.

Fast path: :func:`problems.information.individual_capacity` (column and permutation deduplication, rigorous
upper-bound pruning, batched Blahut–Arimoto with a certified gap, conic fallback for slow vertices).
Baseline: a Python loop that builds and solves the exponential-cone capacity program
(:func:`problems.information.capacity_conic`) for *every* vertex channel of every individual, as written in
Theorem 2.  The baseline is timed on a random subset of vertex channels (always including the worst vertex found
by the fast path) and extrapolated linearly to all of them; the output says so.

Run: ``/work/venv/bin/python benchmarks/bench_capacity.py`` (writes ``benchmarks/results/capacity.json``).
"""

from __future__ import annotations

import itertools
import json
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from problems.information import PrivacyChannel, capacity_conic, individual_capacity

OUT = Path(__file__).resolve().parent / "results" / "capacity.json"
LIMIT_SECONDS = 5.0


def _all_vertices(ch: PrivacyChannel):
    """Every vertex channel of every individual, no reduction (the paper's |S_i| = |X_(i)|^|X_i|)."""
    for i in range(ch.n):
        sl = ch.slices([i])
        A, R, _ = sl.shape
        for choice in itertools.product(range(R), repeat=A):
            yield i, choice, sl[np.arange(A), list(choice)]


def bench_case(
    name: str, sizes: tuple[int, ...], k: int, *, seeds=(0, 1, 2), baseline_subset: int = 150
) -> dict:
    fast_times, results = [], []
    for seed in seeds:
        W = np.random.default_rng(seed).dirichlet(np.ones(k), size=sizes)
        ch = PrivacyChannel(W)
        t = time.perf_counter()
        r = individual_capacity(ch)
        fast_times.append(time.perf_counter() - t)
        results.append((ch, r))
    ch, r = results[0]
    t = time.perf_counter()
    r_noprune = individual_capacity(ch, prune=False)
    noprune_time = time.perf_counter() - t

    # Baseline on a subset of all vertex channels (plus the worst one), extrapolated.
    verts = list(_all_vertices(ch))
    total = len(verts)
    rng = np.random.default_rng(123)
    idx = rng.choice(total, size=min(baseline_subset, total), replace=False)
    worst = np.array([ch.array[x] for x in r.vertex_databases])
    t = time.perf_counter()
    base_vals = [capacity_conic(verts[j][2]).capacity for j in idx]
    base_time = time.perf_counter() - t
    worst_val = capacity_conic(worst).capacity
    per_vertex = base_time / len(idx)
    extrapolated = per_vertex * total
    fast = statistics.median(fast_times)
    return {
        "case": name,
        "record_sizes": list(sizes),
        "n_outputs": k,
        "total_vertices": r.total_vertices,
        "distinct_vertices": r.distinct_vertices,
        "evaluated_vertices": r.evaluated_vertices,
        "pruned_vertices": r.pruned_vertices,
        "C1_nats": r.c1,
        "certified_gap_nats": r.upper_bound - r.lower_bound,
        "fast_seconds_median": fast,
        "fast_seconds_all_seeds": fast_times,
        "fast_vertices_per_second": r.total_vertices / fast,
        "no_prune_seconds": noprune_time,
        "no_prune_C1_nats": r_noprune.c1,
        "baseline_subset": len(idx),
        "baseline_subset_seconds": base_time,
        "baseline_vertices_per_second": 1.0 / per_vertex,
        "baseline_extrapolated_seconds": extrapolated,
        "baseline_is_extrapolated": len(idx) < total,
        "baseline_subset_max_nats": max(base_vals),
        "baseline_worst_vertex_nats": worst_val,
        "speedup": extrapolated / fast,
        "within_limit": fast < LIMIT_SECONDS,
        "agree_1e-7": abs(worst_val - r.c1) <= 1e-7 and max(base_vals) <= r.c1 + 1e-7,
    }


def main() -> int:
    cases = [
        bench_case("n=6 binary, |Y|=8", (2,) * 6, 8),
        bench_case("n=3, |X_i|=3, |Y|=4", (3, 3, 3), 4),
    ]
    meta = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "limit_seconds": LIMIT_SECONDS,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"meta": meta, "cases": cases}, indent=2))
    print(
        "| case | vertex channels | distinct | evaluated | C1 (nats) | fast (s) | vertices/s fast "
        "| CVXPY loop vertices/s | CVXPY loop total (s) | speed-up | < 5 s | agree |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cases:
        ext = " (extrapolated)" if c["baseline_is_extrapolated"] else ""
        print(
            f"| {c['case']} | {c['total_vertices']} | {c['distinct_vertices']} | {c['evaluated_vertices']} "
            f"| {c['C1_nats']:.10f} | {c['fast_seconds_median']:.4f} | {c['fast_vertices_per_second']:.3g} "
            f"| {c['baseline_vertices_per_second']:.3g} | {c['baseline_extrapolated_seconds']:.1f}{ext} "
            f"| {c['speedup']:.3g}x | {c['within_limit']} | {c['agree_1e-7']} |"
        )
    print(f"\nwrote {OUT}")
    return 0 if all(c["within_limit"] and c["agree_1e-7"] for c in cases) else 1


if __name__ == "__main__":
    raise SystemExit(main())
