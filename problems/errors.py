"""Exception hierarchy of the toolkit.

Every error raised on purpose by :mod:`problems` derives from :class:`PrivacyToolkitError`, so callers can
catch the toolkit's errors in one clause.  Errors about bad input also derive from :class:`ValueError`,
errors about impossible programs from :class:`ArithmeticError`-free plain exceptions, so that code written
against the standard library keeps working.

Hierarchy::

    PrivacyToolkitError
    ├── InvalidInputError (ValueError)
    │   ├── InvalidPriorError          prior not a pmf, wrong shape, zero mass where full support is needed
    │   ├── InvalidPrivacyLevelError   ε < 0, NaN, infinite where finite is required
    │   ├── InvalidDistortionError     D outside [0, n] or NaN
    │   ├── ShapeMismatchError         arrays whose shapes do not fit together
    │   ├── InvalidMechanismError      matrix not row-stochastic
    │   └── InvalidChannelError        channel array not a conditional pmf
    ├── ProblemTooLargeError           the dense path would need too much memory or time
    ├── InfeasibleProgramError         the program has no feasible point; ``reason`` says why
    └── SolverFailedError              every solver tried failed; ``attempts`` lists them
"""

from __future__ import annotations

import re

__all__ = [
    "PrivacyToolkitError",
    "InvalidInputError",
    "InvalidPriorError",
    "InvalidPrivacyLevelError",
    "InvalidDistortionError",
    "ShapeMismatchError",
    "InvalidMechanismError",
    "InvalidChannelError",
    "ProblemTooLargeError",
    "InfeasibleProgramError",
    "SolverFailedError",
]


_NUMPY_REPR = re.compile(r"np\.(?:float|int|uint|bool|complex|str)_?\d*\(([^()]*)\)")


class PrivacyToolkitError(Exception):
    """Base class of every error the toolkit raises on purpose.

    Its text shows numbers plainly: a NumPy scalar's ``repr`` (``np.float64(nan)``) becomes ``nan``.
    """

    def __str__(self) -> str:
        return _NUMPY_REPR.sub(r"\1", super().__str__())


class InvalidInputError(PrivacyToolkitError, ValueError):
    """An argument has a value the toolkit cannot accept; the message names it and what is valid."""


class InvalidPriorError(InvalidInputError):
    """A prior is not a probability mass function of the right shape (or lacks needed support)."""


class InvalidPrivacyLevelError(InvalidInputError):
    """A privacy level ε is negative, NaN, or infinite where a finite value is required."""


class InvalidDistortionError(InvalidInputError):
    """A distortion bound D lies outside the meaningful range [0, n] (or is NaN)."""


class ShapeMismatchError(InvalidInputError):
    """Arrays whose shapes do not fit together (for example a prior and a database space)."""


class InvalidMechanismError(InvalidInputError):
    """A mechanism matrix is not row-stochastic (non-negative rows summing to one)."""


class InvalidChannelError(InvalidInputError):
    """A channel array is not a conditional pmf over its last axis."""


class ProblemTooLargeError(PrivacyToolkitError):
    """The dense formulation would exceed the stated size limit; the message says what is allowed."""

    def __init__(self, message: str, *, size: int | None = None, limit: int | None = None) -> None:
        super().__init__(message)
        self.size = size
        self.limit = limit


class InfeasibleProgramError(PrivacyToolkitError):
    """The program has no feasible point.

    Attributes
    ----------
    program:
        Short name of the program (``"pd-i"``, ...).
    reason:
        A sentence saying why, in words (for example ``"ε = 0.1 < ε_X = 0.693"``).
    """

    def __init__(self, program: str, reason: str) -> None:
        super().__init__(f"{program} is infeasible: {reason}")
        self.program = program
        self.reason = reason


class SolverFailedError(PrivacyToolkitError):
    """Every solver that was tried failed or returned an unusable status.

    ``attempts`` is a list of ``(solver name, status or exception text)`` pairs, in the order tried.
    """

    def __init__(self, program: str, attempts: list[tuple[str, str]]) -> None:
        tried = "; ".join(f"{name}: {what}" for name, what in attempts) or "no solver was available"
        super().__init__(f"{program}: no solver produced an optimal solution ({tried})")
        self.program = program
        self.attempts = attempts
