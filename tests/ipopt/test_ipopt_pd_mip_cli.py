"""PD-MIP as a smooth NLP against the exponential-cone program; the command line; the figure."""

import json

import pytest

pytest.importorskip("casadi", reason="CasADi (bundling IPOPT) is not installed; install the 'ipopt' extra")

from ipopt_models import pd_mip_nlp, reproduce_section  # noqa: E402
from ipopt_models.cli import main  # noqa: E402
from problems.database import DatabaseSpace  # noqa: E402
from problems.priors import iid, uniform  # noqa: E402


@pytest.mark.parametrize("D", [0.2, 0.5])
@pytest.mark.parametrize("kind", ["uniform", "iid"])
def test_pd_mip_agrees_with_conic(D, kind):
    space = DatabaseSpace(3, 2)
    prior = uniform(space) if kind == "uniform" else iid(space, [0.7, 0.3])
    res = pd_mip_nlp(prior, D, starts=2, seed=0)
    assert abs(res.value - res.reference) <= 1e-5  # convex: every start should agree
    assert res.value >= res.extras["conic_lower_bound"] - 1e-7  # the toolkit's rigorous dual bound
    assert res.n_reached == res.n_starts


@pytest.mark.parametrize(
    "argv",
    [
        ["bilinear-pd", "--program", "r-pd", "-n", "2", "-m", "2", "--eps", "1", "--starts", "2"],
        ["capacity", "--random", "2,2:2", "--starts", "4"],
        ["balance", "--channel-kind", "exponential", "--points", "3", "--starts", "2"],
        ["pd-mip", "--distortion", "0.3", "--starts", "1"],
    ],
)
def test_cli_json(argv, capsys):
    """The exit code follows the proof (0 certified, 3 a local optimum without a matching bound), not --json."""
    code = main(argv + ["--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == (0 if out["certified"] else 3)
    assert "unit" in out and out["status"] in ("optimal", "inaccurate")
    assert main(argv) == code
    capsys.readouterr()


def test_cli_error_is_reported(capsys):
    assert main(["capacity", "--random", "x:y"]) == 2
    assert "error" in capsys.readouterr().err


@pytest.mark.slow
def test_reproduce_section(tmp_path):
    paths = reproduce_section(tmp_path, print, points=6)
    assert {p.suffix for p in paths} == {".png", ".svg", ".csv"} and all(p.stat().st_size > 0 for p in paths)
