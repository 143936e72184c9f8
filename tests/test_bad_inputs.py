"""The bad-input catalogue (``tests/bad_input_catalogue.py``): every case ends in its exit code or exception.

Command-line cases run in-process through ``main(argv)`` (stdout and stderr captured), Python cases with
``exec``; each must give the expected exit code or exception, a message matching the case's pattern, no
traceback, nothing on stdout for a refusal, no file left behind, within the ceilings (5 s, 1.5 GiB traced).
A sample runs as a real ``python -m …`` subprocess limited to 1.5 GiB of address space (``RLIMIT_AS``).

``python benchmarks/bad_inputs.py`` measures every case and rewrites the table of ``docs/errors.md``; a test
keeps the table's rows equal to the catalogue.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bad_input_catalogue import (  # noqa: E402
    API_CASES,
    BUDGET,
    CLI_CASES,
    MEMORY_LIMIT,
    ROOT,
    WALL_LIMIT,
    Case,
    argv_of,
    doc_rows,
    listing,
    make_files,
    row_key,
    run_api,
    run_cli_inprocess,
    subprocess_env,
    table_row,
)

#: Every k-th command-line case also runs in a real subprocess (plus those marked ``subprocess=True``).
SAMPLE_EVERY = 12
SUBPROCESS_CASES = [c for k, c in enumerate(CLI_CASES) if c.subprocess or k % SAMPLE_EVERY == 0]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    return make_files(tmp_path_factory.mktemp("bad_inputs"))


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """Import the heavy modules once, outside the timed and traced region of every case."""
    import cvxpy  # noqa: F401
    import scipy.optimize  # noqa: F401
    import scipy.sparse  # noqa: F401

    import ipopt_models.cli  # noqa: F401
    import problems.cli
    import problems.model.cli  # noqa: F401
    import problems.sweep.runner  # noqa: F401

    for command in ("solve", "constants", "curve", "design", "sweep", "model", "capacity", "calibrate"):
        problems.cli.build_parser(command)


def _check_text(case: Case, text: str) -> None:
    assert "Traceback" not in text and "MemoryError" not in text, text
    assert re.search(case.match, text), (case.match, text)
    for bad in (*case.not_match, "np.float64("):
        assert bad not in text, text


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_cli_case(case: Case, files: Path, monkeypatch) -> None:
    monkeypatch.setenv("PRIVACY_PROBLEMS_MEMORY_LIMIT", BUDGET)
    before = listing(files)
    out = run_cli_inprocess(case, files)
    assert out.code == case.expect, (out.code, out.text)
    _check_text(case, out.text if case.expect != 0 else out.stdout + out.text)  # an answer: its output
    if case.expect != 0:
        assert out.text.startswith("error: ") or "\nerror: " in out.text, out.text
        assert out.stdout == "", out.stdout  # nothing printed as if it were a result
    assert listing(files) == before  # nothing written, not even a directory
    assert out.seconds < WALL_LIMIT, f"{case.id}: {out.seconds:.2f} s"
    assert out.peak < MEMORY_LIMIT, f"{case.id}: {out.peak / 2**20:.0f} MiB"


@pytest.mark.parametrize("case", API_CASES, ids=[c.id for c in API_CASES])
def test_api_case(case: Case, files: Path, monkeypatch) -> None:
    monkeypatch.setenv("PRIVACY_PROBLEMS_MEMORY_LIMIT", BUDGET)
    before = listing(files)
    out = run_api(case, files)
    assert out.code == case.expect, (out.code, out.text)
    _check_text(case, out.text)
    assert listing(files) == before
    assert out.seconds < WALL_LIMIT, f"{case.id}: {out.seconds:.2f} s"
    assert out.peak < MEMORY_LIMIT, f"{case.id}: {out.peak / 2**20:.0f} MiB"


def _limit_memory() -> None:  # runs in the child before exec
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.mark.parametrize("case", SUBPROCESS_CASES, ids=[c.id for c in SUBPROCESS_CASES])
def test_cli_case_in_a_subprocess(case: Case, files: Path) -> None:
    """The real command line: a fresh interpreter, 1.5 GiB of address space, the exit code of the process."""
    env = subprocess_env()
    before = listing(files)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, *argv_of(case, files)],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=_limit_memory,
        cwd=ROOT,
        timeout=60,
    )
    wall = time.perf_counter() - start
    assert proc.returncode == case.expect, (proc.returncode, proc.stderr)
    _check_text(case, proc.stderr if case.expect != 0 else proc.stdout + proc.stderr)
    if case.expect != 0:
        assert proc.stdout == "", proc.stdout
    assert listing(files) == before
    assert wall < WALL_LIMIT, f"{case.id}: {wall:.2f} s"


def test_catalogue_size_and_ids() -> None:
    assert len(CLI_CASES) + len(API_CASES) >= 150
    ids = [c.id for c in CLI_CASES + API_CASES]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    assert len(SUBPROCESS_CASES) >= 10


def test_docs_table_is_generated_from_the_catalogue() -> None:
    """docs/errors.md lists every case, in order, as the catalogue says (regenerate: benchmarks/bad_inputs.py)."""
    want = [row_key(table_row(c)) for c in CLI_CASES + API_CASES]
    got = [row_key(r) for r in doc_rows()]
    assert got == want, "regenerate with: python benchmarks/bad_inputs.py"


@pytest.mark.parametrize("name", ["eps_X", "eps_tilde", "feasibility_polynomials"])
def test_prior_constants_refuse_a_bare_list_with_a_typed_error(name):
    """A list has no database space (which neighbours to compare would be a guess): a typed error, not an
    AttributeError."""
    import problems.prior_constants as pc
    from problems.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match=r"takes a problems\.priors\.Prior, got list"):
        getattr(pc, name)([0.5, 0.5])
