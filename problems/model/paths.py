"""The ways a :class:`~problems.model.MechanismModel` can be solved (``solve(path=…)``, ``--path``).

``auto`` picks one; ``program`` is PD-DP / PD-I themselves through :mod:`problems.programs`; ``lp-core`` the
model's ratio LP through :mod:`problems.lp`; ``cvxpy`` the CVXPY problem with a certificate on the returned
mechanism (``docs/model.md``).  Kept apart so that the command line can offer them without importing CVXPY.
"""

from __future__ import annotations

__all__ = ["PATHS"]

PATHS = ("auto", "program", "lp-core", "cvxpy")
