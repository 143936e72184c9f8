r"""PD-MIP (Wang, Ying & Zhang 2016, (28)–(30)) for i.i.d. priors, reduced exactly to one row (single-letterisation).

The program is

.. math::

    \epsilon^*_{\mathrm m}(D) = R_n(D) = \min_{W} I(X^n;Y^n)\ \text{s.t.}\
    \mathbb{E}\,d(X^n,Y^n) \le D,\qquad d(x,y) = \textstyle\sum_{k=1}^n 1[x_k \ne y_k],

over mechanisms W(y|x) on Dⁿ.  For an i.i.d. prior X^n ~ π^{⊗n} it *tensorises* (full proof in
``docs/orbit_reduction.md`` §9):

.. math::  R_n(D) = n\,R_1(D/n),

where R_1 is the rate–distortion function of the row pmf π with d(a, b) = 1[a ≠ b], and the n-fold product
of a single-letter optimal test channel at distortion D/n is optimal.  (≥: I(X^n;Y^n) ≥ Σ_k I(X_k;Y_k) for
independent X_k, E d = Σ_k D_k, I(X_k;Y_k) ≥ R_1(D_k) and R_1 is convex; ≤: the product channel attains it.)
The multiplier of the distortion constraint is the same, λ_n = R_n'(D) = R_1'(D/n) = λ_1 (up to sign).

*Certificate.*  :class:`~problems.programs.pd_mip.PDMIP` certifies the single-letter program with a
Csiszár–Gallager dual point (λ, c): Σ_a π(a) c(a) e^{−λ d(a,b)} ≤ M for every b and the lower bound
β_1 = −λ D/n + Σ_a π(a) ln c(a) − ln M.  The product point (λ, c^{⊗n}) satisfies
Σ_x π^{⊗n}(x) c^{⊗n}(x) e^{−λ d(x,y)} = Π_k [Σ_a π(a) c(a) e^{−λ d(a,y_k)}] ≤ Mⁿ, so it is a dual point of
the n-row program with normaliser Mⁿ and value −λD + n Σ_a π ln c − n ln M = n β_1, a rigorous lower bound on
R_n(D) over *all* mechanisms on Dⁿ (not only product ones).  The product channel has I = n I_1 and
E d = n E d_1, so the n-row duality gap is exactly n times the single-letter gap; the other residuals are
computed for the product point (row sums Π_k s(x_k), dual normaliser Mⁿ − 1, |λ(D − n E d_1)|).

*Polishing.*  After the dense single-letter solve (exponential cone, then the dense module's Blahut polish),
the single-letter point is moved onto the curve once more: the slope t with E d(W_t) = D/n for the Blahut
point W_t ∝ q e^{−t d} (Brent's method, each evaluation a warm-started Blahut–Arimoto fixed point), and the
certificate evaluated at that exact t (where M = 1 up to round-off).  The point with the smaller certified
gap is kept.  This matters because the gap is multiplied by n.

The result's :attr:`~problems.result.SolveResult.mechanism` is the single-letter channel (``m × m``;
``extras["mechanism_level"] == "row"``); :func:`product_channel` gives a :class:`ProductChannel` whose
:meth:`~ProductChannel.mechanism` builds the Kronecker power W^{⊗n} on demand (only for mⁿ ≤
:data:`~problems.database.DENSE_LIMIT`) and whose :meth:`~ProductChannel.sample` draws y ~ W^{⊗n}(·|x) row by
row at any n.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..certificate import Certificate
from ..closed_forms import check_distortion, kron_power
from ..database import DENSE_LIMIT, DatabaseSpace
from ..errors import InvalidInputError, InvalidPriorError, ShapeMismatchError
from ..lp.status import decide_status
from ..measures import mutual_information
from ..mechanism import Mechanism
from ..priors import Prior, iid
from ..programs.information_bounds import information_certificate, within_distortion
from ..programs.pd_mip import PDMIP, blahut_point_at_distortion, rate_distortion_lower_bound
from ..result import SolveResult
from ..units import check_unit, to_unit
from .symmetric_prior import SymmetricPrior, as_symmetric, iid_row_pmf

__all__ = ["ReducedPDMIP", "ProductChannel", "product_channel", "iid_row_pmf"]


@dataclass(frozen=True, eq=False)
class ProductChannel:
    """The n-fold product W^{⊗n} of a single-letter channel W (``m × m``), never built unless asked for."""

    channel: np.ndarray
    n: int

    @property
    def m(self) -> int:
        return int(self.channel.shape[0])

    @property
    def space(self) -> DatabaseSpace:
        return DatabaseSpace(self.n, self.m)

    def matrix(self, *, limit: int = DENSE_LIMIT) -> np.ndarray:
        """The mⁿ × mⁿ Kronecker power (itertools.product order); ProblemTooLargeError above ``limit``."""
        self.space.require_dense(limit)
        return kron_power(self.channel, self.n)

    def mechanism(self, *, limit: int = DENSE_LIMIT) -> Mechanism:
        """:meth:`matrix` as a :class:`~problems.mechanism.Mechanism` labelled by the databases."""
        return Mechanism.on_space(self.matrix(limit=limit), self.space, clean=True)

    def sample(
        self, x, rng: np.random.Generator | int | None = None, *, size: int | None = None
    ) -> np.ndarray:
        """Draw y ~ W^{⊗n}(·|x): each row y_k ~ W(·|x_k) independently (no mⁿ object).

        Returns an ``(n,)`` integer array, or ``(size, n)`` when ``size`` is given.
        """
        rng = np.random.default_rng(rng)
        x = np.asarray(x)
        if x.shape != (self.n,) or not np.issubdtype(x.dtype, np.integer) or np.any((x < 0) | (x >= self.m)):
            raise ShapeMismatchError(f"x must be {self.n} integers in 0..{self.m - 1}, got {x!r}")
        shape = (self.n,) if size is None else (int(size), self.n)
        cum = np.cumsum(self.channel, axis=1)[x]  # (n, m): the inverse-cdf table of each row
        u = rng.random(shape)
        y = (u[..., None] >= cum * (1.0 / cum[:, -1:])).sum(axis=-1)
        return np.minimum(y, self.m - 1)


def product_channel(result: SolveResult) -> ProductChannel:
    """The :class:`ProductChannel` of a :class:`ReducedPDMIP` result."""
    ex = result.extras
    if result.program != "pd-mip" or ex.get("reduction") != "single-letter":
        raise InvalidInputError(
            f"expected a result of ReducedPDMIP (extras['reduction'] == 'single-letter'), got program "
            f"{result.program!r} with reduction {ex.get('reduction')!r}"
        )
    return ProductChannel(np.asarray(ex["single_letter_channel"], dtype=float), int(ex["n"]))


def _endpoints(p: np.ndarray, D: float) -> list[tuple[str, np.ndarray, float]]:
    """Exact optima at the ends of the curve: D = 0 (identity, R_1 = H(π), λ → ∞) and D ≥ 1 − max π
    (constant output argmax π, R_1 = 0, λ = 0).  At D = 0 a finite λ with e^{−λ} ≪ π_min certifies H(π) to
    round-off."""
    m = p.size
    out: list[tuple[str, np.ndarray, float]] = []
    if D <= 0:
        pmin = float(p[p > 0].min())
        out.append(("identity", np.eye(m), 40.0 + math.log(max(m - 1, 1) / pmin)))
    if D >= 1.0 - float(p.max()):
        W = np.zeros((m, m))
        W[:, int(np.argmax(p))] = 1.0
        out.append(("constant", W, 0.0))
    return out


def _point_certificate(p: np.ndarray, d: np.ndarray, D: float, W: np.ndarray, lam: float):
    """Single-letter certificate of the point W with the Csiszár–Gallager dual at slope λ (KKT c).

    Returns ``(certificate, λ, M)``; M is the dual normaliser before it is divided out.
    """
    q = p @ W
    value = mutual_information(W, p)
    bound, M = rate_distortion_lower_bound(p, d, q, lam, D)
    exp_d = float(np.sum(p[:, None] * W * d))
    cert = Certificate(
        primal_residual=max(
            float(np.max(np.abs(W.sum(axis=1) - 1.0))), float(np.max(-W, initial=0.0)), max(exp_d - D, 0.0)
        ),
        dual_residual=max(M - 1.0, 0.0, -lam),
        complementary_slackness=abs(lam * (D - exp_d)),
        duality_gap=abs(value - bound),
        primal_objective=value,
        dual_objective=bound,
    )
    return cert, max(float(lam), 0.0), M


class ReducedPDMIP:
    """PD-MIP for an i.i.d. prior π^{⊗n} at any n, solved as the single-letter program at D/n.

    ``ReducedPDMIP(prior).solve(D)`` returns a :class:`~problems.result.SolveResult` with value n·R_1(D/n)
    (nats, or bits with ``unit="bits"``), the multiplier λ of the distortion constraint (the same for one
    row and n rows), the tensorised certificate and, in ``extras``, the single-letter channel, value and
    certificate.  ``prior`` is a :class:`~problems.priors.Prior` or
    :class:`~problems.orbit.symmetric_prior.SymmetricPrior` of kind uniform or iid (a mixture whose
    components are all equal is accepted).  Exchangeable mixtures are correlated, do not tensorise, and raise
    :class:`~problems.errors.InvalidPriorError`.
    """

    program = "pd-mip"

    def __init__(self, prior: Prior | SymmetricPrior, *, solver: str | None = None, polish: bool = True):
        sym = as_symmetric(prior)
        row = iid_row_pmf(sym)
        if row is None:
            raise InvalidPriorError(
                f"the reduced PD-MIP covers i.i.d. priors only (the rate–distortion function single-letterises "
                f"for π^⊗n); this prior is {sym.kind} ({sym.name}) with correlated rows. Use the dense program "
                "(formulation='dense', PDMIP) for small n"
            )
        start = time.perf_counter()
        self.prior, self.n, self.m, self.row_pmf = sym, sym.n, sym.m, row
        self.space = DatabaseSpace(sym.n, sym.m)
        self.solver, self.polish = solver, polish
        self.single = PDMIP(iid(DatabaseSpace(1, sym.m), row), solver=solver, polish=polish)
        self.d = self.single.d
        self.setup_time = time.perf_counter() - start

    def solve(self, distortion: float, *, unit: str = "nats", solver: str | None = None) -> SolveResult:
        """min I(X^n;Y^n) subject to E d ≤ D (D in [0, n]); the value is reported in ``unit``."""
        unit = check_unit(unit)
        n, p, d = self.n, self.row_pmf, self.d
        D = check_distortion(distortion, n)
        D1 = min(D / n, 1.0)
        interior = 0.0 < D1 < 1.0 - float(p.max())  # where λ > 0 and the Blahut point is the optimum
        # the dense polish only pays in the interior (at the ends Blahut–Arimoto crawls; _endpoints is exact)
        self.single.polish = self.polish and interior
        res1 = self.single.solve(D1, unit="nats", solver=solver)
        lam = float(res1.duals["distortion"])
        W_dense = np.asarray(res1.matrix, dtype=float)
        candidates = [("dense", W_dense, float(res1.extras["lambda_certified"]))]
        if self.polish and interior:
            point = blahut_point_at_distortion(
                p, d, D1, lam, p @ W_dense, iters=20_000, tol=1e-15, tries=8, slack=1e-13
            )
            if point is not None:
                candidates.append(("blahut", point[0], point[2]))
        if self.polish:
            candidates += _endpoints(p, D1)
        # keep the point whose single-letter certificate has the smallest worst residual
        # every candidate made exactly feasible (E d ≤ D) before it is scored
        candidates = [(name, within_distortion(W, p, d, D1)[0], t) for name, W, t in candidates]
        scored = [(name, W, _point_certificate(p, d, D1, W, t)) for name, W, t in candidates]
        point_name, W, (single, lam_cert, M) = min(scored, key=lambda c: c[2][0].max_residual)
        q = p @ W
        value1, bound1 = single.primal_objective, single.dual_objective

        # the n-row product point: value n I_1, bound n β_1 (dual normaliser Mⁿ), E d = n E d_1
        exp_d1 = float(np.sum(p[:, None] * W * d))
        exp_d = n * exp_d1
        sums = W.sum(axis=1)
        row_sum_error = max(abs(math.expm1(n * math.log(s))) for s in (float(sums.min()), float(sums.max())))
        value, bound = n * value1, n * bound1
        zero = bool(np.all(W == W[:1]))
        if zero:
            value = 0.0
        cert, bounds = information_certificate(
            value,
            bound,
            terms=n * W.size,
            primal=max(row_sum_error, float(np.max(-W, initial=0.0)), max(exp_d - D, 0.0)),
            dual=max(math.expm1(n * math.log(M)), 0.0, -lam_cert),
            slack=abs(lam_cert * (D - exp_d)),
            unit=unit,
            exact_zero=zero,
            feasible=exp_d <= D,
        )
        labels = tuple(str(a) for a in range(self.m))
        mechanism = Mechanism(W, labels, labels)
        posterior = mechanism.posterior(p)
        extras: dict[str, Any] = {
            "path": "reduced",
            "reduction": "single-letter",
            "n": n,
            "m": self.m,
            "prior": self.prior.to_dict(),
            "mechanism_level": "row",
            "expected_distortion": exp_d,
            "lambda": lam,
            "lambda_certified": lam_cert,
            "lower_bound_nats": bound,
            "single_letter_distortion": D1,
            "single_letter_value_nats": value1,
            "single_letter_lower_bound_nats": bound1,
            "single_letter_channel": W,
            "single_letter_p_y": q,
            "single_letter_posterior": posterior,
            "single_letter_certificate": single.to_dict(),
            "point": point_name,
            # λ per unit of distortion in nats (the dual "distortion" carries it in the result's unit)
            "extras_in_nats": ["lambda", "lambda_certified", "lower_bound_nats", "single_letter_value_nats"],
        }
        return SolveResult(
            program=self.program,
            status=decide_status(bounds.lower, bounds.upper),
            value=float(to_unit(value, unit)),
            mechanism=mechanism,
            eps=None,
            distortion=D,
            duals={
                "distortion": float(to_unit(lam, unit)),  # per unit of distortion, in the value's unit
                "single_letter_normalisation": to_unit(np.asarray(res1.duals["normalisation"], float), unit),
                "single_letter_nonnegativity": to_unit(np.asarray(res1.duals["nonnegativity"], float), unit),
            },
            certificate=cert,
            stats=res1.stats,  # of the single-letter conic solve
            p_y=None,
            posterior=None,
            unit=unit,
            extras=extras,
            bounds=bounds,
        )
