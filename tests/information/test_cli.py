"""CLI subcommands and the reproduction hook."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import pytest

from problems.information.cli import register
from problems.reproduce.information import reproduce_section


def _run(argv, capsys):
    ap = argparse.ArgumentParser()
    register(ap.add_subparsers(dest="cmd"))
    args = ap.parse_args(argv)
    rc = args.func(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_capacity_json(tmp_path, capsys):
    p = 0.25
    W = np.zeros((2, 2, 2))
    for x in np.ndindex(2, 2):
        f = x[0] ^ x[1]
        W[x] = [1 - p, p] if f == 0 else [p, 1 - p]
    path = tmp_path / "rr.npy"
    np.save(path, W)
    rc, out, _ = _run(["capacity", "--channel", str(path), "--json", "--bits"], capsys)
    assert rc == 0
    d = json.loads(out)
    for key in ("C1", "individual", "vertex", "input_distribution", "evaluated_vertices", "unit"):
        assert key in d
    assert d["unit"] == "bits" and d["individual"] in (1, 2)
    assert d["C1"] == pytest.approx(0.18872187554, abs=1e-9)  # BSC(0.25) in bits
    rc, out, _ = _run(["capacity", "--channel", str(path)], capsys)
    assert rc == 0 and "worst individual (1-based)" in out


def test_capacity_errors(tmp_path, capsys):
    rc, _, err = _run(["capacity", "--channel", str(tmp_path / "none.npy")], capsys)
    assert rc == 2 and "does not exist" in err
    bad = tmp_path / "bad.npy"
    np.save(bad, np.array([[0.5, 0.7]]))
    rc, _, err = _run(["capacity", "--channel", str(bad)], capsys)
    assert rc == 2 and "sums to" in err


def test_calibrate(capsys):
    rc, out, _ = _run(["calibrate", "randomized-response", "--eps", "0.2", "--json"], capsys)
    d = json.loads(out)
    assert rc == 0 and d["parameter"] == "p_star" and d["capacity_bound"] == pytest.approx(0.2)
    rc, out, _ = _run(["calibrate", "exponential", "--eps", "0.2", "--k", "5", "--json"], capsys)
    assert rc == 0 and json.loads(out)["k"] == 5
    rc, out, _ = _run(["calibrate", "gaussian", "--eps", "0.2", "--T", "2", "--json"], capsys)
    assert rc == 0 and json.loads(out)["value"] == pytest.approx(4 / math.expm1(0.4))
    rc, out, _ = _run(["calibrate", "exponential", "--eps", "5", "--k", "3", "--json"], capsys)
    assert rc == 0 and json.loads(out)["value"] is None  # eps >= log k: every lambda works
    rc, _, err = _run(["calibrate", "gaussian", "--eps", "0.2"], capsys)
    assert rc == 2 and "--T" in err
    rc, _, err = _run(["calibrate", "exponential", "--eps", "0.2"], capsys)
    assert rc == 2 and "--k" in err
    rc, _, err = _run(["calibrate", "randomized-response", "--eps", "-1"], capsys)
    assert rc == 2 and "eps" in err


def test_reproduce_section(tmp_path):
    msgs = []
    paths = reproduce_section(tmp_path, msgs.append)
    assert msgs and all(Path(p).exists() for p in paths)
    assert any(str(p).endswith(".png") for p in paths) and any(str(p).endswith(".svg") for p in paths)
