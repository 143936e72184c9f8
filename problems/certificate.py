r"""Optimality certificates computed by the toolkit from primal and dual values.

A solver's "optimal" is a claim; a certificate is the evidence.  For a linear program in the form

.. math::

    \min_z\; c^\top z \quad\text{s.t.}\quad A z = b,\qquad G z \le h,

with multipliers :math:`\nu` (free) for the equalities and :math:`\lambda \ge 0` for the inequalities, the
Lagrangian is :math:`c^\top z + \nu^\top(Az-b) + \lambda^\top(Gz-h)` and the KKT conditions are

* primal feasibility:     :math:`Az=b,\ Gz\le h`;
* dual feasibility:       :math:`c + A^\top\nu + G^\top\lambda = 0,\ \lambda\ge 0`;
* complementary slackness: :math:`\lambda_k (Gz-h)_k = 0`;
* zero duality gap:       :math:`c^\top z = -b^\top\nu - h^\top\lambda`.

:func:`lp_certificate` measures each in the max-norm.  Any dual-feasible :math:`(\nu, \lambda)` gives the lower
bound :math:`-b^\top\nu-h^\top\lambda` on the optimum (weak duality), so a small gap *with* small residuals
proves optimality up to that gap.  The residuals are diagnostics: the ratio LPs of the toolkit are certified
by rigorous bounds (:mod:`problems.lp.bounds`, ``docs/certificates.md``), carried in the same
:class:`Certificate` (``lower_bound``, ``upper_bound``, ``basis``).  Non-LP programs (PD-MIP, capacities,
design) build :class:`Certificate` themselves from their own Lagrangian; see their docstrings.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import numpy as np
import scipy.sparse as sp

from .lp.status import RELATIVE_GAP, bounds_agree

__all__ = [
    "Certificate",
    "lp_certificate",
    "theorem_certificate",
    "DEFAULT_TOLERANCE",
]

DEFAULT_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Certificate:
    """KKT residuals of a primal–dual pair, computed by the toolkit (never copied from the solver).

    Attributes
    ----------
    primal_residual:
        Largest violation of any primal constraint (max-norm).
    dual_residual:
        Largest violation of dual feasibility: stationarity residual and negativity of inequality multipliers.
    complementary_slackness:
        Largest :math:`|\\lambda_k\\,(Gz-h)_k|`.
    duality_gap:
        :math:`|\\text{primal objective} - \\text{dual objective}|`.
    primal_objective, dual_objective:
        The two objective values (the dual one is a lower bound when the dual residual is zero).
    tolerance:
        Threshold of the residuals, used by :attr:`ok` for certificates without bounds.
    lower_bound, upper_bound:
        Rigorous bounds on the optimum (``lower ≤ optimum ≤ upper`` despite rounding); ``∓inf`` where none
        was proved.  See ``docs/certificates.md``.
    basis:
        What the bounds rest on: ``"lp-dual"`` (safe dual bound and an exactly feasible point),
        ``"theorem: …"`` (a closed form of Wang, Ying & Zhang (2016)), or ``"kkt"`` (residuals only, no bounds).
    relative_gap:
        The relative tolerance of :attr:`certified` (the status rule of :mod:`problems.lp.status`: relative
        to the larger bound, or the absolute :data:`~problems.lp.status.ABSOLUTE_GAP`).
    """

    primal_residual: float
    dual_residual: float
    complementary_slackness: float
    duality_gap: float
    primal_objective: float
    dual_objective: float
    tolerance: float = DEFAULT_TOLERANCE
    lower_bound: float = -np.inf
    upper_bound: float = np.inf
    basis: str = "kkt"
    relative_gap: float = RELATIVE_GAP

    @property
    def has_bounds(self) -> bool:
        return self.basis != "kkt"

    @property
    def certified(self) -> bool:
        """The rigorous bounds agree by the status rule (:func:`problems.lp.status.bounds_agree`:
        :attr:`relative_gap` relative or ``ABSOLUTE_GAP`` absolute); never for residual-only certificates."""
        if not self.has_bounds:
            return False
        return bounds_agree(float(self.lower_bound), float(self.upper_bound), rtol=self.relative_gap)

    @property
    def max_residual(self) -> float:
        """The largest of the four KKT measures."""
        return max(self.primal_residual, self.dual_residual, self.complementary_slackness, self.duality_gap)

    @property
    def ok(self) -> bool:
        """With bounds: :attr:`certified`.  Without: every KKT measure within :attr:`tolerance`."""
        if self.has_bounds:
            return self.certified
        return bool(np.isfinite(self.max_residual) and self.max_residual <= self.tolerance)

    def check(self, tolerance: float | None = None) -> Certificate:
        """Return ``self`` if every residual is within ``tolerance``; raise ``AssertionError`` naming the worst."""
        tol = self.tolerance if tolerance is None else tolerance
        worst = max(
            ("primal_residual", self.primal_residual),
            ("dual_residual", self.dual_residual),
            ("complementary_slackness", self.complementary_slackness),
            ("duality_gap", self.duality_gap),
            key=lambda kv: kv[1] if np.isfinite(kv[1]) else np.inf,
        )
        if not (np.isfinite(worst[1]) and worst[1] <= tol):
            raise AssertionError(f"certificate fails: {worst[0]} = {worst[1]:.3e} > tolerance {tol:.1e}")
        return self

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ok"] = self.ok
        d["certified"] = self.certified
        out = {}
        for k, v in d.items():
            if isinstance(v, (float, np.floating)):
                v = float(v) if np.isfinite(v) else None
            out[k] = v
        return out


def lp_certificate(
    c: np.ndarray,
    z: np.ndarray,
    *,
    A: sp.spmatrix | None = None,
    b: np.ndarray | None = None,
    nu: np.ndarray | None = None,
    G: sp.spmatrix | None = None,
    h: np.ndarray | None = None,
    lam: np.ndarray | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
) -> Certificate:
    """KKT certificate of ``min c'z s.t. Az = b, Gz <= h`` at primal ``z`` and multipliers ``nu``, ``lam``.

    Multiplier signs follow CVXPY: the Lagrangian is ``c'z + nu'(Az - b) + lam'(Gz - h)`` with ``lam >= 0``.

    Deprecated (a ``DeprecationWarning``; removed in the next release): nothing in the toolkit uses it, the
    LP certificates come from the rigorous bounds of :func:`problems.lp.bounds.certify`.
    """
    warnings.warn(
        "problems.certificate.lp_certificate is deprecated and will be removed in the next release; "
        "LP certificates come from problems.lp.bounds.certify",
        DeprecationWarning,
        stacklevel=2,
    )
    c = np.asarray(c, dtype=float)
    z = np.asarray(z, dtype=float)
    stationarity = c.copy()
    primal = 0.0
    dual_neg = 0.0
    slack = 0.0
    dual_obj = 0.0
    if A is not None:
        assert b is not None and nu is not None
        primal = max(primal, float(np.max(np.abs(A @ z - b), initial=0.0)))
        stationarity += A.T @ nu
        dual_obj -= float(b @ nu)
    if G is not None:
        assert h is not None and lam is not None
        viol = G @ z - h
        primal = max(primal, float(np.max(viol, initial=0.0)))
        stationarity += G.T @ lam
        dual_neg = float(np.max(-lam, initial=0.0))
        slack = float(np.max(np.abs(lam * viol), initial=0.0))
        dual_obj -= float(h @ lam)
    primal_obj = float(c @ z)
    return Certificate(
        primal_residual=primal,
        dual_residual=max(float(np.max(np.abs(stationarity), initial=0.0)), dual_neg),
        complementary_slackness=slack,
        duality_gap=abs(primal_obj - dual_obj),
        primal_objective=primal_obj,
        dual_objective=dual_obj,
        tolerance=tolerance,
    )


def theorem_certificate(value: float, lower: float, upper: float, theorem: str) -> Certificate:
    """The certificate of a closed-form optimum: no residuals, the proved bounds, the theorem named."""
    return Certificate(
        primal_residual=0.0,
        dual_residual=0.0,
        complementary_slackness=0.0,
        duality_gap=float(upper - lower),
        primal_objective=float(value),
        dual_objective=float(lower),
        lower_bound=float(lower),
        upper_bound=float(upper),
        basis=f"theorem: {theorem}",
    )
