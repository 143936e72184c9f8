r"""A study as a declarative grid: programs × priors × (n, m) × ε or D, expanded into keyed points.

A :class:`Point` is one independent job.  Its :attr:`Point.key` is the SHA-256 of its full specification
(program, n, m, the prior's *values* — a file prior by the hash of its bytes —, ε or D, solver, the
formulation and method (:mod:`problems.dispatch`) and the toolkit's version), so the same point always has the
same key: a finished point is found again on disk
(resume) and Dask treats the task as pure (a worker lost mid-sweep has its points recomputed elsewhere).

Programs (the ``program`` column of the table):

========== ====================================================== ==========================
program    value                                                  axis
========== ====================================================== ==========================
``pd-dp``  D*_d(ε), min expected Hamming distortion under ε-DP     ε (``eps``)
``pd-i``   D*_i(ε), under ε-identifiability                       ε
``r-pd``   D*_r(ε) = h(ε) (Lemma 1), the prior-free program         ε
``pd-mip`` ε*_m(D) = min I(X;Y) (nats) with E d ≤ D                D (``distortion``)
``eps-d``  ε*_d(D) = min{ε : D*_d(ε) ≤ D}, by inversion             D
``eps-i``  ε*_i(D) = min{ε : D*_i(ε) ≤ D}, by inversion             D
``design`` min expected distortion, individual capacity C₁ ≤ ε      ε (capacity limit, nats)
``c1-dp``  C₁ (nats) of the optimal ε-DP mechanism of PD-DP        ε
``model``  the optimum of a :mod:`problems.model` TOML spec         ε (fills ``"sweep"`` fields)
========== ====================================================== ==========================

(Wang, Ying & Zhang 2016 for the first six; Wu 2019b / ``docs/mechanism_design.md`` for ``design`` and ``c1-dp``.)

Priors are the command line's specs (``uniform``, ``iid:P0,P1,…``, ``pmf:…``, ``file:PATH``,
``contagious:W[:P…]``, ``mixture:…``) plus ``dirichlet:ALPHA:SEED`` — the pmf over the mⁿ databases drawn
from Dirichlet(ALPHA·1) with ``numpy.random.default_rng(SEED)``, reproducible on any machine.  A spec file
can ask for many of them at once (``[dirichlet] alpha = 1.0, seeds = 100``).

A ``model`` point solves the model of a TOML spec (``python -m problems model``'s format, ``docs/model.md``)
whose fields written as the string ``"sweep"`` take the point's ε (a privacy level, a δ, an information cap):
its ``prior`` is ``model:PATH`` and its key hashes the spec file's bytes; ``n`` and ``m`` are 0.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import InitVar, asdict, dataclass, field
from pathlib import Path

from ..errors import InvalidInputError
from ..solve_choice import check_formulation, check_method, join_path, split_path, warn_deprecated

__all__ = [
    "Point",
    "SweepSpec",
    "PROGRAMS",
    "EPS_PROGRAMS",
    "DISTORTION_PROGRAMS",
    "canonical_prior",
    "check_prior_values",
    "load_spec",
]

#: Programs whose axis is the privacy level ε (nats).
EPS_PROGRAMS = ("pd-dp", "pd-i", "r-pd", "design", "c1-dp", "model")
#: Programs whose axis is the distortion D ∈ [0, n].
DISTORTION_PROGRAMS = ("pd-mip", "eps-d", "eps-i")
PROGRAMS = EPS_PROGRAMS + DISTORTION_PROGRAMS

_PRIOR_KINDS = ("uniform", "iid", "pmf", "file", "contagious", "mixture", "dirichlet", "model")


def _version() -> str:
    from .. import __version__

    return __version__


def _floats(text: str, what: str) -> list[float]:
    """Comma-separated numbers as the command line's prior specs take them (decimals or fractions like 1/3)."""
    from ..priors import parse_number, split_items

    out = [parse_number(t, what) for t in split_items(text, what)]
    if not all(math.isfinite(v) for v in out):
        raise InvalidInputError(f"{what}: numbers must be finite, got {text!r}")
    return out


def canonical_prior(spec: str) -> dict:
    """The prior spec as values (what the key hashes): a file prior by the SHA-256 of its bytes.

    Validates the grammar only (cheap, no pmf is built): shapes are checked when the point runs.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidInputError(f"a prior spec is a non-empty string, got {spec!r}")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in _PRIOR_KINDS:
        raise InvalidInputError(
            f"unknown prior kind {kind!r} in {spec!r}; valid kinds: {', '.join(_PRIOR_KINDS)}"
        )
    if kind == "uniform":
        if rest:
            raise InvalidInputError(f"the uniform prior takes no values, got {spec!r}")
        return {"kind": "uniform"}
    if kind in ("iid", "pmf"):
        return {"kind": kind, "values": _floats(rest, f"prior {spec!r}")}
    if kind in ("file", "model"):
        path = Path(rest)
        if not path.is_file():
            raise InvalidInputError(f"{kind} file {rest!r} does not exist (spec {spec!r})")
        return {
            "kind": kind,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "suffix": path.suffix,
        }
    if kind == "contagious":
        w, _, row = rest.partition(":")
        return {
            "kind": kind,
            "weight": _floats(w, "contagious weight"),
            "row": _floats(row, "row") if row else None,
        }
    if kind == "mixture":
        return {"kind": kind, "parts": [_floats(p, "mixture part") for p in rest.split("/")]}
    # dirichlet:ALPHA:SEED
    a, _, s = rest.partition(":")
    try:
        alpha, seed = float(a), int(s)
    except ValueError as exc:
        raise InvalidInputError(
            f"dirichlet prior is dirichlet:ALPHA:SEED (e.g. dirichlet:1.0:7), got {spec!r}"
        ) from exc
    if not (math.isfinite(alpha) and alpha > 0) or seed < 0:
        raise InvalidInputError(f"dirichlet prior needs ALPHA > 0 and SEED ≥ 0, got {spec!r}")
    return {"kind": "dirichlet", "alpha": alpha, "seed": seed}


def check_prior_values(spec: str, n: int, m: int) -> None:
    """Bad input when the prior ``spec`` is not a pmf on ``m``-valued rows (n rows), before any point runs.

    Uniform, iid, contagious and mixture specs are parsed as the reduced path parses them (no mⁿ pmf is
    built); a ``pmf:`` spec must have mⁿ entries summing to 1.  Files, models and Dirichlet draws are checked
    when their point runs.  So ``iid:0.5,0.6`` is exit 2 at once, not a failed row.
    """
    kind = spec.strip().partition(":")[0].strip().lower()
    if isinstance(n, bool) or not isinstance(n, int) or isinstance(m, bool) or not isinstance(m, int):
        return  # Point reports bad n, m
    if n < 1 or m < 2:
        return
    try:
        if kind in ("uniform", "iid", "contagious", "mixture"):
            from ..orbit.symmetric_prior import parse_symmetric_prior

            parse_symmetric_prior(spec.strip(), n, m)
        elif kind == "pmf":
            from ..priors import PMF_LIMIT, validate_pmf

            values = canonical_prior(spec)["values"]
            if m**n <= PMF_LIMIT:
                validate_pmf(values, m**n, name=f"the pmf on {m}^{n} databases")
    except InvalidInputError as exc:
        raise type(exc)(f"prior {spec!r} (n = {n}, m = {m}): {exc}") from None


def _solve_choice(formulation: str, method: str, path: str | None) -> tuple[str, str]:
    """``(formulation, method)``, checked, with the deprecated ``path`` (one old value for either) mapped."""
    if path is not None:
        old, new = split_path(path)
        warn_deprecated(
            f"path={path!r}", "formulation= (dense, reduced) or method= (lp, theorem)", stacklevel=4
        )
        if (formulation, method) not in (("auto", "auto"), (old, new)):
            raise InvalidInputError(
                f"path={path!r} and formulation={formulation!r}, method={method!r} disagree; "
                "give formulation= and method= only"
            )
        formulation, method = old, new
    return check_formulation(formulation), check_method(method)


@dataclass(frozen=True)
class Point:
    """One job of a sweep.  ``eps`` is set for :data:`EPS_PROGRAMS`, ``distortion`` for the others.

    ``formulation`` and ``method`` are the solve choice of :mod:`problems.dispatch`; ``path`` (one old value
    for either) is their deprecated spelling.  The key of a point whose choice had an old ``path`` value
    hashes it under that name, so keys computed before the rename are unchanged.
    """

    program: str
    n: int
    m: int
    prior: str
    eps: float | None = None
    distortion: float | None = None
    solver: str | None = None
    formulation: str = "auto"
    method: str = "auto"
    query: str = "identity"  # design only
    version: str = field(default_factory=_version)
    path: InitVar[str | None] = None  # deprecated: formulation= or method=

    def __post_init__(self, path: str | None) -> None:
        choice = _solve_choice(self.formulation, self.method, path)
        object.__setattr__(self, "formulation", choice[0])
        object.__setattr__(self, "method", choice[1])
        if self.program not in PROGRAMS:
            raise InvalidInputError(f"unknown program {self.program!r}; valid: {', '.join(PROGRAMS)}")
        is_model = self.program == "model"
        if is_model != self.prior.strip().lower().startswith("model:"):
            raise InvalidInputError(
                f"a model point has prior 'model:PATH' (the model's TOML spec) and only a model point has one; "
                f"got program {self.program!r} with prior {self.prior!r}"
            )
        for name in ("n", "m"):
            v = getattr(self, name)
            low = 0 if is_model else (1 if name == "n" else 2)
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise InvalidInputError(f"{name} must be an integer ≥ {low}, got {v!r}")
        if self.program in EPS_PROGRAMS:
            if self.eps is None or not math.isfinite(self.eps) or self.eps < 0:
                raise InvalidInputError(f"{self.program} needs a finite ε ≥ 0 (nats), got eps={self.eps!r}")
            if self.distortion is not None:
                raise InvalidInputError(f"{self.program} is swept over ε; a distortion does not apply")
        else:
            D = self.distortion
            if D is None or not math.isfinite(D) or not 0 <= D <= self.n:
                raise InvalidInputError(
                    f"{self.program} needs a distortion D in [0, n] = [0, {self.n}], got {D!r}"
                )
            if self.eps is not None:
                raise InvalidInputError(f"{self.program} is swept over D; an ε does not apply")
        canonical_prior(self.prior)

    def spec(self) -> dict:
        """Everything the answer depends on (the prior by value)."""
        d = asdict(self)
        d["prior"] = canonical_prior(self.prior)
        formulation, method = d.pop("formulation"), d.pop("method")
        old = join_path(formulation, method)
        if old is not None:  # the old field, under its old name: keys computed before the rename stay
            d["path"] = old
        else:
            d["formulation"], d["method"] = formulation, method
        if self.program != "design":
            d.pop("query")
        return d

    @property
    def key(self) -> str:
        text = json.dumps(self.spec(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def dask_key(self) -> str:
        return f"{self.program}-{self.key[:32]}"


def _as_list(value, what: str) -> list:  # noqa: ANN001
    if value is None:
        return []
    if isinstance(value, (str, int, float)):
        return [value]
    if isinstance(value, Sequence):
        return list(value)
    raise InvalidInputError(f"{what} must be a value or a list, got {value!r}")


def _numbers(values: Iterable, what: str) -> list[float]:
    out = []
    for v in values:
        if isinstance(v, str):
            out.extend(_floats(v, what))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append(float(v))
        else:
            raise InvalidInputError(f"{what}: expected numbers, got {v!r}")
    return out


@dataclass(frozen=True)
class SweepSpec:
    """A grid: every program × prior × (n, m) × ε (or D, by the program's axis).

    ``distortion_over_n`` gives D as fractions of n (D = δ·n), convenient for curves across n.
    ``formulation`` and ``method`` are the solve choice of every point (:mod:`problems.dispatch`); ``path``
    is their deprecated spelling (in a spec file too).
    """

    programs: tuple[str, ...]
    priors: tuple[str, ...] = ("uniform",)
    n: tuple[int, ...] = (3,)
    m: tuple[int, ...] = (2,)
    eps: tuple[float, ...] = ()
    distortion: tuple[float, ...] = ()
    distortion_over_n: tuple[float, ...] = ()
    solver: str | None = None
    formulation: str = "auto"
    method: str = "auto"
    queries: tuple[str, ...] = ("identity",)
    models: tuple[str, ...] = ()
    path: InitVar[str | None] = None  # deprecated: formulation= or method=

    def __post_init__(self, path: str | None) -> None:
        choice = _solve_choice(self.formulation, self.method, path)
        object.__setattr__(self, "formulation", choice[0])
        object.__setattr__(self, "method", choice[1])
        if "model" in self.programs and not self.models:
            raise InvalidInputError("program 'model' needs model spec files (--model PATH or models = [...])")
        if not self.programs:
            raise InvalidInputError("a sweep needs at least one program (--program)")
        bad = [p for p in self.programs if p not in PROGRAMS]
        if bad:
            raise InvalidInputError(f"unknown program(s) {bad}; valid: {', '.join(PROGRAMS)}")
        if any(p in EPS_PROGRAMS for p in self.programs) and not self.eps:
            raise InvalidInputError(
                f"programs {[p for p in self.programs if p in EPS_PROGRAMS]} are swept over ε: give --eps"
            )
        if any(p in DISTORTION_PROGRAMS for p in self.programs) and not (
            self.distortion or self.distortion_over_n
        ):
            raise InvalidInputError(
                f"programs {[p for p in self.programs if p in DISTORTION_PROGRAMS]} are swept over D: give "
                "--distortion (or distortion_over_n in a spec file)"
            )
        for d in self.distortion_over_n:
            if not 0 <= d <= 1:
                raise InvalidInputError(f"distortion_over_n values lie in [0, 1], got {d!r}")
        for prior in self.priors:
            for n in self.n:
                for m in self.m:
                    check_prior_values(prior, n, m)
        if "design" in self.programs:
            from ..design.problem import QUERIES

            bad = [q for q in self.queries if q not in QUERIES]
            if bad:
                raise InvalidInputError(f"unknown design query(s) {bad}; valid: {', '.join(sorted(QUERIES))}")

    def points(self) -> list[Point]:
        """The grid in a fixed order (programs, priors, n, m, axis), without duplicates."""
        out: dict[str, Point] = {}
        for program in self.programs:
            if program == "model":
                for path in self.models:
                    for e in self.eps:
                        p = Point("model", 0, 0, f"model:{path}", eps=float(e), solver=self.solver)
                        out.setdefault(p.key, p)
                continue
            queries = self.queries if program == "design" else ("identity",)
            for prior in self.priors:
                for n in self.n:
                    for m in self.m:
                        if program in EPS_PROGRAMS:
                            axis = [("eps", e) for e in self.eps]
                        else:
                            Ds = list(self.distortion) + [d * n for d in self.distortion_over_n]
                            axis = [("distortion", D) for D in Ds]
                        for q in queries:
                            for name, value in axis:
                                p = Point(
                                    program=program,
                                    n=n,
                                    m=m,
                                    prior=prior,
                                    solver=self.solver,
                                    formulation=self.formulation,
                                    method=self.method,
                                    query=q,
                                    eps=float(value) if name == "eps" else None,
                                    distortion=float(value) if name == "distortion" else None,
                                )
                                out.setdefault(p.key, p)
        return list(out.values())

    @classmethod
    def from_mapping(cls, data: dict) -> SweepSpec:
        """From a TOML/JSON-like mapping (keys as in :class:`SweepSpec`; singular aliases accepted)."""
        data = dict(data)
        aliases = {"program": "programs", "prior": "priors", "query": "queries", "model": "models"}
        for a, b in aliases.items():
            if a in data:
                data[b] = _as_list(data.pop(a), a) + _as_list(data.get(b), b)
        known = {f for f in cls.__dataclass_fields__} | {"dirichlet"}  # "path" too (deprecated)
        from ..cli_common import reject_unknown_keys

        reject_unknown_keys(data, known, "the sweep spec")
        priors = [str(p) for p in _as_list(data.get("priors"), "priors")]
        if "dirichlet" in data:
            d = data["dirichlet"]
            if not isinstance(d, dict) or "seeds" not in d:
                raise InvalidInputError("[dirichlet] needs seeds = COUNT (and optionally alpha, first_seed)")
            alpha = float(d.get("alpha", 1.0))
            first = int(d.get("first_seed", 0))
            priors += [f"dirichlet:{alpha:g}:{s}" for s in range(first, first + int(d["seeds"]))]
        kw: dict = {
            "programs": tuple(str(p).lower() for p in _as_list(data.get("programs"), "programs")),
            "priors": tuple(priors) or ("uniform",),
        }
        for name in ("n", "m"):
            if name in data:
                vals = _as_list(data[name], name)
                if not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
                    raise InvalidInputError(f"{name} must be integers, got {vals!r}")
                kw[name] = tuple(vals)
        for name in ("eps", "distortion", "distortion_over_n"):
            if name in data:
                kw[name] = tuple(_numbers(_as_list(data[name], name), name))
        for name in ("solver", "formulation", "method", "path"):
            if name in data:
                kw[name] = data[name]
        if "queries" in data:
            kw["queries"] = tuple(str(q) for q in data["queries"])
        if "models" in data:
            kw["models"] = tuple(str(q) for q in data["models"])
        return cls(**kw)


def load_spec(path: str | Path) -> SweepSpec:
    """Read a sweep spec (TOML); the keys are those of :class:`SweepSpec` (see ``docs/sweeps.md``)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InvalidInputError(f"sweep spec file {str(path)!r} does not exist") from exc
    except OSError as exc:  # a directory, no permission
        raise InvalidInputError(f"sweep spec {str(path)!r} cannot be read: {exc.strerror or exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"sweep spec {str(path)!r} is not valid TOML: {exc}") from exc
    return SweepSpec.from_mapping(data.get("sweep", data))
