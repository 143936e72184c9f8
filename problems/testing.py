"""Test factories: small problems with independently known optima (like ``numpy.testing``).

Used by the project's own tests and available to users who extend the toolkit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import priors
from .closed_forms import h
from .database import DatabaseSpace

__all__ = ["KnownOptimum", "random_prior", "known_optima"]


@dataclass(frozen=True)
class KnownOptimum:
    """A program instance together with its optimum from an independent source."""

    program: str
    prior: priors.Prior
    eps: float
    optimum: float
    source: str


def random_prior(space: DatabaseSpace, seed: int, *, concentration: float = 2.0) -> priors.Prior:
    """A full-support random pmf (Dirichlet) over the databases of ``space``."""
    rng = np.random.default_rng(seed)
    return priors.from_pmf(space, rng.dirichlet(np.full(space.size, concentration)))


def known_optima() -> list[KnownOptimum]:
    """Instances whose optimum is h(ε) by Lemma 1 / Theorem 1 of Wang, Ying & Zhang (2016)."""
    out = []
    for n, m in ((2, 2), (3, 2), (2, 3)):
        space = DatabaseSpace(n, m)
        for eps in (0.3, 1.0, 2.5):
            out.append(KnownOptimum("r-pd", priors.uniform(space), eps, h(eps, n, m), "Lemma 1: R-PD = h(ε)"))
            out.append(
                KnownOptimum("pd-dp", priors.uniform(space), eps, h(eps, n, m), "uniform: PD-DP = h(ε)")
            )
            out.append(KnownOptimum("pd-i", priors.uniform(space), eps, h(eps, n, m), "uniform: PD-I = h(ε)"))
    return out
