r"""Closed forms of Wang, Ying & Zhang (2016) for the Hamming distortion.

* :func:`h`       — :math:`h(\epsilon) = n / (1 + e^{\epsilon}/(m-1))`, the optimum of R-PD (Lemma 1, eq. (32)).
* :func:`h_inv`   — :math:`h^{-1}(D) = \ln(n/D - 1) + \ln(m-1)` (eq. (17)), for :math:`0 \le D \le n`, taken as
  the smallest privacy level ε ≥ 0 with h(ε) ≤ D: +∞ at D = 0, 0 for D ≥ h(0) = n(m−1)/m (where the formula
  is negative; Wang, Ying & Zhang (2016) uses it inside ``max{h⁻¹(D), 0}`` there, Theorem 1 (19)).  D outside [0, n] or NaN
  is an :class:`~problems.errors.InvalidDistortionError`; ε < 0 or NaN in :func:`h` an
  :class:`~problems.errors.InvalidPrivacyLevelError`.
* :func:`kernel`  — the m×m matrix :math:`K_\epsilon` with :math:`1/(1+(m-1)e^{-\epsilon})` on the diagonal and
  :math:`e^{-\epsilon}/(1+(m-1)e^{-\epsilon})` off it; the posterior of (41)/(26) is
  :math:`e^{-\epsilon d(x,y)}/(1+(m-1)e^{-\epsilon})^n = (K_\epsilon^{\otimes n})_{xy}`.
* :func:`apply_kron` — applies :math:`M^{\otimes n}` to a function on Dⁿ one axis at a time (O(n m^{n+1})).
"""

from __future__ import annotations

import math

import numpy as np

from .errors import InvalidDistortionError, InvalidInputError, InvalidPrivacyLevelError

__all__ = ["h", "h_inv", "kernel", "kron_power", "apply_kron", "as_real", "check_eps", "check_distortion"]


def as_real(value, what: str, error: type = InvalidInputError) -> float:
    """``value`` as a float if it is a real number (int, float, NumPy or 0-d array); ``error`` otherwise.

    Booleans and strings are refused (``True`` is not the privacy level 1, ``"1.0"`` is not a number here:
    parse text with :func:`problems.priors.parse_number`).  The message is ``"{what}, got {value!r}"``.
    """
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise error(f"{what}, got {value!r} ({type(value).__name__})")
    if isinstance(value, np.ndarray) and value.ndim != 0:
        raise error(f"{what}, got an array of shape {value.shape}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise error(f"{what}, got {value!r}") from None


def check_eps(eps: float, *, allow_inf: bool = False, name: str = "ε") -> float:
    """Return ``eps`` as float if it is a valid privacy level (≥ 0, not NaN; finite unless ``allow_inf``)."""
    e = as_real(eps, f"{name} must be a number ≥ 0", InvalidPrivacyLevelError)
    if math.isnan(e) or e < 0:
        raise InvalidPrivacyLevelError(f"{name} must be ≥ 0, got {e!r}")
    if math.isinf(e) and not allow_inf:
        raise InvalidPrivacyLevelError(f"{name} must be finite, got {e!r}")
    return e


def check_distortion(D: float, n: int) -> float:
    """Return ``D`` as float if ``0 ≤ D ≤ n`` (the meaningful range for the Hamming distortion)."""
    d = as_real(D, f"distortion D must be a number in [0, {n}]", InvalidDistortionError)
    if math.isnan(d) or d < 0 or d > n:
        raise InvalidDistortionError(f"distortion D must lie in [0, n] = [0, {n}], got {d!r}")
    return d


def _check_nm(n, m) -> None:
    for name, value, low in (("n", n, 1), ("m", m, 2)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise InvalidInputError(f"{name} must be an integer ≥ {low}, got {value!r}")


def _as_array(x, what: str, error: type) -> np.ndarray:
    if isinstance(x, (bool, np.bool_, str, bytes)):
        raise error(f"{what} must be a number (or an array of numbers), got {x!r} ({type(x).__name__})")
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise error(f"{what} must be a number (or an array of numbers), got {x!r}") from None


def h(eps, n: int, m: int):
    """h(ε) = n / (1 + e^ε/(m−1)): the minimum distortion of R-PD at privacy level ε ≥ 0 (Wang, Ying & Zhang 2016, (32)).

    ε may be an array; ε = +∞ gives 0.  ε < 0 or NaN raises :class:`InvalidPrivacyLevelError`.
    """
    _check_nm(n, m)
    e = _as_array(eps, "ε", InvalidPrivacyLevelError)
    bad = np.isnan(e) | (e < 0)
    if np.any(bad):
        value = float(e.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]])
        raise InvalidPrivacyLevelError(f"h(ε) needs a privacy level ε ≥ 0, got ε = {value!r}")
    with np.errstate(over="ignore"):
        out = n / (1.0 + np.exp(e) / (m - 1))
    return float(out) if out.ndim == 0 else out


def h_inv(D, n: int, m: int):
    """h⁻¹(D) = ln(n/D − 1) + ln(m − 1) (Wang, Ying & Zhang 2016, (17)) as a privacy level: the smallest ε ≥ 0 with h(ε) ≤ D.

    +∞ at D = 0; 0 for h(0) = n(m−1)/m ≤ D ≤ n (the formula is negative there and ε ≥ 0).  D may be an
    array; D < 0, D > n or NaN raises :class:`InvalidDistortionError`.
    """
    _check_nm(n, m)
    d = _as_array(D, "D", InvalidDistortionError)
    bad = np.isnan(d) | (d < 0) | (d > n)
    if np.any(bad):
        value = float(d.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]])
        raise InvalidDistortionError(f"h⁻¹(D) needs a distortion D in [0, n] = [0, {n}], got D = {value!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(n / d - 1.0) + math.log(m - 1)
    h0 = n * (m - 1) / m
    out = np.where(d <= 0, np.inf, np.where(d >= h0, 0.0, np.maximum(out, 0.0)))
    return float(out) if out.ndim == 0 else out


def kernel(eps: float, m: int) -> np.ndarray:
    """K_ε: ``1/(1+(m−1)e^{−ε})`` on the diagonal, ``e^{−ε}/(1+(m−1)e^{−ε})`` off it (row-stochastic)."""
    t = math.exp(-eps) if math.isfinite(eps) else 0.0
    z = 1.0 + (m - 1) * t
    K = np.full((m, m), t / z)
    np.fill_diagonal(K, 1.0 / z)
    return K


def kron_power(M: np.ndarray, n: int) -> np.ndarray:
    """The n-fold Kronecker power M^{⊗n} (rows and columns in itertools.product order): the mⁿ × mⁿ matrix of the
    product channel whose every row uses the m × m channel ``M``.  Dense: callers check the size first."""
    W = np.ones((1, 1))
    for _ in range(n):
        W = np.kron(W, M)
    return W


def apply_kron(M: np.ndarray, v: np.ndarray, n: int, *, transpose: bool = False) -> np.ndarray:
    """Return ``(M^{⊗n}) v`` (or ``(M^{⊗n})ᵀ v``) for ``v`` of length mⁿ, one tensor axis at a time.

    Databases are in itertools.product order, so axis k of the reshaped ``(m,)*n`` tensor is row k.
    ``v`` may carry trailing batch axes: shape ``(mⁿ, …)``.
    """
    m = M.shape[0]
    A = M.T if transpose else M
    batch = v.shape[1:]
    t = v.reshape((m,) * n + batch)
    for k in range(n):
        t = np.moveaxis(np.tensordot(A, t, axes=([1], [k])), 0, k)
    return t.reshape((m**n,) + batch)
