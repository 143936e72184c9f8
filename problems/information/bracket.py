"""Status and bounds of a capacity bracket ``lower ≤ C ≤ upper``, in the vocabulary of the LP results.

A capacity (or C₁) is certified when its bracket is at most 1e-6 wide relative to the upper end, the rule of
``docs/certificates.md``; a capacity of exactly 0 (both ends 0) is certified too.
"""

from __future__ import annotations

from ..lp import Bounds, Status, certified

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
        return certified(float(self.lower_bound), float(self.upper_bound))

    @property
    def status(self) -> Status:
        return Status.OPTIMAL if self.certified else Status.INACCURATE
