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
    a, b = old.solve(0.7), new.solve(0.7)
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
        prog.lp.solve(0.9, prefer="highs")


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
