"""problems — convex programs for information-theoretic data privacy, with certificates.

Conventions (fixed once, everywhere):

* information in **nats** (natural logarithms); ``unit="bits"`` converts on output only;
* a **mechanism** is a row-stochastic matrix ``W[x, y] = p_{Y|X}(y|x)``: one row per input, one column per output;
* **databases** of ``n`` rows over ``{0..m-1}`` are enumerated in :func:`itertools.product` order
  (last row fastest): index ``Σ_k x_k m^{n-k}``.
"""

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

__version__ = "0.1.0"

# Names are imported on first use (PEP 562): ``import problems`` stays cheap, so the command line can
# validate its input before the solvers (CVXPY, SciPy) are loaded.  ``from problems import PDI`` works as usual.
__getattr__, __dir__ = lazy_exports(__name__, globals(), modules=("closed_forms", "measures", "priors"))

if TYPE_CHECKING:  # the lazily loaded names: for type checkers, and the table lazy_exports reads
    from . import closed_forms, measures, priors
    from .certificate import Certificate, lp_certificate
    from .closed_forms import h, h_inv
    from .database import DatabaseSpace
    from .errors import (
        InfeasibleProgramError,
        InvalidChannelError,
        InvalidDistortionError,
        InvalidInputError,
        InvalidMechanismError,
        InvalidPriorError,
        InvalidPrivacyLevelError,
        PrivacyToolkitError,
        ProblemTooLargeError,
        ShapeMismatchError,
        SolverFailedError,
    )
    from .lp import Bounds, Status
    from .mechanism import Mechanism, exponential_mechanism, identifiability_mechanism
    from .prior_constants import eps_tilde, eps_X
    from .priors import Prior
    from .programs import PDDP, PDI, PDMIP, RPD, solve_pd_dp, solve_pd_i, solve_pd_mip, solve_r_pd
    from .result import SolveResult
    from .solvers.stats import SolverStats


__all__ = [
    "Bounds",
    "Status",
    "Certificate",
    "DatabaseSpace",
    "InfeasibleProgramError",
    "InvalidChannelError",
    "InvalidDistortionError",
    "InvalidInputError",
    "InvalidMechanismError",
    "InvalidPriorError",
    "InvalidPrivacyLevelError",
    "Mechanism",
    "PDDP",
    "PDI",
    "PDMIP",
    "Prior",
    "PrivacyToolkitError",
    "ProblemTooLargeError",
    "RPD",
    "ShapeMismatchError",
    "SolveResult",
    "SolverFailedError",
    "SolverStats",
    "closed_forms",
    "eps_X",
    "eps_tilde",
    "exponential_mechanism",
    "h",
    "h_inv",
    "identifiability_mechanism",
    "lp_certificate",
    "measures",
    "priors",
    "solve_pd_dp",
    "solve_pd_i",
    "solve_pd_mip",
    "solve_r_pd",
]
