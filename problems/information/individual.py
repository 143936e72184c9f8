r"""Individual channel capacity :math:`C_1` (Definition 5 of Wu, Xia & He (2020)) via Theorem 2.

.. math:: C_1 = \max_{i\in[n],\,X\in\Delta(\mathcal X)} I(X_i;Y)
              = \max_{i\in[n]}\max_{B\in\mathbb S_i} C(B) \qquad\text{(Wu, Xia & He 2020, eqs. (1), (48))}.

A channel satisfies :math:`\epsilon`-information privacy (Definition 6, eq. (2)) iff :math:`C_1\le\epsilon`.
The search over vertex channels, its deduplication and pruning are in :mod:`problems.information.vertex`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..units import check_unit, to_unit
from .bracket import BracketStatus
from .capacity import DEFAULT_GAP
from .channel import PrivacyChannel
from .vertex import DEFAULT_MAX_VERTICES, VertexSearch, vertex_search

__all__ = ["IndividualCapacityResult", "individual_capacity", "adversary_distribution", "information_privacy"]


@dataclass(frozen=True, eq=False)
class IndividualCapacityResult(BracketStatus):
    r"""Result of :func:`individual_capacity` (values in nats).

    Indices in the Python attributes are **0-based** (``individual``, record values); :meth:`to_dict` (and so the
    CLI's JSON) reports ``individual`` **1-based** and keeps record values 0-based (they are array indices).

    Attributes
    ----------
    c1, lower_bound, upper_bound:
        :math:`C_1` (the certified lower bound, attained by ``adversary``) and a certified bracket.
    individual:
        0-based :math:`i` attaining :math:`C_1`.
    group:
        The group of records searched (``(individual,)`` for :math:`C_1`; :math:`I` for group capacities).
    vertex:
        For each value :math:`a` of :math:`x_i` (product order over the group), the database
        :math:`x_{(i)}^{(a)}` of the other records chosen by the worst vertex channel.
    vertex_databases:
        The full databases :math:`(a, x_{(i)}^{(a)})` whose rows form the worst vertex channel.
    input_distribution:
        Capacity-achieving :math:`p(x_i)` of the worst vertex channel.
    adversary:
        Joint :math:`p(x)` over :math:`\mathcal X` (array of shape ``record_sizes``) with
        :math:`I(X_i;Y)=C_1`: mass :math:`p(a)` on :math:`(a, x_{(i)}^{(a)})`.
    total_vertices:
        :math:`\sum_i |\mathcal X_{(i)}|^{|\mathcal X_i|}`, the count before any reduction.
    after_column_dedup, distinct_vertices, evaluated_vertices, pruned_vertices:
        Counts after column deduplication, after permutation deduplication, evaluated by Blahut–Arimoto,
        skipped by the upper-bound pruning (or having a single distinct row).
    """

    c1: float
    lower_bound: float
    upper_bound: float
    individual: int
    group: tuple[int, ...]
    vertex: tuple[tuple[int, ...], ...]
    vertex_databases: tuple[tuple[int, ...], ...]
    input_distribution: np.ndarray
    adversary: np.ndarray
    total_vertices: int
    after_column_dedup: int
    distinct_vertices: int
    evaluated_vertices: int
    pruned_vertices: int
    solve_time: float

    @property
    def reduction(self) -> float:
        """``total_vertices / evaluated_vertices`` (how many fewer capacities were computed)."""
        return self.total_vertices / max(self.evaluated_vertices, 1)

    def to_dict(self, unit: str = "nats") -> dict:
        check_unit(unit)
        return {
            **self.bracket_dict(unit),
            "C1": float(to_unit(self.c1, unit)),
            "unit": unit,
            "individual": self.individual + 1,
            "individual_indexing": "1-based (record values in 'vertex' are 0-based array indices)",
            "group": [g + 1 for g in self.group],
            "vertex": [list(v) for v in self.vertex],
            "vertex_databases": [list(v) for v in self.vertex_databases],
            "input_distribution": self.input_distribution.tolist(),
            "adversary_support": [
                {"database": list(map(int, x)), "probability": float(self.adversary[tuple(x)])}
                for x in np.argwhere(self.adversary > 0)
            ],
            "total_vertices": self.total_vertices,
            "after_column_dedup": self.after_column_dedup,
            "distinct_vertices": self.distinct_vertices,
            "evaluated_vertices": self.evaluated_vertices,
            "pruned_vertices": self.pruned_vertices,
            "reduction_factor": self.reduction,
            "solve_time": self.solve_time,
        }


def _assemble(channel: PrivacyChannel, vs: VertexSearch, start: float) -> IndividualCapacityResult:
    sizes = channel.record_sizes
    g = list(vs.group)
    rest = [j for j in range(len(sizes)) if j not in g]
    gsizes = [sizes[j] for j in g]
    rsizes = [sizes[j] for j in rest]
    vertex, dbs = [], []
    adv = np.zeros(sizes)
    for a, b in enumerate(vs.vertex_rest):
        xa = np.unravel_index(a, gsizes) if gsizes else ()
        xb = np.unravel_index(b, rsizes) if rsizes else ()
        x = [0] * len(sizes)
        for j, v in zip(g, xa):
            x[j] = int(v)
        for j, v in zip(rest, xb):
            x[j] = int(v)
        vertex.append(tuple(int(v) for v in xb))
        dbs.append(tuple(x))
        adv[tuple(x)] += vs.input_distribution[a]
    return IndividualCapacityResult(
        c1=vs.lower,
        lower_bound=vs.lower,
        upper_bound=vs.upper,
        individual=g[0],
        group=tuple(g),
        vertex=tuple(vertex),
        vertex_databases=tuple(dbs),
        input_distribution=np.asarray(vs.input_distribution),
        adversary=adv,
        total_vertices=vs.total_vertices,
        after_column_dedup=vs.after_column_dedup,
        distinct_vertices=vs.distinct_vertices,
        evaluated_vertices=vs.evaluated_vertices,
        pruned_vertices=vs.pruned_vertices,
        solve_time=time.perf_counter() - start,
    )


def individual_capacity(
    channel: PrivacyChannel | np.ndarray,
    *,
    tol: float = DEFAULT_GAP,
    prune: bool = True,
    max_vertices: int = DEFAULT_MAX_VERTICES,
) -> IndividualCapacityResult:
    r"""Individual channel capacity :math:`C_1` of ``channel`` (Wu, Xia & He 2020, Definition 5 and Theorem 2).

    Parameters
    ----------
    channel:
        A :class:`PrivacyChannel` or an array with one axis per individual and the output axis last.
    tol:
        Certified gap (nats) at which each vertex channel's Blahut–Arimoto stops.
    prune:
        Skip vertex channels whose rigorous upper bound cannot beat the best value so far.
    max_vertices:
        Refuse (``ProblemTooLargeError``) if one individual has more vertex channels than this.

    Returns
    -------
    IndividualCapacityResult
        ``c1`` with a certified bracket ``[lower_bound, upper_bound]`` of width at most ``tol`` (up to rounding).
    """
    start = time.perf_counter()
    ch = channel if isinstance(channel, PrivacyChannel) else PrivacyChannel(np.asarray(channel))
    vs = vertex_search(ch, [[i] for i in range(ch.n)], tol=tol, prune=prune, max_vertices=max_vertices)
    return _assemble(ch, vs, start)


def adversary_distribution(result: IndividualCapacityResult) -> np.ndarray:
    """The joint prior over databases attaining ``result.c1`` (a copy of ``result.adversary``)."""
    return result.adversary.copy()


def information_privacy(
    channel: PrivacyChannel | np.ndarray, eps: float, *, tol: float = DEFAULT_GAP
) -> bool:
    r"""Whether ``channel`` satisfies :math:`\epsilon`-information privacy, :math:`C_1\le\epsilon` (Def. 6, eq. (2)).

    Decided on the certified bracket: ``True`` if ``upper_bound <= eps``, ``False`` if ``lower_bound > eps``;
    inside the bracket (width ``tol``) the attained lower bound decides (``True``).
    """
    from .basic_channels import _check_eps

    _check_eps(eps)
    r = individual_capacity(channel, tol=tol)
    return bool(r.lower_bound <= eps)
