"""The one dispatcher (problems.dispatch), the one prior-spec grammar and the solve-choice names.

Values are compared with the closed form h(ε) = n/(1 + e^ε/(m−1)) of Wang, Ying & Zhang (2016) (R-PD for
every ε, PD-DP under the uniform prior) and with pmfs written out by hand.
"""

from __future__ import annotations

import importlib
import json
import math
import sys
import warnings

import numpy as np
import pytest

from problems import dispatch
from problems.cli import main
from problems.database import DatabaseSpace
from problems.errors import InvalidInputError, InvalidPriorError
from problems.orbit.symmetric_prior import SymmetricPrior, parse_symmetric_prior, symmetric_from_spec
from problems.prior_spec import PriorSpec, parse_prior_spec
from problems.priors import from_spec, parse_prior, uniform


def _h(eps: float, n: int, m: int) -> float:
    return n / (1.0 + math.exp(eps) / (m - 1))


# ------------------------------------------------------------------------------------------------ registry
def test_registry_names_every_program_with_both_builders():
    assert tuple(dispatch.REGISTRY) == dispatch.PROGRAMS == ("pd-dp", "pd-i", "r-pd", "pd-mip")
    assert all(e.dense is not None and e.reduced is not None for e in dispatch.REGISTRY.values())
    assert [n for n, e in dispatch.REGISTRY.items() if not e.theorem] == ["pd-mip"]
    assert dispatch.REGISTRY["pd-mip"].level == "distortion" and dispatch.REGISTRY["r-pd"].prior_free


@pytest.mark.parametrize("formulation", ["dense", "reduced"])
def test_both_formulations_give_h_of_eps_for_the_uniform_prior(formulation):
    n, m, eps = 3, 2, 0.7
    for name in ("pd-dp", "r-pd"):
        prog = dispatch.make_program(name, uniform(DatabaseSpace(n, m)), formulation)
        for method in ("auto", "lp"):
            res = prog.solve(eps, method=method)
            assert res.certified
            assert res.value == pytest.approx(_h(eps, n, m), rel=1e-6)


def test_resolve_formulation_and_refusals():
    space = DatabaseSpace(2, 2)
    explicit = from_spec(parse_prior_spec("pmf:0.1,0.2,0.3,0.4"), space)
    assert dispatch.resolve_formulation("pd-dp", explicit) == "dense"
    assert dispatch.resolve_formulation("pd-dp", uniform(space)) == "reduced"
    assert dispatch.resolve_formulation("r-pd", space) == "reduced"
    with pytest.raises(InvalidPriorError, match="invariant under permuting rows"):
        dispatch.make_program("pd-i", explicit, "reduced")
    with pytest.raises(InvalidInputError, match="unknown program"):
        dispatch.make_program("pd-x", explicit)
    with pytest.raises(InvalidInputError, match="formulation must be one of"):
        dispatch.make_program("pd-dp", explicit, "lp")


def test_solve_spec_goes_the_whole_way():
    built, res = dispatch.solve_spec("pd-dp", "uniform", 3, 2, 1.0, method="lp")
    assert (built.formulation, built.method) == ("reduced", "lp")
    assert res.certified and res.value == pytest.approx(_h(1.0, 3, 2), rel=1e-6)
    with pytest.raises(InvalidInputError, match="does not apply to pd-mip"):
        dispatch.program_from_spec("pd-mip", "uniform", 3, 2, method="theorem")


# ------------------------------------------------------------------------------------------ deprecations
def test_old_keywords_warn_and_keep_working():
    prior = uniform(DatabaseSpace(2, 2))
    with pytest.warns(DeprecationWarning, match="formulation='dense'"):
        prog = dispatch.make_program("pd-dp", prior, path="dense")
    with pytest.warns(DeprecationWarning, match="method='lp'"):
        res = prog.solve(0.5, path="lp")
    assert res.value == pytest.approx(_h(0.5, 2, 2), rel=1e-6)
    with pytest.warns(DeprecationWarning, match="formulation= .* or method="):
        built = dispatch.program_from_spec("r-pd", "uniform", 2, 2, path="theorem")
    assert (built.formulation, built.method) == ("reduced", "theorem")
    with pytest.raises(InvalidInputError, match="disagree"), pytest.warns(DeprecationWarning):
        prog.solve(0.5, method="theorem", path="lp")


def test_the_old_module_warns_on_import_and_re_exports():
    sys.modules.pop("problems.orbit.dispatch", None)
    with pytest.warns(DeprecationWarning, match="problems.dispatch"):
        old = importlib.import_module("problems.orbit.dispatch")
    assert old.make_program is dispatch.make_program and old.CLI_PATHS[-2:] == ("lp", "theorem")
    with pytest.warns(DeprecationWarning, match="resolve_formulation"):
        assert old.resolve_path("pd-dp", uniform(DatabaseSpace(2, 2))) == "reduced"


def test_the_library_emits_no_deprecation_warning(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        code = main(["solve", "pd-i", "--n", "3", "--m", "2", "--eps", "1", "--method", "lp", "--json"])
        from problems.sweep.grid import Point
        from problems.sweep.jobs import run_point

        row = run_point(Point("pd-dp", 3, 2, "uniform", eps=1.0, method="lp"))
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["value"] == pytest.approx(_h(1.0, 3, 2), rel=1e-6)  # ε ≥ ε̃_X = 0: h(ε)
    assert row["status"] == "optimal" and row["value"] == pytest.approx(_h(1.0, 3, 2), rel=1e-6)


# -------------------------------------------------------------------------------------------------- CLI
def test_cli_formulation_and_method(capsys):
    code = main(["solve", "pd-dp", "--n", "3", "--m", "2", "--eps", "1", "--formulation", "dense", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["path"] == "dense" and out["value"] == pytest.approx(_h(1.0, 3, 2), rel=1e-6)


def test_cli_path_still_works_with_a_note(capsys):
    code = main(["solve", "r-pd", "--n", "3", "--m", "2", "--eps", "1", "--path", "lp"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.err.strip().splitlines() == [
        "note: --path is deprecated and will be removed in the next release; use --method"
    ]
    code = main(
        ["solve", "r-pd", "--n", "3", "--m", "2", "--eps", "1", "--path", "lp", "--method", "theorem"]
    )
    assert code == 2 and "disagree" in capsys.readouterr().err


def test_cli_pd_mip_takes_no_method(capsys):
    code = main(["solve", "pd-mip", "--n", "3", "--m", "2", "--distortion", "0.5", "--method", "lp"])
    assert code == 2 and "--method lp does not apply to pd-mip" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ prior specs
def test_one_grammar_for_dense_and_symmetric_priors():
    spec = parse_prior_spec("iid:3/10,0.7")
    assert spec == PriorSpec("iid", "iid:3/10,0.7", values=(0.3, 0.7))
    dense = from_spec(spec, DatabaseSpace(2, 2))
    np.testing.assert_allclose(dense.pmf, [0.09, 0.21, 0.21, 0.49])  # itertools.product order
    sym = symmetric_from_spec(spec, 2, 2)
    assert isinstance(sym, SymmetricPrior) and sym.kind == "iid"
    np.testing.assert_allclose(sym.row_pmfs[0], [0.3, 0.7])
    mix = parse_prior_spec("mixture:0.5,0.5/0.2,0.8/0.6,0.4")
    assert mix.rows == ((0.2, 0.8), (0.6, 0.4)) and mix.weights == (0.5, 0.5)
    cont = parse_prior_spec("contagious:0.25")
    assert cont.weight == 0.25 and cont.values == ()
    # p(0,0) = 0.75·0.25 + 0.25·0.5 for a uniform row: 0.3125
    np.testing.assert_allclose(parse_prior("contagious:0.25", DatabaseSpace(2, 2)).pmf[0], 0.3125)


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("", "the prior spec is empty"),
        ("gauss:1", "unknown prior spec"),
        ("iid:0.3,,0.7", "empty item 2"),
        ("contagious:0.1,0.2", "takes one weight"),
        ("mixture:1", "mixture is W0,W1"),
    ],
)
def test_grammar_errors(spec, match):
    with pytest.raises(InvalidInputError, match=match):
        parse_prior_spec(spec)


def test_symmetric_grammar_errors_keep_their_messages():
    with pytest.raises(InvalidInputError, match="unknown symmetric prior spec 'pmf:0.5,0.5'"):
        parse_symmetric_prior("pmf:0.5,0.5", 1, 2)
    with pytest.raises(InvalidInputError, match="unknown symmetric prior spec 'uniform:1'"):
        parse_symmetric_prior("uniform:1", 3, 2)
    with pytest.raises(InvalidPriorError, match=r"needs 2 probabilities \(m = 2\), got 3"):
        parse_symmetric_prior("iid:0.2,0.3,0.5", 3, 2)
    with pytest.raises(InvalidInputError, match="reduced program only"):
        parse_prior("mixture:1/0.5,0.5", DatabaseSpace(2, 2))
