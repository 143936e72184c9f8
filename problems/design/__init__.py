"""Optimal mechanism design under information privacy; see ``docs/mechanism_design.md``."""

from __future__ import annotations

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
