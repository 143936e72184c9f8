"""Curves through the sweep, checked against closed forms of Wang, Ying & Zhang (2016) (not against the sweep itself)."""

from __future__ import annotations

import math

import numpy as np

from problems.closed_forms import h_inv
from problems.sweep.studies import curve_via_sweep, scale_rows_via_sweep


def test_uniform_dp_curve_is_h_inverse(tmp_path):
    # uniform prior: D*_d(ε) = h(ε) (E_d is optimal), so ε*_d(D) = h⁻¹(D) for 0 < D < h(0) = n(m−1)/m
    n, m = 3, 2
    grid = np.array([0.2, 0.5, 0.9, 1.2])
    c = curve_via_sweep("uniform", n, m, "d", grid, tmp_path, progress=False)
    ref = np.array([h_inv(D, n, m) for D in grid])
    assert np.allclose(c.eps, ref, rtol=1e-7, atol=1e-9)
    assert all(c.extras["certified"])


def test_scale_rows_iid_pattern(tmp_path):
    # i.i.d. (0.3, 0.7), m = 2: ε*_d = h⁻¹(D) for D/n < 0.3; D*_d(0) = 0.3·n so ε*_d = 0 for D/n ≥ 0.3,
    # and ε*_i = ε_X = ln(7/3) there (PD-I is infeasible below ε_X, Lemma 3)
    n, levels = 6, [0.1, 0.2, 0.35]
    rows = scale_rows_via_sweep([n], levels, tmp_path, scheduler="synchronous", progress=False)
    dp = [r for r in rows if r["program"] == "pd-dp"]
    pi = [r for r in rows if r["program"] == "pd-i"]
    for r in dp[:2] + pi[:2]:
        assert math.isclose(r["eps_star"], h_inv(r["D_over_n"] * n, n, 2), rel_tol=1e-6)
    assert dp[2]["eps_star"] == 0.0
    assert math.isclose(pi[2]["eps_star"], math.log(7 / 3), rel_tol=1e-9)


def test_curve_command_runs_through_the_sweep_and_resumes(tmp_path, capsys):
    import csv

    from problems.cli import main

    argv = [
        "curve",
        "--n",
        "3",
        "--m",
        "2",
        "--prior",
        "uniform",
        "--notion",
        "d",
        "--points",
        "6",
        "--quiet",
    ]
    assert main(argv + ["--out", str(tmp_path / "a"), "--workers", "2"]) == 0
    assert main(argv + ["--out", str(tmp_path / "b")]) == 0  # in this process
    rows = {k: list(csv.DictReader((tmp_path / k / "curve_d.csv").open())) for k in ("a", "b")}
    for ra, rb in zip(rows["a"], rows["b"]):
        assert float(ra["eps_d"]) == float(rb["eps_d"]) and ra["status"] == "optimal"
        # uniform prior: ε*_d(D) = h⁻¹(D) (E_d is optimal), where h⁻¹(D) > 0
        D = float(ra["D"])
        assert math.isclose(float(ra["eps_d"]), max(h_inv(D, 3, 2), 0.0), rel_tol=1e-7, abs_tol=1e-9)
    points = list((tmp_path / "b" / "curve_d_points" / "points").glob("*.json"))
    assert len(points) == 6  # one keyed point per D, kept for a resumed run


def test_scale_figure_through_the_sweep_equals_the_in_process_rows(tmp_path):
    from problems.orbit.scale import read_rows
    from problems.reproduce.scale import scale_figure

    kw = dict(ns=(6,), levels=(0.1, 0.35), include=(), progress=lambda s: None)
    scale_figure(tmp_path / "a", sweep_out=tmp_path / "pts", scheduler="synchronous", **kw)
    scale_figure(tmp_path / "b", **kw)
    a, b = (read_rows(tmp_path / k / "orbit_scale.csv") for k in ("a", "b"))
    assert [(r["program"], r["D_over_n"]) for r in a] == [(r["program"], r["D_over_n"]) for r in b]
    for ra, rb in zip(a, b):
        assert math.isclose(ra["eps_star"], rb["eps_star"], rel_tol=1e-6, abs_tol=1e-9)
    assert (tmp_path / "a" / "orbit_scale.png").exists()
    assert len(list((tmp_path / "pts" / "points").glob("*.json"))) == 4


def test_reproduce_full_and_quick_exclude_each_other(tmp_path, capsys):
    from problems.cli import main

    assert main(["reproduce", "--quick", "--full", "--out", str(tmp_path)]) == 2
    assert "not allowed" in capsys.readouterr().err
