"""Benchmarks of the IPOPT models: prints a markdown table, writes benchmarks/results/ipopt.json.

* C1 cross-check: 3×2-input (|X_1| = 3, |X_2| = 2), 3-output Dirichlet channel, 50 starts (target < 10 s).
* δ(b) curve: binary randomized response (parity) on two rows, 20 points, certified (target < 60 s).
* Bilinear PD-I (n = 3, m = 2) and the PD-MIP NLP, for reference.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ipopt_models import (  # noqa: E402
    balance_curve,
    bilinear_pd_i,
    joint_capacity,
    pd_mip_nlp,
    randomized_response_array,
)
from problems.database import DatabaseSpace  # noqa: E402
from problems.priors import iid  # noqa: E402


def main() -> None:
    rows = []

    W = np.random.default_rng(0).dirichlet(np.ones(3), size=(3, 2))
    t = time.perf_counter()
    r = joint_capacity(W, starts=50, seed=0)
    rows.append(
        (
            "C1 joint vs Theorem 2 (3×2 → 3)",
            50,
            time.perf_counter() - t,
            10.0,
            f"best {r.value:.9f}, Thm 2 {r.reference:.9f}, reached {r.n_reached_reference}/50",
        )
    )

    t = time.perf_counter()
    c = balance_curve(randomized_response_array((2, 2), 0.2), points=20, starts=10, seed=0, cert_tol=1e-6)
    width = float(np.max(c.delta_upper - c.delta_lower))
    rows.append(
        (
            "δ(b) curve, binary RR on 2 rows (20 b, certified)",
            10,
            time.perf_counter() - t,
            60.0,
            f"max bracket width {width:.1e} nats, δ(log 4) = {c.delta_upper[-1]:.6f}",
        )
    )

    prior = iid(DatabaseSpace(3, 2), [0.6, 0.4])
    t = time.perf_counter()
    r = bilinear_pd_i(prior, 2.0, starts=20, seed=0)
    rows.append(
        (
            "bilinear PD-I (n=3, m=2, ε=2)",
            20,
            time.perf_counter() - t,
            None,
            f"excess {r.excess:.1e}, reached LP {r.n_reached_reference}/20 "
            f"(kernel {r.extras['start_families']['kernel']['reached_reference']}/10, "
            f"Dirichlet {r.extras['start_families']['dirichlet']['reached_reference']}/10)",
        )
    )

    t = time.perf_counter()
    r = pd_mip_nlp(prior, 0.5, starts=5, seed=0)
    rows.append(
        (
            "PD-MIP NLP (n=3, m=2, D=0.5)",
            5,
            time.perf_counter() - t,
            None,
            f"|IPOPT − conic| = {abs(r.value - r.reference):.1e} nats",
        )
    )

    print("| benchmark | starts | time (s) | target (s) | result |")
    print("|---|---:|---:|---:|---|")
    for name, k, sec, target, note in rows:
        print(f"| {name} | {k} | {sec:.2f} | {'' if target is None else f'< {target:g}'} | {note} |")
    out = ROOT / "benchmarks" / "results" / "ipopt.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "python": platform.python_version(),
                "machine": platform.machine(),
                "rows": [
                    {"name": n, "starts": k, "seconds": s, "target_seconds": tg, "result": note}
                    for n, k, s, tg, note in rows
                ],
            },
            indent=2,
        )
    )
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
