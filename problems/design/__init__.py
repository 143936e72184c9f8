"""Optimal mechanism design under information privacy; see ``docs/mechanism_design.md``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# Imported on first use (PEP 562), so that importing the package (and the command line) stays cheap.
__getattr__, __dir__ = lazy_exports(__name__, globals())

if TYPE_CHECKING:  # the lazily loaded names: for type checkers, and the table lazy_exports reads
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
