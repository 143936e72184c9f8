r"""Active blocks: a block-angular ratio LP answered from the few blocks that carry its optimum.

The ratio rows of a ratio LP (:mod:`problems.lp.spec`) split its variables into *blocks*, the connected
components of the rows (for the orbit-reduced PD-DP / PD-I with m = 2, one block per output weight); only the
normalisation rows join blocks.  A block is either empty or carries mass on every one of its variables (a ratio
row u_s ≤ e^ε κ u_d keeps u_d > 0 whenever u_s > 0).  At small ε the optimum uses few blocks — at m = 2,
n = 60, prior ``mixture:0.5,0.5/0.8,0.2/0.3,0.7``, PD-DP ε = 0.5, two of 61 (the outputs of weight 0 and n) —
while an interior-point method spends most of its iterations driving the others to zero (56 iterations there,
113 at n = 100).  The blocks that will carry the optimum stand out early: in that example the two of them lead
the block masses of the iterates from iteration 9 on.

Given an iterate, :func:`active_answer` proposes an answer for the whole LP from its heaviest blocks A:

1. **restricted LP** — the LP on the variables of A alone (its rows, all normalisation rows): its optimum
   :math:`z_A` with multipliers (ν, λ_A).  The point z (z_A, zero elsewhere) is feasible for the whole LP, so its
   cost bounds the optimum from above;
2. **pricing** — for every other block b, the LP

   .. math::

       \tau_b = \min\ (c_b + A_b^\top\nu)^\top u \quad\text{s.t.}\quad u \text{ satisfies block } b\text{'s ratio
       rows},\ \textstyle\sum u = 1,\ u \ge 0,

   whose multipliers λ_b make the reduced costs :math:`c_b + A_b^\top\nu + G_b^\top\lambda_b \ge \tau_b`.  If every
   τ_b ≥ 0, the multipliers (ν, λ_A, λ_b) are dual feasible for the whole LP, and −bᵀν, the restricted optimum,
   is a lower bound: the answer is optimal.  (The costs of each pricing block are shifted by their minimum to
   make them non-negative, as a ratio LP has them; that moves τ_b and nothing else.)

Both LPs are solved by the caller's solver (the block method).  Nothing here is trusted: the caller certifies the
assembled (z, ν, λ) on the whole LP like any back end's answer (exact repair, safe lower bound: a block whose
τ_b is slightly negative only weakens the bound by its deficit).  When the heaviest blocks were the wrong guess,
the bound falls short and the iteration goes on.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..errors import PrivacyToolkitError
from ..progress import note
from .spec import RatioLPSpec
from .status import ABSOLUTE_GAP, RELATIVE_GAP

__all__ = [
    "blocks_of",
    "sub_spec",
    "active_answer",
    "ActiveAnswer",
    "ActiveBlockProbe",
    "ACTIVE_SHARE",
    "ACTIVE_MAX_VARIABLES",
    "PROBE_FROM_ITERATION",
    "PROBE_EVERY",
    "PROBE_MIN_GAP",
    "PRICING_CHECK_FROM",
    "PRICING_CHECK_EVERY",
    "PRICING_MAX_ITER",
    "MAX_PROBES",
    "PROBE_TIME_SHARE",
    "PRICING_REJECT",
    "PRICING_FEASIBLE",
    "pricing_upper_values",
]

#: A block is proposed as active when its mass is at least this share of the heaviest block's mass.
ACTIVE_SHARE = 0.05
#: No proposal when the active blocks hold more than this share of the variables: at large ε every block carries
#: mass, and for PD-I many carry a little (measured, i.i.d. (0.3, 0.7), n = 60, ε_X + 0.3: proposals of 16–18 of
#: 61 blocks, 20 % of the variables, each missing blocks of small mass, three failed tries cost 27 s of 41).
ACTIVE_MAX_VARIABLES = 0.10
#: The first iteration at which a proposal is tried, and the iterations between tries with the same blocks.
PROBE_FROM_ITERATION = 8
PROBE_EVERY = 8
#: No proposal once the iterate's relative duality gap |cᵀz + bᵀν| / (1 + |cᵀz|) is below this: a late try costs
#: more than the iterations it could save.  Measured (PD-DP, ε = 0.5, m = 2): the proposals that were proved came
#: at gaps of 2–4e-2 (mixture n = 40, 60; i.i.d. n = 60); the ones that failed at 1e-5 and 2e-6 (contagious
#: (0.2), n = 60) and 5e-5 (mixture, ε = 1, n = 200: 97 s for nothing, 450 s before the pricing test below).
PROBE_MIN_GAP = 1e-3

#: An acceptance test ``accept(z, ν, λ)`` of an answer (the caller's certificate).
Accept = Callable[[np.ndarray, np.ndarray, np.ndarray], bool]
#: ``solve(lp, ε, check)`` → (z, ν, λ, iterations): the sub-solver.  With ``check`` (a test of its iterates) it may
#: stop at the first iterate that ``check`` accepts; without, at its own certificate.
SubSolve = Callable[[RatioLPSpec, float, "Accept | None"], tuple[np.ndarray, np.ndarray, np.ndarray, int]]
#: Pricing iterates are checked against the caller's test from this iteration on, every few iterations; a
#: pricing solve whose multipliers have not passed by :data:`PRICING_MAX_ITER` iterations ends there (measured
#: where the proposal was right: 13 iterations at n = 60, 25 at n = 100; the constant-output hint at n = 200,
#: ε = 0.1: 53, certified in 242 s, where a cap of 40 sent it to the whole LP, still at a KKT measure of 1.7e-2
#: after 102 iterations and 780 s).
PRICING_CHECK_FROM = 4
PRICING_CHECK_EVERY = 3
PRICING_MAX_ITER = 80
#: At most this many proposals are tried in one solve (each costs a restricted and a pricing solve), and a
#: proposal is tried only while the tries so far took at most this share of the iteration's time.
MAX_PROBES = 2
PROBE_TIME_SHARE = 0.25
#: The pricing LP is abandoned (the proposal fails) at the first checked iterate that satisfies its ratio rows to
#: :data:`PRICING_FEASIBLE` relative and shows a block whose pricing value τ_b (the iterate's cost per unit mass
#: on the block, an upper bound on τ_b) is below −PRICING_REJECT times the restricted LP's cost per
#: normalisation row: such a block lowers the lower bound by far more than the certificate allows.  Measured at
#: m = 2, n = 200, mixture PD-DP ε = 1 (every block carries mass at the optimum): a proposal of 10 % of the
#: variables at iteration 48 cost 57 s (restricted LP) and 300–390 s (80 pricing iterations) for nothing; its
#: pricing iterates showed a block at −0.87 (−1.2 for a wrong guess at n = 30), while right guesses stay above 0
#: and approach their τ_min from above (mixture, n = 40: 1.3e-3 … 2.2e-4).
PRICING_REJECT = 1e-2
PRICING_FEASIBLE = 1e-7


def blocks_of(spec: RatioLPSpec) -> tuple[int, np.ndarray]:
    """(number of blocks, block of each variable): the connected components of the ratio rows (cached)."""
    if "blocks" not in spec.cache:
        graph = sp.csr_matrix((np.ones(spec.P), (spec.src, spec.dst)), shape=(spec.K, spec.K))
        spec.cache["blocks"] = connected_components(graph, directed=False)
    return spec.cache["blocks"]


def sub_spec(
    spec: RatioLPSpec,
    keep: np.ndarray,
    *,
    c: np.ndarray | None = None,
    group: np.ndarray | None = None,
    b: np.ndarray | None = None,
    program: str | None = None,
) -> tuple[RatioLPSpec, np.ndarray, np.ndarray]:
    """The ratio LP on the variables ``keep`` (a boolean mask, a union of blocks) and the rows between them.

    ``c``, ``group`` and ``b`` replace the objective and the normalisation rows (``c`` and ``group`` given on the
    kept variables).  Returns ``(sub, idx, rows)``: the sub-LP, its variables' indices in ``spec`` and its rows'.
    """
    idx = np.flatnonzero(keep)
    local = np.full(spec.K, -1, dtype=np.int64)
    local[idx] = np.arange(idx.size)
    rows = np.flatnonzero(keep[spec.src] & keep[spec.dst])
    profile = spec.log_profile

    def log_profile(eps: float) -> np.ndarray:
        return profile(eps)[idx]

    sub = RatioLPSpec(
        c=spec.c[idx] if c is None else c,
        group=spec.group[idx] if group is None else group,
        b=spec.b if b is None else b,
        src=local[spec.src[rows]],
        dst=local[spec.dst[rows]],
        log_kappa=spec.log_kappa[rows],
        program=program or f"{spec.program} (active blocks)",
        log_profile=log_profile,
        eps_min=spec.eps_min,
        log_kappa_error=spec.log_kappa_error,
        scale_from=spec.scale_from,
        log_group_mass=spec.log_group_mass if group is None and b is None else None,
    )
    return sub, idx, rows


class _PricingRejected(RuntimeError):
    """A pricing iterate proved a block with a clearly negative pricing value: the proposal cannot be certified."""


def pricing_upper_values(
    c: np.ndarray, group: np.ndarray, shift: np.ndarray, u: np.ndarray, G: sp.spmatrix
) -> np.ndarray | None:
    """Upper bounds on the pricing values τ_b from a pricing iterate ``u``: per block, shift_b + (c·u)/Σu over
    the block (``c`` the pricing LP's shifted costs, ``group`` the block of each variable, ``G`` its ratio rows),
    or ``None`` when ``u`` violates a ratio row by more than :data:`PRICING_FEASIBLE` of max u (then its cost is no
    bound)."""
    u = np.clip(np.nan_to_num(u), 0.0, None)
    top = float(u.max()) if u.size else 0.0
    if not top > 0 or float(np.max(G @ u, initial=0.0)) > PRICING_FEASIBLE * top:
        return None
    nb = shift.size
    mass = np.bincount(group, weights=u, minlength=nb)
    cost = np.bincount(group, weights=c * u, minlength=nb)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(mass > 0, shift + cost / mass, np.inf)


@dataclass(frozen=True)
class ActiveAnswer:
    """An answer for the whole LP from its active blocks: the point, the multipliers, the active blocks, the
    smallest pricing value τ_b over the other blocks (≥ 0: the multipliers are dual feasible), the
    iterations of the two sub-solves, and whether the caller's test already accepted exactly this answer (at the
    pricing iterate it stopped on)."""

    z: np.ndarray
    nu: np.ndarray
    lam: np.ndarray
    active: np.ndarray
    tau_min: float
    iterations: int
    accepted: bool = False


def proposed_blocks(spec: RatioLPSpec, z: np.ndarray) -> np.ndarray | None:
    """The blocks whose mass in ``z`` is at least :data:`ACTIVE_SHARE` of the heaviest one's, or ``None`` when
    they hold more than :data:`ACTIVE_MAX_VARIABLES` of the variables (or the LP has a single block)."""
    nb, block = blocks_of(spec)
    if nb < 2:
        return None
    mass = np.bincount(block, weights=np.clip(np.nan_to_num(z), 0.0, None), minlength=nb)
    top = float(mass.max())
    if not top > 0:
        return None
    active = np.flatnonzero(mass >= ACTIVE_SHARE * top)
    sizes = np.bincount(block, minlength=nb)
    if sizes[active].sum() > ACTIVE_MAX_VARIABLES * spec.K:
        return None
    return active


def active_answer(
    spec: RatioLPSpec, eps: float, active: np.ndarray, solve: SubSolve, accept: Accept | None = None
) -> ActiveAnswer | None:
    """The answer for ``spec`` at ε from the blocks ``active`` (module docstring), or ``None`` when a
    normalisation row has no variable in them or a sub-solve fails.

    With ``accept``, the pricing LP stops at its first iterate whose multipliers make the assembled answer pass
    ``accept`` (the pricing LP need not be solved further than the whole LP's certificate needs)."""
    _, block = blocks_of(spec)
    keep = np.isin(block, active)
    if np.any(np.bincount(spec.group[keep], minlength=spec.G) == 0):
        return None  # some normalisation row cannot be met from these blocks
    try:
        sub, idx, rows = sub_spec(spec, keep)
        z_a, nu, lam_a, it_a = solve(sub, eps, None)
        z = np.zeros(spec.K)
        z[idx] = np.clip(z_a, 0.0, None)
        lam = np.zeros(spec.P)
        lam[rows] = lam_a
        tau_min = math.inf
        it_p = 0
        accepted = False
        passed: list[np.ndarray] = []  # the pricing multipliers that the caller's test accepted
        rest = ~keep
        if rest.any():
            others = np.unique(block[rest])
            pidx = np.flatnonzero(rest)
            pgroup = np.searchsorted(others, block[pidx])
            cost = spec.c[pidx] + nu[spec.group[pidx]]
            low = np.full(others.size, np.inf)
            np.minimum.at(low, pgroup, cost)
            price, _, prow = sub_spec(
                spec,
                rest,
                c=cost - low[pgroup],
                group=pgroup,
                b=np.ones(others.size),
                program=f"{spec.program} (pricing)",
            )
            price.cache["band_layer"] = spec.group[pidx]  # the layers of the band (problems.ipm.layered)

            # a cheap necessary test before the caller's certificate: the deficit Σ max(0, −d_t)·z̄_t of the
            # reduced costs d = c + Aᵀν + Gᵀλ on the priced variables (z̄ their bounds) costs the lower bound at
            # least that much, so an iterate whose deficit exceeds a tenth of the tolerance is not tried
            GpT = price.ratio_matrix(eps).T.tocsr()
            Gp = GpT.T  # a view (CSC), no second copy of the rows
            cap = spec.upper[pidx]
            value = float(spec.c @ z)
            allowed = 0.1 * max(RELATIVE_GAP * abs(value), ABSOLUTE_GAP)
            reject_below = -PRICING_REJECT * max(abs(value), ABSOLUTE_GAP) / max(spec.G, 1)

            def check(u_p: np.ndarray, _nu: np.ndarray, lam_p: np.ndarray) -> bool:
                tau_up = pricing_upper_values(price.c, pgroup, low, u_p, Gp)
                if tau_up is not None and float(tau_up.min()) < reject_below:
                    raise _PricingRejected(
                        f"a block prices at {float(tau_up.min()):.3g} < {reject_below:.3g}"
                    )
                lam_p = np.clip(lam_p, 0.0, None)
                deficit = float(np.sum(np.clip(-(cost + GpT @ lam_p), 0.0, None) * cap))
                if not deficit <= allowed:
                    return False
                trial = lam.copy()
                trial[prow] = lam_p
                if accept is None or not accept(z, nu, trial):
                    return False
                passed[:] = [lam_p]
                return True

            _u, nu_p, lam_p, it_p = solve(price, eps, check if accept is not None else None)
            lam_p = np.clip(lam_p, 0.0, None)
            lam[prow] = lam_p
            accepted = bool(passed) and np.array_equal(passed[0], lam_p)
            # the pricing LP's value per block is −ν_p (its rows have right-hand side 1); τ_b adds the shift back
            tau_min = float(np.min(low - nu_p))
    except (PrivacyToolkitError, ArithmeticError, ValueError, np.linalg.LinAlgError, RuntimeError):
        return None  # a sub-solve failed or ran out of time: no answer from these blocks
    if not (np.all(np.isfinite(z)) and np.all(np.isfinite(nu)) and np.all(np.isfinite(lam))):
        return None
    return ActiveAnswer(
        z,
        nu,
        np.clip(lam, 0.0, None),
        np.asarray(active),
        tau_min,
        int(it_a + it_p),
        bool(rest.any()) and accepted,
    )


class ActiveBlockProbe:
    """Tries :func:`active_answer` on the iterates of an interior-point method and keeps the first answer that
    ``accept(z, ν, λ)`` (the caller's certificate) accepts.

    Called as ``probe(z, ν, λ, iteration)`` on the unscaled iterates; returns True to end the iteration.  A
    proposal is tried from :data:`PROBE_FROM_ITERATION` on, when the proposed blocks are the same as at the
    previous iterate (a stable guess), and again with the same blocks only every :data:`PROBE_EVERY`
    iterations, while the iterate's duality gap is above :data:`PROBE_MIN_GAP`; at most :data:`MAX_PROBES`
    proposals per solve, and only while the tries so far took at most
    :data:`PROBE_TIME_SHARE` of the iteration's own time.
    """

    def __init__(
        self,
        spec: RatioLPSpec,
        eps: float,
        accept: Callable[[np.ndarray, np.ndarray, np.ndarray], bool],
        solve: SubSolve,
    ) -> None:
        self.spec, self.eps, self.accept, self.solve = spec, eps, accept, solve
        self.answer: ActiveAnswer | None = None
        self.tries = 0
        self.spent = 0.0  # seconds of the tries
        self._start = time.perf_counter()
        self._previous: tuple | None = None
        self._tried: dict[tuple, int] = {}
        #: True once no proposal will be tried any more (the caller may stop preparing iterates for the probe)
        self.finished = False

    def try_hint(self) -> bool:
        """Try the blocks of ``spec.cache["active_hint"]`` (a caller's guess: for PD-DP of a mixture at small ε,
        the constant outputs) before any iteration; True (and :attr:`answer`) if the caller's test accepts."""
        hint = self.spec.cache.get("active_hint")
        if hint is None:
            return False
        now = time.perf_counter()
        note(step=f"the {len(hint)} hinted blocks: restricted LP, then pricing the others")
        ans = active_answer(self.spec, self.eps, np.asarray(hint), self.solve, self.accept)
        accepted = ans is not None and (ans.accepted or self.accept(ans.z, ans.nu, ans.lam))
        self.spent += time.perf_counter() - now
        if accepted:
            self.answer = ans
        else:
            note(step=f"the whole LP (the hinted blocks were not proved optimal in {self.spent:.0f} s)")
        return accepted

    def __call__(self, z: np.ndarray, nu: np.ndarray, lam: np.ndarray, iteration: int) -> bool:
        if iteration < PROBE_FROM_ITERATION or self.finished:
            return False
        value = float(self.spec.c @ z)
        if self.tries >= MAX_PROBES or abs(value + float(self.spec.b @ nu)) < PROBE_MIN_GAP * (
            1.0 + abs(value)
        ):
            self.finished = True  # late (the iteration is nearly done) or out of tries: no more proposals
            return False
        active = proposed_blocks(self.spec, z)
        key = None if active is None else tuple(int(b) for b in active)
        stable, self._previous = key is not None and key == self._previous, key
        if not stable:
            return False
        assert key is not None and active is not None
        last = self._tried.get(key)
        if last is not None and iteration - last < PROBE_EVERY:
            return False
        now = time.perf_counter()
        if self.spent > PROBE_TIME_SHARE * (now - self._start - self.spent):
            return False  # the tries so far cost more than their share of the iteration's time
        self._tried[key] = iteration
        self.tries += 1
        note(step=f"trying the {active.size} heaviest blocks (restricted LP, pricing)")
        ans = active_answer(self.spec, self.eps, active, self.solve, self.accept)
        note(step="the whole LP")
        accepted = ans is not None and (ans.accepted or self.accept(ans.z, ans.nu, ans.lam))
        self.spent += time.perf_counter() - now
        if accepted:
            self.answer = ans
        return accepted
