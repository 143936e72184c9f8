"""Optimal mechanism design under information privacy; see ``docs/mechanism_design.md``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# Imported on first use (PEP 562), so the command line stays fast: ``from problems.design import X`` works as usual.
_LAZY: dict[str, str] = {
    "DISTORTIONS": ".problem",
    "QUERIES": ".problem",
    "DesignProblem": ".problem",
    "VertexSet": ".problem",
    "design_problem": ".problem",
    "enumerate_vertices": ".problem",
    "IPDesign": ".program",
    "design_mechanism": ".program",
    "ip_privacy_distortion": ".program",
    "neighbour_vertices": ".program",
    "recompute_c1": ".program",
}

__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY)

if TYPE_CHECKING:  # the lazily loaded names, for type checkers
    from .problem import DISTORTIONS, QUERIES, DesignProblem, VertexSet, design_problem, enumerate_vertices
    from .program import IPDesign, design_mechanism, ip_privacy_distortion, neighbour_vertices, recompute_c1


__all__ = [
    "DISTORTIONS",
    "QUERIES",
    "DesignProblem",
    "VertexSet",
    "design_problem",
    "enumerate_vertices",
    "IPDesign",
    "design_mechanism",
    "ip_privacy_distortion",
    "neighbour_vertices",
    "recompute_c1",
]
