"""The sections of ``REPORT.md``, in order, each with the optional dependencies it needs."""

from __future__ import annotations

from .design import design_section
from .information import information_section
from .ipopt import ipopt_section
from .runner import Context, SectionSpec
from .scale import mixture_section, scale_section
from .wang2016 import figure2_section, h_section, rpd_section, theorem2_section

__all__ = ["section_specs"]

_FIGURES = ("matplotlib",)


def section_specs(ctx: Context) -> list[SectionSpec]:
    """Every section of the reproduction for the run ``ctx`` (``--full`` also needs Dask for the sweep)."""
    return [
        SectionSpec("Figure 2 of Wang, Ying & Zhang (2016) and Theorem 1", figure2_section, _FIGURES),
        SectionSpec("h(ε)", h_section, _FIGURES),
        SectionSpec("R-PD = h(ε) (Lemma 1)", rpd_section),
        SectionSpec(
            "Theorem 2 of Wang, Ying & Zhang (2016): PD-MIP and its KKT certificate", theorem2_section
        ),
        SectionSpec(
            "Information privacy (Wu, Xia & He 2020, 2017; Wu 2019a, 2019b)", information_section, _FIGURES
        ),
        SectionSpec("Mechanism design under information privacy", design_section, _FIGURES),
        SectionSpec(
            "Curves at scale (orbit reduction)",
            scale_section,
            (*_FIGURES, "dask") if ctx.full else _FIGURES,
        ),
        SectionSpec("Curves at scale: an exchangeable mixture", mixture_section, _FIGURES),
        SectionSpec(
            "C₁ over the full joint and the balance function (IPOPT)",
            ipopt_section,
            ("casadi", "ipopt_models", *_FIGURES),
        ),
    ]
