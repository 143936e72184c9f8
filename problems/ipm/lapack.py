"""GIL-free LAPACK kernels (LAPACKE through ctypes) and OpenBLAS thread control, isolated.

Both are optional: :func:`lapack_kernels` returns ``None`` when no LAPACKE symbols are found (the methods then
use SciPy's LAPACK wrappers, which hold the GIL), and :class:`BlasThreads` does nothing when no OpenBLAS
library is loaded.  ``PRIVACY_IPM_NO_KERNELS=1`` switches the kernels off (tested).
"""

from __future__ import annotations

import ctypes
import glob
import os

import numpy as np

__all__ = ["lapack_kernels", "band_kernels", "BlasThreads", "LapackKernels", "BandKernels"]


class LapackKernels:
    """In-place ``dpotrf``/``dpotri`` (lower, column-major) through OpenBLAS's LAPACKE, called by ctypes.

    ctypes releases the GIL for the duration of a foreign call, so Python threads factorise different blocks
    at the same time (SciPy's f2py wrappers hold it).  Used only when the library and symbols are found.
    """

    def __init__(self, potrf: object, potri: object, potrs: object) -> None:
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
    if _KERNELS:
        return _KERNELS[0]
    found = None
    try:
        for lib in _openblas_libraries():
            for suffix, int_t in (("", ctypes.c_int), ("64_", ctypes.c_int64)):
                f1 = getattr(lib, f"scipy_LAPACKE_dpotrf{suffix}", None)
                f2 = getattr(lib, f"scipy_LAPACKE_dpotri{suffix}", None)
                f3 = getattr(lib, f"scipy_LAPACKE_dpotrs{suffix}", None)
                if f1 is None or f2 is None or f3 is None:
                    continue
                for f in (f1, f2):
                    f.restype = int_t
                    f.argtypes = [ctypes.c_int, ctypes.c_char, int_t, ctypes.c_void_p, int_t]
                f3.restype = int_t
                f3.argtypes = [ctypes.c_int, ctypes.c_char, int_t, int_t, ctypes.c_void_p, int_t]
                f3.argtypes += [ctypes.c_void_p, int_t]
                cand = LapackKernels(f1, f2, f3)
                # self-test against NumPy on a small SPD matrix (column-major lower = C-order upper)
                a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
                t = np.array(a)
                rhs = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 0.25]])
                x = np.array(rhs)
                if cand.potrf(t) == 0 and cand.potrs(t, x) == 0 and cand.potri(t) == 0:
                    ok_inv = np.allclose(np.triu(t), np.triu(np.linalg.inv(a)), rtol=1e-12, atol=1e-14)
                    ok_sol = np.allclose(x, np.linalg.solve(a, rhs.T).T, rtol=1e-12, atol=1e-14)
                    if ok_inv and ok_sol:
                        found = cand
                        break
            if found is not None:
                break
    except Exception:  # pragma: no cover - platform without these libraries
        found = None
    _KERNELS.append(found)
    return found


class BandKernels:
    """Banded Cholesky ``dpbtrf``/``dpbtrs`` and banded triangular solve ``dtbtrs`` (lower, column-major) through
    LAPACKE by ctypes, so that Python threads run them on different blocks at once.

    ``ab`` is the Fortran-order band storage of shape (kd + 1, n) (``ab[r, c] = H[c + r, c]``); right-hand sides are
    Fortran-order arrays of shape (n,) or (n, k), solved in place.
    """

    def __init__(self, pbtrf: object, pbtrs: object, tbtrs: object) -> None:
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
    if _BAND:
        return _BAND[0]
    found = None
    try:
        for lib in _openblas_libraries():
            for suffix, int_t in (("", ctypes.c_int), ("64_", ctypes.c_int64)):
                f1 = getattr(lib, f"scipy_LAPACKE_dpbtrf{suffix}", None)
                f2 = getattr(lib, f"scipy_LAPACKE_dpbtrs{suffix}", None)
                f3 = getattr(lib, f"scipy_LAPACKE_dtbtrs{suffix}", None)
                if f1 is None or f2 is None or f3 is None:
                    continue
                c, i, p = ctypes.c_char, int_t, ctypes.c_void_p
                f1.restype = f2.restype = f3.restype = int_t
                f1.argtypes = [ctypes.c_int, c, i, i, p, i]
                f2.argtypes = [ctypes.c_int, c, i, i, i, p, i, p, i]
                f3.argtypes = [ctypes.c_int, c, c, c, i, i, i, p, i, p, i]
                cand = BandKernels(f1, f2, f3)
                # self-test against NumPy on a small SPD tridiagonal matrix
                a = np.diag([4.0, 3.0, 2.0]) + np.diag([1.0, 0.5], 1) + np.diag([1.0, 0.5], -1)
                ab = np.array([[4.0, 3.0, 2.0], [1.0, 0.5, 0.0]], order="F")
                x = np.array([1.0, 2.0, 3.0])
                y = np.array([1.0, 2.0, 3.0])
                if cand.pbtrf(ab) == 0 and cand.pbtrs(ab, x) == 0 and cand.tbtrs(ab, y) == 0:
                    L = np.linalg.cholesky(a)
                    ok = np.allclose(x, np.linalg.solve(a, [1.0, 2.0, 3.0]), rtol=1e-12, atol=1e-14)
                    ok = ok and np.allclose(y, np.linalg.solve(L, [1.0, 2.0, 3.0]), rtol=1e-12, atol=1e-14)
                    if ok:
                        found = cand
                        break
            if found is not None:
                break
    except Exception:  # pragma: no cover - platform without these libraries
        found = None
    _BAND.append(found)
    return found


def _openblas_libraries() -> list[object]:
    """The OpenBLAS copies bundled with SciPy and NumPy (``scipy.libs``/``numpy.libs``), loaded by ctypes."""
    import scipy

    libs = []
    for pkg in (scipy, np):
        libdir = os.path.join(os.path.dirname(os.path.dirname(pkg.__file__)), pkg.__name__ + ".libs")
        for path in sorted(glob.glob(os.path.join(libdir, "libscipy_openblas*.so*"))):
            try:
                libs.append(ctypes.CDLL(path))
            except OSError:
                continue
    return libs


def _openblas_handles() -> list[tuple[object, object]]:
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

    _handles: list[tuple[object, object]] | None = None

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
