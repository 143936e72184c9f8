"""The sweep's memory estimate follows the solve choice: an i.i.d. point answered by the single-letter theorem is
tiny, the same point with ``method="lp"`` is the joint-type LP's size (C(n + 3, 3) variables at m = 2)."""

from math import comb

from problems.resources import BASE_MEMORY
from problems.sweep.grid import Point
from problems.sweep.jobs import estimate_bytes


def _point(method: str) -> Point:
    return Point(program="pd-dp", n=200, m=2, prior="iid:0.3,0.7", eps=1.0, method=method)


def test_theorem_point_is_small_and_lp_point_is_the_lp():
    assert estimate_bytes(_point("auto")) == BASE_MEMORY
    lp = estimate_bytes(_point("lp"))
    assert lp > BASE_MEMORY + 1000 * comb(203, 3)  # at least 1 kB per joint-type variable
