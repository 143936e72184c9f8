"""The reproduce job (quick form): every file it promises, and the checks inside its tables."""

import csv

import pytest

from problems.reproduce import reproduce


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce")
    lines: list[str] = []
    reproduce(out, progress=lines.append, quick=True)
    assert any("figure 2" in s for s in lines)  # progress is shown
    return out


def test_files_written(out):
    for name in (
        "figure2_uniform.png",
        "figure2_uniform.svg",
        "figure2_uniform.csv",
        "figure2_nonuniform.png",
        "figure2_nonuniform.csv",
        "h_curve.png",
        "rpd_equals_h.csv",
        "theorem2_kkt.csv",
        "REPORT.md",
    ):
        assert (out / name).stat().st_size > 0, name
    assert "failed" not in (out / "REPORT.md").read_text()


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def test_rpd_table_matches_h(out):
    rows = _rows(out / "rpd_equals_h.csv")
    assert len(rows) == 15
    assert max(float(r["abs_diff"]) for r in rows) < 1e-7


def test_theorem2_table(out):
    rows = _rows(out / "theorem2_kkt.csv")
    assert max(float(r["abs(lambda - h_inv)"]) for r in rows) < 1e-4
    assert max(abs(float(r["PD-MIP"]) - float(r["I(E_i)"])) for r in rows) < 1e-6


def test_uniform_figure_has_equal_curves(out):
    rows = _rows(out / "figure2_uniform.csv")
    assert max(abs(float(r["eps_i"]) - float(r["eps_d"])) for r in rows) < 1e-7
