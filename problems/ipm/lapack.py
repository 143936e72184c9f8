"""GIL-free LAPACK kernels (LAPACKE through ctypes) and OpenBLAS thread control, isolated.

Both are optional: :func:`lapack_kernels` returns ``None`` when no LAPACKE symbols are found (the methods then
use SciPy's LAPACK wrappers, which hold the GIL), and :class:`BlasThreads` does nothing when no OpenBLAS
library is loaded.  ``PRIVACY_IPM_NO_KERNELS=1`` switches the kernels off (tested).
"""

from __future__ import annotations

import ctypes
import glob
import os
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "lapack_kernels",
    "band_kernels",
    "level3_kernels",
    "BlasThreads",
    "LapackKernels",
    "BandKernels",
    "Level3Kernels",
    "trim_heap",
]

_CFunc = Callable[..., Any]  # a ctypes foreign function


class LapackKernels:
    """In-place ``dpotrf``/``dpotri`` (lower, column-major) through OpenBLAS's LAPACKE, called by ctypes.

    ctypes releases the GIL for the duration of a foreign call, so Python threads factorise different blocks
    at the same time (SciPy's f2py wrappers hold it).  Used only when the library and symbols are found.
    """

    def __init__(self, potrf: _CFunc, potri: _CFunc, potrs: _CFunc) -> None:
        self._potrf, self._potri, self._potrs = potrf, potri, potrs

    def potrf(self, a: np.ndarray) -> int:
        n = a.shape[0]
        return int(self._potrf(102, b"L", n, a.ctypes.data, n))

    def potri(self, a: np.ndarray) -> int:
        n = a.shape[0]
        return int(self._potri(102, b"L", n, a.ctypes.data, n))

    def potrs(self, factor: np.ndarray, rhs: np.ndarray) -> int:
        """Solve with the Cholesky factor from :meth:`potrf`, in place on C-order ``rhs`` of shape (k, n)."""
        n = factor.shape[0]
        k = 1 if rhs.ndim == 1 else rhs.shape[0]
        return int(self._potrs(102, b"L", n, k, factor.ctypes.data, n, rhs.ctypes.data, n))


_KERNELS: list[LapackKernels | None] = []


def lapack_kernels() -> LapackKernels | None:
    """The GIL-free LAPACK kernels, or None (then SciPy's wrappers are used, on one thread)."""
    if os.environ.get("PRIVACY_IPM_NO_KERNELS"):
        return None
    if not _KERNELS:

        def argtypes(int_t):  # noqa: ANN001, ANN202
            c, p = ctypes.c_char, ctypes.c_void_p
            tri = [ctypes.c_int, c, int_t, p, int_t]
            return [tri, tri, [ctypes.c_int, c, int_t, int_t, p, int_t, p, int_t]]

        def selftest(cand: LapackKernels) -> bool:
            # against NumPy on a small SPD matrix (column-major lower = C-order upper)
            a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
            t = np.array(a)
            rhs = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.25]])
            x = np.array(rhs)
            if cand.potrf(t) != 0 or cand.potrs(t, x) != 0 or cand.potri(t) != 0:
                return False
            ok_inv = np.allclose(np.triu(t), np.triu(np.linalg.inv(a)), rtol=1e-12, atol=1e-14)
            return ok_inv and np.allclose(x, np.linalg.solve(a, rhs.T).T, rtol=1e-12, atol=1e-14)

        _KERNELS.append(_find(("dpotrf", "dpotri", "dpotrs"), argtypes, LapackKernels, selftest))
    return _KERNELS[0]


def _find(names, argtypes, build, selftest):  # noqa: ANN001, ANN202
    """The first LAPACKE symbols ``names`` of SciPy's or NumPy's OpenBLAS (32- or 64-bit integers) whose
    wrapper ``build(*functions)`` passes ``selftest``; None if there is none.

    The ``_work`` entry points are taken: same arguments, but without LAPACKE's NaN scan of every input matrix
    on every call (measured, m = 2, n = 100: the scan of the band took longer than the banded solves it
    guarded).  The iterations check their own iterates for finiteness."""
    try:
        for lib in _openblas_libraries():
            for suffix, int_t in (("", ctypes.c_int), ("64_", ctypes.c_int64)):
                fs = [getattr(lib, f"scipy_LAPACKE_{name}_work{suffix}", None) for name in names]
                if any(f is None for f in fs):
                    continue
                for f, args in zip(fs, argtypes(int_t)):
                    f.restype = int_t
                    f.argtypes = args
                cand = build(*fs)
                if selftest(cand):
                    return cand
    except Exception:  # pragma: no cover - platform without these libraries
        return None
    return None


class BandKernels:
    """Banded Cholesky ``dpbtrf``/``dpbtrs`` and banded triangular solve ``dtbtrs`` (lower, column-major) through
    LAPACKE by ctypes, so that Python threads run them on different blocks at once.

    ``ab`` is the Fortran-order band storage of shape (kd + 1, n) (``ab[r, c] = H[c + r, c]``); right-hand sides are
    Fortran-order arrays of shape (n,) or (n, k), solved in place.
    """

    def __init__(self, pbtrf: _CFunc, pbtrs: _CFunc, tbtrs: _CFunc) -> None:
        self._pbtrf, self._pbtrs, self._tbtrs = pbtrf, pbtrs, tbtrs

    def pbtrf(self, ab: np.ndarray) -> int:
        kd1, n = ab.shape
        return int(self._pbtrf(102, b"L", n, kd1 - 1, ab.ctypes.data, kd1))

    def pbtrs(self, ab: np.ndarray, b: np.ndarray) -> int:
        kd1, n = ab.shape
        k = 1 if b.ndim == 1 else b.shape[1]
        return int(self._pbtrs(102, b"L", n, kd1 - 1, k, ab.ctypes.data, kd1, b.ctypes.data, n))

    def tbtrs(self, ab: np.ndarray, b: np.ndarray) -> int:
        """L x = b for the lower band factor in ``ab`` (a column slice ``ab[:, r0:]`` is its trailing part)."""
        kd1, n = ab.shape
        k = 1 if b.ndim == 1 else b.shape[1]
        return int(self._tbtrs(102, b"L", b"N", b"N", n, kd1 - 1, k, ab.ctypes.data, kd1, b.ctypes.data, n))


_BAND: list[BandKernels | None] = []


def band_kernels() -> BandKernels | None:
    """The GIL-free banded kernels, or None (then SciPy's wrappers are used, on one thread)."""
    if os.environ.get("PRIVACY_IPM_NO_KERNELS"):
        return None
    if not _BAND:

        def argtypes(int_t):  # noqa: ANN001, ANN202
            c, i, p = ctypes.c_char, int_t, ctypes.c_void_p
            e = ctypes.c_int
            return [[e, c, i, i, p, i], [e, c, i, i, i, p, i, p, i], [e, c, c, c, i, i, i, p, i, p, i]]

        def selftest(cand: BandKernels) -> bool:
            # against NumPy on a small SPD tridiagonal matrix
            a = np.diag([4.0, 3.0, 2.0]) + np.diag([1.0, 0.5], 1) + np.diag([1.0, 0.5], -1)
            ab = np.array([[4.0, 3.0, 2.0], [1.0, 0.5, 0.0]], order="F")
            x = np.array([1.0, 2.0, 3.0])
            y = np.array([1.0, 2.0, 3.0])
            if cand.pbtrf(ab) != 0 or cand.pbtrs(ab, x) != 0 or cand.tbtrs(ab, y) != 0:
                return False
            ok = np.allclose(x, np.linalg.solve(a, [1.0, 2.0, 3.0]), rtol=1e-12, atol=1e-14)
            L = np.linalg.cholesky(a)
            return ok and np.allclose(y, np.linalg.solve(L, [1.0, 2.0, 3.0]), rtol=1e-12, atol=1e-14)

        _BAND.append(_find(("dpbtrf", "dpbtrs", "dtbtrs"), argtypes, BandKernels, selftest))
    return _BAND[0]


class Level3Kernels:
    """CBLAS ``dgemm`` and ``dtrsm`` (column-major) on raw addresses, through ctypes (GIL released).

    Sub-matrices are passed as (address, leading dimension) pairs, so a banded factor stored with extra zero rows
    can be read as a general matrix (:func:`problems.ipm.layered._tiled_solve`).  Addresses must stay valid for
    the call: the caller holds the arrays.
    """

    _COL, _LEFT, _LOWER, _NOTRANS, _NONUNIT = 102, 141, 122, 111, 131

    def __init__(self, gemm: _CFunc, trsm: _CFunc) -> None:
        self._gemm, self._trsm = gemm, trsm

    def run_tiles(self, a: int, lda: int, x: int, ldx: int, tiles: list[tuple[int, ...]]) -> None:
        """A precomputed sequence of tile updates on L at ``a`` and X at ``x`` (byte offsets from them): per tile
        ``(m, j0, k, ga, gb, gc, j1, ta, tb)``, first X[gc] −= L[ga] X[gb] (m×j0, inner k; skipped when j0·k is
        0), then X[tb] ← L[ta]⁻¹X[tb] (m×j1; skipped when j1 is 0).  One Python loop over the plan: the
        per-tile index arithmetic is done once per factor layout, not once per factorisation."""
        gemm, trsm = self._gemm, self._trsm
        col, nt, left, low, nu = self._COL, self._NOTRANS, self._LEFT, self._LOWER, self._NONUNIT
        for m, j0, k, ga, gb, gc, j1, ta, tb in tiles:
            if j0 and k:
                gemm(col, nt, nt, m, j0, k, -1.0, a + ga, lda, x + gb, ldx, 1.0, x + gc, ldx)
            if j1:
                trsm(col, left, low, nt, nu, m, j1, 1.0, a + ta, lda, x + tb, ldx)


_LEVEL3: list[Level3Kernels | None] = []


def level3_kernels() -> Level3Kernels | None:
    """The GIL-free CBLAS ``dgemm``/``dtrsm`` of SciPy's or NumPy's OpenBLAS, or None."""
    if os.environ.get("PRIVACY_IPM_NO_KERNELS"):
        return None
    if not _LEVEL3:
        _LEVEL3.append(_find_level3())
    return _LEVEL3[0]


def _find_level3() -> Level3Kernels | None:
    """The first ``scipy_cblas_dgemm``/``dtrsm`` pair (32- or 64-bit integers) that passes a check against NumPy."""
    try:
        for lib in _openblas_libraries():
            for suffix, int_t in (("", ctypes.c_int), ("64_", ctypes.c_int64)):
                gemm = getattr(lib, f"scipy_cblas_dgemm{suffix}", None)
                trsm = getattr(lib, f"scipy_cblas_dtrsm{suffix}", None)
                if gemm is None or trsm is None:
                    continue
                e, i, d, p = ctypes.c_int, int_t, ctypes.c_double, ctypes.c_void_p
                gemm.restype = trsm.restype = None
                gemm.argtypes = [e, e, e, i, i, i, d, p, i, p, i, d, p, i]
                trsm.argtypes = [e, e, e, e, e, i, i, d, p, i, p, i]
                cand = Level3Kernels(gemm, trsm)
                # the two tile kinds of run_tiles, as the tiled solve uses them: X ← L⁻¹X, then C −= L B with B
                # and C in one array (rows 0–1 and 2–3, leading dimension 4, C at a byte offset of 16)
                L = np.array([[2.0, 0.0], [1.0, 3.0]], order="F")
                B = np.array([[1.0, 2.0], [4.0, 5.0]], order="F")
                X = np.array(B, order="F")
                cand.run_tiles(L.ctypes.data, 2, X.ctypes.data, 2, [(2, 0, 0, 0, 0, 0, 2, 0, 0)])
                BC = np.array(np.vstack([B, B]), order="F")
                cand.run_tiles(L.ctypes.data, 2, BC.ctypes.data, 4, [(2, 2, 2, 0, 0, 16, 0, 0, 0)])
                ok = np.allclose(X, np.linalg.solve(L, B), rtol=1e-13) and np.allclose(
                    BC[2:], B - L @ B, rtol=1e-13
                )
                if ok:
                    return cand
    except Exception:  # pragma: no cover - platform without these libraries
        return None
    return None


def _openblas_libraries() -> list[ctypes.CDLL]:
    """The OpenBLAS copies bundled with SciPy and NumPy (``scipy.libs``/``numpy.libs``), loaded by ctypes."""
    import scipy

    libs = []
    for pkg in (scipy, np):
        libdir = os.path.join(os.path.dirname(os.path.dirname(str(pkg.__file__))), pkg.__name__ + ".libs")
        for path in sorted(glob.glob(os.path.join(libdir, "libscipy_openblas*.so*"))):
            try:
                libs.append(ctypes.CDLL(path))
            except OSError:
                continue
    return libs


def _openblas_handles() -> list[tuple[_CFunc, _CFunc]]:
    """(set, get) thread-count functions of the OpenBLAS copies loaded by NumPy and SciPy, if found."""
    import ctypes

    handles = []
    for lib in _openblas_libraries():
        for suffix in ("64_", ""):
            setf = getattr(lib, f"scipy_openblas_set_num_threads{suffix}", None)
            getf = getattr(lib, f"scipy_openblas_get_num_threads{suffix}", None)
            if setf is not None and getf is not None:
                setf.argtypes = [ctypes.c_int]
                getf.restype = ctypes.c_int
                handles.append((setf, getf))
                break
    return handles


class BlasThreads:
    """Context manager limiting OpenBLAS to ``n`` threads (restored on exit).

    The kernels here are many small (N×N, N ≤ 512) LAPACK calls; OpenBLAS's own threading on such calls is at
    best neutral and, on a loaded machine, slows them down by two orders of magnitude (busy-waiting threads).
    """

    _handles: list[tuple[_CFunc, _CFunc]] | None = None

    def __init__(self, n: int) -> None:
        self.n = n
        self.saved: list[int] = []

    def __enter__(self) -> BlasThreads:
        if BlasThreads._handles is None:
            try:
                BlasThreads._handles = _openblas_handles()
            except Exception:  # pragma: no cover - platform without these libraries
                BlasThreads._handles = []
        for setf, getf in BlasThreads._handles:
            self.saved.append(int(getf()))
            setf(self.n)
        return self

    def __exit__(self, *exc: object) -> None:
        for (setf, _), n in zip(BlasThreads._handles or [], self.saved):
            setf(n)


_LIBC: Any = None


def trim_heap() -> None:
    """Give the C heap's free pages back to the system (glibc ``malloc_trim``; elsewhere nothing).

    Arrays of a few MB that were freed stay in glibc's heap, while the interior-point methods' largest arrays are
    mapped separately and never reuse them, so they would count in the peak resident memory (m = 2, n = 200:
    about 70 MB after building the LP and as much again per iteration)."""
    global _LIBC
    if _LIBC is None:
        try:
            _LIBC = ctypes.CDLL(None).malloc_trim
        except (OSError, AttributeError):
            _LIBC = False
    if _LIBC:
        _LIBC(0)
