r"""The primal–dual iteration shared by the toolkit's block-angular interior-point methods.

Every method solves an LP of the form

.. math::

    \min_z c^\top z \quad\text{s.t.}\quad G z + w = 0,\ w \ge 0,\quad A z = b,\quad z \ge 0

whose ratio rows :math:`G` are block diagonal and whose few linking rows :math:`A` couple the blocks: the dense
ratio LP (:mod:`problems.ipm.structured`, one block per output column), the orbit-reduced LPs with dense blocks
(:mod:`problems.ipm.block`) and with banded blocks (:mod:`problems.ipm.layered`).  A method supplies a
:class:`BlockSystem` (products with A, G, their transposes, the diagonal and off-diagonal parts of
:math:`H = G^\top D G + E`, and a factorisation of the reduced Newton system); this module runs the
iteration on it:

* Mehrotra's predictor–corrector with centring :math:`\sigma = (\mu_{\rm aff}/\mu)^3`;
* up to :data:`~problems.ipm.correctors.MAX_CORRECTORS` Gondzio centrality correctors
  (:func:`~problems.ipm.correctors.centrality_correctors`);
* iterative refinement of each Newton solve on the unreduced KKT residual (:class:`_Newton`): Richardson steps,
  or flexible GMRES with the unrefined solve as preconditioner where the block system asks for it
  (:func:`problems.ipm.krylov.refine`);
* separate primal and dual step lengths, a fraction :data:`ETA` of the way to the boundary;
* stopping on the KKT measure (its dual residual counted beyond the rounding floor of its terms,
  :func:`_dual_residual`), on the caller's certificate (``enough``, asked once the duality gap is below
  :data:`ENOUGH_GAP` and :data:`ENOUGH_RELATIVE` of the value), on a stall at the rounding floor, or on a time limit.

The answer is never trusted here: the caller certifies it with the toolkit's rigorous bounds.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Protocol

import numpy as np

from ..errors import SolverFailedError
from ..progress import note
from . import correctors, krylov
from .elementwise import steps, trial_product, with_errstate
from .lapack import lapack_kernels, trim_heap

__all__ = ["BlockSystem", "solve_block_angular", "SOLVER_NAME", "ENOUGH_GAP"]

#: ``PRIVACY_IPM_TRACE=1`` prints one line per iteration on stderr (for developers)
_TRACE = bool(os.environ.get("PRIVACY_IPM_TRACE"))
SOLVER_NAME = "STRUCTURED-IPM"
#: fraction of the step to the boundary
ETA = 0.995
#: OpenBLAS threads during the solve (many small LAPACK calls: 1 is fastest, and robust under load)
BLAS_THREADS = 1
#: equation (5) of a basic variable (s < z) is refined to this fraction of its z∘s only, if that is looser than
#: REFINE_TOL_COMPLEMENTARITY (:meth:`_Newton.solve`); m = 2, n = 100, README mixture, ε = 1: 441 → 263 Newton
#: solves, the same 59 iterations (``docs/benchmarks.md``)
REFINE_TOL_BASIC = 0.1
#: maximum iterative-refinement steps per Newton solve (on the unreduced KKT residual)
REFINE_STEPS = 8
#: iterative refinement also stops when a step reduces the error by less than this factor
REFINE_CONTRACTION = 0.5
#: relative accuracy at which iterative refinement of a Newton solve stops (feasibility equations)
REFINE_TOL = 1e-10
#: the complementarity equations are refined to this fraction of max(|r_s|, μ) only (inexact Newton directions,
#: Bellavia 1998): same iterations, fewer solves; 1e-4 lost a PD-I certificate (``docs/benchmarks.md``)
REFINE_TOL_COMPLEMENTARITY = 1e-6
#: corrections per cycle of the flexible GMRES refinement (:func:`problems.ipm.krylov.refine`) of the systems
#: with ``krylov`` (the layered blocks; 0: Richardson everywhere); m = 2, n = 100: 536 → 462 Newton solves
#: (``docs/benchmarks.md``)
KRYLOV_DIM = 6
#: Mehrotra centring σ = min(SIGMA_MAX, (μ_aff/μ)^SIGMA_POWER)
SIGMA_POWER = 3
SIGMA_MAX = 1.0
#: below this μ every Newton solve (also predictor and correctors) is refined
REFINE_ALL_BELOW = 1e-9
#: stop when the best iterate, already within ``accept``, has not improved for this many iterations
STALL_ITERATIONS = 6
#: relative duality gap (to 1 + |objective|, scaled) below which the caller's early-stop test is asked at every
#: iterate whose gap is also within ENOUGH_RELATIVE of the objective, or ENOUGH_ABSOLUTE in the caller's units
ENOUGH_GAP = 1e-6
ENOUGH_RELATIVE = 4e-6
ENOUGH_ABSOLUTE = 4e-12
#: a refused early-stop test is asked again once the gap is below ENOUGH_STEP times the refused one, or ENOUGH_EVERY
#: iterations later (at every iterate it spent 9–15 tests on a point at m = 2, n = 100), and before a step whose
#: refinement left an error above REFINE_FAILED (in its measure)
ENOUGH_STEP = 0.5
ENOUGH_EVERY = 2
REFINE_FAILED = 1e-6
#: give the C heap's free pages back (:func:`~problems.ipm.lapack.trim_heap`) after each corrector's solve and before
#: each factorisation, not only before the certificate: the peak resident memory stays that of the live arrays
#: (m = 2, n = 150: 766–788 MiB, 838–841 MiB without) at the same wall time (``docs/benchmarks.md``)
TRIM_EACH_ITERATION = True
#: the dual residual is measured beyond this multiple of the size of its terms (:func:`_dual_residual`)
DRES_FLOOR = 64 * np.finfo(float).eps


class BlockSystem(Protocol):
    """What :func:`solve_block_angular` needs of a block-angular LP (dense: :class:`StructuredIPMData`;
    ragged: :class:`problems.ipm.block.RaggedBlockSystem`)."""

    b: np.ndarray
    ct: np.ndarray
    cost_scale: float
    bounded: bool
    refine_steps: int
    refine_contraction: float

    def start(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]: ...
    def A(self, zt: np.ndarray) -> np.ndarray: ...
    def AT(self, nu: np.ndarray) -> np.ndarray: ...
    def G(self, zt: np.ndarray) -> np.ndarray: ...
    def GT(self, v: np.ndarray) -> np.ndarray: ...
    def GT_abs(self, v: np.ndarray) -> np.ndarray: ...
    def H_parts(self, D: np.ndarray, E: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...
    def chunks(self, k: int) -> list[slice]: ...
    def factor(self, diag, off, threads, deflation, pool=None): ...  # noqa: ANN001, ANN201
    def deflation(self, zt, w, r_g, D, E, diag) -> object: ...  # noqa: ANN001 - what factor() takes

    # optional: ``use_pool(pool)`` receives the iteration's thread pool (None when it ends), for a system that
    # splits its own products over the threads (:meth:`problems.ipm.block.RaggedBlockSystem.use_pool`)
    # optional: ``note_refinement(err)`` receives the largest error each iteration's refinement left (a layered
    # system then pins its near-null directions, :meth:`problems.ipm.block.RaggedBlockSystem.note_refinement`)


def _dual_residual(
    data: BlockSystem, r_d: np.ndarray, nu: np.ndarray, lam: np.ndarray, s: np.ndarray
) -> float:
    r"""The largest dual residual :math:`|r_d|` beyond the rounding floor of its computation.

    :math:`r_d = c + A^\top\nu + G^\top\lambda - s` is a sum whose terms can be far larger than the result: a
    variable whose optimal value lies below μ (m = 2, n = 80: entries of 1e-22 with μ = 1e-11) sits on the
    central path with :math:`s_j = \mu/z_j \approx 10^{10}`, balanced by multipliers of the same size on its ratio
    rows.  Evaluating :math:`r_d` there leaves a rounding error of about 1e-16 of those terms (1e-5 absolute),
    which no step can remove (equation (1) is imposed exactly by Δs): counted as dual infeasibility it grew from
    5e-11 to 3e-5 while μ fell and ended the iteration at n = 100 as stalled, at a duality gap of 3e-6 (PD-DP,
    mixture prior, ε = 0.5).  Each component is therefore measured beyond :data:`DRES_FLOOR` times the sum of the
    absolute values of its terms (beyond it, at most 2e-15 at n = 80).
    """
    terms = data.GT_abs(lam)
    terms += np.abs(data.ct)
    terms += np.abs(data.AT(nu))
    terms += s
    terms *= DRES_FLOOR
    np.subtract(np.abs(r_d), terms, out=terms)
    return max(0.0, float(np.max(terms, initial=0.0)))


def _trace(
    it: int,
    mu: float,
    pres: float,
    dres: float,
    gap: float,
    sigma: float,
    ap: float,
    ad: float,
    kept: int,
    vz: np.ndarray,
    vw: np.ndarray,
) -> None:
    """One line per iteration on stderr (``PRIVACY_IPM_TRACE=1``): the measures, the centring parameter, the
    step lengths and the spread of the complementarity products relative to μ."""
    print(
        f"it {it:3d} mu {mu:.1e} pres {pres:.1e} dres {dres:.1e} gap {gap:.1e} sigma {sigma:.2f} "
        f"ap {ap:.3f} ad {ad:.3f} correctors {kept} zs/mu [{vz.min():.1e}, {vz.max():.1e}] "
        f"wl/mu [{vw.min():.1e}, {vw.max():.1e}]",
        file=sys.stderr,
    )


def _default_threads() -> int:
    """Threads over the blocks: the machine's cores (at most 4), when GIL-free LAPACK kernels are available."""
    if lapack_kernels() is None:
        return 1
    return max(
        1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    )


def _feasibility_residuals(
    data: BlockSystem,
    ct: np.ndarray,
    zt: np.ndarray,
    w: np.ndarray,
    nu: np.ndarray,
    lam: np.ndarray,
    s: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(r_d, r_g) = (c + Aᵀν + Gᵀλ − s, Gz + w) at an iterate (the one expression, so that a Newton solve that
    forms them again has the same values)."""
    r_g = data.G(zt)
    r_g += w
    r_d = ct + data.AT(nu) + data.GT(lam) - s
    return r_d, r_g


class _Newton:
    r"""Newton directions at one iterate, sharing one factorisation, with iterative refinement.

    Solves (1) :math:`A^\top\Delta\nu + G^\top\Delta\lambda - \Delta s = -r_d`, (2) :math:`A\Delta z = -r_p`,
    (3) :math:`G\Delta z + \Delta w = -r_g`, (4) :math:`\Lambda\Delta w + W\Delta\lambda = r_\lambda`,
    (5) :math:`S\Delta z + Z\Delta s = r_s` by the reduced system; (3), (4), (1) are imposed exactly when the
    other components are recovered, and the rounding left in (2) and (5) is removed by up to
    :data:`REFINE_STEPS` refinement steps on the unreduced residual.
    """

    def __init__(self, data, fac, zt, w, lam, s, r_d, r_p, r_g, mu, bnorm, pool=None, residuals=None) -> None:  # noqa: ANN001
        self.data, self.fac = data, fac
        self.zt, self.w, self.lam, self.s = zt, w, lam, s
        self.r_d, self.r_p, self.r_g, self.mu, self.bnorm = r_d, r_p, r_g, mu, bnorm
        # () ↦ (r_d, r_g) formed again at this iterate (the same values): a solve refined by GMRES then releases
        # them for its refinement (peak memory: a ratio-row vector and a variable vector)
        self.residuals = residuals
        self.refine_tol = REFINE_TOL
        self.unrefined = 0.0  # the largest error a refinement of these solves left (in its own measure)
        self.refine_steps = data.refine_steps  # longer for block systems (normal equations less accurate)
        self.refine_contraction = data.refine_contraction
        self.bounded = data.bounded
        # Krylov refinement where the residual is in equations (5) and (2) only (with the bounds z ≥ 0)
        self.krylov = KRYLOV_DIM > 0 and self.bounded and getattr(data, "krylov", False)
        self.pool = pool
        self.chunks = data.chunks(1 if pool is None else pool._max_workers)
        # a system that splits its ratio rows into halves of its blocks (with their own products): see raw()
        halves = getattr(data, "halves", None)
        self.halves = halves() if halves is not None and pool is not None else None

    def _map(self, fn, chunks):  # noqa: ANN001, ANN202
        if self.pool is None or len(chunks) == 1:
            return [fn(c) for c in chunks]
        return list(self.pool.map(with_errstate(fn), chunks))

    def raw(
        self,
        rd: np.ndarray | None,
        rp: np.ndarray | None,
        rg: np.ndarray | None,
        rs: np.ndarray,
        rl: np.ndarray | None,
        keep_dw: bool = True,
    ) -> list[np.ndarray]:
        """One unrefined Newton solve (``None`` stands for a zero residual); blocks of columns in parallel.

        ``keep_dw=False`` returns None for Δw and Δλ (Δλ is formed in Δw's array or its parts).  A block
        system with :attr:`halves` works on each half of its blocks on its own thread (the products with G and
        its transpose and the elementwise work around them), and factors and solves all blocks at once."""
        data, fac, w = self.data, self.fac, self.w
        f = np.empty_like(rs)
        Hf = np.empty_like(rs)
        halves = self.halves

        def rhs(zs: slice, ws: slice, GT: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
            """f on the variables ``zs`` (their ratio rows ``ws``), kept in ``f`` and returned."""
            t = None if rl is None else rl[ws] / w[ws]
            if rg is not None:  # D∘r_g on these rows, D = λ/w as the iteration forms it (no P-vector kept)
                drg = self.lam[ws] / w[ws]
                drg *= rg[ws]
                if t is None:
                    t = drg
                else:
                    t += drg
                del drg
            fc = rs[zs] / self.zt[zs] if self.bounded else np.zeros_like(rs[zs])
            if t is not None:
                fc -= GT(t)
            del t
            if rd is not None:
                fc -= rd[zs]
            f[zs] = fc
            return fc

        if halves is None:
            rhs1 = sum(self._map(lambda c: fac.forward(rhs(c, c, data.GT), c, Hf), self.chunks))
        else:
            self._map(lambda h: rhs(h.z, h.w, h.GT), halves)
            rhs1 = fac.forward(f, slice(None), Hf)
        if rp is not None:
            rhs1 = rhs1 + rp  # Σ_y Δz_y = −r_p
        dnu, tt = fac.coupling(rhs1, f)
        dz = np.empty_like(rs)
        single = len(self.chunks) == 1 and halves is None
        whole: list[np.ndarray] = []
        dw = np.empty(0) if single or not keep_dw else np.empty_like(self.w)
        dlam = np.empty(0) if single or not keep_dw else np.empty_like(self.w)
        ds = np.empty_like(rs)
        e1 = None if self.bounded else np.empty_like(rs)

        def stage2(c: slice) -> None:
            dz[c] = fac.backward(f[c], dnu, c, Hf)

        self._map(stage2, self.chunks)
        fac.border(dz, tt)

        def finish(
            zs: slice, ws: slice, G: Callable, GT: Callable, at: np.ndarray, into: bool = False
        ) -> None:
            """Δw, Δλ on the ratio rows ``ws`` and Δs on their variables ``zs`` (``at``: their part of AᵀΔν);
            ``into``: Δw and Δλ formed in place in their parts of ``dw`` and ``dlam`` (no temporaries)."""
            dwc = G(dz[zs], dw[ws]) if into else G(dz[zs])
            np.negative(dwc, out=dwc)
            if rg is not None:
                dwc -= rg[ws]
            if into:
                dlc = np.multiply(self.lam[ws], dwc, out=dlam[ws])
            else:
                dlc = self.lam[ws] * dwc if keep_dw else np.multiply(self.lam[ws], dwc, out=dwc)
            if rl is None:
                np.negative(dlc, out=dlc)
            else:
                np.subtract(rl[ws], dlc, out=dlc)  # (r_λ − λΔw)/w, in place
            dlc /= w[ws]
            if single:  # the whole vector: keep the arrays (no copies into dw, dlam)
                whole[:] = [dwc, dlc]
            elif keep_dw and not into:
                dw[ws] = dwc
                dlam[ws] = dlc
            dsc = GT(dlc)
            dsc += at
            if rd is not None:
                dsc += rd[zs]
            if self.bounded:
                ds[zs] = dsc
            else:  # no s: dsc is the rounding left in equation (1), refined by solve()
                ds[zs] = 0.0
                assert e1 is not None
                e1[zs] = dsc

        if halves is None:
            self._map(lambda c: finish(c, c, data.G, data.GT, data.AT(dnu)), self.chunks)
        else:
            at = data.AT(dnu)
            self._map(lambda h: finish(h.z, h.w, h.G, h.GT, at[h.z], keep_dw), halves)
        if single and keep_dw:
            dw, dlam = whole
        elif not keep_dw:
            dw = dlam = None
        self.e1 = e1
        return [dz, dw, dnu, dlam, ds]

    def solve(
        self,
        r_s: np.ndarray,
        r_l: np.ndarray | list[np.ndarray],
        *,
        homogeneous: bool = False,
        refine: bool = True,
        last: bool = False,
    ) -> tuple[np.ndarray, ...]:
        r"""Newton direction for the complementarity right-hand sides (r_s, r_l).

        ``r_l`` may be handed over as a one-element list, which is emptied: the array is then freed as soon as
        the unrefined solve has read it (peak memory: the refinement does not need it).  A homogeneous system
        refined by GMRES keeps it instead of Δw and Δλ, which it forms from the refined Δz
        (:meth:`_ratio_parts`: one ratio-row vector alive during the refinement instead of two).

        ``homogeneous=True`` solves with zero feasibility residuals (a centrality corrector's system);
        ``refine=False`` skips iterative refinement (directions used only for centring or step prediction);
        ``last=True`` marks the last solve with the feasibility residuals: r_g and r_d are released once its
        unrefined solve has read them (peak memory: the refinement does not need them, and the centrality
        correctors solve with zero residuals).  With :attr:`residuals`, an earlier solve refined by GMRES
        releases them too, and the next solve with the feasibility residuals forms them again.

        Refinement stops once equation (2) holds to :data:`REFINE_TOL` of ‖b‖ and equation (5) to
        :data:`REFINE_TOL_COMPLEMENTARITY` of max(|r_s|, μ), or, for a basic variable (:math:`s_j < z_j`), to
        :data:`REFINE_TOL_BASIC` of :math:`z_js_j` if that is looser.  There the error of (5) is
        :math:`z_j` times that of :math:`\Delta s_j`, which (1) forms as a sum of multiplier terms many orders
        larger than itself (m = 2, n = 100, μ < 1e-9: up to 100 % of max(|r_s|, μ) on 5–10 % of the variables,
        refined away at up to 8 solves per direction).  That error is the dual residual the next iterate
        leaves on :math:`c + A^\top\nu + G^\top\lambda - s`; below a tenth of :math:`s_j` it cannot make
        the reduced cost :math:`s_j + r_{d,j}` negative, so the certificate's lower bound does not feel it.
        (Taking :math:`\Delta s_j` from (5) instead hides the error from the refinement but leaves it in ν and
        λ: a dual residual of 1e-8 cost a lower bound 5e-5 of the value, contagious prior, n = 100, ε = 2.)
        """
        if homogeneous:
            r_d = r_p = r_g = None
        else:
            if self.r_g is None and self.residuals is not None:  # released by an earlier refined solve
                self.r_d, self.r_g = self.residuals()
            r_d, r_p, r_g = self.r_d, self.r_p, self.r_g
            if last or (refine and self.krylov and self.residuals is not None):
                self.r_d = self.r_g = None
        if isinstance(r_l, list):
            r_l = r_l.pop()
        # a homogeneous system refined by GMRES: Δw, Δλ formed once, from the refined Δz (_ratio_parts)
        late_w = homogeneous and refine and self.krylov
        d = self.raw(r_d, r_p, r_g, r_s, r_l, keep_dw=not late_w)
        if not late_w:
            del r_l
        del r_d, r_g
        if not refine:
            return tuple(d)
        scale_s = np.maximum(np.abs(r_s), self.mu) * (REFINE_TOL_COMPLEMENTARITY / REFINE_TOL)
        if self.bounded and REFINE_TOL_BASIC > 0:  # a basic variable's (5): to REFINE_TOL_BASIC of its z∘s
            basic = np.where(self.s < self.zt, self.zt * self.s, 0.0)
            basic *= REFINE_TOL_BASIC / REFINE_TOL
            np.maximum(scale_s, basic, out=scale_s)
            del basic
        if self.krylov:
            d = list(krylov.refine(self, d, r_p, r_s, scale_s, KRYLOV_DIM))
            if late_w:
                d[1], d[3] = self._ratio_parts(d[0], r_l)
            return tuple(d)
        err_old = np.inf
        for _ in range(self.refine_steps):
            dz, dw, dnu, dlam, ds = d
            e2 = -self.data.A(dz) if r_p is None else -r_p - self.data.A(dz)
            e5 = r_s - (self.s * dz + self.zt * ds) if self.bounded else np.zeros_like(r_s)
            err = max(float(np.max(np.abs(e5) / scale_s)), float(np.max(np.abs(e2))) / self.bnorm)
            e1 = self.e1
            if e1 is not None:  # without bounds the dual equation (1) is refined too (cost scaled to ≤ 1)
                err = max(err, float(np.max(np.abs(e1))))
            if err < self.refine_tol or err > self.refine_contraction * err_old:
                break
            err_old = err
            corr = self.raw(e1, -e2, None, e5, None)
            for x, y in zip(d, corr):  # in place: d's arrays are this method's own (fewer P-sized copies)
                x += y
            del corr
        self.unrefined = max(self.unrefined, err)  # (after the last step: an upper estimate)
        return tuple(d)

    def _ratio_parts(self, dz: np.ndarray, r_l: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""Δw = −GΔz and Δλ = (r_λ − ΛΔw)/W of a homogeneous direction, equations (3) and (4), from its
        refined Δz (during the refinement r_λ is kept instead of Δw and Δλ: one ratio-row vector, not two)."""
        dw = self.data.G(dz)
        np.negative(dw, out=dw)
        dlam = self.lam * dw
        np.subtract(r_l, dlam, out=dlam)
        dlam /= self.w
        return dw, dlam


def solve_block_angular(
    data: BlockSystem,
    *,
    tol: float = 1e-9,
    max_iter: int = 100,
    threads: int | None = None,
    program: str = "ratio-lp",
    deflate_below: float = 1e-4,
    accept: float = 1e-7,
    max_correctors: int | None = None,
    time_limit: float | None = None,
    enough: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], bool] | None = None,
    probe: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int], bool] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Mehrotra predictor–corrector on the scaled block-angular LP; returns (Zᵀ, ν, λ, s, iterations).

    ``time_limit`` (seconds) ends the iteration like ``max_iter`` does (the best acceptable iterate is
    returned, else :class:`SolverFailedError`).  ``enough(Zᵀ, ν, λ, s)`` (scaled iterate) is asked at the
    iterates whose gap is below :data:`ENOUGH_GAP` and :data:`ENOUGH_RELATIVE` (after a refusal: once it has halved,
    or two iterations later, :data:`ENOUGH_STEP`, :data:`ENOUGH_EVERY`); the first iterate it accepts is returned
    (the caller passes its certificate, so the iteration ends as soon as the answer is proved).  ``probe(Zᵀ, ν,
    λ, s, iteration)`` is asked at every iterate, whatever its gap; True ends the iteration at that iterate (the
    caller keeps what its probe found: :class:`~problems.lp.active_blocks.ActiveBlockProbe`).

    Arrays are in the *scaled* problem and block layout ``[y, ·]``; see :func:`solve_ratio_lp_structured`.
    """
    threads = _default_threads() if threads is None else threads
    max_correctors = correctors.MAX_CORRECTORS if max_correctors is None else max_correctors
    b = data.b
    ct = data.ct
    zt, w, lam, s, nu = data.start()
    # a block system without the bounds z ≥ 0 (implied by its other rows) has s ≡ 0 and no s∘z pairs
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    bounded = data.bounded
    n_comp = (zt.size if bounded else 0) + w.size
    bnorm = 1.0 + float(np.max(np.abs(b)))
    cnorm = 1.0 + float(np.max(np.abs(ct)))
    last = "max_iter"
    best: tuple = (np.inf,)
    short = 0
    asked = (np.inf, 0)  # the early-stop test is asked at once (then: ENOUGH_STEP, ENOUGH_EVERY)
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    use_pool = getattr(data, "use_pool", None)  # a system that splits its own products over the threads
    note_refinement = getattr(data, "note_refinement", None)  # a system that reacts to failed refinements
    if use_pool is not None:
        use_pool(pool)
    try:
        for it in range(max_iter + 1):
            r_d, r_g = _feasibility_residuals(data, ct, zt, w, nu, lam, s)
            r_p = data.A(zt) - b
            comp = float(np.sum(zt * s) + np.sum(w * lam))
            mu = comp / n_comp
            pobj = float(np.sum(ct * zt))
            dobj = -float(b @ nu)
            pres = max(float(np.max(np.abs(r_p))), float(np.max(np.abs(r_g)))) / bnorm
            dres = _dual_residual(data, r_d, nu, lam, s) / cnorm
            gap = abs(pobj - dobj) / (1.0 + abs(pobj))
            merit = max(pres, dres, gap, comp / (1.0 + abs(pobj)))
            note(iteration=it, kkt=f"{merit:.1e}")
            if merit <= tol:
                return zt, nu, lam, s, it
            if (
                merit < best[0]
            ):  # (before the certificate: an earlier best iterate is not kept alive beside it)
                best = (merit, zt, nu, lam, s, it)
            near = abs(pobj - dobj) <= max(ENOUGH_RELATIVE * abs(pobj), ENOUGH_ABSOLUTE / data.cost_scale)
            ask = enough if gap <= ENOUGH_GAP and near else None  # the early-stop test, until asked on it
            if ask is not None and (gap <= ENOUGH_STEP * asked[0] or it >= asked[1]):
                del r_g  # peak memory: the certificate works beside the iterate (r_g is formed again below)
                trim_heap()  # the last factorisation's freed pages, which the certificate's arrays would not reuse
                if ask(zt, nu, lam, s):
                    return zt, nu, lam, s, it
                r_g = data.G(zt)
                r_g += w
                asked = (gap, it + ENOUGH_EVERY)  # refused: the gap or the iteration at which to ask again
                ask = None
            if probe is not None and probe(zt, nu, lam, s, it):
                return zt, nu, lam, s, it
            if it == max_iter:
                break
            if deadline is not None and time.perf_counter() > deadline:
                last = f"time limit of {time_limit:g} s reached at iteration {it}"
                break
            if not np.all(np.isfinite([pres, dres, gap, mu])):
                last = "non-finite iterate"
                break
            D = lam / w
            E = s / zt if bounded else np.zeros_like(zt)
            diag, off = data.H_parts(D, E)
            defl = data.deflation(zt, w, r_g, D, E, diag) if mu < deflate_below else {}
            fac = None
            reg = 0.0
            scale = float(np.max(diag))
            for _attempt in range(6):
                try:
                    fac = data.factor(diag + reg, off, threads, defl, pool)
                    break
                except np.linalg.LinAlgError as exc:
                    last = f"factorisation failed: {exc}"
                    reg = scale * (1e-14 if reg == 0.0 else 100 * reg / scale)
            if fac is None:
                break
            del off, E, diag  # in the factorisation now

            del D  # the Newton solves form D∘r_g from λ, w and r_g
            again = partial(_feasibility_residuals, data, ct, zt, w, nu, lam, s)  # (r_d, r_g) formed again
            newton_sys = _Newton(data, fac, zt, w, lam, s, r_d, r_p, r_g, mu, bnorm, pool, again)
            del r_d, r_g  # the Newton solves' own now (released after the corrector's unrefined solve)
            newton = newton_sys.solve
            # early on the unrefined directions are accurate to ~1e-10 relative: predictor and centrality
            # correctors skip refinement until μ < REFINE_ALL_BELOW (refining only the sum of the corrector and the
            # correctors, once, stalled at n = 150 short of the certificate)
            late = mu < REFINE_ALL_BELOW

            # predictor (affine scaling)
            rl_a = [lam * w]
            np.negative(rl_a[0], out=rl_a[0])  # −λ∘w, handed over
            dz, dw, dnu, dlam, ds = newton(-s * zt, rl_a, refine=late)
            ap, ad = steps(zt, w, lam, s, (dz, dw, dnu, dlam, ds), bounded, pool)
            mu_aff = float(np.sum(trial_product(zt, ap, dz, s, ad, ds, pool)))
            mu_aff = (mu_aff + float(np.sum(trial_product(w, ap, dw, lam, ad, dlam, pool)))) / n_comp
            sigma = min(SIGMA_MAX, (mu_aff / mu) ** SIGMA_POWER) if mu > 0 else 0.0
            # corrector (the predictor is freed before its solve: peak memory); σμ − λw − ΔwΔλ in place
            rs_c = sigma * mu - s * zt - dz * ds
            rl = lam * w
            np.subtract(sigma * mu, rl, out=rl)
            dw *= dlam
            rl -= dw
            rl_c = [rl]  # handed over (freed after the unrefined solve)
            del rl
            del dz, dw, dnu, dlam, ds
            dz, dw, dnu, dlam, ds = newton(rs_c, rl_c, last=True)
            del rs_c
            if TRIM_EACH_ITERATION:
                trim_heap()
            kept = 0
            if max_correctors > 0:
                handed: list[tuple[np.ndarray, ...]] = [(dz, dw, dnu, dlam, ds)]  # freed once replaced
                del dz, dw, dnu, dlam, ds
                (dz, dw, dnu, dlam, ds), kept = correctors.centrality_correctors(
                    newton_sys, zt, w, lam, s, handed, sigma * mu, max_correctors, late
                )
            # the factorisation is not needed after the correctors: freed before the certificate below (peak memory:
            # at m = 2, n = 200 the banded factors take 0.7 GB, which the certificate's arrays would sit beside)
            unrefined = newton_sys.unrefined
            if note_refinement is not None:
                note_refinement(unrefined)
            del newton_sys, newton, fac
            # a direction refinement left inaccurate can step off the rounding floor: ask on this last good iterate
            if ask is not None and unrefined > REFINE_FAILED:
                trim_heap()
                if ask(zt, nu, lam, s):
                    return zt, nu, lam, s, it
            eta = ETA
            ap, ad = steps(zt, w, lam, s, (dz, dw, dnu, dlam, ds), bounded, pool)
            ap, ad = eta * ap, eta * ad
            if _TRACE:
                _trace(it, mu, pres, dres, gap, sigma, ap, ad, kept, zt * s / mu, w * lam / mu)
            zt = zt + ap * dz
            w = w + ap * dw
            nu = nu + ad * dnu
            lam = lam + ad * dlam
            s = s + ad * ds
            # free this iteration's factorisation and directions before the next one's (peak memory: at m = 2,
            # n = 200 the banded factors take 0.7 GB and a direction's ratio-row parts 88 MB)
            del dz, dw, dnu, dlam, ds, defl
            if min(ap, ad) < 1e-12:
                last = f"step length collapsed at iteration {it}"
                break
            # stalled at the rounding floor: a step of under 1 % twice in a row after an acceptable best iterate
            short = short + 1 if min(ap, ad) < 1e-2 else 0
            if short >= 2 and best[0] <= accept and it - best[5] >= 2:
                last = f"stalled at iteration {it}"
                break
            # or: no better iterate for STALL_ITERATIONS iterations once one was acceptable
            if best[0] <= accept and it - best[5] >= STALL_ITERATIONS:
                last = f"stalled at iteration {it}"
                break
    finally:
        if use_pool is not None:
            use_pool(None)
        if pool is not None:
            pool.shutdown(wait=True)
    if best[0] <= accept:  # stalled near the optimum: the caller certifies the best iterate
        return best[1], best[2], best[3], best[4], best[5]
    raise SolverFailedError(program, [(SOLVER_NAME, f"{last} (best KKT measure {best[0]:.1e})")])
