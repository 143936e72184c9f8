#!/usr/bin/env python3
"""Replace the project's internal paper numbers ("paper 002") by author–year citations.

The papers the toolkit implements were numbered 000–004 after the files of a folder that installed copies do
not have.  This script rewrites every such reference as a citation that resolves through the bibliography
(``docs/references.md``):

========================================  =====================================================
before                                    after
========================================  =====================================================
``paper 002``                             ``Wang, Ying & Zhang (2016)``
``paper 002, Theorem 1``                  ``Wang, Ying & Zhang (2016), Theorem 1``
``(paper 002)``                           ``(Wang, Ying & Zhang 2016)``
``(paper 002, Lemma 3)``                  ``(Wang, Ying & Zhang 2016, Lemma 3)``
``papers 000, 001``                       ``Wu, Xia & He (2020, 2017)``
``(papers 002 and 004; …)``               ``(Wang, Ying & Zhang 2016; Wu 2019b; …)``
``papers 000 §4–5, 004``                  ``Wu, Xia & He (2020), §4–5 and Wu (2019b)``
``the paper-002 programs``                ``the Wang, Ying & Zhang (2016) programs``
``(paper 000, §6–7; paper 003)``          ``(Wu, Xia & He 2020, §6–7; Wu 2019a)``
``paper 002 (Wang, Ying, Zhang)``         ``Wang, Ying & Zhang (2016)``
========================================  =====================================================

A reference directly after an opening parenthesis, or after "; " inside one, is written in the
parenthetical form (no inner parentheses); every other one in the narrative form.

Usage::

    python tools/cite_papers.py                 # rewrite the default tree in place (problems, ipopt_models,
                                                # docs, README.md, tests, examples, benchmarks)
    python tools/cite_papers.py FILE_OR_DIR...  # only these
    python tools/cite_papers.py --check [...]   # list what remains; exit 1 if anything does
    python tools/cite_papers.py --diff [...]    # show what would change, write nothing

``--check`` also lists mentions of the papers' folder (``../shared``), which need a hand edit.
Re-running is harmless: a rewritten file has nothing left to rewrite.  Citations are longer than paper
numbers, so run ``ruff format`` on the rewritten Python files afterwards.  Paths are resolved from the
repository root, wherever the script is run from.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import tempfile
from pathlib import Path

__all__ = ["PAPERS", "cite", "rewrite", "remaining", "main"]

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TARGETS = ("problems", "ipopt_models", "docs", "README.md", "tests", "examples", "benchmarks")
SUFFIXES = {".py", ".md", ".rst", ".txt", ".toml", ".cff"}
SKIP_DIRS = {"_build", "generated", "gallery", "__pycache__", ".ipynb_checkpoints"}

#: number → (authors, year label); the full entries are in docs/references.md.
PAPERS: dict[str, tuple[str, str]] = {
    "000": ("Wu, Xia & He", "2020"),
    "001": ("Wu, Xia & He", "2017"),
    "002": ("Wang, Ying & Zhang", "2016"),
    "003": ("Wu", "2019a"),
    "004": ("Wu", "2019b"),
}

_NUM = r"00[0-4]"
_LOCATOR = r"§\s?[0-9][0-9.–-]*"
_ITEM = rf"{_NUM}(?:\s{_LOCATOR})?"
#: "paper 002", "Paper 002", "paper-002", "papers 000, 001 and 003", "papers 000 §4–5, 004"
PATTERN = re.compile(
    rf"(?P<open>\(|;\s)?(?P<kw>\b[Pp]apers?)(?:[ -]|\xa0)"
    rf"(?P<items>{_ITEM}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s*/\s*){_ITEM})*)\b"
    r"(?P<authors>\s\((?:Wang, Ying,? (?:and |& )?Zhang|Wu, Xia,? (?:and |& )?He|Wu)\))?"
)
#: what --check reports besides citations: paths of the papers' folder
PATH_PATTERN = re.compile(r"\.\./shared\b")


def _group(items: list[tuple[str, str]]) -> list[tuple[str, list[str], list[str]]]:
    """Consecutive items by the same authors, as (authors, years, locators)."""
    groups: list[tuple[str, list[str], list[str]]] = []
    for num, locator in items:
        authors, year = PAPERS[num]
        if groups and groups[-1][0] == authors and not groups[-1][2] and not locator:
            groups[-1][1].append(year)
        else:
            groups.append((authors, [year], [locator] if locator else []))
    return groups


def cite(numbers: list[str] | str, *, parenthetical: bool = False, locators: list[str] | None = None) -> str:
    """The citation of one paper number or a list of them.

    >>> cite("002")
    'Wang, Ying & Zhang (2016)'
    >>> cite(["000", "001", "003", "004"])
    'Wu, Xia & He (2020, 2017) and Wu (2019a, 2019b)'
    >>> cite(["002", "004"], parenthetical=True)
    'Wang, Ying & Zhang 2016; Wu 2019b'
    """
    if isinstance(numbers, str):
        numbers = [numbers]
    locators = locators or [""] * len(numbers)
    parts = []
    for authors, years, locs in _group(list(zip(numbers, locators, strict=True))):
        loc = f", {locs[0]}" if locs else ""
        if parenthetical:
            parts.append(f"{authors} {', '.join(years)}{loc}")
        else:
            parts.append(f"{authors} ({', '.join(years)}){loc}")
    if parenthetical:
        return "; ".join(parts)
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _replace(match: re.Match) -> str:
    items = re.findall(rf"({_NUM})(?:\s({_LOCATOR}))?", match["items"])
    numbers = [n for n, _ in items]
    locators = [loc for _, loc in items]
    opener = match["open"] or ""
    if opener == "(":
        parenthetical = True
    elif opener:  # "; paper 003" inside an open parenthesis is one more item of a parenthetical list
        line = match.string[match.string.rfind("\n", 0, match.start()) + 1 : match.start()]
        parenthetical = line.count("(") > line.count(")")
    else:
        parenthetical = False
    # a list of the authors right after the number, "paper 002 (Wang, Ying, Zhang)", is dropped: the
    # citation names them
    return opener + cite(numbers, parenthetical=parenthetical, locators=locators)


def rewrite(text: str) -> str:
    """``text`` with every paper-number reference replaced by its citation."""
    return PATTERN.sub(_replace, text)


def remaining(text: str) -> list[tuple[int, str]]:
    """(line number, line) of every paper-number reference or ``../shared`` path left in ``text``."""
    return [
        (k, line.strip())
        for k, line in enumerate(text.splitlines(), start=1)
        if PATTERN.search(line) or PATH_PATTERN.search(line)
    ]


def _files(targets: list[str]) -> list[Path]:
    files: list[Path] = []
    for target in targets:
        path = Path(target)
        if not path.is_absolute():
            path = ROOT / path
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            for p in sorted(path.rglob("*")):
                if p.is_file() and p.suffix in SUFFIXES and not SKIP_DIRS.intersection(p.parts):
                    files.append(p)
        else:
            raise SystemExit(f"cite_papers: no such file or directory: {target}")
    return files


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", help=f"files or folders (default: {' '.join(DEFAULT_TARGETS)})")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="list what remains; exit 1 if anything does")
    mode.add_argument("--diff", action="store_true", help="print the changes as a diff, write nothing")
    args = parser.parse_args(argv)

    files = _files(args.targets or list(DEFAULT_TARGETS))
    found = changed = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        if args.check:
            for lineno, line in remaining(text):
                print(f"{rel}:{lineno}: {line}")
                found += 1
            continue
        new = rewrite(text)
        if new == text:
            continue
        changed += 1
        if args.diff:
            sys.stdout.writelines(
                difflib.unified_diff(
                    text.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{rel}", f"b/{rel}"
                )
            )
        else:
            _write_atomic(path, new)
            print(f"rewrote {rel}")
    if args.check:
        print(f"{found} reference(s) left in {len(files)} file(s)", file=sys.stderr)
        return 1 if found else 0
    if not args.diff:
        print(f"{changed} of {len(files)} file(s) rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
