"""Reading the numeric input files of the toolkit (priors, channels) with clear errors.

:func:`read_npy` reads a ``.npy`` file written by :func:`numpy.save` and refuses, with a message that says
what is wrong and how to write a valid file, an empty file, a file that is not in the ``.npy`` format, an
array of Python objects (pickled data: never loaded), and an array that is not numeric.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .errors import InvalidInputError

__all__ = ["read_npy", "read_csv_numbers", "read_json_numbers", "NPY_MAGIC"]

NPY_MAGIC = b"\x93NUMPY"


def _require_file(path: Path, what: str, error: type[InvalidInputError] = InvalidInputError) -> None:
    if not path.exists():
        raise error(f"{what} file {str(path)!r} does not exist")
    if not path.is_file():
        raise error(f"{what} file {str(path)!r} is not a regular file")
    if path.stat().st_size == 0:
        raise error(f"{what} file {str(path)!r} is empty")


def read_npy(path: str | Path, what: str, error: type[InvalidInputError] = InvalidInputError) -> np.ndarray:
    """A numeric array from a ``.npy`` file; ``error`` (a subclass of InvalidInputError) for bad content."""
    path = Path(path)
    _require_file(path, what, error)
    with path.open("rb") as fh:
        head = fh.read(len(NPY_MAGIC))
    if head != NPY_MAGIC:
        raise error(
            f"{what} file {str(path)!r} is not a NumPy .npy file (it does not start with the .npy header); "
            "write the array with numpy.save"
        )
    try:
        arr = np.load(path, allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc):
            raise error(
                f"{what} file {str(path)!r} holds an array of Python objects (pickled data), which is never "
                "loaded; save a float array with numpy.save(path, np.asarray(values, dtype=float))"
            ) from None
        raise error(f"{what} file {str(path)!r} is not a valid .npy file: {exc}") from None
    except (OSError, EOFError) as exc:
        raise error(
            f"{what} file {str(path)!r} is truncated or damaged ({exc}); write it again with numpy.save"
        ) from None
    if arr.dtype.kind not in "biuf":
        raise error(
            f"{what} file {str(path)!r} holds an array of dtype {arr.dtype}; a numeric (float) array is needed"
        )
    return np.asarray(arr, dtype=float)


def read_csv_numbers(
    path: str | Path, what: str, error: type[InvalidInputError] = InvalidInputError
) -> np.ndarray:
    """Numbers separated by commas and/or newlines."""
    path = Path(path)
    _require_file(path, what, error)
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise error(
            f"{what} file {str(path)!r} is not a text file; a .csv holds numbers separated by commas"
        ) from None
    values = []
    for k, token in enumerate(t for t in text.replace("\n", ",").split(",") if t.strip()):
        try:
            values.append(float(token))
        except ValueError:
            raise error(
                f"{what} file {str(path)!r}: entry {k} is {token.strip()!r}, not a number; a .csv holds numbers "
                "separated by commas or newlines"
            ) from None
    if not values:
        raise error(f"{what} file {str(path)!r} holds no numbers")
    return np.asarray(values, dtype=float)


def read_json_numbers(
    path: str | Path, what: str, key: str, error: type[InvalidInputError] = InvalidInputError
) -> np.ndarray:
    """A list of numbers, or an object whose ``key`` holds one."""
    path = Path(path)
    _require_file(path, what, error)
    try:
        obj = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise error(f"{what} file {str(path)!r} is not valid JSON ({exc})") from None
    if isinstance(obj, dict):
        if key not in obj:
            raise error(
                f"{what} file {str(path)!r} is a JSON object without the key {key!r}; got keys {sorted(obj)}"
            )
        obj = obj[key]
    try:
        arr = np.asarray(obj, dtype=float)
    except (TypeError, ValueError):
        raise error(f"{what} file {str(path)!r}: expected a (nested) list of numbers under {key!r}") from None
    if arr.size == 0:
        raise error(f"{what} file {str(path)!r} holds no numbers")
    return arr
