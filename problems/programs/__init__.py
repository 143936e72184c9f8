"""The privacy–distortion programs of Wang, Ying & Zhang (2016), each compiled once with CVXPY Parameters (DPP)."""

from .pd_dp import PDDP, solve_pd_dp
from .pd_i import PDI, solve_pd_i
from .pd_mip import PDMIP, rate_distortion_lower_bound, solve_pd_mip
from .r_pd import RPD, solve_r_pd
from .ratio_lp import RatioLP

__all__ = [
    "PDDP",
    "PDI",
    "RPD",
    "PDMIP",
    "RatioLP",
    "solve_pd_dp",
    "solve_pd_i",
    "solve_r_pd",
    "solve_pd_mip",
    "rate_distortion_lower_bound",
]


def __getattr__(name: str) -> object:
    """``RatioLPSolution``: deprecated alias of :class:`problems.lp.LPSolution` (warns)."""
    if name == "RatioLPSolution":
        from . import ratio_lp

        return ratio_lp.__getattr__(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
