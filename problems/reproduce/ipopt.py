"""The IPOPT section of the reproduction: C₁ over the full joint and the balance function.

Its computation and figure are ``ipopt_models.reproduce.reproduce_section`` (the ``ipopt`` extra, CasADi);
the runner runs this section only when CasADi and :mod:`ipopt_models` import, and says so in the report
otherwise.
"""

from __future__ import annotations

from pathlib import Path

from .report import Section
from .runner import Context

__all__ = ["ipopt_section"]


def ipopt_section(sec: Section, ctx: Context) -> None:
    """The balance function of three channels (Wu, Xia & He 2020, Def. 11) and C₁ against Theorem 2."""
    # imported here, not at the top: ipopt_models needs CasADi, which the runner probes first (deps.py)
    from ipopt_models.reproduce import reproduce_section

    kwargs = {"points": 5} if ctx.quick else {}
    sec.paths += [Path(p) for p in reproduce_section(ctx.out, ctx.progress, report=sec, **kwargs)]
