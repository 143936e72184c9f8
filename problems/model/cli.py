"""``python -m problems model SPEC.toml``: solve a mechanism-design model described in TOML.

The spec (all keys except ``loss`` optional)::

    name = "my-question"
    prior = [0.25, 0.25, 0.25, 0.25]      # or "uniform" (size from the loss or the neighbour relation)
    loss = "zero_one"                     # zero_one | hamming | a matrix [[…], …] |
                                          # {kind = "absolute" | "squared", values = […], outputs = […]}
    objective = "expected_loss"           # or "mutual_information"

    [neighbours]                          # the default relation of the constraints that take one
    kind = "bounded"                      # bounded (n, m) | unbounded (n, m) | all | graph (pairs = [[0, 1], …])
    n = 2
    m = 2

    [[constraint]]
    kind = "approximate"                  # differential | approximate | local | metric | identifiability |
    eps = 1.0                             # mutual_information | individual_capacity | expected_loss
    delta = 0.01

Exit codes: 0 certified optimal, 1 proved infeasible, 2 bad input (the message names the value), 3 not
certified (the answer and its bounds are printed).
"""

from __future__ import annotations

import argparse
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..cli_common import reject_unknown_keys
from ..database import DatabaseSpace
from ..errors import InfeasibleProgramError, InvalidInputError, ShapeMismatchError
from ..lp.status import EXIT_CODES
from ..solve_choice import FORMULATIONS, METHODS
from . import losses
from .neighbours import UnboundedSpace
from .paths import PATHS

if TYPE_CHECKING:
    from .model import MechanismModel

__all__ = ["add_parser", "register", "run", "model_from_spec"]

_KINDS = (
    "differential",
    "approximate",
    "local",
    "metric",
    "identifiability",
    "mutual_information",
    "individual_capacity",
    "expected_loss",
)


def add_parser(subparsers) -> argparse.ArgumentParser:  # noqa: ANN001
    """Add the ``model`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "model",
        help="solve a mechanism-design model described in a TOML file (docs/model.md)",
        description="Minimise the expected loss (or I(X;Y)) over mechanisms subject to the constraints of SPEC.",
    )
    p.add_argument("spec", help="TOML file: prior, loss, neighbours, [[constraint]] tables")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--solver", help="back end tried first (clarabel, highs, scs, …); cvxpy: the CVXPY problem"
    )
    p.add_argument(
        "--formulation",
        choices=FORMULATIONS,
        default="auto",
        help="auto/dense: in full; reduced: the orbit-reduced program of a model that is PD-DP or PD-I itself",
    )
    p.add_argument(
        "--method",
        choices=METHODS,
        default="auto",
        help="auto: PD-DP/PD-I themselves as that program, else the ratio LP, else CVXPY; lp: the model's "
        "ratio LP; theorem: the closed form of PD-DP/PD-I only",
    )
    p.add_argument(
        "--path",
        choices=PATHS,
        default=None,
        help="deprecated: lp-core is --method lp, cvxpy is --solver cvxpy",
    )
    p.add_argument("--export", help="write the mechanism with its constraint set to PATH (.json)")
    p.set_defaults(func=run)
    return p


register = add_parser


#: The keys of each table of a model spec (a misspelt key is bad input, as in the sweep spec).
SPEC_KEYS = ("name", "prior", "loss", "objective", "neighbours", "constraint")
NEIGHBOUR_KEYS = ("kind", "n", "m", "pairs")
LOSS_KEYS = ("kind", "values", "outputs")
CONSTRAINT_KEYS = {
    "differential": ("eps", "neighbours"),
    "approximate": ("eps", "delta", "neighbours"),
    "local": ("eps",),
    "metric": ("eps", "distance"),
    "identifiability": ("eps", "neighbours"),
    "mutual_information": ("at_most",),
    "individual_capacity": ("at_most", "shape"),
    "expected_loss": ("at_most",),
}


def _array(obj, dtype, what: str, ndim: int = 2) -> np.ndarray:  # noqa: ANN001
    """``obj`` (a TOML list) as a ``ndim``-D array; a ragged or non-numeric list is bad input naming ``what``."""
    if isinstance(obj, (str, bool)) or not isinstance(obj, (list, tuple, int, float)):
        raise InvalidInputError(
            f"{what} must be a {'matrix' if ndim == 2 else 'list'} of numbers, got {obj!r}"
        )
    try:
        arr = np.asarray(obj, dtype=dtype)
    except (TypeError, ValueError, OverflowError):
        lengths = sorted({len(r) for r in obj if isinstance(r, list)}) if isinstance(obj, list) else []
        ragged = f" (rows of lengths {lengths})" if len(lengths) > 1 else ""
        raise ShapeMismatchError(
            f"{what} must be a rectangular {'matrix' if ndim == 2 else 'list'} of numbers{ragged}"
        ) from None
    if arr.ndim != ndim:
        raise ShapeMismatchError(f"{what} must be {ndim}-D, got shape {arr.shape}")
    return arr


def _relation(obj, where: str):  # noqa: ANN001
    if obj is None or obj == "all":
        return "all"
    if isinstance(obj, list):
        return _array(obj, np.int64, f"{where} (pairs)")
    if not isinstance(obj, dict):
        raise InvalidInputError(f"{where} must be 'all', a list of pairs or a table, got {obj!r}")
    reject_unknown_keys(obj, NEIGHBOUR_KEYS, where)
    kind = obj.get("kind", "graph")
    if kind == "all":
        return "all"
    if kind in ("bounded", "unbounded"):
        n, m = obj.get("n"), obj.get("m")
        if not (isinstance(n, int) and isinstance(m, int)) or isinstance(n, bool) or isinstance(m, bool):
            raise InvalidInputError(
                f"{where}: kind = {kind!r} needs integers n and m, got n = {n!r}, m = {m!r}"
            )
        return DatabaseSpace(n, m) if kind == "bounded" else UnboundedSpace(n, m)
    if kind == "graph":
        if "pairs" not in obj:
            raise InvalidInputError(f"{where}: kind = 'graph' needs pairs = [[i, j], …]")
        return _array(obj["pairs"], np.int64, f"{where} pairs")
    raise InvalidInputError(f"{where}: kind must be bounded, unbounded, all or graph, got {kind!r}")


def _size(relation) -> int | None:  # noqa: ANN001
    return getattr(relation, "size", None) if not isinstance(relation, (str, np.ndarray)) else None


def _loss(obj, relation, N: int | None) -> np.ndarray:  # noqa: ANN001
    if isinstance(obj, str):
        if obj == "zero_one":
            if N is None:
                raise InvalidInputError("loss = 'zero_one' needs the number of inputs: give a prior vector")
            return losses.zero_one(N)
        if obj == "hamming":
            if not isinstance(relation, DatabaseSpace):
                raise InvalidInputError("loss = 'hamming' needs [neighbours] kind = 'bounded' with n and m")
            return losses.hamming(relation)
        raise InvalidInputError(f"loss must be zero_one, hamming, a matrix or a table, got {obj!r}")
    if isinstance(obj, dict):
        reject_unknown_keys(obj, LOSS_KEYS, "the loss table")
        kind = obj.get("kind")
        if kind not in ("absolute", "squared"):
            raise InvalidInputError(f"a loss table needs kind = 'absolute' or 'squared', got {kind!r}")
        if "values" not in obj:
            raise InvalidInputError(f"loss kind = {kind!r} needs values = [f(x) for every input]")
        return getattr(losses, kind)(obj["values"], obj.get("outputs"))
    if isinstance(obj, list):
        return losses.as_loss(_array(obj, float, "loss"))
    raise InvalidInputError(f"loss is required (zero_one, hamming, a matrix or a table), got {obj!r}")


def _constraint(d: dict, k: int, relation):  # noqa: ANN001
    from . import privacy

    where = f"constraint {k}"
    if not isinstance(d, dict) or d.get("kind") not in _KINDS:
        raise InvalidInputError(f"{where}: kind must be one of {', '.join(_KINDS)}, got {d!r}")
    kind = d["kind"]
    reject_unknown_keys(d, ("kind",) + CONSTRAINT_KEYS[kind], f"{where} ({kind})")
    rel = _relation(d["neighbours"], where) if "neighbours" in d else relation
    try:
        if kind == "differential":
            return privacy.differential(d["eps"], neighbours=rel)
        if kind == "approximate":
            return privacy.approximate(d["eps"], d["delta"], neighbours=rel)
        if kind == "local":
            return privacy.local(d["eps"])
        if kind == "metric":
            return privacy.metric(d["eps"], distance=_array(d["distance"], float, f"{where} distance"))
        if kind == "identifiability":
            return privacy.identifiability(d["eps"], neighbours=rel)
        if kind == "mutual_information":
            return privacy.mutual_information(at_most=d["at_most"])
        if kind == "individual_capacity":
            return privacy.individual_capacity(at_most=d["at_most"], shape=d["shape"])
        return privacy.expected_loss(at_most=d["at_most"])
    except KeyError as exc:
        raise InvalidInputError(f"{where} ({kind}) is missing the key {exc.args[0]!r}") from exc


def _require_memory(spec: dict, relation, N: int, K: int) -> None:  # noqa: ANN001
    """The memory guard of :meth:`MechanismModel.add`, from the spec alone (before the loss is built)."""
    from .neighbours import pair_count, require_model_memory

    rows = 0
    for d in spec.get("constraint", []) or []:
        if not isinstance(d, dict):
            continue
        kind = d.get("kind")
        if kind in ("local", "metric"):
            rows += N * (N - 1) * K
        elif kind in ("differential", "approximate", "identifiability"):
            rel = _relation(d["neighbours"], "constraint") if "neighbours" in d else relation
            rows += pair_count(rel, N) * K
    require_model_memory(str(spec.get("name", "model")), N, K, rows)


def model_from_spec(spec: dict) -> MechanismModel:  # noqa: F821 - imported below (CVXPY on first use)
    """Build a :class:`MechanismModel` from the parsed TOML (see the module docstring).

    The spec is checked (keys, shapes) before CVXPY is imported, so a bad spec is refused quickly.
    """
    if not isinstance(spec, dict):
        raise InvalidInputError("the model spec must be a TOML table")
    reject_unknown_keys(spec, SPEC_KEYS, "the model spec")
    if not isinstance(spec.get("constraint", []), list):
        raise InvalidInputError("constraints are [[constraint]] tables (a list), got a single value")
    relation = _relation(spec.get("neighbours"), "[neighbours]")
    prior = spec.get("prior", "uniform")
    N = len(prior) if isinstance(prior, list) else _size(relation)
    if N is not None and spec.get("loss") in ("zero_one", "hamming"):  # K = N: refuse before the N×N loss
        _require_memory(spec, relation, N, N)
    L = _loss(spec.get("loss"), relation, N)
    if prior == "uniform":
        prior = np.full(L.shape[0], 1.0 / L.shape[0])
    elif not isinstance(prior, list):
        raise InvalidInputError(f"prior must be 'uniform' or a list of probabilities, got {prior!r}")
    labels = getattr(relation, "labels", None) if _size(relation) == L.shape[0] else None
    for k, d in enumerate(
        spec.get("constraint", [])
    ):  # keys first: a misspelt key is refused before CVXPY loads
        if isinstance(d, dict) and d.get("kind") in CONSTRAINT_KEYS:
            reject_unknown_keys(d, ("kind",) + CONSTRAINT_KEYS[d["kind"]], f"constraint {k} ({d['kind']})")
    from .model import MechanismModel

    model = MechanismModel(prior, L, name=str(spec.get("name", "model")), input_labels=labels)
    for k, d in enumerate(spec.get("constraint", [])):
        model.add(_constraint(d, k, relation))
    objective = spec.get("objective", "expected_loss")
    model.minimise(objective)
    return model


def run(args: argparse.Namespace) -> int:
    """Run the ``model`` subcommand; returns the exit code.  Toolkit errors become exit codes in
    :func:`problems.cli_common.run` (2 bad input, 3 failed, 4 too large)."""
    path = Path(args.spec)
    if not path.exists():
        raise InvalidInputError(f"spec file {str(path)!r} does not exist")
    if not path.is_file():
        raise InvalidInputError(f"spec file {str(path)!r} is not a file (a TOML model spec is expected)")
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"spec file {str(path)!r} cannot be read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"spec file {str(path)!r} is not valid TOML: {exc}") from exc
    model = model_from_spec(spec)
    if args.export:
        from ..cli_common import check_output_file

        check_output_file(args.export, suffixes=(".json",))  # before the solve
    if args.path is not None:  # one line on stderr: the DeprecationWarning is not shown on the command line
        import sys

        print(
            "note: --path is deprecated and will be removed in the next release; use --method or --solver",
            file=sys.stderr,
        )
    try:
        res = model.solve(
            formulation=args.formulation, method=args.method, solver=args.solver, path=args.path
        )
    except InfeasibleProgramError as exc:
        if args.json:
            from ..cli_common import print_json

            print_json(
                {
                    "program": model.name,
                    "status": "infeasible",
                    "certified": True,
                    "reason": exc.reason,
                    "bounds": {"lower": None, "upper": None},
                }
            )
        else:
            print(f"{model.name} is infeasible: {exc.reason}")
        return EXIT_CODES["infeasible"]
    if args.export:
        from .export import export_model

        export_model(res, args.export)
    if args.json:
        out = res.to_dict(include_mechanism=True)
        if args.export:
            out["exported_to"] = str(args.export)
        from ..cli_common import print_json

        print_json(out, unit=getattr(res, "unit", None))
    else:
        b = res.bounds
        print(f"{model!r}")
        print(f"  status  {res.status} ({res.path})")
        print(f"  value   {res.value:.12g} {res.unit}" + ("" if res.certified else " (NOT CERTIFIED)"))
        print(f"  bounds  [{b.lower:.12g}, {b.upper:.12g}]")
        for name, v in res.violations.items():
            print(f"  {name:24s} max violation {v:.3e}")
        for u in res.unchecked:
            print(f"  {u['name']:24s} user constraint, not proved (violation {u['violation']:.3e})")
    return EXIT_CODES["optimal"] if res.certified else EXIT_CODES["inaccurate"]
