"""ε_X and ε̃_X of uniform and i.i.d. priors from the row pmf, at any n, without the mⁿ pmf."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from problems import DatabaseSpace, priors
from problems.orbit.symmetric_prior import parse_symmetric_prior
from problems.prior_constants import eps_tilde, eps_X, eps_X_iid, symmetric_constants

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("spec,n,m", [("iid:0.3,0.7", 4, 2), ("iid:1/6,1/3,1/2", 3, 3), ("uniform", 5, 2)])
def test_closed_forms_agree_with_the_dense_pmf(spec: str, n: int, m: int) -> None:
    dense = priors.parse_prior(spec, DatabaseSpace(n, m))
    got = symmetric_constants(parse_symmetric_prior(spec, n, m))
    assert got["eps_X"] == pytest.approx(eps_X(dense), abs=1e-12)
    assert got["eps_tilde"] == pytest.approx(eps_tilde(dense), abs=1e-9)


def test_uniform_constants_are_exact_zeros_and_iid_is_a_log_ratio() -> None:
    assert symmetric_constants(parse_symmetric_prior("uniform", 30, 10)) == {"eps_X": 0.0, "eps_tilde": 0.0}
    assert eps_X_iid([0.25, 0.75]) == math.log(0.75) - math.log(0.25)
    assert eps_X_iid([0.0, 1.0]) == math.inf


def test_cli_constants_at_large_n_is_fast() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "problems", "constants", "--n", "200", "--m", "20", "--prior", "uniform"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert "eps_X            0.0" in proc.stdout
