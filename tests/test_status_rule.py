"""The one status rule (:func:`problems.lp.status.decide_status`) and that it is the only place deciding.

The rule's numbers are checked against hand-computed gaps; the "one place" test reads the source with ``ast``.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from problems.lp.status import (
    ABSOLUTE_GAP,
    RELATIVE_GAP,
    Status,
    bounds_agree,
    decide_status,
    refined,
)

ROOT = Path(__file__).resolve().parents[1]


def test_the_tolerances_are_the_documented_ones():
    assert RELATIVE_GAP == 1e-6 and ABSOLUTE_GAP == 1e-12


@pytest.mark.parametrize(
    ("lower", "upper", "expected"),
    [
        (1.0, 1.0 + 9e-7, Status.OPTIMAL),  # relative 9e-7 ≤ 1e-6
        (1.0, 1.0 + 2e-6, Status.INACCURATE),  # relative 2e-6 > 1e-6
        (1e6, 1e6 + 0.5, Status.OPTIMAL),  # 0.5 ≤ 1e-6 · 1e6 = 1
        (1e6, 1e6 + 2.0, Status.INACCURATE),
        (-1.0 - 5e-7, -1.0, Status.OPTIMAL),  # relative to the larger |bound|
        (0.0, 0.0, Status.OPTIMAL),  # exact zero
        (1.77e-17, 3.04e-15, Status.OPTIMAL),  # near zero: absolute 3e-15 ≤ 1e-12 (relative fails by far)
        (0.0, 9e-13, Status.OPTIMAL),
        (0.0, 2e-12, Status.INACCURATE),  # above the absolute tolerance and relatively wide
        (1e-9, 1e-9 + 1e-13, Status.OPTIMAL),  # absolute 1e-13, although 1e-4 relative
        (0.0, math.inf, Status.INACCURATE),
        (-math.inf, math.inf, Status.INACCURATE),
        (math.nan, 1.0, Status.INACCURATE),
        (1.0, math.nan, Status.INACCURATE),
        (math.nan, math.nan, Status.INACCURATE),
    ],
)
def test_the_rule_on_bounds(lower, upper, expected):
    assert decide_status(lower, upper) is expected
    assert bounds_agree(lower, upper) is (expected is Status.OPTIMAL)


def test_a_point_not_proved_feasible_is_never_optimal():
    for lo, up in [(1.0, 1.0), (0.0, 0.0), (0.0, 1e-13), (2.0, 2.0 + 1e-9)]:
        assert decide_status(lo, up, feasible=False) is Status.INACCURATE


def test_infeasible_only_with_a_proof_and_failed_without_a_point():
    assert decide_status(math.nan, math.nan, infeasible_proof="Lemma 3") is Status.INFEASIBLE
    assert decide_status(0.0, math.inf, infeasible_proof=None) is Status.INACCURATE
    assert decide_status(0.0, math.inf, infeasible_proof="") is Status.INACCURATE
    assert decide_status(0.0, math.inf, answered=False) is Status.FAILED
    assert decide_status(1.0, 1.0, answered=False) is Status.FAILED


def test_the_rule_covers_its_own_rounding():
    # a gap of exactly the absolute tolerance is at the edge: the safety factor 1 + 4u puts it just outside
    assert not bounds_agree(0.0, ABSOLUTE_GAP)
    assert bounds_agree(0.0, ABSOLUTE_GAP * (1 - 1e-12))


def test_refinement_is_stricter_than_the_status_near_zero():
    # the solvers keep working for relative agreement; the status accepts the absolute tolerance
    assert decide_status(0.0, 1e-13) is Status.OPTIMAL and not refined(0.0, 1e-13)
    assert refined(1.0, 1.0 + 1e-7) and refined(0.0, 1e-250) and not refined(0.0, math.inf)


def test_the_relative_tolerance_can_be_set():
    assert decide_status(1.0, 1.001, rtol=1e-2) is Status.OPTIMAL
    assert decide_status(1.0, 1.001) is Status.INACCURATE


# ----------------------------------------------------------------------------------------- one place
RULE_MODULE = ROOT / "problems" / "lp" / "status.py"
#: ``Status(x)`` calls that coerce the toolkit's own four words (raising on any other word).
COERCIONS = {ROOT / "problems" / "result.py"}
DECIDING = {"OPTIMAL", "INACCURATE"}


def _offences(source: str, name: str, *, coercion_allowed: bool = False) -> list[str]:
    """``Status.OPTIMAL`` / ``Status.INACCURATE`` used other than in a comparison, and ``Status(...)`` calls."""
    tree = ast.parse(source, filename=name)
    compared: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            compared.update(id(side) for side in [node.left, *node.comparators])
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in DECIDING
            and isinstance(node.value, ast.Name)
            and node.value.id == "Status"
            and id(node) not in compared
        ):
            out.append(f"{name}:{node.lineno}: Status.{node.attr} produced")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "Status"
            and not coercion_allowed
        ):
            out.append(f"{name}:{node.lineno}: Status(...) on a word")
    return out


def test_only_the_rule_produces_optimal_or_inaccurate():
    files = sorted((ROOT / "problems").rglob("*.py")) + sorted((ROOT / "ipopt_models").rglob("*.py"))
    assert len(files) > 50
    offences = [
        o
        for f in files
        if f != RULE_MODULE
        for o in _offences(
            f.read_text(encoding="utf-8"), str(f.relative_to(ROOT)), coercion_allowed=f in COERCIONS
        )
    ]
    assert offences == [], "\n".join(offences)


def test_the_offence_finder_finds_offences():
    src = "s = Status.OPTIMAL if ok else Status.INACCURATE\nt = Status(str(word))\nu = s is Status.OPTIMAL\n"
    found = _offences(src, "m.py")
    assert len(found) == 3, found  # two produced and one call; the comparison is allowed


def test_a_near_zero_optimum_is_certified_by_the_absolute_tolerance(capsys):
    """PD-I at ε = 40 on a contagious prior: the optimum is ~1e-16 rows, certified (exit 0; before the absolute
    tolerance and the joint-scaled columns: exit 3 with bounds [1.8e-17, 3.0e-15])."""
    import json

    from problems.cli import main

    argv = ["solve", "pd-i", "--n", "30", "--m", "2", "--prior", "contagious:0.2:0.3,0.7", "--eps", "40"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lo, up = out["bounds"]["lower"], out["bounds"]["upper"]
    assert out["status"] == "optimal" and 0.0 <= lo <= up <= 1e-12
    # (since the joint-scaled columns these bounds also meet the relative rule; the rule's absolute
    # tolerance alone is tested on bounds above)
