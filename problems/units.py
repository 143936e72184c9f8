"""Units of information.  The toolkit computes in nats (natural logarithms) and converts only on output."""

from __future__ import annotations

import math
from typing import Literal

__all__ = ["Unit", "LN2", "to_unit", "from_unit", "check_unit"]

Unit = Literal["nats", "bits"]
LN2 = math.log(2.0)


def check_unit(unit: str) -> Unit:
    """Return ``unit`` if it is ``"nats"`` or ``"bits"``; raise :class:`InvalidInputError` otherwise."""
    from .errors import InvalidInputError

    if unit not in ("nats", "bits"):
        raise InvalidInputError(f"unit must be 'nats' or 'bits', got {unit!r}")
    return unit  # type: ignore[return-value]


def to_unit(value_nats, unit: str = "nats"):
    """Convert a quantity in nats to ``unit`` (``"nats"`` or ``"bits"``); arrays are converted elementwise."""
    return value_nats / LN2 if check_unit(unit) == "bits" else value_nats


def from_unit(value, unit: str = "nats"):
    """Convert a quantity given in ``unit`` to nats."""
    return value * LN2 if check_unit(unit) == "bits" else value
