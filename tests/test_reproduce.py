"""The reproduce job (quick form): every file it promises, the verdict table, the checks inside its tables,
the exit code when a section fails, and the removal of stale files of a previous run."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import problems.reproduce as rp
import problems.reproduce.wang2016 as w16
from problems.reproduce import SectionSpec, reproduce
from problems.reproduce.report import MANIFEST, Check, Section, prune_stale, verdict_table

ROOT = Path(__file__).resolve().parents[1]
_SPECS = rp.section_specs


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce")
    (out / "notes.txt").write_text("a user's file the report does not own")
    lines: list[str] = []
    result = reproduce(out, progress=lines.append, quick=True)
    assert any("figure 2" in s for s in lines)  # progress is shown
    return out, result


@pytest.fixture(scope="module")
def out(run):
    return run[0]


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
        MANIFEST,
    ):
        assert (out / name).stat().st_size > 0, name


def test_report_opens_with_verdict_table(run):
    out, result = run
    text = (out / "REPORT.md").read_text()
    assert text.startswith("# Reproduction report (quick run)")
    assert "**Quick run** (`--quick`)" in text
    head = text[: text.index("## Figure 2")]
    assert "| claim | source | measured quantity | measured | tolerance | verdict |" in head
    for claim in (
        "Figure 2, uniform prior",
        "Theorem 1: ε_i*(D) = h⁻¹(D)",
        "max{h⁻¹(D) − ε_X, 0} ≤ ε_d*(D)",
        "R-PD optimum = h(ε)",
        "λ = h⁻¹(D)",
        "calibrated channels satisfy C₁ ≤ ε",
        "basic composition",
        "designed mechanism",
    ):
        assert claim in head, claim
    for column in ("**claim**", "**measured**", "**tolerance**", "**verdict**"):
        assert column in head  # every column explained under the table
    assert result.ok and not result.failed_sections
    assert len(result.checks) >= 20 and all(c.passed for c in result.checks)
    assert "✗ |" not in head
    # every table row has the same number of cells (pipes inside cells are escaped)
    rows = [ln for ln in head.splitlines() if ln.startswith("| ") and "---" not in ln]
    assert {ln.replace("\\|", "").count("|") for ln in rows} == {7}


def test_sections_say_what_was_checked(out):
    text = (out / "REPORT.md").read_text()
    assert text.count("Claims checked in this section") >= 5
    assert "- [" not in text  # no bare lists of links


def test_stale_files_removed_user_files_kept(run):
    out, result = run
    assert (out / "notes.txt").exists()
    manifest = json.loads((out / MANIFEST).read_text())["files"]
    assert "REPORT.md" in manifest and "notes.txt" not in manifest
    # a later run that no longer writes a file removes it; unlisted files stay
    (out / "old_figure.png").write_text("stale")
    (out / MANIFEST).write_text(json.dumps({"files": [*manifest, "old_figure.png", "../escape.txt"]}))
    (out.parent / "escape.txt").write_text("outside")
    removed = prune_stale(out, [out / n for n in manifest])
    assert [p.name for p in removed] == ["old_figure.png"]
    assert not (out / "old_figure.png").exists()
    assert (out / "notes.txt").exists() and (out.parent / "escape.txt").exists()


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


def _only_core(monkeypatch, broken: str | None = None):
    """Keep the reproduction to its fast core sections; make ``broken`` raise."""

    def boom(sec, ctx):
        raise RuntimeError("simulated failure")

    def patched(ctx):
        specs = [s for s in _SPECS(ctx) if s.title.startswith(("h(ε)", "R-PD"))]
        return [
            SectionSpec(s.title, boom, s.needs) if s.title.startswith(broken or "\0") else s for s in specs
        ]

    monkeypatch.setattr(rp, "section_specs", patched)


def test_failed_section_is_reported_and_not_ok(tmp_path, monkeypatch):
    _only_core(monkeypatch, broken="R-PD")
    result = reproduce(tmp_path, progress=lambda s: None, quick=True)
    assert not result.ok and [s.title for s in result.failed_sections] == ["R-PD = h(ε) (Lemma 1)"]
    text = (tmp_path / "REPORT.md").read_text()
    assert "section failed: RuntimeError: simulated failure" in text and "✗" in text


def test_cli_exits_nonzero_when_a_section_fails(tmp_path, monkeypatch, capsys):
    from problems.cli import main

    _only_core(monkeypatch, broken="R-PD")
    assert main(["reproduce", "--quick", "--out", str(tmp_path)]) == 3
    _only_core(monkeypatch)
    assert main(["reproduce", "--quick", "--out", str(tmp_path / "ok")]) == 0


def test_failed_check_is_not_ok(tmp_path, monkeypatch):
    _only_core(monkeypatch)
    real = w16.rpd_table

    def wrong():
        rows = real()
        rows[0]["abs_diff"] = 1.0  # a claim that does not hold
        return rows

    monkeypatch.setattr(w16, "rpd_table", wrong)
    result = reproduce(tmp_path, progress=lambda s: None)
    assert not result.ok and [c.claim for c in result.failed_checks] == ["R-PD optimum = h(ε)"]
    assert "(quick run)" not in (tmp_path / "REPORT.md").read_text()


def test_verdict_table_marks():
    sec = Section("s")
    sec.check("a | b", "src", "q", 0.5, 1.0)
    sec.check("c", "src", "q", float("nan"), 1.0)
    lines = verdict_table(sec.checks, [("t", "boom")])
    assert "a \\| b" in lines[2] and lines[2].endswith("✓ |")
    assert lines[3].endswith("✗ |") and "section failed: boom" in lines[4]
    assert not Check("c", "s", "q", 2.0, 1.0).passed


def test_library_does_not_touch_global_matplotlib_state():
    code = (
        "import matplotlib; matplotlib.use('pdf'); "
        "import problems.reproduce, problems.plotting, problems.reproduce.information, problems.reproduce.design, "
        "problems.reproduce.scale, problems.reproduce.figures; "
        "from problems.plotting import plot_h; import tempfile, os; d = tempfile.mkdtemp(); "
        "plot_h(3, 2, os.path.join(d, 'h')); import sys; "
        "print(matplotlib.get_backend(), 'matplotlib.pyplot' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["pdf", "False"]


def test_section_without_its_dependency_is_named(tmp_path, monkeypatch):
    _only_core(monkeypatch)
    ipopt = [s for s in _SPECS(rp.Context(tmp_path)) if "IPOPT" in s.title]
    monkeypatch.setattr(
        rp, "section_specs", lambda ctx: [SectionSpec("IPOPT things", ipopt[0].run, ipopt[0].needs)]
    )
    monkeypatch.setitem(sys.modules, "casadi", None)  # `import casadi` fails as if it were not installed
    result = reproduce(tmp_path, progress=lambda s: None, quick=True)
    text = (tmp_path / "REPORT.md").read_text()
    assert result.ok
    assert "Not run here (their claims are not in the table): IPOPT things — the ipopt extra" in text
