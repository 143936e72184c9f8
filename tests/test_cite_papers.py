"""tools/cite_papers.py: paper numbers become author–year citations, and --check finds what is left.

The expected strings are written out by hand from the bibliography (docs/references.md).
"""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("cite_papers", ROOT / "tools" / "cite_papers.py")
cite_papers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cite_papers)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("the closed forms of paper 002.", "the closed forms of Wang, Ying & Zhang (2016)."),
        ("Paper 002, Theorem 1: bounds", "Wang, Ying & Zhang (2016), Theorem 1: bounds"),
        ("infeasible (paper 002, Lemma 3);", "infeasible (Wang, Ying & Zhang 2016, Lemma 3);"),
        ("C₁ (paper 000).", "C₁ (Wu, Xia & He 2020)."),
        ("Theorem 2 of paper 004", "Theorem 2 of Wu (2019b)"),
        ("dependent sources (paper 001)", "dependent sources (Wu, Xia & He 2017)"),
        ("(papers 000, 001, 003, 004):", "(Wu, Xia & He 2020, 2017; Wu 2019a, 2019b):"),
        ("papers 000, 001, 003, 004", "Wu, Xia & He (2020, 2017) and Wu (2019a, 2019b)"),
        ("(papers 002 and 004; ≤ ε)", "(Wang, Ying & Zhang 2016; Wu 2019b; ≤ ε)"),
        ("(papers 000 §4–5, 004).", "(Wu, Xia & He 2020, §4–5; Wu 2019b)."),
        ("(paper 000, §6–7; paper 003)", "(Wu, Xia & He 2020, §6–7; Wu 2019a)"),
        ("the paper-002 programs", "the Wang, Ying & Zhang (2016) programs"),
        (
            "Closed forms of paper 002 (Wang, Ying, Zhang) for",
            "Closed forms of Wang, Ying & Zhang (2016) for",
        ),
        ("nothing to do: paper 1, papers, 0021", "nothing to do: paper 1, papers, 0021"),
        ("an unknown number stays: paper 007", "an unknown number stays: paper 007"),
    ],
)
def test_rewrite(before, after):
    assert cite_papers.rewrite(before) == after
    assert cite_papers.rewrite(after) == after  # a second run changes nothing


def test_check_lists_what_is_left(tmp_path, capsys):
    page = tmp_path / "page.md"
    page.write_text("one (paper 002)\nclean line\nsee `../shared/papers/`\n")
    assert cite_papers.main(["--check", str(page)]) == 1
    out = capsys.readouterr().out
    assert "page.md:1:" in out and "page.md:3:" in out and "page.md:2:" not in out

    assert cite_papers.main([str(page)]) == 0
    assert page.read_text() == "one (Wang, Ying & Zhang 2016)\nclean line\nsee `../shared/papers/`\n"
    page.write_text("one (Wang, Ying & Zhang 2016)\n")
    assert cite_papers.main(["--check", str(page)]) == 0


def test_every_number_is_in_the_bibliography():
    references = (ROOT / "docs" / "references.md").read_text()
    for authors, year in cite_papers.PAPERS.values():
        assert f"{authors} ({year})" in references
