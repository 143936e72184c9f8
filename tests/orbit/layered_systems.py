"""A test factory: the layered normal system of a small reduced LP (m = 2) with random scalings D and E.

The tests of the banded factorisations (``test_layered_blocks.py``, ``test_band_deflation.py``) build their
systems here, so that each draws D and E the same way: log-uniform in [e^−spread, e^spread], from a generator
seeded by the test, which the test may go on drawing from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from problems.ipm.block import RaggedBlockSystem
from problems.lp.spec import RatioLPSpec
from problems.orbit.symmetric_prior import parse_symmetric_prior

__all__ = ["NormalSystem", "random_normal_system"]


@dataclass
class NormalSystem:
    """The reduced LP's spec, its layered block system, the scalings and the normal matrix's parts."""

    spec: RatioLPSpec
    sysm: RaggedBlockSystem
    rng: np.random.Generator
    D: np.ndarray
    E: np.ndarray
    diag: np.ndarray
    off: np.ndarray


def random_normal_system(
    program: type, prior: str, n: int, eps: float, seed: int, spread: float = 3.0
) -> NormalSystem:
    """``program`` (``ReducedPDDP`` or ``ReducedPDI``) of ``prior`` at ``n`` rows, its block system at level
    ``eps``, and H = GᵀDG + E's diagonal and off-diagonal parts for random D (ratio rows) and E (variables)."""
    rng = np.random.default_rng(seed)
    spec = program(parse_symmetric_prior(prior, n, 2)).lp.spec
    sysm = RaggedBlockSystem(spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(eps))
    assert sysm.layers is not None
    D = np.exp(rng.uniform(-spread, spread, sysm.P))
    E = np.exp(rng.uniform(-spread, spread, sysm.K))
    diag, off = sysm.H_parts(D, E)
    return NormalSystem(spec, sysm, rng, D, E, diag, off)
