"""Choose between the dense programs (:mod:`problems.programs`) and the orbit-reduced ones.

``make_program(name, prior, path="auto")`` returns an object with ``.solve(eps)`` (``.solve(D)`` for PD-MIP):

* ``path="reduced"`` — the orbit-reduced program; needs a prior of kind uniform/iid/exchangeable (a
  :class:`~problems.priors.Prior` or a :class:`~problems.orbit.symmetric_prior.SymmetricPrior`).  PD-MIP's
  reduced form (:class:`~problems.orbit.pd_mip_iid.ReducedPDMIP`, single-letterisation) needs an i.i.d.
  prior (uniform or iid): exchangeable mixtures raise :class:`~problems.errors.InvalidPriorError`;
* ``path="dense"`` — the N×N program (a SymmetricPrior is expanded to its pmf, small n only);
* ``path="auto"`` — reduced for row-permutation-invariant priors (for PD-MIP: i.i.d. priors), dense otherwise.

For the CLI: ``PATHS`` lists the choices of ``--path``; :func:`resolve_path` says which path ``auto`` picks.
:func:`program_from_spec` does the whole choice from a ``--prior`` spec — formulation (dense or reduced) and
method (theorem or LP) — and :func:`solve_from_spec` solves with it; the command line only calls these.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..database import DENSE_LIMIT, DatabaseSpace
from ..errors import InvalidInputError, InvalidPriorError
from ..priors import Prior
from .symmetric_prior import SYMMETRIC_KINDS, SymmetricPrior

__all__ = [
    "make_program",
    "resolve_path",
    "program_from_spec",
    "prior_from_spec",
    "solve_from_spec",
    "split_path",
    "SpecProgram",
    "PATHS",
    "CLI_PATHS",
    "PROGRAMS",
    "REDUCIBLE",
]

PATHS = ("auto", "dense", "reduced")
#: Choices of ``--path``: a formulation (dense, reduced) or a method (lp, theorem); auto picks both.
CLI_PATHS = ("auto", "dense", "reduced", "lp", "theorem")
#: ``--prior`` kinds that are invariant under permuting rows (parsed without building the mⁿ pmf).
SYMMETRIC_SPECS = ("uniform", "iid", "contagious", "mixture")
PROGRAMS = ("pd-dp", "pd-i", "r-pd", "pd-mip")
#: Programs with a reduced form (PD-MIP: for i.i.d. priors only).
REDUCIBLE = ("pd-dp", "pd-i", "r-pd", "pd-mip")


def _kind(prior: Prior | SymmetricPrior | DatabaseSpace) -> str:
    if isinstance(prior, DatabaseSpace):
        return "uniform"  # R-PD: no prior, the full symmetry group applies
    return prior.kind


def resolve_path(name: str, prior: Prior | SymmetricPrior | DatabaseSpace, path: str = "auto") -> str:
    """``"dense"`` or ``"reduced"``: the path :func:`make_program` will take (validating the choice)."""
    name = name.lower()
    if name not in PROGRAMS:
        raise InvalidInputError(f"unknown program {name!r}; choose one of {PROGRAMS}")
    if path not in PATHS:
        raise InvalidInputError(f"path must be one of {PATHS}, got {path!r}")
    from .symmetric_prior import iid_row_pmf

    symmetric = name == "r-pd" or _kind(prior) in SYMMETRIC_KINDS
    iid = not isinstance(prior, DatabaseSpace) and iid_row_pmf(prior) is not None
    if path == "auto":
        return "reduced" if symmetric and name in REDUCIBLE and (name != "pd-mip" or iid) else "dense"
    if path == "reduced":
        if name not in REDUCIBLE:
            raise InvalidInputError(f"{name} has no reduced form; reduced programs exist for {REDUCIBLE}")
        if not symmetric:
            raise InvalidPriorError(
                f"the reduced path needs a prior invariant under permuting rows (kind in {SYMMETRIC_KINDS}); "
                f"this prior has kind {_kind(prior)!r}. Use path='dense' or 'auto'"
            )
        if name == "pd-mip" and not iid:
            raise InvalidPriorError(
                "the reduced PD-MIP covers i.i.d. priors only (single-letterisation needs independent rows); "
                f"this prior has kind {_kind(prior)!r}. Use path='dense' (small n only)"
            )
    return path


def make_program(
    name: str, prior: Prior | SymmetricPrior | DatabaseSpace, path: str = "auto", **kwargs: Any
) -> Any:
    """Build program ``name`` (pd-dp, pd-i, r-pd, pd-mip) for ``prior`` on the chosen path.

    ``prior`` may be a DatabaseSpace for r-pd.  ``kwargs`` go to the program's constructor (e.g. ``solver=``;
    reduced programs also take ``backend=`` and ``lift_limit=``).
    """
    if not isinstance(name, str):
        raise InvalidInputError(
            f"make_program takes a program name (pd-dp, pd-i, r-pd, pd-mip), got {name!r}"
        )
    if not isinstance(prior, (Prior, SymmetricPrior, DatabaseSpace)):
        raise InvalidPriorError(
            f"make_program takes a Prior, a SymmetricPrior or (r-pd) a DatabaseSpace, got {type(prior).__name__}"
        )
    name = name.lower()
    chosen = resolve_path(name, prior, path)
    if chosen == "reduced":
        from .pd_mip_iid import ReducedPDMIP
        from .programs import ReducedPDDP, ReducedPDI, ReducedRPD

        if name == "r-pd":
            space = prior if isinstance(prior, DatabaseSpace) else prior.space
            return ReducedRPD(space, **kwargs)
        if isinstance(prior, DatabaseSpace):
            raise InvalidInputError(f"{name} needs a prior; a DatabaseSpace alone is accepted for r-pd only")
        if name == "pd-mip":
            return ReducedPDMIP(prior, **kwargs)
        return (ReducedPDDP if name == "pd-dp" else ReducedPDI)(prior, **kwargs)
    from ..programs import PDDP, PDI, PDMIP, RPD

    if name == "r-pd":
        space = prior if isinstance(prior, DatabaseSpace) else prior.space
        return RPD(space, **kwargs)
    if isinstance(prior, DatabaseSpace):
        raise InvalidInputError(f"{name} needs a prior, got a DatabaseSpace")
    dense = prior.to_prior() if isinstance(prior, SymmetricPrior) else prior
    return {"pd-dp": PDDP, "pd-i": PDI, "pd-mip": PDMIP}[name](dense, **kwargs)


def split_path(path: str) -> tuple[str, str]:
    """``(formulation, method)`` of a ``--path`` choice: dense/reduced/auto and theorem/lp/auto."""
    if path not in CLI_PATHS:
        raise InvalidInputError(f"path must be one of {CLI_PATHS}, got {path!r}")
    if path in ("lp", "theorem"):
        return "auto", path
    return path, "auto"


@dataclass(frozen=True)
class SpecProgram:
    """A program built from a ``--prior`` spec: the program, its formulation and method, and the prior."""

    name: str
    program: Any
    formulation: str  # "dense" or "reduced"
    method: str  # "auto", "lp" or "theorem" (ignored by PD-MIP)
    prior: Any  # Prior, SymmetricPrior (or the DatabaseSpace for R-PD)
    space: DatabaseSpace


def prior_from_spec(spec: str, n: int, m: int, *, dense: bool = False) -> Any:
    """The prior of a ``--prior`` spec: a SymmetricPrior for symmetric specs (no mⁿ pmf) unless ``dense``.

    Explicit priors (``pmf:``, ``file:``) and ``dense=True`` give a :class:`~problems.priors.Prior`; their
    database space must pass the dense limit (ProblemTooLargeError before anything is built).
    """
    from ..priors import parse_prior
    from .symmetric_prior import parse_symmetric_prior

    space = DatabaseSpace(n, m)
    if not dense and spec.split(":", 1)[0].strip().lower() in SYMMETRIC_SPECS:
        return parse_symmetric_prior(spec, n, m)
    space.require_dense()
    return parse_prior(spec, space)


def program_from_spec(
    name: str, spec: str, n: int, m: int, path: str = "auto", *, lift_limit: int | None = None, **kwargs: Any
) -> SpecProgram:
    """Build program ``name`` for the prior ``spec`` on ``n`` rows over ``m`` values.

    Symmetric specs (uniform, iid, contagious, mixture) are parsed without the mⁿ pmf unless the dense
    formulation is chosen; the dense formulation is refused (ProblemTooLargeError) before any pmf is built
    when N = mⁿ exceeds the dense limit.  ``path`` is one of :data:`CLI_PATHS`.  ``lift_limit`` (reduced
    PD-DP, PD-I, R-PD) is the largest N for which the reduced result is lifted to W[x, y].
    """
    from ..priors import parse_prior
    from .symmetric_prior import parse_symmetric_prior

    name = name.lower()
    if name not in PROGRAMS:
        raise InvalidInputError(f"unknown program {name!r}; choose one of {PROGRAMS}")
    formulation, method = split_path(path)
    if name == "pd-mip" and method != "auto":
        raise InvalidInputError(
            f"--path {method} does not apply to pd-mip (it has no theorem path); use auto, dense or reduced"
        )
    space = DatabaseSpace(n, m)
    if formulation == "dense":
        space.require_dense()  # before any pmf is built
    symmetric = spec.split(":", 1)[0].strip().lower() in SYMMETRIC_SPECS
    if formulation != "dense" and symmetric:
        prior: Any = parse_symmetric_prior(spec, n, m)  # never builds the mⁿ pmf
    else:
        if formulation == "auto" and space.size > DENSE_LIMIT:
            space.require_dense()  # an explicit prior at this size could only go to the dense path
        prior = parse_prior(spec, space)
    target = space if name == "r-pd" else prior
    chosen = resolve_path(name, target, formulation)
    if chosen == "dense":
        space.require_dense()
        from ..resources import BASE_MEMORY, dense_lp_memory, require_memory

        estimate = BASE_MEMORY + 4000.0 * space.size**2 if name == "pd-mip" else dense_lp_memory(n, m)
        require_memory(
            estimate,
            f"the dense {name} program on N = {m}^{n} = {space.size} databases",
            "Use a uniform, iid or contagious prior (the reduced path), the theorem path where it applies "
            "(--path theorem), or a smaller n.",
        )
        if name != "pd-mip" and method != "theorem":
            from ..resources import dense_lp_seconds, format_seconds

            seconds = dense_lp_seconds(n, m)
            if seconds > 60:
                import warnings

                warnings.warn(
                    f"the dense {name} LP on N = {space.size} databases may take about {format_seconds(seconds)} "
                    "if the LP is needed (estimate from measured solves; the theorem path, where it applies, "
                    "is immediate)",
                    stacklevel=2,
                )
        if isinstance(prior, SymmetricPrior):
            prior = prior.to_prior()
        target = space if name == "r-pd" else prior
    if chosen == "reduced" and method == "lp" and name in ("pd-dp", "pd-i") and prior.kind != "uniform":
        from ..resources import reduced_lp_variables, require_reduced_lp

        require_reduced_lp(
            reduced_lp_variables(n, m)
        )  # the LP is certainly needed: refuse before building it
    if lift_limit is not None and chosen == "reduced" and name != "pd-mip":
        kwargs["lift_limit"] = lift_limit
    program = make_program(name, target, path=chosen, **kwargs)
    return SpecProgram(name, program, chosen, method, prior, space)


def solve_from_spec(built: SpecProgram, value: float, *, unit: str = "nats") -> Any:
    """Solve a :class:`SpecProgram` at ε (PD-I, PD-DP, R-PD; ``unit`` must be nats) or D (PD-MIP)."""
    if built.name == "pd-mip":
        return built.program.solve(value, unit=unit)
    return built.program.solve(value, path=built.method)
