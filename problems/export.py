"""Export mechanisms to .npy, .csv and .json, atomically; load them back.

* ``.npy`` — the matrix alone (``numpy.save``);
* ``.csv`` — a header row ``x\\y, <output labels>`` and one row per input database ``<label>, p(y|x)…``
  (labels are the database rows joined by commas, so cells are quoted);
* ``.json`` — ``{"matrix": [[…]], "input_labels": […], "output_labels": […], "metadata": {…}}`` where the
  metadata holds the program, n, m, prior, ε or D, the value and the certificate.

Every file is written to a temporary file in the same directory and moved into place with
:func:`os.replace`, so a reader never sees a half-written export.  The directory must exist: it is not
created silently (the same rule as ``--export`` on the command line; :func:`require_directory`).  JSON is
strict: a non-finite metadata value is written as ``null`` and listed under ``"non_finite"``.  Floats are written with 17 significant
digits, so loading gives back the same matrix bit for bit.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from .errors import InvalidInputError
from .mechanism import Mechanism

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "export_mechanism",
    "load_mechanism",
    "require_directory",
    "FORMATS",
]

FORMATS = (".npy", ".csv", ".json")


def _umask() -> int:
    """The process umask (read by setting it and restoring it at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temporary file in the same directory + ``os.replace``).

    A missing directory is created.  A path that cannot be written (a directory in its place, a file where a
    directory should be, ``/proc``, no permission) raises :class:`InvalidInputError` naming the path; nothing
    is left behind.

    The file gets the mode an ordinary ``open(path, "w")`` would give it, ``0o666 & ~umask``
    (:func:`tempfile.mkstemp` creates its file with mode 0600 whatever the umask).
    """
    path = Path(path)
    if path.is_dir():
        raise InvalidInputError(f"cannot write {str(path)!r}: it is a directory")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise InvalidInputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), 0o666 & ~_umask())
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write text (UTF-8) atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def require_directory(path: str | Path, what: str = "export") -> Path:
    """``path`` if its directory exists; :class:`InvalidInputError` otherwise (nothing is created).

    The rule of every user-facing file export, in the API and on the command line alike: a missing directory
    is a typo more often than a wish, so it is refused with a message rather than created.
    """
    path = Path(path)
    parent = path.parent
    if not parent.exists():
        raise InvalidInputError(
            f"{what}: directory {str(parent)!r} does not exist; create it first (it is not created silently)"
        )
    if not parent.is_dir():
        raise InvalidInputError(
            f"{what}: {str(parent)!r} is a file, so {str(path)!r} cannot be created under it"
        )
    return path


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise InvalidInputError(f"export path must end in one of {', '.join(FORMATS)}, got {path.name!r}")
    return suffix


def export_mechanism(mechanism: Mechanism, path: str | Path, *, metadata: dict | None = None) -> Path:
    """Write ``mechanism`` to ``path`` in the format given by its suffix (.npy, .csv or .json).

    ``mechanism`` is a :class:`~problems.mechanism.Mechanism`; a plain matrix is accepted too (validated as
    row-stochastic, labelled 0..N−1).
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise InvalidInputError(
            f"export_mechanism takes a file path ending in .npy, .csv or .json, got {path!r}"
        )
    path = Path(path)
    suffix = _suffix(path)
    require_directory(path, "export_mechanism")
    if not isinstance(mechanism, Mechanism):
        import numbers

        if isinstance(mechanism, (str, bytes, numbers.Number)) or mechanism is None:
            raise InvalidInputError(
                f"export_mechanism takes a Mechanism or a row-stochastic matrix, got {type(mechanism).__name__}"
            )
        mechanism = Mechanism(np.asarray(mechanism, dtype=float))
    W = mechanism.matrix
    if suffix == ".npy":
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(W), allow_pickle=False)
        return atomic_write_bytes(path, buf.getvalue())
    if suffix == ".csv":
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(["x\\y", *mechanism.output_labels])
        for label, row in zip(mechanism.input_labels, W):
            writer.writerow([label, *(repr(float(v)) for v in row)])
        return atomic_write_text(path, text.getvalue())
    payload = {
        "format": "privacy-problems mechanism v1",
        "convention": "matrix[x][y] = p(y|x); rows are inputs, columns outputs; itertools.product order",
        "matrix": W.tolist(),
        "input_labels": list(mechanism.input_labels),
        "output_labels": list(mechanism.output_labels),
        "metadata": metadata or {},
    }
    if not isinstance(payload["metadata"], dict):
        raise InvalidInputError(f"metadata must be a dict, got {type(metadata).__name__}")
    from .cli_common import dumps

    return atomic_write_text(path, dumps(payload, indent=1))


def _json_default(obj):
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.floating, np.integer)):
        return obj.item()
    raise TypeError(f"cannot serialise {type(obj).__name__}")


def load_mechanism(path: str | Path) -> tuple[Mechanism, dict]:
    """Load a mechanism written by :func:`export_mechanism`; returns ``(mechanism, metadata)``."""
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidInputError(f"load_mechanism takes a file path, got {type(path).__name__}")
    path = Path(path)
    suffix = _suffix(path)
    if not path.is_file():
        raise InvalidInputError(f"mechanism file {str(path)!r} does not exist (or is not a file)")
    try:
        return _load(path, suffix)
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, IndexError) as exc:
        if isinstance(exc, InvalidInputError):
            raise
        raise InvalidInputError(
            f"mechanism file {str(path)!r} is not a mechanism written by export_mechanism "
            f"({type(exc).__name__}: {str(exc)[:120]})"
        ) from None


def _load(path: Path, suffix: str) -> tuple[Mechanism, dict]:
    if suffix == ".npy":
        return Mechanism(np.load(path, allow_pickle=False)), {}
    if suffix == ".csv":
        rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
        outputs = rows[0][1:]
        inputs = [r[0] for r in rows[1:]]
        W = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
        return Mechanism(W, tuple(inputs), tuple(outputs)), {}
    obj = json.loads(path.read_text(encoding="utf-8"))
    W = np.array(obj["matrix"], dtype=float)
    return Mechanism(W, tuple(obj["input_labels"]), tuple(obj["output_labels"])), obj.get("metadata", {})
