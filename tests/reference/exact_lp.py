r"""Exact rational reference for small privacy–distortion linear programs.

Independent of the ``problems`` package (nothing is imported from it): the programs are rebuilt here from
their definitions and solved in exact rational arithmetic (:class:`fractions.Fraction`).

The LP solver
-------------
:func:`solve_lp` solves

.. math::

    \min c^\top z \quad\text{s.t.}\quad A_{eq} z = b_{eq},\ A_{ub} z \le b_{ub},\ z \ge 0

exactly (standard form: one slack per inequality row, one artificial per equality row), by simplex methods
whose every arithmetic operation is on Python integers or Fractions:

1. *Basis check.*  Candidate bases come from the caller (e.g. the optimal basis of the same program at a
   nearby ε) and from a floating-point solver (HiGHS through ``highspy``, or ``scipy.optimize.linprog``),
   for the LP itself and for "hint" LPs with the same rows and columns (better scaled, or at a smaller
   ratio bound).  The floats only *propose* a basis.  For a basis with basic structural columns S and tight
   rows L (|S| = |L|), the exact primal x_S (A_LS x_S = b_L) and dual y_L (A_LSᵀ y_L = c_S) come from
   fraction-free sparse elimination.
2. *Revised simplex* (:class:`_Revised`) from a candidate that is exactly primal feasible (primal simplex) or
   dual feasible (dual simplex), refactorising A_LS at each pivot.  It never touches the thousands of
   inequality rows whose slack is basic, so it is the workhorse for N = 27 (729 variables, 4 374 rows).
3. *Tableau simplex* (:class:`_Tableau`, sparse, fraction-free rows) from a candidate installed by exact
   pivots ("crash"), and finally an exact two-phase simplex from the slack basis, which needs no floats.

Pivot rules: Dantzig's, switching to Bland's after 50 consecutive degenerate pivots until a non-degenerate
one, so every method terminates on these highly degenerate LPs.

Proof of optimality.  Whatever path was taken, the final primal point x and dual vector y are checked
*against the original data* in exact arithmetic: x ≥ 0, A_eq x = b_eq, A_ub x ≤ b_ub, y_ub ≤ 0,
c − A_eqᵀ y_eq − A_ubᵀ y_ub ≥ 0, and cᵀx = bᵀy.  By weak duality cᵀx is then the exact optimum.  (A final
check failing raises :class:`AssertionError`: a bug here, never a tolerance question.)  Infeasibility is
reported only when proved: a positive exact phase-1 optimum, or a dual-simplex row with no admissible entry.

The programs (databases in :func:`itertools.product` order, neighbours at Hamming distance exactly 1,
distortion d(x, y) = Hamming distance, N = mⁿ, variables flattened as ``x * N + y``)
------------------------------------------------------------------------------------------------------------
* :func:`pd_dp` — min Σ_x p(x) Σ_y d(x,y) W[x,y] s.t. W[x,y] ≤ r W[x',y] (x ~ x', all y), Σ_y W[x,y] = 1;
* :func:`pd_i` — min Σ q d s.t. q[x,y] ≤ r q[x',y], Σ_y q[x,y] = p(x); ``None`` when infeasible;
* :func:`r_pd` — min Σ q d s.t. q[x,y] ≤ r q[x',y], Σ_{x,y} q = 1.  Optimum h = n / (1 + r/(m−1)) (Wang, Ying & Zhang 2016,
  Lemma 1), available exactly as :func:`h_closed_form`.

Here ``r`` is e^ε as an exact Fraction; callers pass ``Fraction(math.exp(eps))``.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "LinearProgram",
    "ExactSolution",
    "InfeasibleLP",
    "UnboundedLP",
    "solve_lp",
    "databases",
    "hamming",
    "neighbour_pairs",
    "pd_dp_lp",
    "pd_i_lp",
    "r_pd_lp",
    "pd_dp",
    "pd_i",
    "r_pd",
    "pd_dp_solution",
    "pd_i_solution",
    "r_pd_solution",
    "h_closed_form",
    "max_neighbour_ratio",
]

Row = dict[int, Fraction]

#: A basis: basic structural columns, and rows (equality rows first, then inequality rows) whose logical
#: variable (slack, or artificial for an equality row) is basic.
Basis = tuple[tuple[int, ...], frozenset[int]]

_ZERO = Fraction(0)
_ONE = Fraction(1)


class InfeasibleLP(Exception):
    """The LP has no feasible point (proved by an exact phase 1 or an exact dual-simplex row)."""


class UnboundedLP(Exception):
    """The LP is unbounded below (proved by an exact primal-simplex ray)."""


@dataclass(frozen=True)
class LinearProgram:
    """min cᵀz s.t. A_eq z = b_eq, A_ub z ≤ b_ub, z ≥ 0, with sparse rows ``{column: coefficient}``."""

    c: list[Fraction]
    a_eq: list[Row]
    b_eq: list[Fraction]
    a_ub: list[Row]
    b_ub: list[Fraction]

    @property
    def n_vars(self) -> int:
        return len(self.c)


@dataclass(frozen=True)
class ExactSolution:
    """An exactly verified optimal primal–dual pair.

    ``value = cᵀx = b_eqᵀ y_eq + b_ubᵀ y_ub``; ``pivots`` counts exact simplex pivots (crash pivots included);
    ``path`` says how the optimum was reached (``"basis check"``, ``"revised primal"``, ``"revised dual"``,
    ``"warm primal"``, ``"warm dual"`` (tableau from a crashed basis), ``"two-phase"``); ``basis`` is the optimal basis (basic structural columns, rows whose slack or artificial
    is basic), which can be passed to :func:`solve_lp` as a starting basis of a nearby LP.
    """

    value: Fraction
    x: list[Fraction]
    y_eq: list[Fraction]
    y_ub: list[Fraction]
    pivots: int
    path: str
    basis: Basis


# --------------------------------------------------------------------------------------------------------
# Sparse exact tableau
# --------------------------------------------------------------------------------------------------------


#: Key of the right-hand side inside a tableau row (column indices are ≥ 0).
_RHS = -1

#: Consecutive degenerate pivots after which the simplex methods switch from Dantzig's to Bland's rule.
_BLAND_AFTER = 50


def _integer_row(row: dict[int, Fraction]) -> tuple[dict[int, int], int]:
    """(numerators, positive common denominator) of a row of Fractions, reduced."""
    den = math.lcm(1, *(v.denominator for v in row.values()))
    return _reduce({k: int(v * den) for k, v in row.items() if v}, den)


def _reduce(num: dict[int, int], den: int) -> tuple[dict[int, int], int]:
    g = math.gcd(den, *num.values())
    if g != 1:
        num = {k: v // g for k, v in num.items()}
        den //= g
    return num, den


class _Tableau:
    """Rows of B⁻¹[A | I | b] in exact rational arithmetic, plus a reduced-cost row.

    Fraction-free storage (Python's ``Fraction`` spends most of its time in normalisation): row i is
    ``num[i][k] / den[i]`` with integer numerators (sparse dict, right-hand side under key ``_RHS``) and one
    positive integer denominator, reduced by the gcd after every update.  ``colrows[k]`` is the set of rows
    with a non-zero in column k.
    """

    def __init__(self, lp: LinearProgram) -> None:
        nv, me, mu = lp.n_vars, len(lp.a_eq), len(lp.a_ub)
        self.nv, self.me, self.mu = nv, me, mu
        self.n_rows = me + mu
        ncols = nv + mu  # structural, then one slack per inequality row, then artificials
        self.num: list[dict[int, int]] = []
        self.den: list[int] = []
        self.sign: list[int] = []
        self.ident: list[int] = []  # column holding +1 in row k of the initial basis
        self.logical: list[int] = []  # the HiGHS "row" variable of row k: slack (ub) or artificial (eq)
        artificials: list[int] = []
        for k in range(self.n_rows):
            if k < me:
                coeffs, b, slack = lp.a_eq[k], Fraction(lp.b_eq[k]), None
            else:
                coeffs, b, slack = lp.a_ub[k - me], Fraction(lp.b_ub[k - me]), nv + (k - me)
            s = -1 if b < 0 else 1
            row: dict[int, Fraction] = {j: Fraction(v) * s for j, v in coeffs.items() if v}
            if slack is not None:
                row[slack] = Fraction(s)
            if slack is not None and s == 1:
                ident = slack
            else:
                ident = ncols
                ncols += 1
                artificials.append(ident)
                row[ident] = _ONE
            row[_RHS] = b * s
            num, den = _integer_row(row)
            self.num.append(num)
            self.den.append(den)
            self.sign.append(s)
            self.ident.append(ident)
            self.logical.append(slack if slack is not None else ident)
        self.ncols = ncols
        self.artificials = frozenset(artificials)
        self.basis = list(self.ident)
        self.colrows: list[set[int]] = [set() for _ in range(ncols)]
        for k, row in enumerate(self.num):
            for j in row:
                if j != _RHS:
                    self.colrows[j].add(k)
        self.obj: dict[int, int] = {}  # reduced costs, numerators over obj_den (the _RHS entry is −objective)
        self.obj_den = 1
        self.pivots = 0

    # ---- exact values ----------------------------------------------------------------------------------

    def rhs(self, i: int) -> Fraction:
        return Fraction(self.num[i].get(_RHS, 0), self.den[i])

    def entry(self, i: int, k: int) -> Fraction:
        return Fraction(self.num[i].get(k, 0), self.den[i])

    def reduced_cost(self, k: int) -> Fraction:
        return Fraction(self.obj.get(k, 0), self.obj_den)

    # ---- elementary operations ------------------------------------------------------------------------

    @staticmethod
    def _eliminate(
        ni: dict[int, int], di: int, nr: dict[int, int], p: int, j: int
    ) -> tuple[dict[int, int], int]:
        """(ni/di) − (ni[j]/di)·(nr/p), i.e. row i with column j eliminated by the pivot row nr/p."""
        f = ni[j]
        new = {k: v * p for k, v in ni.items()}
        for k, v in nr.items():
            t = new.get(k, 0) - f * v
            if t:
                new[k] = t
            else:
                new.pop(k, None)
        return _reduce(new, di * p)

    def pivot(self, r: int, j: int) -> None:
        nr = self.num[r]
        p = nr[j]
        if p < 0:
            nr = {k: -v for k, v in nr.items()}
            p = -p
        nr, p = _reduce(nr, p)  # row r is now nr / p with entry 1 in column j
        self.num[r], self.den[r] = nr, p
        colrows = self.colrows
        for i in list(colrows[j]):
            if i == r:
                continue
            ni = self.num[i]
            new, d = self._eliminate(ni, self.den[i], nr, p, j)
            for k in nr:
                if k == _RHS:
                    continue
                if k in new:
                    if k not in ni:
                        colrows[k].add(i)
                elif k in ni:
                    colrows[k].discard(i)
            self.num[i], self.den[i] = new, d
        if self.obj.get(j):
            self.obj, self.obj_den = self._eliminate(self.obj, self.obj_den, nr, p, j)
        self.basis[r] = j
        self.pivots += 1

    def set_objective(self, cost: dict[int, Fraction]) -> None:
        """Reduced costs d = c − c_Bᵀ B⁻¹ A for the current basis."""
        obj: dict[int, Fraction] = {j: Fraction(v) for j, v in cost.items() if v}
        for i, b in enumerate(self.basis):
            cb = cost.get(b)
            if not cb:
                continue
            f = Fraction(cb) / self.den[i]
            for k, v in self.num[i].items():
                t = obj.get(k, _ZERO) - f * v
                if t:
                    obj[k] = t
                else:
                    obj.pop(k, None)
        self.obj, self.obj_den = _integer_row(obj)

    # ---- basis installation -------------------------------------------------------------------------

    def crash(self, target: Sequence[int]) -> None:
        """Pivot the columns of ``target`` into the basis (columns that would make it singular are skipped)."""
        tset = set(target)
        basic = set(self.basis)
        for j in sorted(tset - basic):
            cands = [i for i in self.colrows[j] if self.basis[i] not in tset]
            if not cands:
                continue
            r = min(cands, key=lambda i: (self.basis[i] not in self.artificials, len(self.num[i]), i))
            self.pivot(r, j)

    def drive_out_artificials(self) -> None:
        """Replace artificials basic at level 0 by real columns (rows with none are redundant and inert)."""
        for i, b in enumerate(self.basis):
            if b in self.artificials and not self.num[i].get(_RHS):
                cands = [k for k in self.num[i] if k != _RHS and k not in self.artificials]
                if cands:
                    self.pivot(i, min(cands))

    # ---- simplex methods ----------------------------------------------------------------------------
    #
    # Dantzig's rule (most negative reduced cost / most negative right-hand side), switching to Bland's rule
    # (smallest index) after _BLAND_AFTER consecutive degenerate pivots until a non-degenerate one: Bland's rule
    # cannot cycle, and each non-degenerate pivot strictly improves the objective, so both methods terminate.

    def primal_simplex(self, max_pivots: int) -> None:
        """From a primal-feasible basis, minimise the current objective (artificials never enter)."""
        arts = self.artificials
        streak = 0
        while True:
            eligible = [(d, k) for k, d in self.obj.items() if d < 0 and k != _RHS and k not in arts]
            if not eligible:
                return
            j = min(eligible)[1] if streak < _BLAND_AFTER else min(k for _, k in eligible)
            best = None
            for i in self.colrows[j]:
                a = self.num[i][j]
                if a > 0:
                    key = (Fraction(self.num[i].get(_RHS, 0), a), self.basis[i])  # rhs_i / a_ij
                    if best is None or key < best[0]:
                        best = (key, i)
            if best is None:
                raise UnboundedLP(f"column {j} is an improving ray")
            streak = streak + 1 if best[0][0] == 0 else 0
            self.pivot(best[1], j)
            if self.pivots > max_pivots:
                raise RuntimeError(f"exact simplex exceeded {max_pivots} pivots")

    def dual_simplex(self, max_pivots: int) -> None:
        """From a dual-feasible basis, restore primal feasibility (artificials never enter)."""
        arts = self.artificials
        streak = 0
        while True:
            infeasible = [i for i in range(self.n_rows) if self.num[i].get(_RHS, 0) < 0]
            if not infeasible:
                return
            if streak < _BLAND_AFTER:
                r = min(infeasible, key=lambda i: (self.rhs(i), self.basis[i]))
            else:
                r = min(infeasible, key=lambda i: self.basis[i])
            best = None
            for k, a in self.num[r].items():
                if a < 0 and k != _RHS and k not in arts:
                    key = (Fraction(self.obj.get(k, 0), -a), k)  # d_k / |a_rk| up to a common positive factor
                    if best is None or key < best:
                        best = key
            if best is None:
                raise InfeasibleLP(f"tableau row {r} has a negative right-hand side and no negative entry")
            streak = streak + 1 if best[0] == 0 else 0
            self.pivot(r, best[1])
            if self.pivots > max_pivots:
                raise RuntimeError(f"exact dual simplex exceeded {max_pivots} pivots")

    # ---- status ------------------------------------------------------------------------------------------

    def primal_feasible(self) -> bool:
        return all(row.get(_RHS, 0) >= 0 for row in self.num)

    def dual_feasible(self) -> bool:
        return all(d >= 0 for k, d in self.obj.items() if k != _RHS and k not in self.artificials)

    def artificial_level(self) -> Fraction:
        return sum((self.rhs(i) for i, b in enumerate(self.basis) if b in self.artificials), _ZERO)


def _phase_costs(lp: LinearProgram) -> dict[int, Fraction]:
    return {j: Fraction(v) for j, v in enumerate(lp.c) if v}


def _from_feasible_basis(t: _Tableau, lp: LinearProgram, max_pivots: int) -> None:
    """Phase 1 (if artificials are positive) then phase 2, from a primal-feasible basis of [A | I]."""
    if t.artificial_level() > 0:
        t.set_objective({a: _ONE for a in t.artificials})
        t.primal_simplex(max_pivots)
        if t.artificial_level() > 0:
            raise InfeasibleLP("phase 1 optimum is positive")
    t.drive_out_artificials()
    t.set_objective(_phase_costs(lp))
    t.primal_simplex(max_pivots)


def _dot(row: Row, x: Sequence[Fraction]) -> Fraction:
    return sum((v * x[j] for j, v in row.items()), _ZERO)


def _certificate_error(
    lp: LinearProgram, x: Sequence[Fraction], y_eq: Sequence[Fraction], y_ub: Sequence[Fraction]
) -> str | None:
    """Why (x, y) is not a primal–dual optimal pair of ``lp`` in exact arithmetic, or ``None`` if it is.

    Checks x ≥ 0, A_eq x = b_eq, A_ub x ≤ b_ub, y_ub ≤ 0, c − A_eqᵀy_eq − A_ubᵀy_ub ≥ 0 and cᵀx = bᵀy; by weak
    duality these make cᵀx the optimal value.
    """
    if any(v < 0 for v in x):
        return "x has a negative entry"
    for k, row in enumerate(lp.a_eq):
        if _dot(row, x) != lp.b_eq[k]:
            return f"equality row {k} is violated"
    for k, row in enumerate(lp.a_ub):
        if _dot(row, x) > lp.b_ub[k]:
            return f"inequality row {k} is violated"
    if any(v > 0 for v in y_ub):
        return "an inequality multiplier is positive"
    red = [Fraction(v) for v in lp.c]
    for rows, ys in ((lp.a_eq, y_eq), (lp.a_ub, y_ub)):
        for row, yk in zip(rows, ys):
            if yk:
                for j, v in row.items():
                    red[j] -= yk * v
    if any(v < 0 for v in red):
        return "a reduced cost is negative"
    primal = _dot(dict(enumerate(lp.c)), x)
    dual = sum((Fraction(b) * yk for b, yk in zip(lp.b_eq, y_eq)), _ZERO) + sum(
        (Fraction(b) * yk for b, yk in zip(lp.b_ub, y_ub)), _ZERO
    )
    if primal != dual:
        return "the duality gap is not zero"
    return None


def _certify(t: _Tableau, lp: LinearProgram, path: str) -> ExactSolution:
    """Read x and y off the final tableau and check optimality against the original data, exactly."""
    nv = lp.n_vars
    xfull = [_ZERO] * t.ncols
    for i, b in enumerate(t.basis):
        xfull[b] = t.rhs(i)
    x = xfull[:nv]
    # Reduced cost of the initial identity column e_k is 0 − y_k (standard-form row signs), so y_k = −d.
    y = [-t.reduced_cost(t.ident[k]) * t.sign[k] for k in range(t.n_rows)]
    y_eq, y_ub = y[: t.me], y[t.me :]
    assert all(v == 0 for i, v in enumerate(xfull) if i in t.artificials), "certificate: artificial > 0"
    err = _certificate_error(lp, x, y_eq, y_ub)
    assert err is None, f"exact simplex ended on a basis that is not optimal ({err}): a bug in exact_lp"
    logical_row = {col: k for k, col in enumerate(t.logical)}
    basis = (
        tuple(sorted(b for b in t.basis if b < nv)),
        frozenset(logical_row[b] for b in t.basis if b in logical_row),
    )
    return ExactSolution(_dot(dict(enumerate(lp.c)), x), x, y_eq, y_ub, t.pivots, path, basis)


# --------------------------------------------------------------------------------------------------------
# Direct check of a proposed basis (no tableau)
# --------------------------------------------------------------------------------------------------------


def _solve_square(rows: list[Row], *rhss: Sequence[Fraction]) -> list[dict[int, Fraction]] | None:
    """Solve the square sparse system rows · z = rhs exactly for each right-hand side given.

    The unknowns are the columns used by ``rows``; ``None`` if the system is singular.  Fraction-free sparse
    Gaussian elimination: each equation is scaled to integers (right-hand sides under keys −1, −2, …) and
    combined as ``piv·r_k − r_k[j]·r_i``, then divided by its content; pivots by a Markowitz-like choice
    (sparsest row, then its sparsest column).  Back substitution in Fractions.
    """
    nrhs = len(rhss)
    eqs: list[dict[int, int]] = []
    for i, row in enumerate(rows):
        full = dict(row)
        for t, vals in enumerate(rhss):
            if vals[i]:
                full[-1 - t] = Fraction(vals[i])
        eqs.append(_integer_row(full)[0])
    cols: dict[int, set[int]] = {}
    for i, r in enumerate(eqs):
        for j in r:
            if j >= 0:
                cols.setdefault(j, set()).add(i)
    if len(cols) != len(eqs):
        return None
    # Rows by number of unknowns, in a lazy heap (stale entries are skipped).
    size = [sum(1 for j in r if j >= 0) for r in eqs]
    heap = [(size[i], i) for i in range(len(eqs))]
    heapq.heapify(heap)
    active = set(range(len(eqs)))
    order: list[tuple[int, int]] = []
    while active:
        while True:
            sz, i = heapq.heappop(heap)
            if i in active and sz == size[i]:
                break
        ri = eqs[i]
        if not size[i]:
            return None
        j = min((c for c in ri if c >= 0), key=lambda c: (len(cols[c]), c))
        active.discard(i)
        for c in ri:
            if c >= 0:
                cols[c].discard(i)
        order.append((i, j))
        piv = ri[j]
        for k in list(cols[j]):
            rk = eqs[k]
            f = rk[j]
            new = {c: v * piv for c, v in rk.items()}
            for c, v in ri.items():
                t = new.get(c, 0) - f * v
                if t:
                    new[c] = t
                else:
                    new.pop(c, None)
            for c in ri:
                if c >= 0:
                    if c in new and c not in rk:
                        cols[c].add(k)
                    elif c not in new and c in rk:
                        cols[c].discard(k)
            if new:
                g = math.gcd(*new.values())
                if g > 1:
                    new = {c: v // g for c, v in new.items()}
            eqs[k] = new
            size[k] = sum(1 for c in new if c >= 0)
            heapq.heappush(heap, (size[k], k))
    out: list[dict[int, Fraction]] = [{} for _ in range(nrhs)]
    for i, j in reversed(order):
        ri = eqs[i]
        piv = ri[j]
        for t, z in enumerate(out):
            acc = Fraction(ri.get(-1 - t, 0))
            for c, v in ri.items():
                if c >= 0 and c != j:
                    acc -= v * z[c]
            z[j] = acc / piv
    return out


class _Revised:
    """Exact revised simplex on a basis given as (S, L): basic structural columns and "tight" rows.

    A basis of the standard form [A | I] is determined by S and by the set R of rows whose logical variable
    (slack, or artificial for an equality row) is basic; L is the complement of R and |S| = |L|.  Because the
    logical columns are unit vectors, every solve with the basis matrix reduces to the square system A_LS:

    * primal: A_LS x_S = b_L, the logicals of R take the row residuals b_R − A_RS x_S;
    * dual: A_LSᵀ y_L = c_S, y_R = 0;
    * a column a entering: A_LS d_S = a_L, d_R = a_R − A_RS d_S;
    * row p of B⁻¹ (dual simplex): A_LSᵀ ρ_L = e_p (p structural) or = −A_{k,S}ᵀ with ρ_k = 1 (p logical of k).

    Each iteration refactorises A_LS from scratch (sparse exact elimination); this is cheap for the
    |S| ≤ N² ≤ 729 columns here, and needs no tableau of all the (mostly slack) inequality rows.
    """

    def __init__(self, lp: LinearProgram) -> None:
        self.lp = lp
        self.nv, self.me = lp.n_vars, len(lp.a_eq)
        self.rows = [{j: Fraction(v) for j, v in row.items() if v} for row in list(lp.a_eq) + list(lp.a_ub)]
        self.b = [Fraction(v) for v in lp.b_eq] + [Fraction(v) for v in lp.b_ub]
        self.c = [Fraction(v) for v in lp.c]
        self.nr = len(self.rows)
        self.col_rows: list[list[int]] = [[] for _ in range(self.nv)]
        for k, row in enumerate(self.rows):
            for j in row:
                self.col_rows[j].append(k)

    # variables: structural j ↦ j, logical of row k ↦ nv + k (the order used by Bland's rule)

    def _system(self, S: set[int], tight: list[int]) -> tuple[list[Row], list[Row]]:
        a_ls = [{j: v for j, v in self.rows[k].items() if j in S} for k in tight]
        a_lst: dict[int, Row] = {j: {} for j in sorted(S)}
        for pos, row in enumerate(a_ls):
            for j, v in row.items():
                a_lst[j][pos] = v
        return a_ls, list(a_lst.values())

    def _activities(self, z: dict[int, Fraction]) -> dict[int, Fraction]:
        """A z for a sparse z, as {row: value} (rows missing are 0)."""
        act: dict[int, Fraction] = {}
        for j, v in z.items():
            if v:
                for k in self.col_rows[j]:
                    act[k] = act.get(k, _ZERO) + self.rows[k][j] * v
        return act

    def _reduced_costs(
        self, S: set[int], tight: list[int], y_l: dict[int, Fraction]
    ) -> list[tuple[Fraction, int]]:
        """Negative reduced costs of the non-basic variables that may enter, as (d, variable)."""
        red = {}
        for pos, yk in y_l.items():
            if yk:
                for j, v in self.rows[tight[pos]].items():
                    if j not in S:
                        red[j] = red.get(j, _ZERO) - yk * v
        out = [(self.c[j] + red.get(j, _ZERO), j) for j in range(self.nv) if j not in S]
        out = [(d, j) for d, j in out if d < 0]
        for pos, yk in y_l.items():
            k = tight[pos]
            if k >= self.me and yk > 0:  # slack of row k: reduced cost 0 − y_k
                out.append((-yk, self.nv + k))
        return out

    def run(self, basis: Basis, max_iter: int) -> ExactSolution | None:
        S = set(basis[0])
        L = set(range(self.nr)) - set(basis[1])
        mode = None
        streak = 0
        for it in range(max_iter + 1):
            tight = sorted(L)
            if len(tight) != len(S):
                return None
            a_ls, a_lst = self._system(S, tight)
            got = _solve_square(a_lst, [self.c[j] for j in sorted(S)])
            if got is None:
                return None
            y_l = got[0]
            entering = self._reduced_costs(S, tight, y_l)
            if mode == "primal" or (mode is None and entering):
                pick = None
                if entering:
                    pick = min(entering)[1] if streak < _BLAND_AFTER else min(v for _, v in entering)
                rhs_d = [_ZERO] * len(tight)
                if pick is not None:
                    if pick < self.nv:
                        rhs_d = [self.rows[k].get(pick, _ZERO) for k in tight]
                    else:
                        rhs_d[tight.index(pick - self.nv)] = _ONE
                got = _solve_square(a_ls, [self.b[k] for k in tight], rhs_d)
                if got is None:
                    return None
                x_s, d_s = got
            else:
                got = _solve_square(a_ls, [self.b[k] for k in tight])
                if got is None:
                    return None
                x_s, d_s = got[0], {}
            # Values of the basic variables: x_S, and the logical of every row of R.
            basic_vals: list[tuple[int, Fraction]] = [(j, v) for j, v in x_s.items()]
            act = self._activities(x_s)
            for k in range(self.nr):
                if k not in L:
                    basic_vals.append((self.nv + k, self.b[k] - act.get(k, _ZERO)))
            art_bad = any(v != 0 for var, v in basic_vals if self.nv <= var < self.nv + self.me)
            negative = [(v, var) for var, v in basic_vals if v < 0]
            if mode is None:
                if not negative and not art_bad:
                    mode = "primal"
                elif not entering and not art_bad:
                    mode = "dual"
                else:
                    return None
            if mode == "primal":
                if not entering:
                    return self._finish(
                        S, tight, x_s, y_l, it, "basis check" if it == 0 else "revised primal"
                    )
                # Ratio test over the basic variables that decrease.
                d_vals: list[tuple[int, Fraction]] = [(j, v) for j, v in d_s.items()]
                a_enter = {k: self.rows[k][pick] for k in self.col_rows[pick]} if pick < self.nv else {}
                d_act = self._activities(d_s)
                for k in set(d_act) | set(a_enter):
                    if k not in L:
                        d_vals.append((self.nv + k, a_enter.get(k, _ZERO) - d_act.get(k, _ZERO)))
                values = dict(basic_vals)
                best = None
                for var, dv in d_vals:
                    if self.nv <= var < self.nv + self.me:
                        if dv:  # a basic artificial (at 0) must not move: it leaves at once
                            key = (_ZERO, var)
                        else:
                            continue
                    elif dv > 0:
                        key = (values[var] / dv, var)
                    else:
                        continue
                    if best is None or key < best:
                        best = key
                if best is None:
                    raise UnboundedLP(f"variable {pick} is an improving ray")
                streak = streak + 1 if best[0] == 0 else 0
                self._swap(S, L, pick, best[1])
            else:
                if not negative:
                    return self._finish(S, tight, x_s, y_l, it, "revised dual")
                if art_bad:
                    return None
                leave = min(negative)[1] if streak < _BLAND_AFTER else min(var for _, var in negative)
                # Row `leave` of B⁻¹ and its entries alpha_q in the non-basic columns.
                if leave < self.nv:
                    rhs_rho = [_ONE if j == leave else _ZERO for j in sorted(S)]
                    rho_extra: dict[int, Fraction] = {}
                else:
                    k0 = leave - self.nv
                    rhs_rho = [-self.rows[k0].get(j, _ZERO) for j in sorted(S)]
                    rho_extra = {k0: _ONE}
                got = _solve_square(a_lst, rhs_rho)
                if got is None:
                    return None
                rho = {tight[pos]: v for pos, v in got[0].items() if v}
                rho.update(rho_extra)
                alpha: dict[int, Fraction] = {}
                for k, rk in rho.items():
                    for j, v in self.rows[k].items():
                        if j not in S:
                            alpha[j] = alpha.get(j, _ZERO) + rk * v
                    if k in L and k >= self.me:
                        alpha[self.nv + k] = rk  # slack column of a tight inequality row
                red = {}
                for pos, yk in y_l.items():
                    if yk:
                        for j, v in self.rows[tight[pos]].items():
                            if j not in S:
                                red[j] = red.get(j, _ZERO) - yk * v
                best = None
                for q, a in alpha.items():
                    if a < 0:
                        dq = (
                            (self.c[q] + red.get(q, _ZERO))
                            if q < self.nv
                            else -y_l.get(tight.index(q - self.nv), _ZERO)
                        )
                        key = (dq / -a, q)
                        if best is None or key < best:
                            best = key
                if best is None:
                    raise InfeasibleLP(
                        f"basic variable {leave} is negative and its row has no negative entry"
                    )
                streak = streak + 1 if best[0] == 0 else 0
                self._swap(S, L, best[1], leave)
        return None

    def _swap(self, S: set[int], L: set[int], enter: int, leave: int) -> None:
        if enter < self.nv:
            S.add(enter)
        else:
            L.discard(enter - self.nv)  # its logical becomes basic: the row is no longer tight
        if leave < self.nv:
            S.discard(leave)
        else:
            L.add(leave - self.nv)

    def _finish(self, S, tight, x_s, y_l, iterations: int, path: str) -> ExactSolution | None:
        x = [_ZERO] * self.nv
        for j, v in x_s.items():
            x[j] = v
        y = [_ZERO] * self.nr
        for pos, v in y_l.items():
            y[tight[pos]] = v
        y_eq, y_ub = y[: self.me], y[self.me :]
        err = _certificate_error(self.lp, x, y_eq, y_ub)
        assert err is None, f"revised simplex ended on a basis that is not optimal ({err}): a bug in exact_lp"
        basis = (tuple(sorted(S)), frozenset(set(range(self.nr)) - set(tight)))
        return ExactSolution(_dot(dict(enumerate(self.c)), x), x, y_eq, y_ub, iterations, path, basis)


# --------------------------------------------------------------------------------------------------------
# Floating-point basis proposal (used only as a starting point for the exact computations)
# --------------------------------------------------------------------------------------------------------

#: Tighter than HiGHS's defaults (1e-7), and accepting the coefficients e^ε up to e^50 (default limit 1e15).
_HIGHS_OPTIONS = {
    "primal_feasibility_tolerance": 1e-10,
    "dual_feasibility_tolerance": 1e-10,
    "large_matrix_value": 1e30,
    "small_matrix_value": 1e-30,
}


def _float_basis(lp: LinearProgram) -> Basis | None:
    """An optimal basis of ``lp`` proposed by HiGHS (through highspy, else scipy); ``None`` if none."""
    try:
        return _highspy_basis(lp)
    except ImportError:
        return _scipy_basis(lp)


def _highspy_basis(lp: LinearProgram) -> Basis | None:
    import highspy
    import numpy as np

    inf = highspy.kHighsInf
    rows = list(lp.a_eq) + list(lp.a_ub)
    start, index, value = [0], [], []
    for row in rows:
        for j, v in sorted(row.items()):
            if v:
                index.append(j)
                value.append(float(v))
        start.append(len(index))
    model = highspy.HighsLp()
    model.num_col_ = lp.n_vars
    model.num_row_ = len(rows)
    model.col_cost_ = np.array([float(v) for v in lp.c])
    model.col_lower_ = np.zeros(lp.n_vars)
    model.col_upper_ = np.full(lp.n_vars, inf)
    model.row_lower_ = np.array([float(b) for b in lp.b_eq] + [-inf] * len(lp.a_ub))
    model.row_upper_ = np.array([float(b) for b in lp.b_eq] + [float(b) for b in lp.b_ub])
    model.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    model.a_matrix_.num_col_ = lp.n_vars
    model.a_matrix_.num_row_ = len(rows)
    model.a_matrix_.start_ = np.array(start, dtype=np.int32)
    model.a_matrix_.index_ = np.array(index, dtype=np.int32)
    model.a_matrix_.value_ = np.array(value)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "simplex")
    h.setOptionValue("threads", 1)
    for option, value in _HIGHS_OPTIONS.items():
        h.setOptionValue(option, value)
    h.passModel(model)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    basis = h.getBasis()
    if not basis.valid:
        return None
    basic = highspy.HighsBasisStatus.kBasic
    cols = tuple(j for j, s in enumerate(basis.col_status) if s == basic)
    return cols, frozenset(k for k, s in enumerate(basis.row_status) if s == basic)


def _scipy_basis(lp: LinearProgram) -> Basis | None:
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import csr_array

    def matrix(rows: list[Row]):
        if not rows:
            return None
        data = [(k, j, float(v)) for k, row in enumerate(rows) for j, v in row.items()]
        k, j, v = zip(*data)
        return csr_array((v, (k, j)), shape=(len(rows), lp.n_vars))

    res = linprog(
        np.array([float(v) for v in lp.c]),
        A_ub=matrix(lp.a_ub),
        b_ub=np.array([float(b) for b in lp.b_ub]) if lp.a_ub else None,
        A_eq=matrix(lp.a_eq),
        b_eq=np.array([float(b) for b in lp.b_eq]) if lp.a_eq else None,
        bounds=(0, None),
        method="highs-ds",
    )
    if res.status != 0:
        return None
    # A vertex of the dual simplex: positive variables and slack rows are basic; a degenerate basis may come
    # out short, which the tableau crash completes with initial columns.
    cols = tuple(j for j in range(lp.n_vars) if res.x[j] > 0)
    me = len(lp.a_eq)
    slack_rows = {me + i for i, s in enumerate(res.ineqlin.residual) if s > 0} if lp.a_ub else set()
    return cols, frozenset(slack_rows)


# --------------------------------------------------------------------------------------------------------
# Public solver
# --------------------------------------------------------------------------------------------------------


def _try_warm(lp: LinearProgram, basis: Basis, max_pivots: int) -> ExactSolution | None:
    """Install a proposed basis by exact pivots and finish with the exact primal or dual simplex."""
    t = _Tableau(lp)
    cols, basic_rows = basis
    t.crash(list(cols) + [t.logical[k] for k in basic_rows])
    if t.primal_feasible():
        _from_feasible_basis(t, lp, max_pivots)
        return _certify(t, lp, "warm primal")
    t.drive_out_artificials()
    if any(b in t.artificials for b in t.basis):
        return None
    t.set_objective(_phase_costs(lp))
    if not t.dual_feasible():
        return None
    t.dual_simplex(max_pivots)
    t.primal_simplex(max_pivots)  # a no-op: the dual simplex ends primal and dual feasible
    return _certify(t, lp, "warm dual")


def solve_lp(
    lp: LinearProgram,
    *,
    warm_start: bool = True,
    bases: Sequence[Basis] = (),
    hints: Sequence[LinearProgram] = (),
    max_revised: int = 2_000,
    max_pivots: int = 200_000,
) -> ExactSolution:
    """Exact optimum of ``lp`` with a verified primal–dual certificate.

    Starting bases, in order: ``bases`` (e.g. :attr:`ExactSolution.basis` of the same program at a nearby
    ε), then (with ``warm_start``) optimal bases proposed by HiGHS for ``lp`` and for each of ``hints`` (LPs
    with the same rows and columns, e.g. better scaled or with a smaller ratio bound, whose optimal basis is
    often optimal for ``lp`` too).  Each is first checked directly (two exact sparse square solves); failing
    that, the exact revised simplex (primal from a primal-feasible basis, dual from a dual-feasible one) runs
    from each in turn for up to ``max_revised`` pivots, then the exact tableau simplex from each (crash into
    the basis, then primal or dual simplex).  Otherwise an exact two-phase simplex runs from the slack basis.

    Raises :class:`InfeasibleLP` or :class:`UnboundedLP` when there is no optimum.
    """
    for hint in hints:
        if len(hint.c) != len(lp.c) or len(hint.a_eq) != len(lp.a_eq) or len(hint.a_ub) != len(lp.a_ub):
            raise ValueError("a hint LP must have the rows and columns of the LP it hints at")
    proposals: list[Basis] = []

    def candidates():
        yield from bases
        if warm_start:
            for hint in (lp, *hints):
                basis = _float_basis(hint)
                if basis is not None:
                    yield basis

    revised = _Revised(lp)
    for basis in candidates():
        sol = revised.run(basis, 0)
        if sol is not None:
            return sol
        proposals.append(basis)
    if warm_start and len(proposals) > len(bases):  # HiGHS's basis for lp itself first: usually the nearest
        proposals.insert(0, proposals.pop(len(bases)))
    for basis in proposals:
        sol = revised.run(basis, max_revised)
        if sol is not None:
            return sol
    for basis in proposals:
        sol = _try_warm(lp, basis, max_pivots)
        if sol is not None:
            return sol
    t = _Tableau(lp)
    _from_feasible_basis(t, lp, max_pivots)
    return _certify(t, lp, "two-phase")


# --------------------------------------------------------------------------------------------------------
# Privacy–distortion programs, built from their definitions
# --------------------------------------------------------------------------------------------------------


def databases(n: int, m: int) -> list[tuple[int, ...]]:
    """All databases of n rows over {0, …, m−1}, in itertools.product order."""
    return list(itertools.product(range(m), repeat=n))


def hamming(a: Sequence[int], b: Sequence[int]) -> int:
    return sum(u != v for u, v in zip(a, b))


def neighbour_pairs(n: int, m: int) -> list[tuple[int, int]]:
    """Ordered pairs (x, x') of database indices at Hamming distance exactly 1."""
    dbs = databases(n, m)
    return [(i, k) for i, a in enumerate(dbs) for k, b in enumerate(dbs) if hamming(a, b) == 1]


def _fractions(values: Sequence) -> list[Fraction]:
    return [Fraction(v) for v in values]  # exact for floats (Fraction(0.1) is the binary value)


def _ratio_rows(n: int, m: int, r: Fraction) -> list[Row]:
    """z[x, y] − r z[x', y] ≤ 0 for every ordered neighbour pair (x, x') and every y."""
    N = m**n
    r = Fraction(r)
    return [{x * N + y: _ONE, xp * N + y: -r} for x, xp in neighbour_pairs(n, m) for y in range(N)]


def _distortion(n: int, m: int) -> list[list[int]]:
    dbs = databases(n, m)
    return [[hamming(a, b) for b in dbs] for a in dbs]


def _check_prior(prior: Sequence, n: int, m: int) -> list[Fraction]:
    p = _fractions(prior)
    if len(p) != m**n:
        raise ValueError(f"prior has {len(p)} entries; expected {m**n}")
    if any(v < 0 for v in p):
        raise ValueError("prior has a negative entry")
    return p


def pd_dp_lp(prior: Sequence, n: int, m: int, r: Fraction) -> LinearProgram:
    """PD-DP in the mechanism W[x, y] (rows sum to one)."""
    p, d, N = _check_prior(prior, n, m), _distortion(n, m), m**n
    c = [p[x] * d[x][y] for x in range(N) for y in range(N)]
    a_eq = [{x * N + y: _ONE for y in range(N)} for x in range(N)]
    a_ub = _ratio_rows(n, m, r)
    return LinearProgram(c, a_eq, [_ONE] * N, a_ub, [_ZERO] * len(a_ub))


def pd_i_lp(prior: Sequence, n: int, m: int, r: Fraction) -> LinearProgram:
    """PD-I in the joint q[x, y] with X-marginal ``prior``."""
    p, d, N = _check_prior(prior, n, m), _distortion(n, m), m**n
    c = [Fraction(d[x][y]) for x in range(N) for y in range(N)]
    a_eq = [{x * N + y: _ONE for y in range(N)} for x in range(N)]
    a_ub = _ratio_rows(n, m, r)
    return LinearProgram(c, a_eq, p, a_ub, [_ZERO] * len(a_ub))


def r_pd_lp(n: int, m: int, r: Fraction) -> LinearProgram:
    """R-PD in the joint q[x, y] with total mass one."""
    d, N = _distortion(n, m), m**n
    c = [Fraction(d[x][y]) for x in range(N) for y in range(N)]
    a_eq = [{j: _ONE for j in range(N * N)}]
    a_ub = _ratio_rows(n, m, r)
    return LinearProgram(c, a_eq, [_ONE], a_ub, [_ZERO] * len(a_ub))


def max_neighbour_ratio(prior: Sequence, n: int, m: int) -> Fraction | None:
    """max p(x)/p(x') over neighbours (``None`` = ∞, a neighbour has zero mass while x has positive mass)."""
    p = _check_prior(prior, n, m)
    best = _ZERO
    for x, xp in neighbour_pairs(n, m):
        if p[x] == 0:
            continue
        if p[xp] == 0:
            return None
        best = max(best, p[x] / p[xp])
    return best


#: Ratio bounds r at which HiGHS is asked for a basis when r itself is larger (e^12, e^6 as floats).  At large
#: r the optimal values are ~1/r and HiGHS's tolerances blur the basis; the optimal basis at a moderate r is
#: usually optimal at large r as well (and any basis is only a starting point for the exact pivots).
_HINT_RATIOS = (Fraction(162754.79141900392), Fraction(403.4287934927351))


def _capped(r: Fraction, floor: Fraction = _ZERO) -> list[Fraction]:
    return [max(cap, floor) for cap in _HINT_RATIOS if Fraction(r) > max(cap, floor)]


def _pd_i_scaled_lp(p: list[Fraction], n: int, m: int, r: Fraction) -> LinearProgram:
    """PD-I in W = q / p(x): same rows and columns as :func:`pd_i_lp` up to positive diagonal scalings."""
    d, N = _distortion(n, m), m**n
    c = [p[x] * d[x][y] for x in range(N) for y in range(N)]
    a_eq = [{x * N + y: _ONE for y in range(N)} for x in range(N)]
    a_ub = [
        {x * N + y: _ONE, xp * N + y: -Fraction(r) * p[xp] / p[x]}
        for x, xp in neighbour_pairs(n, m)
        for y in range(N)
    ]
    return LinearProgram(c, a_eq, [_ONE] * N, a_ub, [_ZERO] * len(a_ub))


def pd_dp_solution(prior: Sequence, n: int, m: int, r: Fraction, **kw) -> ExactSolution:
    hints = [pd_dp_lp(prior, n, m, rc) for rc in _capped(r)]
    return solve_lp(pd_dp_lp(prior, n, m, r), hints=hints, **kw)


def pd_i_solution(prior: Sequence, n: int, m: int, r: Fraction, **kw) -> ExactSolution | None:
    """``None`` iff infeasible.

    Summing q[x,y] ≤ r q[x',y] over y gives p(x) ≤ r p(x'), so r < max_{x~x'} p(x)/p(x') is infeasible;
    conversely q[x, y] = p(x)/N is feasible when r ≥ that ratio.  The LP is solved only when feasible.
    """
    ratio = max_neighbour_ratio(prior, n, m)
    if ratio is None or Fraction(r) < ratio:
        return None
    p = _check_prior(prior, n, m)
    if any(v == 0 for v in p):  # every mass is then zero along neighbour chains: only p ≡ 0, not a prior
        raise ValueError("pd_i needs a prior with full support")
    # Scaled hints at r, then just above the feasibility threshold (where HiGHS copes with the 1/r scales).
    above = [ratio * Fraction(math.exp(t)) for t in (0.5, 2.0)]
    hint_rs = [Fraction(r), *(v for v in above if v < r), *_capped(r, ratio)]
    hints = [_pd_i_scaled_lp(p, n, m, rc) for rc in hint_rs]
    return solve_lp(pd_i_lp(p, n, m, r), hints=hints, **kw)


def r_pd_solution(n: int, m: int, r: Fraction, **kw) -> ExactSolution:
    hints = [r_pd_lp(n, m, rc) for rc in _capped(r)]
    return solve_lp(r_pd_lp(n, m, r), hints=hints, **kw)


def pd_dp(prior: Sequence, n: int, m: int, r: Fraction) -> Fraction:
    """Exact PD-DP optimum D*_d at e^ε = r."""
    return pd_dp_solution(prior, n, m, r).value


def pd_i(prior: Sequence, n: int, m: int, r: Fraction) -> Fraction | None:
    """Exact PD-I optimum D*_i at e^ε = r, or ``None`` when r < max_{x~x'} p(x)/p(x') (infeasible)."""
    sol = pd_i_solution(prior, n, m, r)
    return None if sol is None else sol.value


def r_pd(n: int, m: int, r: Fraction) -> Fraction:
    """Exact R-PD optimum at e^ε = r."""
    return r_pd_solution(n, m, r).value


def h_closed_form(n: int, m: int, r: Fraction) -> Fraction:
    """h = n / (1 + r/(m−1)), the R-PD optimum of Wang, Ying & Zhang (2016), Lemma 1, exactly."""
    return Fraction(n) / (1 + Fraction(r) / (m - 1))
