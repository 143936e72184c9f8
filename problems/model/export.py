"""Export a model's mechanism with its constraint set, and re-check a mechanism from that JSON alone.

:func:`export_model` writes (atomically, :func:`problems.export.atomic_write_text`)::

    {"format": "privacy-problems model mechanism v1",
     "matrix": [[…]], "input_labels": […], "output_labels": […],
     "model": {prior, loss, objective, constraints (pairs resolved), user_constraints},
     "result": {status, certified, bounds, value, path, …}}

:func:`is_feasible` rebuilds every constraint from the ``"model"`` part and recomputes its largest violation
on a mechanism with NumPy only (no CVXPY, no solver): the check a reader of the file can run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InvalidInputError, ShapeMismatchError
from ..export import atomic_write_text
from .privacy import ModelContext, from_dict

__all__ = ["export_model", "is_feasible", "Feasibility", "load_spec"]


def _default(obj):
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.floating, np.integer)):
        return obj.item()
    raise TypeError(f"cannot serialise {type(obj).__name__}")


def export_model(res, path: str | Path, model=None) -> Path:  # noqa: ANN001 - ModelResult, MechanismModel
    """Write the mechanism of ``res`` with its model (constraints resolved) and certificate to ``path`` (.json)."""
    path = Path(path)
    if path.suffix.lower() != ".json":
        raise InvalidInputError(f"export_model writes JSON; the path must end in .json, got {path.name!r}")
    spec = model.to_dict() if model is not None else getattr(res, "extras", {}).get("model_spec")
    if spec is None:
        raise InvalidInputError(
            "export_model needs the model: pass model=, or a result returned by model.solve()"
        )
    summary = res.to_dict()
    summary["extras"] = {k: v for k, v in summary["extras"].items() if k != "model_spec"}
    payload = {
        "format": "privacy-problems model mechanism v1",
        "convention": "matrix[x][y] = p(y|x); rows are inputs, columns outputs",
        "matrix": res.mechanism.matrix.tolist(),
        "input_labels": list(res.mechanism.input_labels),
        "output_labels": list(res.mechanism.output_labels),
        "model": spec,
        "result": summary,
    }
    from ..cli_common import dumps
    from ..export import require_directory

    require_directory(path, "export_model")
    return atomic_write_text(path, dumps(payload, indent=1))


def load_spec(spec) -> dict:  # noqa: ANN001
    """The model dict from a dict, a JSON string, or a path to a model / exported-mechanism JSON file."""
    if isinstance(spec, dict):
        obj = spec
    else:
        text = str(spec)
        if not text.lstrip().startswith("{"):
            p = Path(text)
            if not p.exists():
                raise InvalidInputError(f"model spec {text!r} is neither JSON text nor an existing file")
            text = p.read_text()
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"model spec is not valid JSON: {exc}") from exc
    if "model" in obj and isinstance(obj["model"], dict):
        obj = obj["model"]
    for key in ("prior", "loss", "constraints"):
        if key not in obj:
            raise InvalidInputError(f"model spec lacks {key!r}")
    return obj


@dataclass(frozen=True)
class Feasibility:
    """Per-constraint largest violation (≤ 0: satisfied) and the verdict at tolerance ``tol``."""

    violations: dict[str, float]
    tol: float

    @property
    def feasible(self) -> bool:
        return all(v <= self.tol for v in self.violations.values())

    @property
    def worst(self) -> tuple[str, float]:
        return max(self.violations.items(), key=lambda kv: kv[1])

    def __getitem__(self, key: str) -> float:
        return self.violations[key]


def is_feasible(W, spec, tol: float = 1e-9) -> Feasibility:  # noqa: ANN001
    """Recompute every constraint of ``spec`` (dict, JSON text or file) on the mechanism ``W`` (NumPy only)."""
    obj = load_spec(spec)
    M = np.asarray(getattr(W, "matrix", W), dtype=float)
    p = np.asarray(obj["prior"], dtype=float)
    L = np.asarray(obj["loss"], dtype=float)
    if M.shape != L.shape:
        raise ShapeMismatchError(f"mechanism has shape {M.shape}; the model's loss has shape {L.shape}")
    ctx = ModelContext(p, L)
    out = {
        "rows": float(np.max(np.abs(M.sum(axis=1) - 1.0))),
        "nonnegativity": float(max(0.0, -float(M.min()))),
    }
    for k, d in enumerate(obj["constraints"]):
        c = from_dict(d)
        out[f"{k}:{c.kind}"] = float(c.violation(M, ctx))
    return Feasibility(out, float(tol))
