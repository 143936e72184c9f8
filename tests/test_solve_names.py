"""The solve-choice names left over: the reduced programs' ``backend=`` (now ``solver=``), the model's
``solve(path=)`` (now ``formulation=``/``method=``/``solver=``) and the sweep's ``path`` field (now
``formulation`` and ``method``): the old keywords warn and give the same answers as the new ones.

The values are checked against closed forms (h(ε) of Wang, Ying & Zhang (2016)) where one exists; the
comparisons old-keyword / new-keyword are what a deprecation promises (the same computation).
"""

from __future__ import annotations

import hashlib
import json
import math

import numpy as np
import pytest

from problems.database import DatabaseSpace
from problems.errors import InvalidInputError
from problems.orbit import ReducedPDDP, ReducedRPD, symmetric_iid


def _h(eps: float, n: int, m: int) -> float:
    """h(ε) = n / (1 + e^ε/(m−1)): R-PD's optimum (Wang, Ying & Zhang 2016, Lemma 1)."""
    return n / (1.0 + math.exp(eps) / (m - 1))


# ------------------------------------------------------------------------------ reduced programs: backend=
def test_reduced_backend_keyword_warns_and_names_the_first_solver():
    prior = symmetric_iid(4, [0.2, 0.3, 0.5])
    with pytest.warns(DeprecationWarning, match=r"backend='block'.*solver="):
        old = ReducedPDDP(prior, backend="block")
    new = ReducedPDDP(prior, solver="block")
    a, b = old.solve(0.7, method="lp"), new.solve(0.7, method="lp")
    assert a.stats.attempts[0][0] == b.stats.attempts[0][0] == "BLOCK"
    assert a.value == b.value and a.bounds == b.bounds and a.status == b.status == "optimal"


def test_reduced_backend_keyword_still_checked():
    with pytest.raises(InvalidInputError, match="'nope'"):
        ReducedPDDP(symmetric_iid(3, [0.4, 0.6]), backend="nope")


def test_reduced_rpd_solver_and_old_backend_agree_with_h():
    space = DatabaseSpace(5, 3)
    with pytest.warns(DeprecationWarning, match="backend="):
        old = ReducedRPD(space, backend="cvxpy").solve(1.3, method="lp")
    new = ReducedRPD(space, solver="cvxpy").solve(1.3, method="lp")
    assert old.value == new.value
    assert new.bounds.lower <= _h(1.3, 5, 3) * (1 + 1e-9) and new.bounds.upper >= _h(1.3, 5, 3) * (1 - 1e-9)


def test_reduced_lp_prefer_and_old_backend():
    prog = ReducedPDDP(symmetric_iid(3, [0.2, 0.3, 0.5]))
    with pytest.warns(DeprecationWarning, match="prefer="):
        a = prog.lp.solve(0.9, backend="clarabel")
    b = prog.lp.solve(0.9, prefer="clarabel")
    assert a.value == b.value and a.bounds == b.bounds
    with pytest.raises(InvalidInputError, match="prefer must be one of"):
        prog.lp.solve(0.9, prefer="scs")
    with pytest.raises(InvalidInputError, match="prefer must be one of"):
        prog.lp.solve(0.9, prefer=("highs", "scs"))


# ------------------------------------------------------------------------------------ the sweep's path field
#: Keys computed by the sweep before ``path`` was renamed (version "1.0"): a cache of finished points is keyed by them.
OLD_KEYS = [
    (
        dict(program="pd-dp", n=3, m=2, prior="iid:0.3,0.7", eps=1.0),
        "auto",
        ("f4c030f2ad41e8aef9caa3897949f39a585b9aadbd4e097490b2bb62a7abe771"),
    ),
    (
        dict(program="pd-i", n=4, m=2, prior="uniform", eps=2.0),
        "lp",
        ("16a9cd9dc71fba320dc34014239815915691e985abc2a18b550865157f64ff6b"),
    ),
    (
        dict(program="pd-dp", n=3, m=2, prior="iid:0.3,0.7", eps=1.0, solver="highs"),
        "dense",
        ("e5653af4297a5cf7562469357b5422e9749706f6bdbe177142a997b003e8434a"),
    ),
    (
        dict(program="eps-d", n=6, m=2, prior="iid:0.3,0.7", distortion=1.5),
        "reduced",
        ("4ba34de919cc40817fcecf2eb0c79fa873ec614c337057e6a58f8b3aa5016b7e"),
    ),
    (
        dict(program="pd-i", n=3, m=2, prior="iid:0.3,0.7", eps=2.0),
        "theorem",
        ("6f85303d8b82609e09affdde375ecc4d193721bea7313ae251eae6f5ca257200"),
    ),
]


def _old_key(fields: dict, path: str) -> str:
    """The key as the sweep computed it with the field ``path``: SHA-256 of the sorted JSON of every field."""
    from problems.sweep.grid import canonical_prior

    d = {"eps": None, "distortion": None, "solver": None, **fields, "path": path, "version": "1.0"}
    d["prior"] = canonical_prior(d["prior"])
    text = json.dumps(d, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize(("fields", "path", "key"), OLD_KEYS)
def test_sweep_keys_unchanged_by_the_rename(fields, path, key):
    from problems.solve_choice import split_path
    from problems.sweep.grid import Point

    formulation, method = split_path(path)
    new = Point(**fields, formulation=formulation, method=method, version="1.0")
    assert new.key == key == _old_key(fields, path)
    with pytest.warns(DeprecationWarning, match="path="):
        old = Point(**fields, path=path, version="1.0")
    assert old == new and old.key == key


def test_sweep_new_choices_get_new_keys():
    from problems.sweep.grid import Point

    base = dict(program="pd-dp", n=3, m=2, prior="iid:0.3,0.7", eps=1.0, version="1.0")
    both = Point(**base, formulation="dense", method="lp")
    assert both.spec()["formulation"] == "dense" and "path" not in both.spec()
    keys = {
        Point(**base, formulation=f, method=m).key
        for f in ("auto", "dense", "reduced")
        for m in ("auto", "lp")
    }
    assert len(keys) == 6


def test_sweep_spec_path_key_and_bad_choices():
    from problems.sweep.grid import Point, SweepSpec

    with pytest.warns(DeprecationWarning, match="path='lp'"):
        spec = SweepSpec.from_mapping({"programs": ["pd-dp"], "eps": [1.0], "path": "lp"})
    assert (spec.formulation, spec.method) == ("auto", "lp")
    assert spec.points()[0].method == "lp"
    with pytest.raises(InvalidInputError, match="method must be one of"):
        SweepSpec(programs=("pd-dp",), eps=(1.0,), method="dense")
    with pytest.raises(InvalidInputError, match="disagree"), pytest.warns(DeprecationWarning):
        Point("pd-dp", 3, 2, "uniform", eps=1.0, formulation="reduced", path="dense")


def test_sweep_point_old_and_new_names_same_row():
    from problems.sweep.grid import Point
    from problems.sweep.jobs import run_point

    with pytest.warns(DeprecationWarning):
        old = run_point(Point("r-pd", 4, 2, "uniform", eps=0.8, path="lp"))
    new = run_point(Point("r-pd", 4, 2, "uniform", eps=0.8, method="lp"))
    assert old["key"] == new["key"]
    assert old["value"] == new["value"] and old["status"] == new["status"] == "optimal"
    assert new["lower"] <= _h(0.8, 4, 2) * (1 + 1e-12) and new["upper"] >= _h(0.8, 4, 2) * (1 - 1e-12)


def test_sweep_cli_formulation_method_and_old_path():
    import argparse

    from problems.sweep.cli import _spec, register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    base = ["sweep", "--program", "pd-dp", "--eps", "1", "--out", "unused"]
    spec = _spec(parser.parse_args(base + ["--formulation", "dense", "--method", "lp"]))
    assert (spec.formulation, spec.method) == ("dense", "lp")
    for path, choice in (("dense", ("dense", "auto")), ("theorem", ("auto", "theorem"))):
        spec = _spec(parser.parse_args(base + ["--path", path]))
        assert (spec.formulation, spec.method) == choice


# ------------------------------------------------------------------------------------ the model's solve(path=)
def _model_pd_dp(prior, eps):
    from problems.model import MechanismModel, losses, privacy

    return MechanismModel(prior, losses.hamming(prior.space)).add(
        privacy.differential(eps, neighbours=prior.space)
    )


def _model_local(eps=1.0):
    from problems.model import MechanismModel, losses, privacy

    return MechanismModel(np.array([0.1, 0.2, 0.3, 0.4]), losses.zero_one(4)).add(privacy.local(eps))


@pytest.mark.parametrize(
    ("path", "new"), [("lp-core", {"method": "lp"}), ("cvxpy", {"solver": "cvxpy"}), ("auto", {})]
)
def test_model_path_keyword_warns_and_gives_the_same_answer(path, new):
    with pytest.warns(DeprecationWarning, match=f"path='{path}'"):
        old = _model_local().solve(path=path)
    res = _model_local().solve(**new)
    assert old.path == res.path and old.value == res.value and old.bounds == res.bounds
    # local ε-DP on 4 inputs, 0-1 loss: the optimum is 1 − e^ε/(e^ε + K − 1) · Σ... ≥ best constant row's bound
    assert res.certified


def test_model_program_route_through_the_registry():
    """PD-I itself at ε ≥ ε̃_X: the registry's program answers with Lemma 4's closed form, h(ε)."""
    from problems import priors
    from problems.model import instances

    space = DatabaseSpace(3, 2)
    prior = priors.iid(space, [0.4, 0.6])  # ε̃_X = 3 ln(3/2) ≈ 1.22 < 1.5
    with pytest.warns(DeprecationWarning, match="path='program'"):
        old = instances.pd_i(space, prior, 1.5).solve(path="program")
    new = instances.pd_i(space, prior, 1.5).solve()
    thm = instances.pd_i(space, prior, 1.5).solve(method="theorem")
    assert old.path == new.path == thm.path == "program" and thm.extras["program_path"] == "theorem"
    assert old.value == new.value == thm.value == pytest.approx(_h(1.5, 3, 2), rel=1e-9)
    lp = instances.pd_i(space, prior, 1.5).solve(method="lp")  # the model's own ratio LP
    assert lp.path == "lp-core" and lp.certified
    assert lp.bounds.lower <= _h(1.5, 3, 2) * (1 + 1e-9) and _h(1.5, 3, 2) <= lp.bounds.upper * (1 + 1e-9)


def test_model_reduced_formulation_needs_a_row_symmetric_prior():
    from problems import priors
    from problems.errors import InvalidPriorError

    space = DatabaseSpace(3, 2)
    res = _model_pd_dp(priors.iid(space, [0.3, 0.7]), 1.2).solve(formulation="reduced", method="lp")
    dense = _model_pd_dp(priors.iid(space, [0.3, 0.7]), 1.2).solve(method="lp")
    assert res.path == "program" and res.mechanism.matrix.shape == (8, 8) and res.certified
    assert res.bounds.lower <= dense.bounds.upper and dense.bounds.lower <= res.bounds.upper
    with pytest.raises(InvalidPriorError, match="invariant under permuting rows"):
        _model_pd_dp(priors.from_pmf(space, np.arange(1, 9) / 36), 1.2).solve(formulation="reduced")


def test_model_choices_that_cannot_apply():
    from problems.model import privacy

    with pytest.raises(InvalidInputError, match="method='theorem' needs a model that is PD-DP or PD-I"):
        _model_local().solve(method="theorem")
    with pytest.raises(InvalidInputError, match="formulation='reduced' needs"):
        _model_local().solve(formulation="reduced")
    with pytest.raises(InvalidInputError, match="method='lp' needs a ratio LP"):
        _model_local().add(privacy.approximate(1.0, 0.1)).solve(method="lp")
    with pytest.raises(InvalidInputError, match="path='program' needs"), pytest.warns(DeprecationWarning):
        _model_local().solve(path="program")
    with pytest.raises(InvalidInputError, match="method must be one of"):
        _model_local().solve(method="lp-core")
    with pytest.raises(InvalidInputError, match="disagree"), pytest.warns(DeprecationWarning):
        _model_local().solve(path="lp-core", method="theorem")


def test_model_cli_method_and_old_path(tmp_path, capsys):
    from problems.cli import main

    spec = tmp_path / "m.toml"
    spec.write_text(
        'prior = [0.1, 0.2, 0.3, 0.4]\nloss = "zero_one"\n[[constraint]]\nkind = "local"\neps = 1.0\n'
    )
    assert main(["model", str(spec), "--json", "--method", "lp"]) == 0
    new = json.loads(capsys.readouterr().out)
    assert main(["model", str(spec), "--json", "--path", "lp-core"]) == 0
    captured = capsys.readouterr()
    old = json.loads(captured.out)
    assert "--path is deprecated" in captured.err
    assert old["value"] == new["value"] and old["path"] == new["path"] == "lp-core"
    assert main(["model", str(spec), "--json", "--solver", "cvxpy"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == "cvxpy-lp"
