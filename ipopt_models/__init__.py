r"""IPOPT models for the non-convex questions of the toolkit.

The convex programs of :mod:`problems` are exact; these smooth non-linear programs, solved by IPOPT (bundled
in CasADi's wheels; install the ``ipopt`` extra) from deterministic multistarts, are how a sceptical reader
checks them and how the toolkit reaches questions the papers left open:

* :func:`bilinear_pd_i`, :func:`bilinear_r_pd` — PD-I / R-PD in the paper's bilinear variables (Wang, Ying & Zhang 2016).
* :func:`joint_capacity` — :math:`C_1` over the full joint (Wu, Xia & He 2020, Definition 5) against Theorem 2.
* :func:`balance_curve` — the balance function δ(b) (Wu, Xia & He 2020, Definition 11), bracketed.
* :func:`pd_mip_nlp` — PD-MIP as a smooth NLP against the exponential-cone program.

Every model returns a frozen :class:`MultistartResult`.  A multistart value is a bound (lower for a maximum,
upper for a minimum), never a proof of global optimality; see ``docs/ipopt_models.md``.
"""

from typing import TYPE_CHECKING

from problems._lazy import lazy_exports

# Imported on first use (PEP 562), so that importing the package (and the command line) stays cheap.
__getattr__, __dir__ = lazy_exports(__name__, globals())

if TYPE_CHECKING:  # the lazily loaded names: for type checkers, and the table lazy_exports reads
    from ._common import CasadiUnavailableError, MultistartResult, require_casadi
    from .balance import (
        BENCHMARK_CHANNELS,
        BalanceCurve,
        CertifiedBound,
        balance_curve,
        certified_c1b_upper,
        exponential_array,
        quantised_gaussian_array,
        randomized_response_array,
    )
    from .bilinear_pd import bilinear_pd_i, bilinear_r_pd
    from .capacity import JointCapacityModel, individual_informations, joint_capacity, theorem2_value
    from .pd_mip import pd_mip_nlp
    from .reproduce import reproduce_section


__all__ = [
    "MultistartResult",
    "CasadiUnavailableError",
    "require_casadi",
    "bilinear_pd_i",
    "bilinear_r_pd",
    "JointCapacityModel",
    "joint_capacity",
    "individual_informations",
    "theorem2_value",
    "BalanceCurve",
    "CertifiedBound",
    "balance_curve",
    "certified_c1b_upper",
    "randomized_response_array",
    "exponential_array",
    "quantised_gaussian_array",
    "BENCHMARK_CHANNELS",
    "pd_mip_nlp",
    "reproduce_section",
]
