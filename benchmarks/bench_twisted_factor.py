"""One separator layer per block (a twisted factorisation) against the layered method's banded factorisation.

Run: ``python benchmarks/bench_twisted_factor.py --n 200 [--rounds 3] [--out FILE.json]``.

The m = 2 blocks are block tridiagonal along their layers, so a block's Schur complement part
S_b = A_b H_b⁻¹ A_bᵀ can be formed with its middle layer M as a separator: the layers before M (chain A, in band
order) and after M (chain B, in reversed order, so that its staircase also runs towards M) are factorised as two
bands, and the separator's dense block is S_M = H_MM − Y_AᵀY_A − Y_BᵀY_B with Y = L⁻¹H_·M on the chains' last
kd rows.  Column q of X = L⁻¹A_bᵀ then fills only its own chain up to M (the library's fills the block to its
end), and S_b = X_AᵀX_A ⊕ X_BᵀX_B + X_MᵀX_M with X_M = L_M⁻¹(A_Mᵀ − Y_AᵀX_A − Y_BᵀX_B): by the count, half the
staircase's flops and a quarter of the Schur products'.

For the reduced PD-DP LP of :func:`bench_flop_limit.layered_system` (positive D and E drawn log-uniform in
[e⁻², e²]) it factorises every block both ways on one thread (``BlasThreads(1)``), in ``--rounds`` alternating
rounds, and prints one JSON line: the shortest round of each (the library's: ``dpbtrf`` and
:func:`problems.ipm.layered.tiled_schur`; the twisted one split into building the two half-bands and the
couplings from the block's band, their ``dpbtrf``, the separator and the chains' staircases and products), and the
largest relative difference of the S_b.  Building the half-bands here reads the block's full band (a library
version would fill them directly, as :func:`problems.ipm.layered.fill_band` fills the band), so "without build" is
the fair comparison.  A prototype: the library does not use it (``docs/benchmarks.md``).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import scipy.linalg as sla
from bench_flop_limit import normal_parts

from problems.ipm import layered as L
from problems.ipm.lapack import BlasThreads, band_kernels, level3_kernels


def _chain(k3, c: np.ndarray, lb: np.ndarray, present: np.ndarray, first: np.ndarray):  # noqa: ANN001, ANN202
    """X = L⁻¹A_cᵀ on a chain's band factor ``c`` (tiles of the library) and XᵀX on its staircase."""
    kd = c.shape[0] - 1
    X = L._tiled_solve(k3, c, lb, present, L.tile_plan(c.shape[1], kd, L._tile_height(kd), first))
    q = present.size
    S = np.empty((q, q))
    for g0 in range(0, q, L.COLUMN_GROUP):
        g1 = min(q, g0 + L.COLUMN_GROUP)
        r0 = int(first[g0])
        blk = X[r0:, :g1].T @ X[r0:, g0:g1]
        S[:g1, g0:g1] = blk
        S[g0:g1, :g0] = blk[:g0].T
    return X, S


def _tail(c: np.ndarray, t: int) -> np.ndarray:
    """The trailing t × t lower triangle of the band factor ``c`` as a dense matrix."""
    T = np.zeros((t, t))
    i, j = np.tril_indices(t)
    ok = i - j <= c.shape[0] - 1
    T[i[ok], j[ok]] = c[(i - j)[ok], c.shape[1] - t + j[ok]]
    return T


def twisted(bk, k3, lay, b: int, ab: np.ndarray, times: dict) -> np.ndarray | None:  # noqa: ANN001
    """S_b by the separator factorisation of the module docstring (None for a block of fewer than 3 layers)."""
    t0 = time.perf_counter()
    kd1, nb = ab.shape
    kd = kd1 - 1
    lb, present, first = lay.block_layers[b]
    nq = present.size
    q = int(np.argmin(np.abs(first - nb / 2)))
    if q == 0 or q == nq - 1:
        return None
    rA, rM = int(first[q]), int(first[q + 1])
    wM, nB = rM - rA, nb - rM
    r = np.arange(kd1)[:, None]
    abA = np.where(np.arange(rA)[None, :] + r < rA, ab[:, :rA], 0.0).copy(order="F")
    src = nb - 1 - np.arange(nB)[None, :] - r  # reversed chain B: abB[r, c] = ab[r, nb − 1 − c − r]
    abB = np.where(src >= rM, ab[r, np.clip(src, 0, None)], 0.0).copy(order="F")
    tA, tB = min(kd, rA), min(kd, nB)
    j = np.arange(wM)[None, :]
    i = np.arange(tA)[:, None]
    rr = j + tA - i
    HAM = np.where(rr <= kd, ab[np.clip(rr, 0, kd), rA - tA + i], 0.0)
    i = np.arange(tB)[:, None]
    rr = rM + i - rA - j
    HBM = np.where(rr <= kd, ab[np.clip(rr, 0, kd), rA + j], 0.0)[::-1]
    t1 = time.perf_counter()
    if bk.pbtrf(abA) != 0 or bk.pbtrf(abB) != 0:
        raise np.linalg.LinAlgError("a chain is not positive definite")
    t2 = time.perf_counter()
    YA = sla.solve_triangular(_tail(abA, tA), HAM, lower=True)
    YB = sla.solve_triangular(_tail(abB, tB), HBM, lower=True)
    LM = np.linalg.cholesky(np.diag(ab[0, rA:rM]) - YA.T @ YA - YB.T @ YB)
    t3 = time.perf_counter()
    XA, SA = _chain(k3, abA, lb[:rA], present[:q], first[:q])
    presB = present[q + 1 :][::-1]
    firstB = np.array([nb - (int(first[k + 1]) if k + 1 < nq else nb) for k in range(nq - 1, q, -1)])
    XB, SB = _chain(k3, abB, -lb[rM:][::-1], -presB, firstB)
    t4 = time.perf_counter()
    XM = np.zeros((wM, nq))
    XM[:, q] = 1.0
    XM[:, :q] -= YA.T @ XA[rA - tA :, :]
    XM[:, q + 1 :] -= (YB.T @ XB[nB - tB :, :])[:, ::-1]
    XM = sla.solve_triangular(LM, XM, lower=True)
    S = XM.T @ XM
    S[:q, :q] += SA
    S[q + 1 :, q + 1 :] += SB[::-1, ::-1]
    t5 = time.perf_counter()
    for key, dt in (
        ("build", t1 - t0),
        ("pbtrf", t2 - t1),
        ("separator", t3 - t2 + t5 - t4),
        ("chains", t4 - t3),
    ):
        times[key] += dt
    return S


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    _sysm, lay, diag, off = normal_parts(args.n)
    bk, k3 = band_kernels(), level3_kernels()
    if bk is None or k3 is None:
        raise SystemExit("the GIL-free LAPACK/CBLAS kernels are not available here")

    def band(b: int) -> np.ndarray:
        buf = np.empty(int(lay.store_offsets[b + 1] - lay.store_offsets[b]))
        L.fill_band(lay, b, diag, off, buf)
        return buf.reshape((int(lay.kd[b]) + 1, int(lay.sizes[b])), order="F")

    best = {"library_s": np.inf, "twisted_s": np.inf}
    split: dict = {}
    worst = 0.0
    with BlasThreads(1):
        for _ in range(args.rounds):
            lib = 0.0
            tw = dict.fromkeys(("build", "pbtrf", "separator", "chains"), 0.0)
            for b in range(lay.nblocks):
                ab = band(b)
                t0 = time.perf_counter()
                c = ab.copy(order="F")
                if bk.pbtrf(c) != 0:
                    raise np.linalg.LinAlgError("a block is not positive definite")
                S0 = L.tiled_schur(k3, lay, b, c)
                dt = time.perf_counter() - t0
                lib += dt
                S1 = twisted(bk, k3, lay, b, ab, tw)
                if S1 is None:  # too few layers: the library's factorisation for both
                    tw["chains"] += dt
                    continue
                worst = max(worst, float(np.max(np.abs(S1 - S0)) / np.max(np.abs(S0))))
            total = sum(tw.values())
            best["library_s"] = min(best["library_s"], lib)
            if total < best["twisted_s"]:
                best["twisted_s"], split = total, tw
    out = {
        "n": args.n,
        "blocks": int(lay.nblocks),
        "rounds": args.rounds,
        "library_s": round(best["library_s"], 3),
        "twisted_s": round(best["twisted_s"], 3),
        "twisted_without_build_s": round(best["twisted_s"] - split["build"], 3),
        "twisted_split_s": {k: round(v, 3) for k, v in split.items()},
        "max_relative_difference": worst,
    }
    print(json.dumps(out))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(out, fh, indent=2)


if __name__ == "__main__":
    main()
