"""The one dispatcher: from a program's name and a prior to the program that answers, and its answer.

**The registry.**  :data:`REGISTRY` maps each program name to a :class:`ProgramEntry`: its dense builder
(:mod:`problems.programs`, the N×N program), its reduced builder (:mod:`problems.orbit`, the orbit-reduced
program), whether it has a theorem shortcut (closed forms of Wang, Ying & Zhang 2016) and what it takes
(ε or D).  The command line (``python -m problems solve``), the sweep (:mod:`problems.sweep.jobs`) and the
modelling layer (:mod:`problems.model`) all build their programs here.

**The solve choice** is three parameters, with the same names everywhere in the public API:

``formulation=``  ``"auto"`` | ``"dense"`` | ``"reduced"`` — which program is built (:func:`make_program`,
                  :func:`program_from_spec`, ``--formulation``).  ``"reduced"`` is the orbit-reduced program; it
                  needs a prior invariant under permuting rows (kind uniform, iid or exchangeable: a
                  :class:`~problems.priors.Prior` or a :class:`~problems.orbit.symmetric_prior.SymmetricPrior`)
                  and, for PD-MIP (single-letterisation), an i.i.d. prior.  ``"dense"`` is the N×N program (a
                  SymmetricPrior is expanded to its pmf, small n only).  ``"auto"`` takes the reduced program
                  where it applies and the dense one otherwise.
``method=``       ``"auto"`` | ``"lp"`` | ``"theorem"`` — how a built program answers (``program.solve(eps,
                  method=…)``, ``--method``): a theorem where one applies and else the LP (``"auto"``; the
                  reduced PD-DP and PD-I of an i.i.d. prior answer at any n as n × the certified one-row
                  program, :mod:`problems.orbit.product_prior`);
                  always the LP; only the closed form (bad input where none applies).  PD-MIP has no theorem
                  path and takes ``"auto"`` only.
``solver=``       a back end name (``clarabel``, ``highs``, ``scs``, ``cvxpy``, ``structured``, ``block``; PD-MIP:
                  a CVXPY conic solver) — tried first, the others after it if it fails (``--solver``).

The model (:meth:`problems.model.MechanismModel.solve`), the sweep (a point's ``formulation`` and
``method``) and the reduced programs (``solver=``) take the same names.  The old keywords still work for one
release with a :class:`DeprecationWarning`: ``path=`` (and ``--path``), which named either a formulation or
a method (:mod:`problems.solve_choice` maps it; the model's old routes: :mod:`problems.model.paths`), the
sweep's ``path`` field (the keys of points computed before keep their value), and the reduced programs'
``backend=`` (the back end tried first: ``solver=``).

**The way through** a plain solve: :func:`solve_spec` parses the prior spec once
(:mod:`problems.prior_spec`), chooses the formulation (:func:`resolve_formulation`), checks the resources,
builds the program from the registry and solves it; the program's solvers and certificate give the result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .database import DENSE_LIMIT, DatabaseSpace
from .errors import InvalidInputError, InvalidPriorError
from .orbit.symmetric_prior import SYMMETRIC_KINDS, SymmetricPrior, iid_row_pmf, parse_symmetric_prior
from .prior_spec import SYMMETRIC_SPECS, is_symmetric_spec
from .priors import Prior, parse_prior
from .resources import reduced_lp_ratio_rows, reduced_lp_variables, require_dense_program, require_reduced_lp
from .solve_choice import (
    FORMULATIONS,
    METHODS,
    check_method,
    formulation_from_path,
    split_path,
    warn_deprecated,
)

__all__ = [
    "ProgramEntry",
    "REGISTRY",
    "PROGRAMS",
    "REDUCIBLE",
    "FORMULATIONS",
    "METHODS",
    "SYMMETRIC_SPECS",
    "SpecProgram",
    "make_program",
    "dense_program",
    "resolve_formulation",
    "prior_from_spec",
    "program_from_spec",
    "solve_from_spec",
    "solve_spec",
]


# ------------------------------------------------------------------------------------------------ builders
def _pd_dp(prior: Prior, **kwargs: Any) -> Any:
    from .programs.pd_dp import PDDP

    return PDDP(prior, **kwargs)


def _pd_i(prior: Prior, **kwargs: Any) -> Any:
    from .programs.pd_i import PDI

    return PDI(prior, **kwargs)


def _r_pd(space: DatabaseSpace, **kwargs: Any) -> Any:
    from .programs.r_pd import RPD

    return RPD(space, **kwargs)


def _pd_mip(prior: Prior, **kwargs: Any) -> Any:
    from .programs.pd_mip import PDMIP

    return PDMIP(prior, **kwargs)


def _reduced_pd_dp(prior: Prior | SymmetricPrior, **kwargs: Any) -> Any:
    from .orbit.programs import ReducedPDDP

    return ReducedPDDP(prior, **kwargs)


def _reduced_pd_i(prior: Prior | SymmetricPrior, **kwargs: Any) -> Any:
    from .orbit.programs import ReducedPDI

    return ReducedPDI(prior, **kwargs)


def _reduced_r_pd(space: DatabaseSpace, **kwargs: Any) -> Any:
    from .orbit.programs import ReducedRPD

    return ReducedRPD(space, **kwargs)


def _reduced_pd_mip(prior: Prior | SymmetricPrior, **kwargs: Any) -> Any:
    from .orbit.pd_mip_iid import ReducedPDMIP

    return ReducedPDMIP(prior, **kwargs)


@dataclass(frozen=True)
class ProgramEntry:
    """One program of the registry.

    Attributes
    ----------
    name:
        The program's name (``pd-dp``, ``pd-i``, ``r-pd``, ``pd-mip``).
    dense, reduced:
        Builders ``(prior, **kwargs) -> program`` of the N×N and the orbit-reduced program; a prior-free
        program's builders take the :class:`~problems.database.DatabaseSpace`.
    level:
        ``"eps"`` (solved at a privacy level ε) or ``"distortion"`` (at a distortion bound D).
    theorem:
        The program has a theorem shortcut (``method="theorem"`` applies).
    prior_free:
        The program optimises the input marginal and takes no prior (R-PD).
    reduced_needs_iid:
        The reduced program needs an i.i.d. prior (PD-MIP's single-letterisation).
    """

    name: str
    dense: Callable[..., Any]
    reduced: Callable[..., Any]
    level: str = "eps"
    theorem: bool = True
    prior_free: bool = False
    reduced_needs_iid: bool = False


#: Program name → its entry, in the order the command line lists them.
REGISTRY: dict[str, ProgramEntry] = {
    "pd-dp": ProgramEntry("pd-dp", _pd_dp, _reduced_pd_dp),
    "pd-i": ProgramEntry("pd-i", _pd_i, _reduced_pd_i),
    "r-pd": ProgramEntry("r-pd", _r_pd, _reduced_r_pd, prior_free=True),
    "pd-mip": ProgramEntry(
        "pd-mip", _pd_mip, _reduced_pd_mip, level="distortion", theorem=False, reduced_needs_iid=True
    ),
}
PROGRAMS = tuple(REGISTRY)
#: Programs with a reduced form (PD-MIP: for i.i.d. priors only).
REDUCIBLE = tuple(name for name, entry in REGISTRY.items() if entry.reduced is not None)


def _entry(name: str) -> ProgramEntry:
    entry = REGISTRY.get(name)
    if entry is None:
        raise InvalidInputError(f"unknown program {name!r}; choose one of {PROGRAMS}")
    return entry


def _kind(prior: Prior | SymmetricPrior | DatabaseSpace) -> str:
    if isinstance(prior, DatabaseSpace):
        return "uniform"  # R-PD: no prior, the full symmetry group applies
    return prior.kind


# ------------------------------------------------------------------------------------------------ choice
def resolve_formulation(
    name: str, prior: Prior | SymmetricPrior | DatabaseSpace, formulation: str = "auto"
) -> str:
    """``"dense"`` or ``"reduced"``: the formulation :func:`make_program` will take (validating the choice)."""
    name = name.lower()
    entry = _entry(name)
    if formulation not in FORMULATIONS:
        raise InvalidInputError(f"formulation must be one of {FORMULATIONS}, got {formulation!r}")
    symmetric = entry.prior_free or _kind(prior) in SYMMETRIC_KINDS
    iid = entry.reduced_needs_iid and not isinstance(prior, DatabaseSpace) and iid_row_pmf(prior) is not None
    if formulation == "auto":
        return "reduced" if symmetric and (not entry.reduced_needs_iid or iid) else "dense"
    if formulation == "reduced":
        if not symmetric:
            raise InvalidPriorError(
                f"the reduced program needs a prior invariant under permuting rows (kind in {SYMMETRIC_KINDS}); "
                f"this prior has kind {_kind(prior)!r}. Use formulation='dense' or 'auto'"
            )
        if entry.reduced_needs_iid and not iid:
            raise InvalidPriorError(
                "the reduced PD-MIP covers i.i.d. priors only (single-letterisation needs independent rows); "
                f"this prior has kind {_kind(prior)!r}. Use formulation='dense' (small n only)"
            )
    return formulation


def make_program(
    name: str,
    prior: Prior | SymmetricPrior | DatabaseSpace,
    formulation: str = "auto",
    *,
    path: str | None = None,
    **kwargs: Any,
) -> Any:
    """Build program ``name`` (pd-dp, pd-i, r-pd, pd-mip) for ``prior`` in the chosen ``formulation``.

    ``prior`` may be a DatabaseSpace for r-pd.  ``kwargs`` go to the program's constructor (e.g. ``solver=``;
    reduced programs also take ``lift_limit=``).  ``path=`` is the deprecated name of
    ``formulation=``.
    """
    if not isinstance(name, str):
        raise InvalidInputError(
            f"make_program takes a program name (pd-dp, pd-i, r-pd, pd-mip), got {name!r}"
        )
    if not isinstance(prior, (Prior, SymmetricPrior, DatabaseSpace)):
        raise InvalidPriorError(
            f"make_program takes a Prior, a SymmetricPrior or (r-pd) a DatabaseSpace, got {type(prior).__name__}"
        )
    if path is not None:  # the deprecated name of formulation=
        formulation = formulation_from_path(formulation, path)
    name = name.lower()
    chosen = resolve_formulation(name, prior, formulation)
    entry = REGISTRY[name]
    if entry.prior_free:
        space = prior if isinstance(prior, DatabaseSpace) else prior.space
        return (entry.reduced if chosen == "reduced" else entry.dense)(space, **kwargs)
    if isinstance(prior, DatabaseSpace):
        if chosen == "reduced":
            raise InvalidInputError(f"{name} needs a prior; a DatabaseSpace alone is accepted for r-pd only")
        raise InvalidInputError(f"{name} needs a prior, got a DatabaseSpace")
    if chosen == "reduced":
        return entry.reduced(prior, **kwargs)
    return entry.dense(prior.to_prior() if isinstance(prior, SymmetricPrior) else prior, **kwargs)


def dense_program(name: str, prior: Prior | DatabaseSpace, **kwargs: Any) -> Any:
    """The N×N program ``name`` for a dense prior (or, for r-pd, a DatabaseSpace), from the registry."""
    return _entry(name).dense(prior, **kwargs)


# ------------------------------------------------------------------------------------------ from a spec
@dataclass(frozen=True)
class SpecProgram:
    """A program built from a ``--prior`` spec: the program, its formulation and method, and the prior."""

    name: str
    program: Any
    formulation: str  # "dense" or "reduced"
    method: str  # "auto", "lp" or "theorem" (PD-MIP: "auto")
    prior: Any  # Prior, SymmetricPrior (or the DatabaseSpace for R-PD)
    space: DatabaseSpace


def prior_from_spec(spec: str, n: int, m: int, *, dense: bool = False) -> Any:
    """The prior of a ``--prior`` spec: a SymmetricPrior for symmetric specs (no mⁿ pmf) unless ``dense``.

    Explicit priors (``pmf:``, ``file:``) and ``dense=True`` give a :class:`~problems.priors.Prior`; their
    database space must pass the dense limit (ProblemTooLargeError before anything is built).
    """
    space = DatabaseSpace(n, m)
    if not dense and is_symmetric_spec(spec):
        return parse_symmetric_prior(spec, n, m)
    space.require_dense()
    return parse_prior(spec, space)


def program_from_spec(
    name: str,
    spec: str,
    n: int,
    m: int,
    formulation: str = "auto",
    *,
    method: str = "auto",
    path: str | None = None,
    lift_limit: int | None = None,
    **kwargs: Any,
) -> SpecProgram:
    """Build program ``name`` for the prior ``spec`` on ``n`` rows over ``m`` values.

    Symmetric specs (uniform, iid, contagious, mixture) are parsed without the mⁿ pmf unless the dense
    formulation is chosen; the dense formulation is refused (ProblemTooLargeError) before any pmf is built
    when N = mⁿ exceeds the dense limit.  ``formulation`` and ``method`` are the solve choice (module
    docstring); ``path`` (deprecated) is the old ``--path`` value, either of them.  ``lift_limit`` (reduced
    PD-DP, PD-I, R-PD) is the largest N for which the reduced result is lifted to W[x, y].
    """
    if path is not None:
        warn_deprecated(f"path={path!r}", "formulation= (dense, reduced) or method= (lp, theorem)")
        formulation, method = split_path(path)
    name = name.lower()
    entry = _entry(name)
    if formulation not in FORMULATIONS:
        raise InvalidInputError(f"formulation must be one of {FORMULATIONS}, got {formulation!r}")
    if method not in METHODS:
        check_method(method)  # bad input naming the valid methods
    if not entry.theorem and method != "auto":
        raise InvalidInputError(
            f"method={method!r} does not apply to {name} (it has no theorem path); use method='auto'"
        )
    space = DatabaseSpace(n, m)
    if formulation == "dense":
        space.require_dense()  # before any pmf is built
    if formulation != "dense" and is_symmetric_spec(spec):
        prior: Any = parse_symmetric_prior(spec, n, m)  # never builds the mⁿ pmf
    else:
        if formulation == "auto" and space.size > DENSE_LIMIT:
            space.require_dense()  # an explicit prior at this size could only go to the dense path
        prior = parse_prior(spec, space)
    target = space if entry.prior_free else prior
    chosen = resolve_formulation(name, target, formulation)
    if chosen == "dense":
        require_dense_program(name, space, lp_time_warning=method != "theorem")
        if isinstance(prior, SymmetricPrior):
            prior = prior.to_prior()
        target = space if entry.prior_free else prior
    elif method == "lp" and name in ("pd-dp", "pd-i") and prior.kind != "uniform":
        # the LP is certainly needed: refuse before building it
        require_reduced_lp(reduced_lp_variables(n, m), reduced_lp_ratio_rows(n, m), m)
    if lift_limit is not None and chosen == "reduced" and name != "pd-mip":
        kwargs["lift_limit"] = lift_limit
    program = make_program(name, target, chosen, **kwargs)
    return SpecProgram(name, program, chosen, method, prior, space)


def solve_from_spec(built: SpecProgram, value: float, *, unit: str = "nats") -> Any:
    """Solve a :class:`SpecProgram` at ε (PD-I, PD-DP, R-PD; ``unit`` must be nats) or D (PD-MIP)."""
    if REGISTRY[built.name].level == "distortion":
        return built.program.solve(value, unit=unit)
    return built.program.solve(value, method=built.method)


def solve_spec(
    name: str,
    spec: str,
    n: int,
    m: int,
    value: float,
    *,
    formulation: str = "auto",
    method: str = "auto",
    unit: str = "nats",
    **kwargs: Any,
) -> tuple[SpecProgram, Any]:
    """Build and solve in one call: ``(built, result)`` of :func:`program_from_spec` then
    :func:`solve_from_spec` at ``value`` (ε, or D for PD-MIP).  ``kwargs`` go to :func:`program_from_spec`
    (``solver=``, ``lift_limit=``)."""
    built = program_from_spec(name, spec, n, m, formulation, method=method, **kwargs)
    return built, solve_from_spec(built, value, unit=unit)
