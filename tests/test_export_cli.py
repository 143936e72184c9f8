import json
import subprocess
import sys

import numpy as np
import pytest

from problems import PDDP, DatabaseSpace, InvalidInputError, InvalidMechanismError, Mechanism, priors
from problems.cli import main
from problems.export import atomic_write_text, export_mechanism, load_mechanism


@pytest.fixture(scope="module")
def result():
    return PDDP(priors.iid(DatabaseSpace(2, 3), [0.2, 0.3, 0.5])).solve(0.7)


@pytest.mark.parametrize("suffix", [".npy", ".csv", ".json"])
def test_export_roundtrip_is_exact(tmp_path, result, suffix):
    path = export_mechanism(
        result.mechanism, tmp_path / f"mech{suffix}", metadata={"program": "pd-dp", "eps": 0.7}
    )
    loaded, meta = load_mechanism(path)
    np.testing.assert_array_equal(loaded.matrix, result.matrix)
    if suffix != ".npy":
        assert loaded.input_labels == result.mechanism.input_labels
    if suffix == ".json":
        assert meta == {"program": "pd-dp", "eps": 0.7}
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary files left


def test_csv_has_database_labels(tmp_path, result):
    path = export_mechanism(result.mechanism, tmp_path / "m.csv")
    header = path.read_text().splitlines()[0]
    assert header.startswith("x\\y,") and '"0,0"' in header


def test_export_rejects_unknown_format(tmp_path, result):
    with pytest.raises(InvalidInputError, match=".npy, .csv, .json"):
        export_mechanism(result.mechanism, tmp_path / "m.xlsx")


def test_atomic_write_never_leaves_half_a_file(tmp_path, monkeypatch):
    target = tmp_path / "out.txt"
    atomic_write_text(target, "old")
    import os

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_text(target, "new content")
    assert target.read_text() == "old"
    assert not list(tmp_path.glob(".*.tmp"))


def test_mechanism_validation():
    with pytest.raises(InvalidMechanismError, match="row 1 sums to 0.9"):
        Mechanism(np.array([[1.0, 0.0], [0.5, 0.4]]))


def test_cli_solve_json(capsys, tmp_path):
    code = main(
        [
            "solve",
            "pd-dp",
            "--n",
            "2",
            "--m",
            "2",
            "--prior",
            "iid:0.3,0.7",
            "--eps",
            "1.0",
            "--json",
            "--export",
            str(tmp_path / "w.json"),
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("program", "status", "value", "eps", "distortion", "duals", "certificate", "solve_time"):
        assert key in out
    assert out["status"] == "optimal" and out["certificate"]["ok"]
    W, meta = load_mechanism(tmp_path / "w.json")
    assert meta["value"] == pytest.approx(out["value"])


def test_cli_infeasible_json_exit_1(capsys):
    code = main(["solve", "pd-i", "--n", "2", "--m", "2", "--prior", "iid:0.2,0.8", "--eps", "0.1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["status"] == "infeasible" and "ε_X" in out["reason"]
    assert out["bounds"] == {"lower": None, "upper": None} and out["certified"] is True


def test_cli_infeasible_plain_exit_1(capsys):
    assert main(["solve", "pd-i", "--n", "2", "--m", "2", "--prior", "iid:0.2,0.8", "--eps", "0.1"]) == 1
    assert "infeasible" in capsys.readouterr().out


def test_cli_exit_codes_follow_the_certificate(capsys, monkeypatch):
    """0 certified (JSON carries status, certified and bounds), 2 an unknown solver, 3 not certified."""
    argv = ["solve", "pd-dp", "--n", "3", "--m", "2", "--prior", "iid:0.3,0.7", "--eps", "30", "--path", "lp"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "optimal" and out["certified"] is True
    assert out["bounds"]["lower"] <= out["value"] <= out["bounds"]["upper"]
    assert main([*argv, "--solver", "NOPE"]) == 2
    assert "unknown solver 'NOPE'" in capsys.readouterr().err
    from problems.solvers import backends

    def boom(self, spec, eps, *, time_limit, enough=None):  # noqa: ANN001, ANN202
        raise backends.BackendError("forced failure")

    for cls in (
        backends.ClarabelBackend,
        backends.HighsBackend,
        backends.HighsScaledBackend,
        backends.HighsMassBackend,
        backends.BlockBackend,
        backends.ScsBackend,
    ):
        monkeypatch.setattr(cls, "solve", boom)
    assert main([*argv, "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "failed" and out["certified"] is False
    assert out["bounds"]["lower"] <= 2.8072868906517895e-13 <= out["bounds"]["upper"]  # h(30): Theorem 1 (19)


@pytest.mark.parametrize(
    "argv,match",
    [
        (["solve", "pd-dp", "--n", "2", "--m", "2", "--eps", "-1"], "ε must be a finite number ≥ 0"),
        (["solve", "pd-mip", "--n", "2", "--m", "2", "--distortion", "3"], r"\[0, 2\]"),
        (
            ["solve", "pd-dp", "--n", "2", "--m", "2", "--prior", "pmf:0.5,0.6,-0.1,0", "--eps", "1"],
            "negative",
        ),
        (["solve", "pd-dp", "--n", "2", "--m", "2", "--prior", "iid:0.5,0.6", "--eps", "1"], "sums to 1.1"),
        (["solve", "pd-dp", "--n", "2", "--m", "2"], "--eps"),
        (["solve", "pd-dp", "--n", "20", "--m", "2", "--eps", "1", "--path", "dense"], "dense path"),
        (
            [
                "solve",
                "pd-dp",
                "--n",
                "3",
                "--m",
                "2",
                "--prior",
                "pmf:" + ",".join(["0.125"] * 8),
                "--eps",
                "1",
                "--path",
                "reduced",
            ],
            "invariant under permuting rows",
        ),
    ],
)
def test_cli_bad_input_exit_2(capsys, argv, match):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == (4 if match == "dense path" else 2) and err.startswith("error:")  # 4: too large
    import re

    assert re.search(match, err), err


def test_cli_constants_json(capsys):
    assert main(["constants", "--n", "3", "--m", "2", "--prior", "iid:0.25,0.75", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["eps_X"] == pytest.approx(np.log(3))
    assert out["eps_tilde"] == pytest.approx(np.log(3))
    assert set(out) >= {"eps_X", "eps_tilde", "h_at_eps_tilde"}


def test_cli_curve(tmp_path, capsys):
    assert (
        main(
            [
                "curve",
                "--n",
                "2",
                "--m",
                "2",
                "--prior",
                "iid:0.4,0.6",
                "--notion",
                "d",
                "--points",
                "5",
                "--out",
                str(tmp_path),
                "--quiet",
            ]
        )
        == 0
    )
    assert (tmp_path / "curve_d.csv").exists() and (tmp_path / "curve_d.png").exists()
    assert (tmp_path / "curve_d.svg").exists()


def test_python_dash_m_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "problems", "--help"], capture_output=True, text=True, check=True
    )
    assert "solve" in proc.stdout and "reproduce" in proc.stdout
