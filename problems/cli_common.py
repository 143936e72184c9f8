"""Options, output and exit codes shared by ``python -m problems`` and ``python -m ipopt_models``.

Importing this module is cheap (no NumPy, no solver): the command lines validate their input with it before
the numerical modules are loaded, so a bad input is refused in well under a second.

* **Options.** ``--n``/``--m`` (database size), ``--prior``, ``--unit {nats,bits}`` (``--bits`` is an alias of
  ``--unit bits``), ``--json``, ``--solver``, ``--export``, ``--seed``, ``--version``.  Numbers are checked by
  the argument types here (:func:`positive_int`, :func:`finite_float`, …): a bad value ends with exit code 2 and a
  message naming the value and what is valid.
* **Units.** Inputs (ε, capacities, D) are always nats; ``--unit`` changes the output only.  Every result
  object printed with ``--json`` carries ``"unit"``.
* **JSON.** :func:`dumps` is the one emitter: indentation :data:`JSON_INDENT`, non-finite numbers written as
  ``null`` and listed in ``"non_finite"`` (field path and the value as text: ``"inf"``, ``"-inf"``, ``"nan"``).
* **Exit codes** (``problems.lp.status.EXIT_CODES``): 0 certified, 1 proved infeasible, 2 bad input,
  3 not certified, 4 too large, 5 internal error.  :func:`run` maps the toolkit's exceptions to them and prints
  ``error: <message>`` on stderr — never a traceback for an error the toolkit raises on purpose; any other
  exception is a bug: one line naming it and the command line, exit 5, its traceback only with ``--debug``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from .errors import (
    InfeasibleProgramError,
    InvalidInputError,
    PrivacyToolkitError,
    ProblemTooLargeError,
)
from .lp.status import EXIT_CODES

__all__ = [
    "JSON_INDENT",
    "PRIOR_HELP",
    "PRIOR_HELP_SYMMETRIC",
    "EXIT_CODES",
    "add_version",
    "add_space_options",
    "add_unit_option",
    "add_json_option",
    "add_solver_option",
    "add_export_option",
    "add_seed_option",
    "Parser",
    "UsageError",
    "parse_args",
    "privacy_level",
    "distortion_level",
    "positive_float",
    "positive_int",
    "nonnegative_int",
    "finite_float",
    "resolve_unit",
    "check_solver_name",
    "LP_SOLVERS",
    "reject_option",
    "reject_options",
    "reject_unknown_keys",
    "json_ready",
    "dumps",
    "print_json",
    "check_output_file",
    "check_output_dir",
    "plain",
    "run",
    "version_text",
]

#: Indentation of every JSON document the command lines print.
JSON_INDENT = 2
PRIOR_HELP = (
    "uniform | iid:P0,P1,… | pmf:P0,…,P(N-1) | file:PATH(.npy/.csv/.json) | contagious:W[:P0,P1,…]; "
    "fractions such as 1/3 are accepted; a pmf whose sum is off by less than 1e-6 is renormalised (with a "
    "warning)"
)
#: The prior help of the commands that take symmetric priors on the reduced path (solve, constants, curve).
PRIOR_HELP_SYMMETRIC = (
    "uniform | iid:P0,P1,… | contagious:W[:P0,P1,…] | mixture:W0,W1/P00,P01,…/P10,P11,… (a mixture of i.i.d. "
    "rows; reduced path; ';' may separate its parts, and must where a number is a fraction) | pmf:P0,…,P(N-1) | "
    "file:PATH(.npy/.csv/.json); fractions such as 1/3 are accepted; "
    "a pmf whose sum is off by less than 1e-6 is renormalised (with a warning); an empty item (a trailing "
    "comma) is bad input"
)


def version_text(prog: str) -> str:
    from . import __version__

    return f"{prog} (privacy-problems) {__version__}"


def add_version(parser: argparse.ArgumentParser, prog: str) -> None:
    parser.add_argument("--version", action="version", version=version_text(prog))


class UsageError(InvalidInputError):
    """A command-line argument argparse refused (unknown option, bad number, missing value)."""


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose errors are :class:`UsageError` (exit code 2 through :func:`main`)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


#: Anywhere on a command line: an internal error (exit 5) also prints its traceback.
DEBUG_FLAG = "--debug"


def parse_args(parser: argparse.ArgumentParser, argv) -> argparse.Namespace | int:  # noqa: ANN001
    """``parser.parse_args(argv)``, or exit code 2 after ``error: …`` on stderr.

    :data:`DEBUG_FLAG` is accepted anywhere and sets ``args.debug``; ``args.argv`` keeps the command line for the
    message of an internal error (:func:`run`).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = DEBUG_FLAG in argv
    rest = [a for a in argv if a != DEBUG_FLAG]
    try:
        args = parser.parse_args(rest)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES["bad-input"]
    args.debug = debug
    args.argv = rest
    return args


# ---------------------------------------------------------------------------------------------- argument types
def plain(x: Any) -> str:
    """A number as plain text: ``nan``, ``inf``, ``0.3`` — never ``np.float64(nan)``."""
    try:
        import numbers

        if isinstance(x, bool):
            return str(x)
        if isinstance(x, numbers.Integral):
            return str(int(x))
        if isinstance(x, numbers.Real):
            return repr(float(x))
    except (TypeError, ValueError):  # pragma: no cover
        pass
    return repr(x)


def _number(text: str, what: str, valid: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"{what} must be {valid}, got {text!r}") from None
    return value


def positive_int(text: str) -> int:
    """An integer ≥ 1 (argparse type)."""
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"must be an integer ≥ 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer ≥ 1, got {value}")
    return value


def nonnegative_int(text: str) -> int:
    """An integer ≥ 0 (argparse type)."""
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"must be an integer ≥ 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer ≥ 0, got {value}")
    return value


def finite_float(text: str) -> float:
    """A finite real number (argparse type): ``nan`` and ``inf`` are refused."""
    value = _number(text, "the value", "a finite number")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def privacy_level(text: str) -> float:
    """A privacy level ε: a finite number ≥ 0, in nats (argparse type)."""
    value = _number(text, "ε", "a finite number ≥ 0 (nats)")
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"ε must be a finite number ≥ 0 (nats), got {text!r}")
    return value


def distortion_level(text: str) -> float:
    """A distortion bound D: a finite number ≥ 0 (argparse type; the upper end n is checked by the command)."""
    value = _number(text, "D", "a finite number in [0, n]")
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"D must be a finite number in [0, n], got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (argparse type)."""
    value = _number(text, "the value", "a finite number > 0")
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value


# ---------------------------------------------------------------------------------------------------- options
def add_space_options(
    p: argparse.ArgumentParser,
    *,
    required: bool = True,
    default_n: int | None = None,
    default_m: int | None = None,
    short: bool = False,
    prior: bool = True,
    prior_help: str = PRIOR_HELP,
) -> None:
    """``--n``, ``--m`` (``-n``/``-m`` too when ``short``) and ``--prior``."""
    n_flags = ("--n", "-n") if short else ("--n",)
    m_flags = ("--m", "-m") if short else ("--m",)
    p.add_argument(
        *n_flags,
        dest="n",
        type=positive_int,
        required=required and default_n is None,
        default=default_n,
        help="number of rows (individuals), ≥ 1",
    )
    p.add_argument(
        *m_flags,
        dest="m",
        type=positive_int,
        required=required and default_m is None,
        default=default_m,
        help="domain size of a row, ≥ 2",
    )
    if prior:
        p.add_argument("--prior", default="uniform", help=prior_help)


def add_unit_option(p: argparse.ArgumentParser, what: str = "information quantities") -> None:
    """``--unit {nats,bits}`` and its alias ``--bits``; ``args.unit`` is None when neither is given."""
    p.add_argument(
        "--unit",
        choices=("nats", "bits"),
        default=None,
        help=f"unit of the {what} on output (default nats); inputs are always nats",
    )
    p.add_argument("--bits", dest="unit", action="store_const", const="bits", help="alias of --unit bits")


def add_json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object (see docs/cli.md)")


def add_solver_option(p: argparse.ArgumentParser, help: str | None = None) -> None:
    p.add_argument(
        "--solver",
        help=help
        or "back end tried first (clarabel, highs, scs, cvxpy, structured, block); the others are tried if it "
        "fails. An unknown name is bad input (exit 2)",
    )


def add_export_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--export",
        help="write the mechanism to PATH (.npy, .csv or .json); the directory must exist and be writable "
        "(checked before solving)",
    )


def add_seed_option(p: argparse.ArgumentParser, default: int = 0) -> None:
    p.add_argument(
        "--seed", type=nonnegative_int, default=default, help=f"random seed, ≥ 0 (default {default})"
    )


#: The LP back ends and their other spellings (problems.solvers.backends.BACKENDS, ALIASES; a test keeps them equal),
#: so an unknown --solver is refused without importing the back ends.
LP_SOLVERS = (
    "clarabel",
    "clarabel-alt",
    "highs",
    "highs-scaled",
    "highs-mass",
    "scs",
    "cvxpy",
    "structured",
    "block",
)
LP_SOLVER_ALIASES = ("clarabel-direct", "structured-ipm", "block-ipm", "cvxpy-clarabel")


def check_solver_name(name: str | None) -> str | None:
    """Bad input for a name that is not an LP back end (the same message as problems.solvers.backends.backend)."""
    if name is None:
        return None
    if str(name).strip().lower() not in LP_SOLVERS + LP_SOLVER_ALIASES:
        raise InvalidInputError(f"unknown solver {name!r}; valid solvers are {', '.join(LP_SOLVERS)}")
    return name


def resolve_unit(args: argparse.Namespace) -> str:
    """The output unit of the command: ``args.unit`` or nats."""
    return getattr(args, "unit", None) or "nats"


def reject_option(option: str, given: bool, program: str, why: str = "") -> None:
    """Bad input when ``option`` was given but does not apply to ``program``."""
    if given:
        raise InvalidInputError(f"{option} does not apply to {program}{': ' + why if why else ''}")


def reject_options(program: str, checks: list[tuple[str, bool, str]]) -> None:
    """:func:`reject_option` for each ``(option, given, why)`` of ``checks``: the first one given is bad input."""
    for option, given, why in checks:
        reject_option(option, given, program, why)


def reject_unknown_keys(mapping: dict, valid, where: str) -> None:  # noqa: ANN001
    """Bad input naming every key of ``mapping`` (a TOML table) that is not in ``valid``.

    The sweep spec and the model spec are read with it, so a misspelt key is never silently ignored.
    """
    unknown = sorted(str(k) for k in set(mapping) - set(valid))
    if unknown:
        raise InvalidInputError(f"unknown key(s) {unknown} in {where}; valid keys: {sorted(valid)}")


# ---------------------------------------------------------------------------------------------------- JSON
def json_ready(obj: Any, non_finite: list[dict] | None = None, path: str = "") -> Any:
    """``obj`` with NumPy values turned into Python ones and non-finite floats into None.

    Each replaced number is recorded in ``non_finite`` as ``{"field": path, "value": "inf"}``.
    """
    if non_finite is None:
        non_finite = []
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return str(obj) if type(obj) not in (bool, str) and obj is not None else obj
    if isinstance(obj, float):
        if math.isfinite(obj):
            return float(obj)
        non_finite.append({"field": path or "(value)", "value": repr(float(obj))})
        return None
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, dict):
        return {str(k): json_ready(v, non_finite, f"{path}.{k}" if path else str(k)) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v, non_finite, f"{path}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, Path):
        return str(obj)
    if hasattr(obj, "tolist") and hasattr(obj, "dtype"):  # NumPy arrays and scalars
        return json_ready(obj.tolist(), non_finite, path)
    if hasattr(obj, "to_dict"):
        return json_ready(obj.to_dict(), non_finite, path)
    if isinstance(obj, (set, frozenset)):
        return json_ready(sorted(obj), non_finite, path)
    return str(obj)


def dumps(obj: Any, *, unit: str | None = None, indent: int | None = JSON_INDENT) -> str:
    """The JSON text of a result: ``unit`` added when missing, non-finite numbers null and listed.

    Strict JSON: never a ``NaN`` or ``Infinity`` token (``allow_nan=False``).  Every JSON file the toolkit
    writes (exports, model exports) goes through here too.
    """
    if isinstance(obj, dict) and unit is not None and "unit" not in obj:
        obj = {**obj, "unit": unit}
    non_finite: list[dict] = []
    data = json_ready(obj, non_finite)
    if non_finite and isinstance(data, dict):
        data["non_finite"] = non_finite
    return json.dumps(data, indent=indent, ensure_ascii=False, allow_nan=False)


def print_json(obj: Any, *, unit: str | None = None) -> None:
    print(dumps(obj, unit=unit))


# ------------------------------------------------------------------------------------------- output paths
def _probe_directory(directory: Path, what: str) -> None:
    try:
        fd, tmp = tempfile.mkstemp(prefix=".write-probe.", dir=directory)
    except OSError as exc:
        raise InvalidInputError(
            f"{what}: cannot write in directory {str(directory)!r} ({exc.strerror or exc})"
        ) from None
    os.close(fd)
    os.unlink(tmp)


def check_output_file(path: str | os.PathLike, *, suffixes: tuple[str, ...], what: str = "--export") -> Path:
    """Validate an output file path before any work: suffix, an existing writable directory, not a directory.

    Raises :class:`InvalidInputError` naming the path and what is valid.  Nothing is created.
    """
    p = Path(path)
    if not str(path).strip():
        raise InvalidInputError(
            f"{what}: the path is empty; give a file name ending in {', '.join(suffixes)}"
        )
    if p.suffix.lower() not in suffixes:
        raise InvalidInputError(f"{what} path must end in one of {', '.join(suffixes)}, got {p.name!r}")
    if p.is_dir():
        raise InvalidInputError(f"{what}: {str(p)!r} is a directory; give a file name such as {p / 'W.json'}")
    parent = p.parent
    ancestor = parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor.exists() and not ancestor.is_dir():
        raise InvalidInputError(
            f"{what}: {str(ancestor)!r} is a file, so {str(p)!r} cannot be created under it"
        )
    if not parent.exists():
        raise InvalidInputError(
            f"{what}: directory {str(parent)!r} does not exist; create it first (it is not created silently)"
        )
    _probe_directory(parent, what)
    return p


def check_output_dir(path: str | os.PathLike, *, what: str = "--out") -> tuple[Path, bool]:
    """Validate an output directory before any work; returns ``(path, exists)``.

    An existing file, an ancestor that is a file, or an unwritable location is bad input.  A missing
    directory is allowed (the caller creates it and says so).
    """
    p = Path(path)
    if not str(path).strip():
        raise InvalidInputError(f"{what}: the directory name is empty")
    if p.exists() and not p.is_dir():
        raise InvalidInputError(f"{what}: {str(p)!r} is an existing file; {what} takes a directory")
    ancestor = p
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise InvalidInputError(
            f"{what}: {str(ancestor)!r} is a file, so {str(p)!r} cannot be created under it"
        )
    _probe_directory(ancestor, what)
    return p, p.exists()


# ---------------------------------------------------------------------------------------------------- running
def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    print(f"warning: {message}", file=sys.stderr)


def run(func: Callable[[argparse.Namespace], int | None], args: argparse.Namespace) -> int:
    """Run a command handler; map the toolkit's exceptions to the exit codes, ``error: …`` on stderr."""
    previous = warnings.showwarning
    warnings.showwarning = _show_warning  # one plain line per warning, no source line
    try:
        return int(func(args) or 0)
    except InvalidInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES["bad-input"]
    except InfeasibleProgramError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES["infeasible"]
    except ProblemTooLargeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES["too-large"]
    except PrivacyToolkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES["failed"]
    except MemoryError:
        print(
            "error: out of memory; the problem is too large for this machine (see docs/cli.md, "
            "'Resource guards')",
            file=sys.stderr,
        )
        return EXIT_CODES["too-large"]
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of stdout went away (``… | head``): stop quietly, like a command killed by SIGPIPE
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())  # Python's exit flush must not raise again
        except (OSError, ValueError):
            pass
        return 128 + 13
    except Exception as exc:  # noqa: BLE001 - a bug: one line and exit 5, never exit 1 ("proved infeasible")
        if getattr(args, "debug", False):
            traceback.print_exc()
        line = " ".join(shlex.quote(a) for a in getattr(args, "argv", []))
        text = " ".join(str(exc).split())[:300]
        print(
            f"error: internal error ({type(exc).__name__}: {text}) running `{line}`; this is a bug in the "
            f"toolkit: please report it with this command line"
            + ("" if getattr(args, "debug", False) else f" (rerun with {DEBUG_FLAG} for the traceback)"),
            file=sys.stderr,
        )
        return EXIT_CODES["internal"]
    finally:
        warnings.showwarning = previous
