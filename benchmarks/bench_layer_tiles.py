"""The layered factorisation's level-3 work by layers, against the library's tiles (tried, not kept).

Run: ``python benchmarks/bench_layer_tiles.py --n 200 [--rounds 3] [--out FILE.json]``.

The m = 2 joint-type blocks are block tridiagonal along their layers (:mod:`problems.ipm.layered`), so their
Cholesky factor is block lower bidiagonal and X_b = L_b⁻¹A_bᵀ can be formed one *layer* at a time:

* X[layer q, :q] −= L[layer q, layer q−1] · X[layer q−1, :q] (one GEMM),
* X[layer q, :q+1] ← L[layer q, layer q]⁻¹ X[layer q, :q+1] (one TRSM),
* S_b[:q+1, :q+1] += X[layer q, :q+1]ᵀ X[layer q, :q+1] (one SYRK),

instead of the library's tiles of 2(kd + 1) rows (:func:`problems.ipm.layered._tiled_solve`, whose GEMM and TRSM
also multiply the zeros outside the band) followed by X_bᵀX_b in column groups of 16.  The same by layers for the
banded Cholesky itself (POTRF of each diagonal block, TRSM for the block below it, SYRK into the next diagonal
block) is timed against LAPACK's ``dpbtrf``.  Both are computed on the band factor read as a dense matrix with
kd + 1 rows of zero padding.

On :func:`bench_flop_limit.layered_system`'s system (i.i.d. (0.3, 0.7), D and E log-uniform in [e⁻², e²]) every
block of the LP is done on one thread, the two ways alternating ``--rounds`` times; the script prints the
shortest time of each and the largest relative difference of the results (the Schur blocks and the factors).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_flop_limit import normal_parts  # noqa: E402 - the benchmarks' own system

_COL, _LEFT, _RIGHT, _LOWER, _UPPER, _NOTRANS, _TRANS, _NONUNIT = 102, 141, 142, 122, 121, 111, 112, 131


def _cblas():  # noqa: ANN202 - (gemm, trsm, syrk, potrf) as ctypes functions
    from problems.ipm.lapack import _openblas_libraries, level3_kernels

    k3 = level3_kernels()
    if k3 is None:
        raise SystemExit("no CBLAS kernels found")
    for lib in _openblas_libraries():
        syrk = getattr(lib, "scipy_cblas_dsyrk", None)
        potrf = getattr(lib, "scipy_LAPACKE_dpotrf_work", None)
        if syrk is None or potrf is None:
            continue
        e, i, d, p = ctypes.c_int, ctypes.c_int, ctypes.c_double, ctypes.c_void_p
        syrk.restype = None
        syrk.argtypes = [e, e, e, i, i, d, p, i, d, p, i]
        potrf.restype = i
        potrf.argtypes = [e, ctypes.c_char, i, p, i]
        return k3._gemm, k3._trsm, syrk, potrf
    raise SystemExit("no 32-bit CBLAS dsyrk / LAPACKE dpotrf found")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    import numpy as np

    from problems.ipm import layered
    from problems.ipm.lapack import BlasThreads

    sysm, lay, diag, off = normal_parts(args.n)
    with BlasThreads(1):
        fac = layered.LayeredFactor(lay, diag, off, sysm.A, sysm.AT, None)
    gemm, trsm, syrk, potrf = _cblas()
    k3 = fac.level3
    blocks = list(lay.largest_first)

    def layer_bounds(b: int) -> tuple[np.ndarray, np.ndarray, int]:
        _lb, present, first = lay.block_layers[b]
        return first, np.append(first[1:], int(lay.sizes[b])), present.size

    def padded(c: np.ndarray) -> np.ndarray:
        kd1, nb = c.shape
        out = np.zeros((2 * kd1, nb), order="F")
        out[:kd1] = c
        return out

    def tiles(b: int) -> np.ndarray:
        """The library's way: tiles of 2(kd + 1) rows, then X_bᵀX_b in column groups."""
        return layered.tiled_schur(k3, lay, b, fac.factors[b])

    def by_layers(b: int) -> np.ndarray:
        """GEMM, TRSM and SYRK per layer on the padded factor."""
        c = fac.factors[b]
        kd1, nb = c.shape
        ld = 2 * kd1 - 1
        P = padded(c)
        first, ends, L = layer_bounds(b)
        lb = lay.block_layers[b][0]
        X = np.zeros((nb, L), order="F")
        X[np.arange(nb), np.searchsorted(lay.block_layers[b][1], lb)] = 1.0
        S = np.zeros((L, L), order="F")
        a, x, s = P.ctypes.data, X.ctypes.data, S.ctypes.data
        for q in range(L):
            r0, r1 = int(first[q]), int(ends[q])
            if q > 0:
                p0 = int(first[q - 1])
                gemm(_COL, _NOTRANS, _NOTRANS, r1 - r0, q, r0 - p0, -1.0, a + 8 * (r0 + p0 * ld), ld,
                     x + 8 * p0, nb, 1.0, x + 8 * r0, nb)  # fmt: skip
            trsm(_COL, _LEFT, _LOWER, _NOTRANS, _NONUNIT, r1 - r0, q + 1, 1.0, a + 8 * (r0 + r0 * ld), ld,
                 x + 8 * r0, nb)  # fmt: skip
            syrk(_COL, _UPPER, _TRANS, q + 1, r1 - r0, 1.0, x + 8 * r0, nb, 1.0, s, L)
        iu = np.triu_indices(L, 1)
        S[(iu[1], iu[0])] = S[iu]
        return S

    # the band of H per block (as LayeredFactor fills it), for the two Cholesky factorisations
    def band(b: int) -> np.ndarray:
        region = np.empty(int(lay.store_offsets[b + 1] - lay.store_offsets[b]))
        layered.fill_band(lay, b, diag, off, region)
        return region.reshape((int(lay.kd[b]) + 1, int(lay.sizes[b])), order="F")

    bands = {b: band(b) for b in blocks}

    def dpbtrf(b: int) -> np.ndarray:
        ab = bands[b].copy(order="F")
        if fac.kernels is None or fac.kernels.pbtrf(ab) != 0:
            raise SystemExit("dpbtrf failed")
        return ab

    def chol_by_layers(b: int) -> np.ndarray:
        ab = bands[b]
        kd1, _nb = ab.shape
        ld = 2 * kd1 - 1
        P = padded(ab)
        a = P.ctypes.data
        first, ends, L = layer_bounds(b)
        for q in range(L):
            r0, r1 = int(first[q]), int(ends[q])
            if potrf(_COL, b"L", r1 - r0, a + 8 * (r0 + r0 * ld), ld) != 0:
                raise SystemExit("potrf failed")
            if q + 1 < L:
                w2 = int(ends[q + 1]) - r1
                trsm(_COL, _RIGHT, _LOWER, _TRANS, _NONUNIT, w2, r1 - r0, 1.0, a + 8 * (r0 + r0 * ld), ld,
                     a + 8 * (r1 + r0 * ld), ld)  # fmt: skip
                syrk(_COL, _LOWER, _NOTRANS, w2, r1 - r0, -1.0, a + 8 * (r1 + r0 * ld), ld, 1.0,
                     a + 8 * (r1 + r1 * ld), ld)  # fmt: skip
        return P[:kd1].copy(order="F")

    pairs = {"schur": (tiles, by_layers), "cholesky": (dpbtrf, chol_by_layers)}
    result: dict = {"n": args.n, "blocks": len(blocks), "rounds": args.rounds}
    with BlasThreads(1):
        for name, (lib_way, layer_way) in pairs.items():
            best = {"library": float("inf"), "by_layers": float("inf")}
            diff = 0.0
            for _ in range(args.rounds):
                outs = {}
                for label, fn in (("library", lib_way), ("by_layers", layer_way)):
                    t = time.perf_counter()
                    outs[label] = {b: fn(b) for b in blocks}
                    best[label] = min(best[label], time.perf_counter() - t)
                for b in blocks:
                    ref, got = outs["library"][b], outs["by_layers"][b]
                    diff = max(diff, float(np.max(np.abs(got - ref)) / np.max(np.abs(ref))))
                del outs
            result[name] = {k: round(v, 3) for k, v in best.items()} | {"max_relative_difference": diff}
    line = json.dumps(result)
    print(line)
    if args.out:
        from problems.export import atomic_write_text

        atomic_write_text(args.out, line + "\n")


if __name__ == "__main__":
    main()
