"""The conventions both command lines share (docs/cli.md): options, units, JSON, exit codes, guards, progress."""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from problems.cli import main
from problems.cli_common import dumps, json_ready

ROOT = Path(__file__).resolve().parents[1]


def _env(**extra: str) -> dict:
    env = dict(os.environ)
    env.update(PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""), OMP_NUM_THREADS="1", **extra)
    return env


@pytest.mark.parametrize("module", ["problems", "ipopt_models"])
def test_version(module: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", module, "--version"], capture_output=True, text=True, env=_env(), cwd=ROOT
    )
    assert out.returncode == 0 and "(privacy-problems) 0.1.0" in out.stdout


def test_json_emitter_nulls_non_finite_numbers_and_names_them() -> None:
    text = dumps(
        {"a": math.inf, "b": [1.0, np.float64("nan")], "c": {"d": -math.inf}, "e": np.int64(3)}, unit="bits"
    )
    d = json.loads(text)
    assert d["a"] is None and d["b"] == [1.0, None] and d["c"]["d"] is None and d["e"] == 3
    assert d["unit"] == "bits"
    assert d["non_finite"] == [
        {"field": "a", "value": "inf"},
        {"field": "b[1]", "value": "nan"},
        {"field": "c.d", "value": "-inf"},
    ]
    assert text.startswith('{\n  "a"')  # indentation 2, the same everywhere
    assert json_ready(np.arange(3)) == [0, 1, 2]


def test_bits_is_an_alias_of_unit_bits(capsys) -> None:
    base = [
        "solve",
        "pd-mip",
        "--n",
        "2",
        "--m",
        "2",
        "--prior",
        "iid:0.3,0.7",
        "--distortion",
        "0.3",
        "--json",
    ]
    assert main([*base, "--bits"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert main([*base, "--unit", "bits"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert main(base) == 0
    c = json.loads(capsys.readouterr().out)
    assert a["unit"] == b["unit"] == "bits" and c["unit"] == "nats"
    assert a["value"] == pytest.approx(b["value"], rel=1e-12)
    assert a["value"] == pytest.approx(c["value"] / math.log(2), rel=1e-9)
    # every information quantity follows the unit: bounds and the distortion dual
    assert a["bounds"]["lower"] == pytest.approx(c["bounds"]["lower"] / math.log(2), rel=1e-9)
    assert a["duals"]["distortion"] == pytest.approx(c["duals"]["distortion"] / math.log(2), rel=1e-9)


def test_pd_mip_duals_are_in_the_result_unit() -> None:
    from problems import DatabaseSpace, priors
    from problems.programs import PDMIP

    prog = PDMIP(priors.iid(DatabaseSpace(2, 2), [0.3, 0.7]))
    nats, bits = prog.solve(0.3), prog.solve(0.3, unit="bits")
    for key in ("distortion", "normalisation", "nonnegativity"):
        np.testing.assert_allclose(
            np.asarray(bits.duals[key]), np.asarray(nats.duals[key]) / math.log(2), rtol=1e-4, atol=1e-7
        )


def test_design_eps_is_read_in_nats_whatever_the_output_unit(capsys) -> None:
    base = [
        "design",
        "--query",
        "count",
        "--n",
        "3",
        "--eps",
        "0.3",
        "--factor-through-query",
        "--json",
        "--quiet",
    ]
    assert main(base) == 0
    nats = json.loads(capsys.readouterr().out)
    assert main([*base, "--bits"]) == 0
    bits = json.loads(capsys.readouterr().out)
    assert nats["unit"] == "nats" and bits["unit"] == "bits"
    assert bits["eps"] == pytest.approx(0.3 / math.log(2), rel=1e-12)  # the same ε, reported in bits
    assert bits["value"] == pytest.approx(nats["value"], rel=1e-6)  # the same program: the same distortion
    assert bits["C1"] == pytest.approx(nats["C1"] / math.log(2), rel=1e-6)


def test_export_failure_after_the_solve_still_prints_the_result(tmp_path, capsys, monkeypatch) -> None:
    import problems.export as export
    from problems.errors import InvalidInputError

    def fail(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise InvalidInputError("disk full")

    monkeypatch.setattr(export, "export_mechanism", fail)
    code = main(
        [
            "solve",
            "pd-i",
            "--n",
            "2",
            "--m",
            "2",
            "--eps",
            "1.5",
            "--json",
            "--export",
            str(tmp_path / "W.json"),
        ]
    )
    out = capsys.readouterr()
    assert code == 2
    assert json.loads(out.out)["status"] == "optimal"  # the result is not lost
    assert "not exported" in out.err and "disk full" in out.err
    assert list(tmp_path.iterdir()) == []


def test_reduced_export_is_database_level_or_says_its_level(tmp_path, capsys) -> None:
    """Small N: the reduced answer is lifted (or its row channel expanded) to W[x, y]; types on request."""
    from problems.export import load_mechanism

    argv = ["solve", "pd-i", "--n", "3", "--m", "3", "--prior", "iid:0.2,0.3,0.5", "--eps", "3"]
    assert main([*argv, "--export", str(tmp_path / "r.json")]) == 0
    assert main([*argv, "--path", "dense", "--export", str(tmp_path / "d.json")]) == 0
    capsys.readouterr()
    (Wr, mr), (Wd, md) = load_mechanism(tmp_path / "r.json"), load_mechanism(tmp_path / "d.json")
    assert Wr.matrix.shape == Wd.matrix.shape == (27, 27)
    assert mr["mechanism_level"] == md["mechanism_level"] == "database"
    np.testing.assert_allclose(Wr.matrix, Wd.matrix, atol=1e-9)
    big = ["solve", "pd-dp", "--n", "200", "--m", "2", "--eps", "1", "--export", str(tmp_path / "t.json")]
    assert main(big) == 2  # N = 2^200: no W[x, y]; the type-level answer only on request
    assert "--export-level types" in capsys.readouterr().err
    assert main([*big, "--export-level", "types"]) == 0
    capsys.readouterr()
    _, mt = load_mechanism(tmp_path / "t.json")
    assert mt["mechanism_level"] == "type" and mt["path"] == "reduced"
    # types on request also where N would allow W[x, y]: the reduced program's own (unlifted) mechanism
    mix = [
        "solve",
        "pd-dp",
        "--n",
        "6",
        "--m",
        "2",
        "--prior",
        "mixture:0.5,0.5/0.8,0.2/0.3,0.7",
        "--eps",
        "1",
    ]
    assert (
        main([*mix, "--method", "lp", "--export", str(tmp_path / "s.json"), "--export-level", "types"]) == 0
    )
    capsys.readouterr()
    Ws, ms = load_mechanism(tmp_path / "s.json")
    assert ms["mechanism_level"] == "type" and Ws.matrix.shape != (64, 64)


def test_curve_with_an_iid_prior_never_builds_the_pmf(tmp_path, capsys) -> None:
    """n = 16 (N = 65536 > 4096): the reduced programs; the dense path could not even hold the prior's LP."""
    code = main(
        [
            "curve",
            "--n",
            "16",
            "--m",
            "2",
            "--prior",
            "iid:0.3,0.7",
            "--notion",
            "d",
            "--points",
            "2",
            "--out",
            str(tmp_path / "c"),
        ]
    )
    out = capsys.readouterr()
    assert code == 0
    assert (
        "created directory" in out.err and "[2/2]" in out.err
    )  # progress, one line per point off a terminal
    assert (tmp_path / "c" / "curve_d.csv").exists()


def test_constants_of_a_symmetric_prior_at_large_n(capsys) -> None:
    assert main(["constants", "--n", "30", "--m", "2", "--prior", "iid:1/4,3/4", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["eps_X"] == pytest.approx(math.log(3)) and d["eps_tilde"] == pytest.approx(math.log(3))


def test_a_subcommand_whose_import_fails_is_not_dropped(monkeypatch, capsys) -> None:
    import problems.cli as cli

    monkeypatch.setitem(cli.SUBCOMMAND_MODULES, "problems.no_such_module", ("broken",))
    parser = cli.build_parser()
    assert "broken" in parser.format_help()
    args = parser.parse_args(["broken"])
    assert args.func(args) == 3
    assert "importing problems.no_such_module failed" in capsys.readouterr().err


def test_library_leaves_matplotlib_state_alone(tmp_path) -> None:
    code = (
        "import matplotlib; matplotlib.use('svg'); "
        "from problems.plotting import plot_h; plot_h(3, 2, {!r}); "
        "print(matplotlib.get_backend())".format(str(tmp_path / "h"))
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "svg"
    assert (tmp_path / "h.png").exists() and (tmp_path / "h.svg").exists()


def test_blas_thread_limit_is_restored() -> None:
    from problems.ipm.lapack import BlasThreads, _openblas_handles

    handles = _openblas_handles()
    if not handles:
        pytest.skip("no OpenBLAS thread control found")
    before = [int(get()) for _, get in handles]
    with BlasThreads(1):
        assert all(int(get()) == 1 for _, get in handles)
    assert [int(get()) for _, get in handles] == before


def test_progress_lines_off_a_terminal() -> None:
    from problems.progress import Progress

    buf = io.StringIO()
    with Progress(3, "task", stream=buf) as bar:
        for k in range(3):
            bar(f"step {k}")
    lines = buf.getvalue().splitlines()
    assert len(lines) == 3 and lines[0].startswith("task [1/3] step 0") and "ETA" in lines[0]
    quiet = io.StringIO()
    with Progress(2, "task", stream=quiet, quiet=True) as bar:
        bar("x")
    assert quiet.getvalue() == ""


def test_memory_budget_from_the_environment(monkeypatch) -> None:
    from problems.errors import ProblemTooLargeError
    from problems.resources import memory_budget, require_memory

    monkeypatch.setenv("PRIVACY_PROBLEMS_MEMORY_LIMIT", "512M")
    assert memory_budget() == 512 * 2**20
    with pytest.raises(ProblemTooLargeError, match=r"about 1 GiB.*budget is 512 MiB.*smaller n"):
        require_memory(2**30, "this", "Use a smaller n.")


def test_ipopt_exit_code_follows_the_proof_not_json(capsys) -> None:
    pytest.importorskip("casadi")
    from ipopt_models.cli import main as ipopt_main

    argv = ["pd-mip", "--n", "2", "--m", "2", "--distortion", "0.3", "--starts", "2"]
    code = ipopt_main([*argv, "--json", "--unit", "bits"])
    d = json.loads(capsys.readouterr().out)
    assert code == (0 if d["certified"] else 3) and d["unit"] == "bits"
    assert d["bounds"]["lower"] <= d["value"] + 1e-12 and d["value"] == pytest.approx(d["bounds"]["upper"])
    assert ipopt_main(["pd-mip", "-n", "2", "-m", "2", "--distortion", "0.3", "--starts", "2"]) == code
    assert "bits" not in capsys.readouterr().out.split("best value")[1].split("\n")[0]  # nats by default


def test_solver_names_known_to_the_command_line_are_the_back_ends() -> None:
    from problems.cli_common import LP_SOLVER_ALIASES, LP_SOLVERS
    from problems.solvers.backends import ALIASES, BACKENDS

    assert set(LP_SOLVERS) == {k.lower() for k in BACKENDS}
    assert set(LP_SOLVER_ALIASES) == {k.lower() for k in ALIASES}


def test_version_and_help_do_not_import_cvxpy():
    import subprocess
    import sys

    code = (
        "import sys; from problems.cli import build_parser; build_parser(); "
        "import problems.model.cli; print('cvxpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
