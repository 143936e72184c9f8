"""The model's surface: bad input, routing, user constraints, unbounded neighbours, export and the CLI."""

from __future__ import annotations

import itertools
import json
import math
import sys
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest

from problems import DatabaseSpace
from problems.cli import main
from problems.errors import InvalidInputError, InvalidPriorError, InvalidPrivacyLevelError, ShapeMismatchError
from problems.model import MechanismModel, UnboundedSpace, export_model, is_feasible, losses, privacy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from reference.model_feasibility import all_pairs, hamming_pairs, violations  # noqa: E402


def _simple() -> MechanismModel:
    return MechanismModel([0.5, 0.5], losses.zero_one(2))


# ------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "prior,err,word",
    [([0.7, -0.1, 0.4], InvalidPriorError, "negative"), ([0.2, 0.2, 0.2], InvalidPriorError, "sums to")],
)
def test_bad_prior(prior, err, word):
    with pytest.raises(err, match=word):
        MechanismModel(prior, losses.zero_one(3))


def test_loss_shape_mismatch_names_the_shapes():
    with pytest.raises(ShapeMismatchError, match="3 rows"):
        MechanismModel([0.5, 0.5], np.ones((3, 2)))


def test_bad_levels_and_pairs():
    with pytest.raises(InvalidPrivacyLevelError, match="-1"):
        privacy.differential(-1.0)
    with pytest.raises(InvalidInputError, match="delta"):
        privacy.approximate(1.0, 1.5)
    with pytest.raises(InvalidInputError, match=r"\[0, 5\]"):
        _simple().add(privacy.differential(1.0, neighbours=[[0, 5]]))
    with pytest.raises(ShapeMismatchError):
        _simple().add(privacy.differential(1.0, neighbours=[0, 1, 2]))
    with pytest.raises(InvalidInputError, match="mutual_information"):
        _simple().add(privacy.mutual_information())
    with pytest.raises(InvalidInputError, match="method=.lp. needs a ratio LP"):
        _simple().add(privacy.approximate(1.0, 0.1)).solve(method="lp")


# ------------------------------------------------------------------------------------------------ routing
def test_paths_are_reported():
    assert _simple().add(privacy.local(1.0)).solve().path == "lp-core"
    assert _simple().add(privacy.local(1.0)).solve(solver="cvxpy").path == "cvxpy-lp"
    assert _simple().add(privacy.approximate(1.0, 0.05)).solve().path == "cvxpy-lp"
    assert _simple().add(privacy.mutual_information(at_most=0.1)).solve().path == "cvxpy-conic"


def test_lp_core_and_cvxpy_agree_on_identifiability():
    p = np.array([0.1, 0.2, 0.3, 0.4])
    space = DatabaseSpace(2, 2)
    model = MechanismModel(p, losses.hamming(space)).add(privacy.identifiability(1.5, neighbours=space))
    a, b = model.solve(), model.solve(solver="cvxpy")
    assert a.certified and b.certified
    assert abs(a.value - b.value) <= 1e-8 * a.value
    assert b.bounds.lower <= a.bounds.upper and a.bounds.lower <= b.bounds.upper


def test_minimise_mutual_information_under_a_loss_cap():
    model = _simple().add(privacy.expected_loss(at_most=0.2)).minimise(privacy.mutual_information())
    res = model.solve()
    hb = -0.2 * math.log(0.2) - 0.8 * math.log(0.8)
    assert res.certified and res.unit == "nats"
    assert abs(res.value - (math.log(2) - hb)) <= 1e-8


# ------------------------------------------------------------------------------------------------ user constraints
def test_user_constraints_are_listed_as_unchecked():
    model = MechanismModel(np.full(3, 1 / 3), losses.zero_one(3)).add(privacy.local(1.0))
    model.add_constraint(model.W[0, 0] <= 0.4, name="cap on W[0,0]")
    res = model.solve()
    assert res.path == "cvxpy-lp"
    assert [u["name"] for u in res.unchecked] == ["cap on W[0,0]"]
    assert "not proved" in res.extras["note"]
    assert res.matrix[0, 0] <= 0.4 + 1e-9
    assert res.value >= 2 / (math.e + 2) - 1e-9  # at least the unconstrained k-ary RR error
    assert res.bounds.lower <= res.value <= res.bounds.upper
    assert isinstance(model.problem, cp.Problem) and model.W.shape == (3, 3)


# ------------------------------------------------------------------------------------------------ neighbours
def test_unbounded_space_pairs():
    u = UnboundedSpace(2, 2)
    assert u.size == 7 and u.labels[0] == "∅"
    i, j = u.neighbour_pairs
    pairs = set(zip(i.tolist(), j.tolist()))
    assert (0, 1) in pairs and (1, 0) in pairs and (1, 3) in pairs and (0, 3) not in pairs
    assert all(abs(int(u.sizes[a]) - int(u.sizes[b])) == 1 for a, b in pairs)
    # size 1: 2 pairs; size 2: "0,0" and "1,1" one each, "0,1" and "1,0" two each
    assert len(pairs) == 2 * (2 + 6)


def test_new_question_unbounded_approximate_dp_with_mi_cap():
    u = UnboundedSpace(2, 2)
    model = MechanismModel(np.full(u.size, 1 / u.size), losses.zero_one(u.size), input_labels=u.labels)
    model.add(privacy.approximate(1.0, 0.05, neighbours=u)).add(privacy.mutual_information(at_most=0.3))
    res = model.solve()
    assert res.certified and res.path == "cvxpy-conic"
    assert all(v <= 1e-12 for v in res.violations.values())
    loose = MechanismModel(np.full(u.size, 1 / u.size), losses.zero_one(u.size))
    loose.add(privacy.approximate(1.0, 0.05, neighbours=u))
    assert loose.solve().value <= res.value + 1e-9  # the cap can only cost


# ------------------------------------------------------------------------------------------------ export
def test_export_and_independent_feasibility(tmp_path):
    space = DatabaseSpace(2, 2)
    model = MechanismModel(np.full(4, 0.25), losses.hamming(space)).add(
        privacy.approximate(0.5, 0.1, neighbours=space)
    )
    model.add(privacy.expected_loss(at_most=1.0))
    res = model.solve()
    out = export_model(res, tmp_path / "mech.json")
    obj = json.loads(out.read_text())
    assert obj["result"]["status"] == "optimal" and obj["model"]["constraints"][0]["kind"] == "approximate"
    rep = is_feasible(np.array(obj["matrix"]), out, tol=1e-9)
    assert rep.feasible and set(rep.violations) >= {"rows", "0:approximate", "1:expected_loss"}
    bad = np.eye(4)  # identity release violates (0.5, 0.1)-DP
    rep = is_feasible(bad, model.to_json())
    assert not rep.feasible and rep.worst[0] == "0:approximate"
    assert math.isclose(rep["0:approximate"], 1.0 - 0.1)


# ------------------------------------------------------------------------------------------------ CLI
SPEC = """
name = "cli-test"
prior = "uniform"
loss = "zero_one"
[neighbours]
kind = "unbounded"
n = 1
m = 2
[[constraint]]
kind = "approximate"
eps = 1.0
delta = 0.05
"""


def test_cli_exit_codes(tmp_path, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    assert main(["model", str(spec), "--json", "--export", str(tmp_path / "w.json")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and out["certified"] and out["path"] == "cvxpy-lp"
    assert (tmp_path / "w.json").exists()
    spec.write_text(SPEC.replace("delta = 0.05", "delta = 2.0"))
    assert main(["model", str(spec)]) == 2
    assert "delta" in capsys.readouterr().err
    spec.write_text(
        'prior = [0.9, 0.1]\nloss = "zero_one"\n[[constraint]]\nkind = "identifiability"\neps = 1.0\n'
    )
    assert main(["model", str(spec), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["status"] == "infeasible"
    assert main(["model", str(tmp_path / "missing.toml")]) == 2


# ------------------------------------------------------------------------------------------------ edge cases
def test_level_zero_is_the_best_constant_per_component():
    from problems import PDDP, priors

    space = DatabaseSpace(2, 2)
    prior = priors.from_pmf(space, [0.1, 0.2, 0.3, 0.4])
    res = (
        MechanismModel(prior, losses.hamming(space))
        .add(privacy.differential(0.0, neighbours=space))
        .solve(method="lp")  # PD-DP itself: the model's own closed form, not the program class
    )
    assert res.certified and res.path == "lp-core" and "level 0" in res.extras["theorem"]
    assert abs(res.value - PDDP(prior).solve(0.0).value) <= 1e-12
    # two components {0, 1} and {2}: each gets its own best constant row
    res = MechanismModel(np.full(3, 1 / 3), losses.zero_one(3)).add(
        privacy.differential(0.0, neighbours=[[0, 1]])
    )
    out = res.solve()
    assert out.certified and abs(out.value - 1 / 3) <= 1e-12


def test_zero_information_cap_and_zero_rate():
    L = losses.absolute([0, 1, 2])
    res = MechanismModel(np.full(3, 1 / 3), L).add(privacy.mutual_information(at_most=0.0)).solve()
    assert res.certified and abs(res.value - 2 / 3) <= 1e-12
    res = MechanismModel(np.full(3, 1 / 3), L).add(privacy.expected_loss(at_most=5.0))
    res = res.minimise(privacy.mutual_information()).solve()
    assert res.certified and res.value == 0.0 and res.bounds.upper == 0.0


def test_negative_losses_go_through_cvxpy():
    res = MechanismModel([0.5, 0.5], -np.eye(2)).add(privacy.local(1.0)).solve()
    assert res.path == "cvxpy-lp" and res.certified
    assert abs(res.value + math.e / (1 + math.e)) <= 1e-9


def test_a_loss_cap_below_the_private_optimum_is_proved_infeasible():
    from problems.errors import InfeasibleProgramError

    model = _simple().add(privacy.local(1.0)).add(privacy.expected_loss(at_most=0.2))  # RR needs 1/(1+e)
    with pytest.raises(InfeasibleProgramError, match="proved bound"):
        model.solve()


def test_named_solver_and_unknown_solver():
    res = _simple().add(privacy.approximate(1.0, 0.1)).solve(solver="SCS")
    assert res.stats.solver == "SCS" and res.bounds.lower <= (1 - 0.1) / (1 + math.e) <= res.bounds.upper
    with pytest.raises(InvalidInputError, match="nosuch"):
        _simple().add(privacy.approximate(1.0, 0.1)).solve(solver="nosuch")


def test_every_kind_round_trips_through_json():
    space = DatabaseSpace(2, 2)
    p = np.array([0.2, 0.3, 0.25, 0.25])
    D = np.array([[0, 1, 2, np.inf]] * 4, dtype=float)
    model = MechanismModel(p, losses.hamming(space))
    model.add(privacy.differential(2.0, neighbours=space)).add(privacy.local(3.0)).add(
        privacy.metric(2.5, distance=D)
    )
    model.add(privacy.identifiability(2.0, neighbours=space)).add(
        privacy.approximate(1.0, 0.1, neighbours=space)
    )
    model.add(privacy.mutual_information(at_most=0.5)).add(
        privacy.individual_capacity(at_most=0.4, shape=(2, 2))
    )
    model.add(privacy.expected_loss(at_most=1.5))
    res = model.solve()
    assert res.path == "cvxpy-conic" and res.bounds.lower <= res.value <= res.bounds.upper
    rep = is_feasible(res.matrix, json.loads(model.to_json()))
    assert rep.feasible and len(rep.violations) == 2 + 8
    assert rep.violations == pytest.approx(res.violations, abs=1e-12)  # the export round trip
    # the mechanism is feasible by an independent check written from the definitions
    rows = list(itertools.product(range(2), repeat=2))
    L = np.array([[sum(a != b for a, b in zip(x, y)) for y in rows] for x in rows], dtype=float)
    H = hamming_pairs(2, 2)
    specs = [
        ("dp", 2.0, H),
        ("dp", 3.0, all_pairs(4)),
        ("metric", 2.5, D),
        ("identifiability", 2.0, H),
        ("approx", 1.0, 0.1, H),
        ("mi", 0.5),
        ("c1", 0.4, 2, 2),
        ("loss", 1.5),
    ]
    found = violations(res.matrix, p, L, specs)
    assert max(found.values()) <= 1e-9, found
