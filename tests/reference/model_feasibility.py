"""An independent feasibility checker for the mechanism-design models, written from the definitions.

Nothing here imports :mod:`problems`: the constraints are given as plain tuples built by the tests, the
neighbours of a database space are rebuilt with :func:`itertools.product`, (ε, δ)-DP is checked over every
output set S (not through the hockey-stick form the library uses), I(X;Y) by explicit sums, and C₁ by the
Csiszár–Gallager upper bound max_a D(B_a‖q) over the vertex channels B of each record (Wu, Xia & He 2020,
Theorem 2) with q the output of a Blahut–Arimoto input.

Each function returns the largest violation (≤ 0 when the constraint holds).  Constraint tuples:

* ``("rows",)`` — W ≥ 0 and every row sums to 1 (always checked by :func:`violations`);
* ``("dp", eps, pairs)`` — W[x,y] ≤ e^ε W[x',y] for every ordered pair (x, x') in ``pairs``;
* ``("approx", eps, delta, pairs)`` — P(Y∈S|x) ≤ e^ε P(Y∈S|x') + δ for every pair and every S;
* ``("metric", eps, D)`` — W[x,y] ≤ e^{ε D[x,x']} W[x',y] for x ≠ x' with D finite;
* ``("identifiability", eps, pairs)`` — p(x)W[x,y] ≤ e^ε p(x')W[x',y];
* ``("mi", at_most)`` — I(X;Y) ≤ at_most (nats);
* ``("c1", at_most, n, m)`` — C₁ ≤ at_most for databases of n records of m values;
* ``("loss", at_most)`` — Σ p(x)W[x,y]L[x,y] ≤ at_most.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = [
    "all_pairs",
    "chain_pairs",
    "hamming_pairs",
    "mutual_information",
    "c1_upper",
    "violations",
]


def all_pairs(N: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(N) for j in range(N) if i != j]


def chain_pairs(N: int) -> list[tuple[int, int]]:
    """i ~ i + 1, both directions."""
    return [(i, i + 1) for i in range(N - 1)] + [(i + 1, i) for i in range(N - 1)]


def hamming_pairs(n: int, m: int) -> list[tuple[int, int]]:
    """Databases of {0..m−1}ⁿ (itertools.product order) differing in exactly one record."""
    rows = list(itertools.product(range(m), repeat=n))
    return [
        (a, b)
        for a, x in enumerate(rows)
        for b, z in enumerate(rows)
        if sum(u != v for u, v in zip(x, z)) == 1
    ]


def mutual_information(W: np.ndarray, p: np.ndarray) -> float:
    """Σ_{x,y} p(x) W[x,y] ln(W[x,y]/q(y)), q(y) = Σ_x p(x) W[x,y], 0 ln 0 = 0 (nats)."""
    N, K = W.shape
    q = [sum(p[x] * W[x, y] for x in range(N)) for y in range(K)]
    return sum(
        p[x] * W[x, y] * math.log(W[x, y] / q[y]) for x in range(N) for y in range(K) if p[x] * W[x, y] > 0
    )


def _divergence(row: np.ndarray, q: np.ndarray) -> float:
    return sum(r * math.log(r / s) if s > 0 else math.inf for r, s in zip(row, q) if r > 0)


def _capacity_upper(B: np.ndarray, iterations: int = 20000) -> float:
    """max_a D(B_a‖pB) at the Blahut–Arimoto input p: an upper bound on the capacity C(B) (min–max form)."""
    p = np.full(B.shape[0], 1.0 / B.shape[0])
    for _ in range(iterations):
        q = p @ B
        d = np.array([_divergence(b, q) for b in B])
        lower = float(p @ d)
        if float(d.max()) - lower < 1e-12:
            break
        p = p * np.exp(d - d.max())
        p /= p.sum()
    return float(d.max())


def c1_upper(W: np.ndarray, n: int, m: int) -> float:
    """An upper bound on C₁ = max_i max_{B ∈ S_i} C(B): the vertex channel B of record i takes, for each
    value a of the record, the row of one database with x_i = a (any choice of the other records)."""
    rows = list(itertools.product(range(m), repeat=n))
    worst = 0.0
    for i in range(n):
        by_value = [[k for k, x in enumerate(rows) if x[i] == a] for a in range(m)]
        for choice in itertools.product(*by_value):
            worst = max(worst, _capacity_upper(W[list(choice)]))
    return worst


def violations(W: np.ndarray, p: np.ndarray, L: np.ndarray, constraints) -> dict[str, float]:
    """The largest violation of each constraint (key ``"k:kind"``) and of the rows (key ``"rows"``)."""
    W = np.asarray(W, dtype=float)
    N, K = W.shape
    out = {"rows": max(float(np.max(np.abs(W.sum(axis=1) - 1.0))), float(np.max(-W)))}
    for k, con in enumerate(constraints):
        kind = con[0]
        if kind == "dp":
            _, eps, pairs = con
            v = max(W[i, y] - math.exp(eps) * W[j, y] for i, j in pairs for y in range(K))
        elif kind == "approx":
            _, eps, delta, pairs = con
            subsets = [S for r in range(1, K + 1) for S in itertools.combinations(range(K), r)]
            v = max(
                sum(W[i, y] for y in S) - math.exp(eps) * sum(W[j, y] for y in S) - delta
                for i, j in pairs
                for S in subsets
            )
        elif kind == "metric":
            _, eps, D = con
            v = max(
                W[i, y] - math.exp(eps * D[i, j]) * W[j, y]
                for i in range(N)
                for j in range(N)
                if i != j and math.isfinite(D[i, j])
                for y in range(K)
            )
        elif kind == "identifiability":
            _, eps, pairs = con
            v = max(p[i] * W[i, y] - math.exp(eps) * p[j] * W[j, y] for i, j in pairs for y in range(K))
        elif kind == "mi":
            v = mutual_information(W, p) - con[1]
        elif kind == "c1":
            _, at_most, n, m = con
            v = c1_upper(W, n, m) - at_most
        elif kind == "loss":
            v = float(sum(p[x] * W[x, y] * L[x, y] for x in range(N) for y in range(K))) - con[1]
        else:
            raise ValueError(f"unknown constraint {kind!r}")
        out[f"{k}:{kind}"] = float(v)
    return out
