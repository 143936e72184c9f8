"""Status and bounds of a capacity bracket ``lower ≤ C ≤ upper``, in the vocabulary of the LP results.

The status is the one rule of the toolkit (:func:`problems.lp.status.decide_status`, ``docs/certificates.md``):
a capacity (or C₁) is certified when its bracket is at most 1e-6 wide relative to the larger end, or at most
1e-12 nats wide (a capacity at or near 0).
"""

from __future__ import annotations

from ..lp.bounds import Bounds
from ..lp.status import Status, decide_status
from ..units import to_unit

__all__ = ["BracketStatus"]


class BracketStatus:
    """Mixin for frozen results with ``lower_bound`` and ``upper_bound`` (nats)."""

    lower_bound: float
    upper_bound: float

    @property
    def bounds(self) -> Bounds:
        return Bounds(float(self.lower_bound), float(self.upper_bound))

    @property
    def certified(self) -> bool:
        return self.status.certified

    @property
    def status(self) -> Status:
        return decide_status(float(self.lower_bound), float(self.upper_bound))

    def bracket_dict(self, unit: str = "nats") -> dict:
        """The status and the bracket in ``unit``, as every ``to_dict`` of these results opens (``bounds`` and
        the flat ``lower_bound`` / ``upper_bound`` carry the same two numbers)."""
        lower, upper = float(to_unit(self.lower_bound, unit)), float(to_unit(self.upper_bound, unit))
        return {
            "status": str(self.status),
            "certified": self.certified,
            "bounds": {"lower": lower, "upper": upper},
            "lower_bound": lower,
            "upper_bound": upper,
        }
