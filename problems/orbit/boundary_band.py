r"""PD-I of a large exchangeable program just above ε_X, where no LP certifies: bounds in milliseconds.

Just above ε_X the feasible set of PD-I (Wang, Ying & Zhang 2016, (8)–(12)) has almost no interior (at ε_X
itself it has none: Lemma 3's rows p_X(x) ≤ e^ε p_X(x') are tight).  There no back end's point can be verified
exactly feasible with a useful bound, and large joint-type LPs are slow to find that out: at m = 2, n = 200 Clarabel
ran 620–648 s and 4.7 GB and returned ``inaccurate`` (one upper bound was 1e59).  Where Lemma 4 does not answer
(:mod:`problems.orbit.mixture_pd_i`), and the LP has more than :data:`BAND_LP_MAX_VARIABLES` variables,
:func:`band_answer` returns at once what can be proved:

* lower bound h(ε) (PD-I ⊂ R-PD, Lemma 1);
* upper bound the distortion n(1 − max_a π̄(a)) of the best constant mechanism (a*, …, a*), π̄ the law of one
  row: a constant mechanism is PD-I feasible exactly when e^ε ≥ p_X(x)/p_X(x') for all neighbours, i.e. ε ≥ ε_X,
  which is decided in exact arithmetic where the prior allows (m = 2 mixtures, i.i.d., uniform); else +∞.

The status follows the toolkit's rule on these bounds (``inaccurate`` unless they meet), and the answer says that
the LP was not run and why; ``method="lp"`` still runs it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..lp import Bounds
from ..result import SolveResult
from ..solvers.settings import UNIT_ROUNDOFF
from ..solvers.stats import SolverStats
from .constant_output import constant_output_extras, lifted_constant_output, type_channel, type_law_margin
from .mixture_prior import components
from .theorem_answer import reduced_theorem_answer
from .types import compositions

__all__ = ["band_answer", "BAND_LP_MAX_VARIABLES"]

#: Joint-type LPs above this size are not run in the no-interior band above ε_X (m = 2: n ≥ 84).
BAND_LP_MAX_VARIABLES = 100_000

_NOTE = (
    "ε − ε_X = {gap:.3g}: the feasible set has almost no interior there, and the joint-type LP ({K} variables) is not "
    "run at this size (no back end certifies it; measured at n = 200: 620–648 s, inaccurate); lower bound h(ε) "
    "(PD-I ⊂ R-PD, Wang, Ying & Zhang 2016, Lemma 1), upper bound the best constant mechanism (a*,…,a*), PD-I "
    "feasible as ε ≥ ε_X{decided}; method='lp' runs the LP"
)


def band_answer(program: Any, eps: float, variables: int) -> SolveResult:
    """The bounds of the module docstring for ``program`` (a ReducedPDI) at ε in the band above ε_X."""
    from ..closed_forms import h
    from ..prior_constants import exp_at_least
    from ..programs.theorem import CLOSED_FORM_MARGIN

    n, m, prior = program.n, program.m, program.prior
    types = compositions(n, m)
    p_type = np.exp(prior.log_type_probability(types))
    row_law = (p_type @ types) / n
    a_star = int(np.argmax(row_law))
    value = float(p_type @ (n - types[:, a_star]))  # E d(X, (a*,…,a*)): non-negative terms, no cancellation
    exact = program._exact_eps_X_ratio()
    feasible = exact is not None and exp_at_least(eps, exact)
    # the sum's rounding, and the type law's (its logarithms: problems.orbit.constant_output)
    margin = 8.0 * (types.shape[0] + n) * UNIT_ROUNDOFF + type_law_margin(prior, components(prior))
    upper = value * (1.0 + margin) if feasible else math.inf
    lower = min(float(h(eps, n, m)) * (1.0 - CLOSED_FORM_MARGIN), upper)
    note = _NOTE.format(
        gap=eps - program.eps_X,
        K=variables,
        decided=" (decided exactly)" if feasible else " (not decided: +∞)",
    )
    w = np.zeros((types.shape[0], m))
    w[:, a_star] = 1.0
    extras = constant_output_extras(program, note, types, w, p_type)
    extras["lp_skipped"] = True
    stats = SolverStats("theorem", 0.0, 0.0, 0, (("theorem", note),))
    res = reduced_theorem_answer(
        program,
        eps,
        value,
        Bounds(lower, upper),
        note,
        extras,
        stats,
        lambda: lifted_constant_output(n, m, types, w),
        lambda: (type_channel(n, m, types, w), p_type),
    )
    assert res is not None  # the band is far above the lift limit: the answer is on types
    return res
