"""The catalogue of bad inputs: command lines and Python calls, each with the exit code or exception it must end in.

Every case is a :class:`Case`: ``argv`` for a command line (``python -m problems …`` or
``python -m ipopt_models …``; ``{d}`` is the fixture directory :func:`make_files` fills) or ``code`` for a
Python call (run with the names of :func:`scope` in scope).  ``expect`` is the exit code (0 for an input that
used to fail and is now answered, 2 bad input, 4 too large) or the exception class name (``"ok"``: returns).

``tests/test_bad_inputs.py`` runs every case (command lines in-process through ``main(argv)``, a sample in a
real subprocess); ``benchmarks/bad_inputs.py`` measures each case's time and peak memory and writes the table
of ``docs/errors.md`` from this list.
"""

from __future__ import annotations

import contextlib
import io
import os
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: Ceilings of every case: wall time (s) and memory (bytes: traced allocations in-process, address space in a
#: subprocess).  Generous on purpose: the measured values are in docs/errors.md.
WALL_LIMIT = 5.0
MEMORY_LIMIT = 1536 * 2**20
BUDGET = "4G"  # PRIVACY_PROBLEMS_MEMORY_LIMIT: refusals do not depend on the machine


@dataclass(frozen=True)
class Case:
    """One bad input: ``argv`` for the command line (``{d}`` is the fixture directory) or ``code`` for Python."""

    id: str
    what: str
    expect: int | str  # exit code (CLI) or exception class name (Python; "ok": no exception)
    match: str  # regular expression the message (stderr, or str(exception)) must contain
    argv: tuple[str, ...] = ()
    code: str = ""
    not_match: tuple[str, ...] = field(default=())
    subprocess: bool = False  # always in the subprocess sample (process-wide state: warnings, imports)


P = ("-m", "problems")
Q = ("-m", "ipopt_models")
S = (*P, "solve")
N3 = ("--n", "3", "--m", "2")

CLI_CASES: list[Case] = [
    # --- numbers
    Case(
        "curve-points-0",
        "`curve --points 0`",
        2,
        r"--points: must be an integer ≥ 1, got 0",
        (*P, "curve", *N3, "--notion", "d", "--points", "0", "--out", "{d}/new"),
    ),
    Case(
        "curve-points-neg",
        "`curve --points -5`",
        2,
        r"--points: must be an integer ≥ 1, got -5",
        (*P, "curve", *N3, "--notion", "d", "--points", "-5", "--out", "{d}/new"),
    ),
    Case(
        "eps-nan",
        "`--eps nan`",
        2,
        r"ε must be a finite number ≥ 0 \(nats\), got 'nan'",
        (*S, "pd-i", *N3, "--eps", "nan"),
    ),
    Case("eps-inf", "`--eps inf`", 2, r"ε must be a finite number ≥ 0", (*S, "pd-dp", *N3, "--eps", "inf")),
    Case(
        "eps-negative",
        "`--eps -1`",
        2,
        r"ε must be a finite number ≥ 0.*got '-1'",
        (*S, "pd-dp", *N3, "--eps", "-1"),
    ),
    Case(
        "eps-text",
        "`--eps abc`",
        2,
        r"ε must be a finite number ≥ 0.*'abc'",
        (*S, "r-pd", *N3, "--eps", "abc"),
    ),
    Case(
        "n-zero",
        "`--n 0`",
        2,
        r"--n: must be an integer ≥ 1, got 0",
        (*S, "pd-i", "--n", "0", "--m", "2", "--eps", "1"),
    ),
    Case(
        "n-text",
        "`--n three`",
        2,
        r"--n: must be an integer ≥ 1, got 'three'",
        (*S, "pd-i", "--n", "three", "--m", "2", "--eps", "1"),
    ),
    Case(
        "m-one",
        "`--m 1`",
        2,
        r"m must be an integer ≥ 2, got 1",
        (*S, "pd-i", "--n", "3", "--m", "1", "--eps", "1"),
    ),
    Case(
        "distortion-above-n",
        "`pd-mip --distortion 5` with n = 3",
        2,
        r"\[0, n\] = \[0, 3\].*got 5",
        (*S, "pd-mip", *N3, "--distortion", "5"),
    ),
    Case(
        "distortion-nan",
        "`pd-mip --distortion nan`",
        2,
        r"D must be a finite number in \[0, n\], got 'nan'",
        (*S, "pd-mip", *N3, "--distortion", "nan"),
    ),
    # --- options that do not apply
    Case(
        "distortion-with-pd-i",
        "`--distortion` with PD-I",
        2,
        r"--distortion does not apply to pd-i",
        (*S, "pd-i", *N3, "--eps", "1", "--distortion", "0.5"),
    ),
    Case(
        "bits-with-pd-i",
        "`--bits` with PD-I",
        2,
        r"--unit bits does not apply to pd-i",
        (*S, "pd-i", *N3, "--eps", "1", "--bits"),
    ),
    Case(
        "unit-with-pd-dp",
        "`--unit bits` with PD-DP",
        2,
        r"--unit bits does not apply to pd-dp",
        (*S, "pd-dp", *N3, "--eps", "1", "--unit", "bits"),
    ),
    Case(
        "eps-with-pd-mip",
        "`--eps` with PD-MIP",
        2,
        r"--eps does not apply to pd-mip",
        (*S, "pd-mip", *N3, "--distortion", "0.5", "--eps", "1"),
    ),
    Case(
        "theorem-with-pd-mip",
        "`--method theorem` with PD-MIP",
        2,
        r"--method theorem does not apply to pd-mip",
        (*S, "pd-mip", *N3, "--distortion", "0.5", "--method", "theorem"),
    ),
    Case("pd-i-without-eps", "PD-I without `--eps`", 2, r"pd-i takes --eps", (*S, "pd-i", *N3)),
    Case(
        "export-level-without-export",
        "`--export-level types` without `--export`",
        2,
        r"--export-level types does not apply.*needs --export",
        (*S, "pd-i", *N3, "--eps", "1", "--export-level", "types"),
    ),
    Case(
        "outputs-with-identity",
        "`design --outputs` with the identity query",
        2,
        r"--outputs does not apply to the identity query",
        (*P, "design", "--query", "identity", "--n", "2", "--eps", "0.5", "--outputs", "3"),
    ),
    Case(
        "unknown-solver",
        "`--solver NOPE`",
        2,
        r"unknown solver 'NOPE'; valid solvers are clarabel",
        (*S, "pd-dp", *N3, "--eps", "1", "--solver", "NOPE"),
    ),
    Case(
        "unknown-option",
        "an unknown option",
        2,
        r"unrecognized arguments: --epsilon",
        (*S, "pd-dp", *N3, "--epsilon", "1"),
    ),
    Case("unknown-command", "an unknown subcommand", 2, r"invalid choice: 'solv'", (*P, "solv")),
    # --- prior specs
    Case(
        "prior-rounded-thirds",
        "`iid:0.3333,0.3333,0.3333` (off by 1e-4)",
        2,
        r"sums to 0\.9999; .*fractions, e\.g\. 1/3",
        (*S, "pd-i", "--n", "2", "--m", "3", "--prior", "iid:0.3333,0.3333,0.3333", "--eps", "2"),
    ),
    Case(
        "prior-sum",
        "`iid:0.5,0.6`",
        2,
        r"sums to 1\.1",
        (*S, "pd-dp", *N3, "--prior", "iid:0.5,0.6", "--eps", "1"),
    ),
    Case(
        "prior-nan",
        "`iid:nan,0.5`",
        2,
        r"non-finite entry nan at index 0",
        (*S, "pd-dp", *N3, "--prior", "iid:nan,0.5", "--eps", "1"),
        not_match=("np.float64",),
    ),
    Case(
        "prior-inf",
        "`pmf:` with `inf`",
        2,
        r"non-finite entry inf",
        (*S, "pd-dp", "--n", "1", "--m", "2", "--prior", "pmf:inf,0", "--eps", "1"),
    ),
    Case(
        "prior-negative",
        "a negative mass",
        2,
        r"negative entry -0\.1",
        (*S, "pd-dp", "--n", "2", "--m", "2", "--prior", "pmf:0.5,0.6,-0.1,0", "--eps", "1"),
    ),
    Case(
        "prior-length",
        "`iid:` of the wrong length",
        2,
        r"needs 2 probabilities \(m = 2\), got 3",
        (*S, "pd-dp", *N3, "--prior", "iid:0.2,0.3,0.5", "--eps", "1"),
    ),
    Case(
        "prior-zero-division",
        "`iid:1/0,1`",
        2,
        r"'1/0' is not a number",
        (*S, "pd-dp", *N3, "--prior", "iid:1/0,1", "--eps", "1"),
    ),
    Case(
        "prior-unknown",
        "an unknown prior kind",
        2,
        r"unknown .*prior spec 'gauss:1'",
        (*S, "pd-dp", *N3, "--prior", "gauss:1", "--eps", "1"),
    ),
    Case(
        "prior-empty",
        "an empty prior spec",
        2,
        r"prior spec is empty|unknown",
        (*S, "pd-dp", *N3, "--prior", "", "--eps", "1"),
    ),
    Case(
        "contagious-weight",
        "`contagious:2`",
        2,
        r"contagious weight must be in \[0, 1\], got 2\.0",
        (*S, "pd-dp", *N3, "--prior", "contagious:2", "--eps", "1"),
    ),
    # --- prior files
    Case(
        "prior-file-empty-npy",
        "an empty `.npy` prior",
        2,
        r"prior file '.*empty\.npy' is empty",
        (*S, "pd-i", *N3, "--prior", "file:{d}/empty.npy", "--eps", "1"),
    ),
    Case(
        "prior-file-garbled-npy",
        "a garbled `.npy` prior",
        2,
        r"is not a NumPy \.npy file.*numpy\.save",
        (*S, "pd-i", *N3, "--prior", "file:{d}/garbled.npy", "--eps", "1"),
        not_match=("allow_pickle",),
    ),
    Case(
        "prior-file-pickled-npy",
        "an object (pickled) `.npy` prior",
        2,
        r"Python objects \(pickled data\)",
        (*S, "pd-i", *N3, "--prior", "file:{d}/pickled.npy", "--eps", "1"),
        not_match=("allow_pickle=True",),
    ),
    Case(
        "prior-file-truncated-npy",
        "a truncated `.npy` prior",
        2,
        r"truncated or damaged|not a valid \.npy",
        (*S, "pd-i", *N3, "--prior", "file:{d}/truncated.npy", "--eps", "1"),
    ),
    Case(
        "prior-file-empty-csv",
        "an empty `.csv` prior",
        2,
        r"is empty",
        (*S, "pd-i", *N3, "--prior", "file:{d}/empty.csv", "--eps", "1"),
    ),
    Case(
        "prior-file-garbled-csv",
        "a garbled `.csv` prior",
        2,
        r"entry 1 is 'abc', not a number",
        (*S, "pd-i", *N3, "--prior", "file:{d}/garbled.csv", "--eps", "1"),
    ),
    Case(
        "prior-file-nan-csv",
        "a `.csv` prior with NaN",
        2,
        r"non-finite entry nan at index 2",
        (*S, "pd-i", *N3, "--prior", "file:{d}/nan.csv", "--eps", "1"),
    ),
    Case(
        "prior-file-garbled-json",
        "a garbled `.json` prior",
        2,
        r"is not valid JSON",
        (*S, "pd-i", *N3, "--prior", "file:{d}/garbled.json", "--eps", "1"),
    ),
    Case(
        "prior-file-json-key",
        "a `.json` prior without `pmf`",
        2,
        r"without the key 'pmf'",
        (*S, "pd-i", *N3, "--prior", "file:{d}/nokey.json", "--eps", "1"),
    ),
    Case(
        "prior-file-length",
        "a prior file of the wrong length",
        2,
        r"shape \(8,\) or .*got \(4,\)",
        (*S, "pd-i", *N3, "--prior", "file:{d}/four.npy", "--eps", "1"),
    ),
    Case(
        "prior-file-missing",
        "a missing prior file",
        2,
        r"prior file '.*nope\.npy' does not exist",
        (*S, "pd-i", *N3, "--prior", "file:{d}/nope.npy", "--eps", "1"),
    ),
    Case(
        "prior-file-suffix",
        "a prior file with another suffix",
        2,
        r"must end in \.npy, \.csv or \.json",
        (*S, "pd-i", *N3, "--prior", "file:{d}/prior.txt", "--eps", "1"),
    ),
    # --- output paths (checked before solving; nothing written)
    Case(
        "export-proc",
        "`--export` into `/proc`",
        2,
        r"--export: cannot write in directory '/proc'",
        (*S, "pd-i", *N3, "--prior", "iid:0.3,0.7", "--eps", "1.5", "--export", "/proc/W.json"),
    ),
    Case(
        "export-under-file",
        "`--export` under an existing file",
        2,
        r"is a file, so .* cannot be created",
        (*S, "pd-i", *N3, "--eps", "1.5", "--export", "{d}/afile/W.json"),
    ),
    Case(
        "export-missing-dir",
        "`--export` into a missing directory",
        2,
        r"directory '.*missing' does not exist",
        (*S, "pd-i", *N3, "--eps", "1.5", "--export", "{d}/missing/W.json"),
    ),
    Case(
        "export-suffix",
        "`--export` with an unknown suffix",
        2,
        r"must end in one of \.npy, \.csv, \.json",
        (*S, "pd-i", *N3, "--eps", "1.5", "--export", "{d}/W.txt"),
    ),
    Case(
        "export-is-dir",
        "`--export` naming a directory",
        2,
        r"is a directory",
        (*S, "pd-i", *N3, "--eps", "1.5", "--export", "{d}/adir.json"),
    ),
    Case(
        "export-type-level",
        "`--export` of a reduced result with N > 4096",
        2,
        r"--export-level types",
        (*S, "pd-dp", "--n", "200", "--m", "2", "--eps", "1", "--export", "{d}/W.json"),
    ),
    Case(
        "curve-out-file",
        "`curve --out` an existing file",
        2,
        r"--out: '.*afile' is an existing file",
        (*P, "curve", *N3, "--notion", "d", "--out", "{d}/afile"),
    ),
    Case(
        "curve-out-under-file",
        "`curve --out` under an existing file",
        2,
        r"is a file, so",
        (*P, "curve", *N3, "--notion", "d", "--out", "{d}/afile/sub"),
    ),
    Case(
        "design-export-proc",
        "`design --export` into `/proc`",
        2,
        r"cannot write in directory '/proc'",
        (*P, "design", "--n", "2", "--eps", "0.5", "--export", "/proc/W.csv"),
    ),
    # --- too large: refused within a second, with the estimate and the alternative
    Case(
        "dense-n30",
        "`solve --formulation dense --n 30`",
        4,
        r"N ≤ 4096.*reduced",
        (
            *S,
            "pd-dp",
            "--n",
            "30",
            "--m",
            "2",
            "--prior",
            "iid:0.3,0.7",
            "--eps",
            "1",
            "--formulation",
            "dense",
        ),
    ),
    Case(
        "file-prior-n12",
        "a file prior at n = 12 (N = 4096)",
        4,
        r"would need about .*GiB.*reduced program",
        (*S, "pd-i", "--n", "12", "--m", "2", "--prior", "file:{d}/p4096.npy", "--eps", "1"),
    ),
    Case(
        "explicit-prior-n13",
        "an explicit prior at n = 13",
        4,
        r"N ≤ 4096",
        (*S, "pd-i", "--n", "13", "--m", "2", "--prior", "file:{d}/p4096.npy", "--eps", "1"),
    ),
    Case(
        "constants-explicit-n30",
        "`constants --n 30` with an explicit prior",
        4,
        r"would need about .*GiB",
        (*P, "constants", "--n", "30", "--m", "2", "--prior", "file:{d}/p4096.npy"),
    ),
    Case(
        "reduced-lp-n400",
        "`solve pd-dp --n 400 --prior iid:0.3,0.7 --method lp` (10.8 M joint types)",
        4,
        r"reduced LP \(10827401 joint-type variables\) would need about",
        (*S, "pd-dp", "--n", "400", "--m", "2", "--prior", "iid:0.3,0.7", "--eps", "1", "--method", "lp"),
    ),
    Case(
        "design-identity-n8",
        "`design --query identity --n 8`",
        4,
        r"design program .*would need about",
        (*P, "design", "--query", "identity", "--n", "8", "--eps", "0.5"),
    ),
    Case(
        "pd-mip-dense-n12",
        "dense PD-MIP at n = 12 (explicit prior)",
        4,
        r"would need about",
        (*S, "pd-mip", "--n", "12", "--m", "2", "--prior", "file:{d}/p4096.npy", "--distortion", "1"),
    ),
    # --- channels (information privacy)
    Case(
        "channel-empty",
        "`capacity` with an empty `.npy`",
        2,
        r"channel file '.*empty\.npy' is empty",
        (*P, "capacity", "--channel", "{d}/empty.npy"),
    ),
    Case(
        "channel-garbled",
        "`capacity` with a garbled `.npy`",
        2,
        r"not a NumPy \.npy file",
        (*P, "capacity", "--channel", "{d}/garbled.npy"),
        not_match=("allow_pickle",),
    ),
    Case(
        "channel-not-stochastic",
        "a channel whose rows do not sum to 1",
        2,
        r"sum|pmf",
        (*P, "capacity", "--channel", "{d}/badchannel.npy"),
    ),
    Case(
        "channel-nan",
        "a channel with NaN",
        2,
        r"non-finite|NaN|nan",
        (*P, "capacity", "--channel", "{d}/nanchannel.npy"),
    ),
    Case(
        "channel-missing",
        "a missing channel file",
        2,
        r"does not exist",
        (*P, "capacity", "--channel", "{d}/nope.npy"),
    ),
    Case(
        "capacity-tol",
        "`capacity --tol 0`",
        2,
        r"--tol: must be a finite number > 0",
        (*P, "capacity", "--channel", "{d}/rr.npy", "--tol", "0"),
    ),
    Case(
        "calibrate-no-k",
        "`calibrate exponential` without `--k`",
        2,
        r"needs --k K",
        (*P, "calibrate", "exponential", "--eps", "0.5"),
    ),
    Case(
        "calibrate-eps-nan",
        "`calibrate --eps nan`",
        2,
        r"must be a finite number, got 'nan'",
        (*P, "calibrate", "randomized-response", "--eps", "nan"),
    ),
    # --- ipopt_models
    Case(
        "ipopt-distortion-nan",
        "`ipopt_models pd-mip --distortion nan`",
        2,
        r"D must be a finite number",
        (*Q, "pd-mip", "--distortion", "nan"),
    ),
    Case(
        "ipopt-unit-bilinear",
        "`ipopt_models bilinear-pd --unit bits`",
        2,
        r"--unit bits does not apply to bilinear-pd",
        (*Q, "bilinear-pd", "--eps", "1", "--unit", "bits"),
    ),
    Case(
        "ipopt-prior-r-pd",
        "`bilinear-pd --program r-pd --prior …`",
        2,
        r"--prior does not apply to --program r-pd",
        (*Q, "bilinear-pd", "--program", "r-pd", "--prior", "iid:0.3,0.7", "--eps", "1"),
    ),
    Case(
        "ipopt-random-spec",
        "`capacity --random x:y`",
        2,
        r"--random takes SIZES:K",
        (*Q, "capacity", "--random", "x:y"),
    ),
    Case(
        "ipopt-starts-0",
        "`--starts 0`",
        2,
        r"--starts: must be an integer ≥ 1, got 0",
        (*Q, "pd-mip", "--distortion", "0.3", "--starts", "0"),
    ),
    Case(
        "ipopt-seed-negative",
        "`--seed -1`",
        2,
        r"--seed: must be an integer ≥ 0, got -1",
        (*Q, "pd-mip", "--distortion", "0.3", "--seed", "-1"),
    ),
    Case(
        "ipopt-channel-garbled",
        "`ipopt_models capacity` with a garbled `.npy`",
        2,
        r"not a NumPy \.npy file",
        (*Q, "capacity", "--channel", "{d}/garbled.npy"),
    ),
    Case(
        "ipopt-distortion-above-n",
        "`ipopt_models pd-mip --distortion 3` with n = 2",
        2,
        r"\[0, 2\]",
        (*Q, "pd-mip", "--n", "2", "--distortion", "3"),
    ),
    Case(
        "ipopt-dense-n13",
        "`ipopt_models pd-mip -n 13`",
        4,
        r"N ≤ 4096",
        (*Q, "pd-mip", "-n", "13", "--distortion", "1"),
    ),
    Case(
        "ipopt-random-huge",
        "`capacity --random 1000,1000,1000:10`",
        4,
        r"would need about",
        (*Q, "capacity", "--random", "1000,1000,1000:10"),
    ),
]

API_CASES: list[Case] = [
    Case(
        "api-export-matrix",
        "`export_mechanism(ndarray)` not row-stochastic",
        "InvalidMechanismError",
        r"row 0 sums to 2",
        code="export_mechanism(np.ones((2, 2)), D / 'W.json')",
    ),
    Case(
        "api-export-proc",
        "`export_mechanism(…, '/proc/W.json')`",
        "InvalidInputError",
        r"cannot write '/proc/W.json'",
        code="export_mechanism(np.eye(2), '/proc/W.json')",
    ),
    Case(
        "api-export-text",
        "`export_mechanism('abc', …)`",
        "InvalidInputError",
        r"takes a Mechanism",
        code="export_mechanism('abc', D / 'W.json')",
    ),
    Case(
        "api-pdi-list",
        "`PDI([0.5, 0.5])`",
        "InvalidPriorError",
        r"PD-I takes a problems\.priors\.Prior, got list",
        code="PDI([0.5, 0.5])",
    ),
    Case(
        "api-pddp-array",
        "`PDDP(ndarray)`",
        "InvalidPriorError",
        r"PD-DP takes .*got ndarray",
        code="PDDP(np.ones(4) / 4)",
    ),
    Case("api-pdmip-list", "`PDMIP([…])`", "InvalidPriorError", r"PD-MIP takes", code="PDMIP([1.0])"),
    Case(
        "api-h-negative",
        "`h(-1, 3, 2)`",
        "InvalidPrivacyLevelError",
        r"ε ≥ 0, got ε = -1\.0",
        code="h(-1, 3, 2)",
    ),
    Case(
        "api-h-nan",
        "`h(nan, 3, 2)`",
        "InvalidPrivacyLevelError",
        r"got ε = nan",
        code="h(float('nan'), 3, 2)",
    ),
    Case(
        "api-h-inv-negative",
        "`h_inv(-0.5, 3, 2)`",
        "InvalidDistortionError",
        r"\[0, 3\], got D = -0\.5",
        code="h_inv(-0.5, 3, 2)",
    ),
    Case(
        "api-h-inv-above-n",
        "`h_inv(4, 3, 2)`",
        "InvalidDistortionError",
        r"got D = 4\.0",
        code="h_inv(4, 3, 2)",
    ),
    Case(
        "api-iid-nan",
        "`iid(space, [nan, 0.5])`",
        "InvalidPriorError",
        r"non-finite entry nan at index 0",
        code="priors.iid(DatabaseSpace(2, 2), [np.float64('nan'), 0.5])",
    ),
    Case(
        "api-from-pmf-text",
        "`from_pmf(space, 'abc')`",
        "InvalidPriorError",
        r"array of numbers, got str",
        code="priors.from_pmf(DatabaseSpace(1, 2), 'abc')",
    ),
    Case(
        "api-space-n0",
        "`DatabaseSpace(0, 2)`",
        "InvalidInputError",
        r"n must be an integer ≥ 1, got 0",
        code="DatabaseSpace(0, 2)",
    ),
    Case(
        "api-space-float",
        "`DatabaseSpace(2, 2.5)`",
        "InvalidInputError",
        r"m must be an integer ≥ 2, got 2\.5",
        code="DatabaseSpace(2, 2.5)",
    ),
    Case(
        "api-mechanism-ragged",
        "`Mechanism([[1, 0], [0.5]])`",
        "InvalidMechanismError",
        r"2-D matrix of numbers",
        code="Mechanism([[1, 0], [0.5]])",
    ),
    Case(
        "api-mechanism-inf",
        "`Mechanism` with `inf`",
        "InvalidMechanismError",
        r"non-finite entry inf at row 1, column 0",
        code="Mechanism(np.array([[1.0, 0.0], [np.inf, 0.0]]))",
    ),
    Case(
        "api-curve-points",
        "`privacy_distortion_curve(…, points=0)`",
        "InvalidInputError",
        r"points must be an integer ≥ 1",
        code="privacy_distortion_curve(priors.uniform(DatabaseSpace(2, 2)), 'd', points=0)",
    ),
    Case(
        "api-solve-nan",
        "`PDI(prior).solve(nan)`",
        "InvalidPrivacyLevelError",
        r"must be ≥ 0, got nan",
        code="PDI(priors.uniform(DatabaseSpace(2, 2))).solve(np.float64('nan'))",
    ),
    Case(
        "api-pdmip-negative",
        "`PDMIP(prior).solve(-1)`",
        "InvalidDistortionError",
        r"\[0, n\] = \[0, 2\], got -1",
        code="PDMIP(priors.uniform(DatabaseSpace(2, 2))).solve(-1)",
    ),
    Case(
        "api-load-channel",
        "`load_channel(garbled.npy)`",
        "InvalidChannelError",
        r"not a NumPy \.npy file",
        code="load_channel(D / 'garbled.npy')",
    ),
    Case(
        "api-from-file-empty",
        "`from_file(space, empty.npy)`",
        "InvalidPriorError",
        r"is empty",
        code="priors.from_file(DatabaseSpace(2, 2), D / 'empty.npy')",
    ),
    Case(
        "api-make-program",
        "`make_program('pd-x', …)`",
        "InvalidInputError",
        r"unknown program 'pd-x'",
        code="make_program('pd-x', priors.uniform(DatabaseSpace(2, 2)))",
    ),
    Case(
        "api-memory-env",
        "`$PRIVACY_PROBLEMS_MEMORY_LIMIT=lots`",
        "InvalidInputError",
        r"must be a positive size",
        code="os.environ['PRIVACY_PROBLEMS_MEMORY_LIMIT'] = 'lots'\ntry:\n    memory_budget()\n"
        "finally:\n    os.environ['PRIVACY_PROBLEMS_MEMORY_LIMIT'] = '4G'",
    ),
    Case(
        "api-dense-too-large",
        "`PDI(prior)` on N = 4096",
        "ProblemTooLargeError",
        r"would need about .*GiB",
        code="PDI(priors.uniform(DatabaseSpace(12, 2)))",
    ),
]


def _c(id: str, what: str, expect: int, match: str, *argv: str, **kw) -> Case:  # noqa: A002
    return Case(id, what, expect, match, tuple(argv), **kw)


def _a(id: str, what: str, expect: str, match: str, code: str, **kw) -> Case:  # noqa: A002
    return Case(id, what, expect, match, code=code, **kw)


SW = (*P, "sweep", "--out", "{d}/sweep")
SWP = (*SW, "--program", "pd-dp")
M = (*P, "model")

CLI_CASES += [
    # --- strict lists: empty items, trailing commas, extra values
    _c(
        "prior-trailing-comma",
        "`--prior iid:0.3,0.7,`",
        2,
        r"empty item 3 in '0\.3,0\.7,' \(a trailing comma\)",
        *S,
        "pd-i",
        *N3,
        "--prior",
        "iid:0.3,0.7,",
        "--eps",
        "1",
    ),
    _c(
        "prior-leading-comma",
        "`--prior iid:,0.3,0.7`",
        2,
        r"empty item 1 .*a leading comma",
        *S,
        "pd-i",
        *N3,
        "--prior",
        "iid:,0.3,0.7",
        "--eps",
        "1",
    ),
    _c(
        "prior-double-comma",
        "`--prior pmf:` with `,,`",
        2,
        r"empty item 2 .*two commas",
        *S,
        "pd-i",
        "--n",
        "1",
        "--m",
        "2",
        "--prior",
        "pmf:0.5,,0.5",
        "--eps",
        "1",
    ),
    _c(
        "prior-contagious-two-weights",
        "`--prior contagious:0.2,0.3`",
        2,
        r"takes one weight W",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "contagious:0.2,0.3",
        "--eps",
        "1",
    ),
    _c(
        "prior-contagious-trailing",
        "`--prior contagious:0.2,`",
        2,
        r"empty item 2",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "contagious:0.2,",
        "--eps",
        "1",
    ),
    _c(
        "prior-contagious-row-comma",
        "`--prior contagious:0.2:0.3,0.7,`",
        2,
        r"empty item 3",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "contagious:0.2:0.3,0.7,",
        "--eps",
        "1",
    ),
    _c(
        "prior-mixture-trailing",
        "`--prior mixture:` with a trailing comma",
        2,
        r"empty item",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "mixture:0.5,0.5/0.3,0.7/0.6,0.4,",
        "--eps",
        "1",
    ),
    _c(
        "prior-mixture-short",
        "`--prior mixture:` without rows",
        2,
        r"mixture is W0,W1",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "mixture:1",
        "--eps",
        "1",
    ),
    _c(
        "prior-mixture-fraction",
        "`--prior mixture:` with a fraction between '/' separators",
        2,
        r"separate the parts with ';'",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "mixture:1/3,2/3/0.8,0.2/0.3,0.7",
        "--eps",
        "1",
    ),
    _c(
        "prior-iid-m3",
        "`iid:0.3,0.7` with m = 3",
        2,
        r"needs 3 probabilities \(m = 3\), got 2",
        *S,
        "pd-dp",
        "--n",
        "2",
        "--m",
        "3",
        "--prior",
        "iid:0.3,0.7",
        "--eps",
        "1",
    ),
    _c(
        "prior-uniform-values",
        "`--prior uniform:0.5`",
        2,
        r"unknown .*prior spec",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "uniform:0.5",
        "--eps",
        "1",
    ),
    _c(
        "prior-iid-text",
        "`--prior iid:a,b`",
        2,
        r"'a' is not a number",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "iid:a,b",
        "--eps",
        "1",
    ),
    _c(
        "prior-iid-comma-only",
        "`--prior iid:,`",
        2,
        r"empty item",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "iid:,",
        "--eps",
        "1",
    ),
    _c(
        "constants-trailing-comma",
        "`constants --prior iid:0.3,0.7,`",
        2,
        r"empty item 3",
        *P,
        "constants",
        *N3,
        "--prior",
        "iid:0.3,0.7,",
    ),
    _c(
        "curve-trailing-comma",
        "`curve --prior iid:0.3,0.7,`",
        2,
        r"empty item 3",
        *P,
        "curve",
        *N3,
        "--notion",
        "d",
        "--prior",
        "iid:0.3,0.7,",
        "--out",
        "{d}/new",
    ),
    _c(
        "design-trailing-comma",
        "`design --prior iid:0.3,0.7,`",
        2,
        r"empty item 3",
        *P,
        "design",
        "--n",
        "2",
        "--eps",
        "0.5",
        "--prior",
        "iid:0.3,0.7,",
    ),
    _c(
        "ipopt-trailing-comma",
        "`ipopt_models bilinear-pd --prior iid:0.3,0.7,`",
        2,
        r"empty item 3",
        *Q,
        "bilinear-pd",
        "--prior",
        "iid:0.3,0.7,",
        "--eps",
        "1",
    ),
    # --- numbers
    _c(
        "eps-overflow-text",
        "`--eps 1e400` (overflows to inf)",
        2,
        r"ε must be a finite number ≥ 0",
        *S,
        "pd-dp",
        *N3,
        "--eps",
        "1e400",
    ),
    _c(
        "n-float",
        "`--n 2.5`",
        2,
        r"--n: must be an integer ≥ 1, got '2\.5'",
        *S,
        "pd-i",
        "--n",
        "2.5",
        "--m",
        "2",
        "--eps",
        "1",
    ),
    _c(
        "n-exponent",
        "`--n 1e3`",
        2,
        r"--n: must be an integer ≥ 1, got '1e3'",
        *S,
        "pd-i",
        "--n",
        "1e3",
        "--m",
        "2",
        "--eps",
        "1",
    ),
    _c(
        "m-negative",
        "`--m -2`",
        2,
        r"--m: must be an integer ≥ 1, got -2",
        *S,
        "pd-i",
        "--n",
        "2",
        "--m",
        "-2",
        "--eps",
        "1",
    ),
    _c("eps-empty", "`--eps ''`", 2, r"ε must be a finite number ≥ 0", *S, "pd-dp", *N3, "--eps", ""),
    _c(
        "distortion-text",
        "`pd-mip --distortion abc`",
        2,
        r"D must be a finite number in \[0, n\], got 'abc'",
        *S,
        "pd-mip",
        *N3,
        "--distortion",
        "abc",
    ),
    _c(
        "distortion-negative",
        "`pd-mip --distortion -0.1`",
        2,
        r"got '-0\.1'",
        *S,
        "pd-mip",
        *N3,
        "--distortion",
        "-0.1",
    ),
    _c(
        "pdmip-distortion-inf",
        "`pd-mip --distortion inf`",
        2,
        r"D must be a finite number",
        *S,
        "pd-mip",
        *N3,
        "--distortion",
        "inf",
    ),
    _c(
        "calibrate-eps-negative",
        "`calibrate --eps -1`",
        2,
        r"must be finite and >= 0 \(nats\), got -1\.0",
        *P,
        "calibrate",
        "randomized-response",
        "--eps",
        "-1",
    ),
    _c(
        "calibrate-k-zero",
        "`calibrate exponential --k 0`",
        2,
        r"k = \|Y\| must be >= 2 .*got 0",
        *P,
        "calibrate",
        "exponential",
        "--eps",
        "0.5",
        "--k",
        "0",
    ),
    _c(
        "calibrate-k-text",
        "`calibrate exponential --k many`",
        2,
        r"--k",
        *P,
        "calibrate",
        "exponential",
        "--eps",
        "0.5",
        "--k",
        "many",
    ),
    _c(
        "calibrate-unknown",
        "`calibrate laplace`",
        2,
        r"invalid choice: 'laplace'",
        *P,
        "calibrate",
        "laplace",
        "--eps",
        "0.5",
    ),
    _c(
        "design-eps-nan",
        "`design --eps nan`",
        2,
        r"ε must be a finite number ≥ 0|nan",
        *P,
        "design",
        "--n",
        "2",
        "--eps",
        "nan",
    ),
    _c("design-eps-negative", "`design --eps -1`", 2, r"got '-1'", *P, "design", "--n", "2", "--eps", "-1"),
    _c(
        "design-query-unknown",
        "`design --query median`",
        2,
        r"median",
        *P,
        "design",
        "--query",
        "median",
        "--n",
        "2",
        "--eps",
        "0.5",
    ),
    _c("design-n13", "`design --n 13`", 4, r"N ≤ 4096", *P, "design", "--n", "13", "--eps", "0.5"),
    _c(
        "curve-notion",
        "`curve --notion x`",
        2,
        r"invalid choice: 'x'",
        *P,
        "curve",
        *N3,
        "--notion",
        "x",
        "--out",
        "{d}/new",
    ),
    _c(
        "curve-workers-zero",
        "`curve --workers 0`",
        2,
        r"--workers must be ≥ 1, got 0",
        *P,
        "curve",
        *N3,
        "--notion",
        "d",
        "--workers",
        "0",
        "--out",
        "{d}/new",
    ),
    _c(
        "curve-scheduler",
        "`curve --scheduler nonsense`",
        2,
        r"--scheduler must be",
        *P,
        "curve",
        *N3,
        "--notion",
        "d",
        "--scheduler",
        "nonsense",
        "--out",
        "{d}/new",
    ),
    _c("solve-no-program", "`solve` without a program", 2, r"required|invalid choice", *S, *N3, "--eps", "1"),
    _c(
        "solve-formulation-unknown",
        "`solve --formulation fast`",
        2,
        r"invalid choice: 'fast'",
        *S,
        "pd-dp",
        *N3,
        "--eps",
        "1",
        "--formulation",
        "fast",
    ),
    _c(
        "solve-unit-unknown",
        "`--unit bytes`",
        2,
        r"invalid choice: 'bytes'",
        *S,
        "pd-mip",
        *N3,
        "--distortion",
        "1",
        "--unit",
        "bytes",
    ),
    _c(
        "reproduce-out-file",
        "`reproduce --out` an existing file",
        2,
        r"is an existing file",
        *P,
        "reproduce",
        "--out",
        "{d}/afile",
    ),
    _c(
        "export-csv-missing-dir",
        "`--export` `.csv` into a missing directory",
        2,
        r"does not exist",
        *S,
        "pd-dp",
        *N3,
        "--eps",
        "1",
        "--export",
        "{d}/missing/W.csv",
    ),
    _c(
        "design-export-missing-dir",
        "`design --export` into a missing directory",
        2,
        r"does not exist",
        *P,
        "design",
        "--n",
        "2",
        "--eps",
        "0.5",
        "--export",
        "{d}/missing/W.csv",
    ),
    # --- sweeps: every value is checked before a point runs
    _c(
        "sweep-scheduler",
        "`sweep --scheduler notanaddress`",
        2,
        r"--scheduler must be 'synchronous' or the address",
        *SWP,
        "--eps",
        "1",
        "--scheduler",
        "notanaddress",
    ),
    _c(
        "sweep-scheduler-noport",
        "`sweep --scheduler tcp://host`",
        2,
        r"tcp://HOST:PORT",
        *SWP,
        "--eps",
        "1",
        "--scheduler",
        "tcp://host",
    ),
    _c(
        "sweep-eps-empty-item",
        "`sweep --eps 1,,2`",
        2,
        r"--eps: empty item 2 in '1,,2'",
        *SWP,
        "--eps",
        "1,,2",
    ),
    _c("sweep-eps-trailing", "`sweep --eps 1,`", 2, r"--eps: empty item 2", *SWP, "--eps", "1,"),
    _c("sweep-eps-text", "`sweep --eps abc`", 2, r"--eps: expected numbers, got 'abc'", *SWP, "--eps", "abc"),
    _c("sweep-eps-negative", "`sweep --eps -1`", 2, r"finite ε ≥ 0", *SWP, "--eps", "-1"),
    _c("sweep-eps-nan", "`sweep --eps nan`", 2, r"finite ε ≥ 0", *SWP, "--eps", "nan"),
    _c(
        "sweep-n-float",
        "`sweep --n 2.5`",
        2,
        r"--n: expected integers, got '2\.5'",
        *SWP,
        "--eps",
        "1",
        "--n",
        "2.5",
    ),
    _c(
        "sweep-n-zero", "`sweep --n 0`", 2, r"n must be an integer ≥ 1, got 0", *SWP, "--eps", "1", "--n", "0"
    ),
    _c("sweep-m-one", "`sweep --m 1`", 2, r"m must be an integer ≥ 2, got 1", *SWP, "--eps", "1", "--m", "1"),
    _c(
        "sweep-prior-sum",
        "`sweep --prior iid:0.5,0.6`",
        2,
        r"prior 'iid:0\.5,0\.6' \(n = 3, m = 2\).*sums to 1\.1",
        *SWP,
        "--eps",
        "1",
        "--prior",
        "iid:0.5,0.6",
    ),
    _c(
        "sweep-prior-trailing",
        "`sweep --prior iid:0.3,0.7,`",
        2,
        r"empty item 3",
        *SWP,
        "--eps",
        "1",
        "--prior",
        "iid:0.3,0.7,",
    ),
    _c(
        "sweep-prior-length",
        "`sweep --prior iid:0.2,0.3,0.5` with m = 2",
        2,
        r"needs 2 probabilities",
        *SWP,
        "--eps",
        "1",
        "--prior",
        "iid:0.2,0.3,0.5",
    ),
    _c(
        "sweep-prior-contagious",
        "`sweep --prior contagious:2`",
        2,
        r"contagious weight must be in \[0, 1\]",
        *SWP,
        "--eps",
        "1",
        "--prior",
        "contagious:2",
    ),
    _c(
        "sweep-prior-pmf",
        "`sweep --prior pmf:` of the wrong length",
        2,
        r"has 2 entries; expected 8",
        *SWP,
        "--eps",
        "1",
        "--prior",
        "pmf:0.5,0.5",
    ),
    _c(
        "sweep-prior-kind",
        "`sweep --prior gauss:1`",
        2,
        r"unknown prior kind 'gauss'",
        *SWP,
        "--eps",
        "1",
        "--prior",
        "gauss:1",
    ),
    _c(
        "sweep-prior-dirichlet",
        "`sweep --prior dirichlet:0:1`",
        2,
        r"ALPHA > 0",
        *SWP,
        "--eps",
        "1",
        "--prior",
        "dirichlet:0:1",
    ),
    _c(
        "sweep-prior-file",
        "`sweep --prior file:` a missing file",
        2,
        r"does not exist",
        *SWP,
        "--eps",
        "1",
        "--prior",
        "file:{d}/nope.npy",
    ),
    _c(
        "sweep-program",
        "`sweep --program pd-x`",
        2,
        r"unknown program",
        *SW,
        "--program",
        "pd-x",
        "--eps",
        "1",
    ),
    _c("sweep-no-program", "`sweep` without `--program`", 2, r"at least one --program", *SW, "--eps", "1"),
    _c("sweep-no-eps", "`sweep --program pd-dp` without `--eps`", 2, r"give --eps", *SWP),
    _c(
        "sweep-distortion-above-n",
        "`sweep --program pd-mip --distortion 5` with n = 3",
        2,
        r"\[0, n\] = \[0, 3\]",
        *SW,
        "--program",
        "pd-mip",
        "--distortion",
        "5",
    ),
    _c(
        "sweep-workers-zero",
        "`sweep --workers 0`",
        2,
        r"--workers must be ≥ 1",
        *SWP,
        "--eps",
        "1",
        "--workers",
        "0",
    ),
    _c(
        "sweep-memory-limit",
        "`sweep --memory-limit -1`",
        2,
        r"--memory-limit is in GiB and must be > 0",
        *SWP,
        "--eps",
        "1",
        "--memory-limit",
        "-1",
    ),
    _c(
        "sweep-solver",
        "`sweep --solver NOPE`",
        2,
        r"unknown solver 'NOPE'",
        *SWP,
        "--eps",
        "1",
        "--solver",
        "NOPE",
    ),
    _c("sweep-spec-missing", "a missing sweep spec file", 2, r"does not exist", *SW, "{d}/nope.toml"),
    _c(
        "sweep-spec-garbled",
        "a sweep spec that is not TOML",
        2,
        r"is not valid TOML",
        *SW,
        "{d}/garbled.toml",
    ),
    _c(
        "sweep-spec-unknown-key",
        "an unknown key in a sweep spec",
        2,
        r"unknown key\(s\) \['epsilon'\] in the sweep",
        *SW,
        "{d}/sweep_unknown.toml",
    ),
    _c(
        "sweep-spec-bad-prior",
        "an invalid prior in a sweep spec",
        2,
        r"sums to 1\.1",
        *SW,
        "{d}/sweep_prior.toml",
    ),
    # --- model specs
    _c(
        "model-ragged-loss",
        "a model spec with a ragged loss matrix",
        2,
        r"loss must be a rectangular matrix .*rows "
        r"of lengths \[1, 2\]",
        *M,
        "{d}/ragged.toml",
    ),
    _c(
        "model-unknown-key",
        "an unknown key in a model spec",
        2,
        r"unknown key\(s\) \['objectiv'\] in the model spec",
        *M,
        "{d}/unknown.toml",
    ),
    _c(
        "model-constraint-key",
        "an unknown key in a `[[constraint]]`",
        2,
        r"unknown key\(s\) \['epsilon'\] in constraint 0 \(differential\)",
        *M,
        "{d}/ckey.toml",
    ),
    _c(
        "model-neighbours-key",
        "an unknown key in `[neighbours]`",
        2,
        r"unknown key\(s\) \['size'\] in \[neighbours\]",
        *M,
        "{d}/nkey.toml",
    ),
    _c(
        "model-loss-key",
        "an unknown key in a loss table",
        2,
        r"unknown key\(s\) \['value'\] in the loss table",
        *M,
        "{d}/lkey.toml",
    ),
    _c(
        "model-bounded-n12",
        "a model spec with a bounded relation at n = 12",
        4,
        r"the model 'model' \(4096 inputs × 4096 outputs, 201326592 ratio rows\) would need about",
        *M,
        "{d}/bounded12.toml",
    ),
    _c("model-missing", "a missing model spec", 2, r"does not exist", *M, "{d}/nope.toml"),
    _c("model-garbled", "a model spec that is not TOML", 2, r"is not valid TOML", *M, "{d}/garbled.toml"),
    _c("model-kind", "a constraint of an unknown kind", 2, r"kind must be one of", *M, "{d}/ckind.toml"),
    _c("model-prior-sum", "a model prior that does not sum to 1", 2, r"sums to 1\.2", *M, "{d}/mprior.toml"),
    _c(
        "model-neighbours-n-text",
        '`[neighbours]` with n = "two"',
        2,
        r"needs integers n and m, got n = 'two'",
        *M,
        "{d}/ntext.toml",
    ),
    _c(
        "model-ragged-distance",
        "a metric constraint with a ragged distance",
        2,
        r"distance must be a rectangular",
        *M,
        "{d}/mdist.toml",
    ),
    _c(
        "model-constraint-table",
        "`constraint` as a single table",
        2,
        r"\[\[constraint\]\] tables",
        *M,
        "{d}/ctable.toml",
    ),
    # --- memory: refused in time, or answered by a closed form
    _c(
        "constants-n30-m10",
        "`constants --n 30 --m 10 --prior uniform` (closed form)",
        0,
        r"",
        *P,
        "constants",
        "--n",
        "30",
        "--m",
        "10",
        "--prior",
        "uniform",
    ),
    _c(
        "constants-n200-m20",
        "`constants --n 200 --m 20` (closed form)",
        0,
        r"",
        *P,
        "constants",
        "--n",
        "200",
        "--m",
        "20",
    ),
    _c(
        "constants-iid-n300",
        "`constants --n 300 --prior iid:0.3,0.7` (closed form)",
        0,
        r"",
        *P,
        "constants",
        "--n",
        "300",
        "--m",
        "2",
        "--prior",
        "iid:0.3,0.7",
    ),
    _c(
        "constants-contagious-n60",
        "`constants --n 60 --m 10 --prior contagious:0.2`",
        4,
        r"56672074888 x-types .*would need about",
        *P,
        "constants",
        "--n",
        "60",
        "--m",
        "10",
        "--prior",
        "contagious:0.2",
    ),
    _c(
        "constants-contagious-warning",
        "README's `constants --prior contagious:0.2` (no NumPy warning)",
        0,
        r"",
        *P,
        "constants",
        "--n",
        "4",
        "--m",
        "2",
        "--prior",
        "contagious:0.2",
        "--json",
        not_match=("warning", "RuntimeWarning"),
        subprocess=True,
    ),
    _c(
        "solve-pmf-n25",
        "`solve --prior pmf:…` at n = 25 (N > 2²⁰)",
        4,
        r"N ≤ 4096",
        *S,
        "pd-dp",
        "--n",
        "25",
        "--m",
        "2",
        "--prior",
        "pmf:1",
        "--eps",
        "1",
    ),
    _c(
        "solve-dense-uniform-n30",
        "`solve --formulation dense --n 30 --prior uniform`",
        4,
        r"N ≤ 4096|N ≤ 1048576",
        *S,
        "pd-i",
        "--n",
        "30",
        "--m",
        "2",
        "--eps",
        "1",
        "--formulation",
        "dense",
    ),
]

CLI_CASES += [
    # --- sizes whose counts do not fit a float: refused, never an OverflowError
    _c(
        "constants-contagious-huge",
        "`constants --n 1000 --m 1000 --prior contagious:0.2` (10⁶⁰⁰ types)",
        4,
        r"about 1\.02e\+600 x-types",
        *P,
        "constants",
        "--n",
        "1000",
        "--m",
        "1000",
        "--prior",
        "contagious:0.2",
    ),
    _c(
        "constants-pmf-huge",
        "`constants --n 1000 --m 1000 --prior pmf:1` (m^n overflows a float)",
        4,
        r"would need about",
        *P,
        "constants",
        "--n",
        "1000",
        "--m",
        "1000",
        "--prior",
        "pmf:1",
    ),
    _c(
        "solve-pmf-huge",
        "`solve pd-i --n 2000 --prior pmf:1`",
        4,
        r"N = 2\^2000 = about 1\.14e\+602",
        *S,
        "pd-i",
        "--n",
        "2000",
        "--m",
        "2",
        "--prior",
        "pmf:1",
        "--eps",
        "1",
    ),
    _c(
        "solve-reduced-huge",
        "`solve pd-dp --n 2000 --m 40 --prior contagious:0.2`",
        4,
        r"about 6\.47e\+1071 joint types",
        *S,
        "pd-dp",
        "--n",
        "2000",
        "--m",
        "40",
        "--prior",
        "contagious:0.2",
        "--eps",
        "1",
    ),
    _c("design-huge", "`design --n 2000`", 4, r"N ≤ 4096", *P, "design", "--n", "2000", "--eps", "1"),
    _c(
        "ipopt-huge",
        "`ipopt_models pd-mip -n 2000`",
        4,
        r"N ≤ 4096",
        *Q,
        "pd-mip",
        "-n",
        "2000",
        "--distortion",
        "1",
    ),
]

CLI_CASES += [
    _c(
        "n-huge",
        "`--n 99999999999999999999`",
        4,
        r"n = 99999999999999999999 is beyond .*n ≤ 1000000",
        *S,
        "pd-i",
        "--n",
        "99999999999999999999",
        "--m",
        "2",
        "--eps",
        "1",
    ),
    _c(
        "m-huge",
        "`--m 99999999999999999999`",
        4,
        r"m ≤ 65536",
        *S,
        "pd-i",
        "--n",
        "3",
        "--m",
        "99999999999999999999",
        "--eps",
        "1",
    ),
    _c(
        "constants-n-huge",
        "`constants --n 10000000`",
        4,
        r"n ≤ 1000000",
        *P,
        "constants",
        "--n",
        "10000000",
        "--m",
        "2",
    ),
    _c(
        "curve-points-huge",
        "`curve --points 100000000`",
        4,
        r"a curve of 100000000 points .*at most 10000",
        *P,
        "curve",
        *N3,
        "--notion",
        "d",
        "--points",
        "100000000",
        "--out",
        "{d}/new",
    ),
    _c(
        "design-outputs-huge",
        "`design --outputs 100000000`",
        4,
        r"a design with 100000000 outputs .*would need about",
        *P,
        "design",
        "--n",
        "2",
        "--eps",
        "0.5",
        "--outputs",
        "100000000",
    ),
    _c(
        "design-query-sweep",
        "`sweep --program design --query nope`",
        2,
        r"unknown design query\(s\) \['nope'\]",
        *SW,
        "--program",
        "design",
        "--eps",
        "1",
        "--query",
        "nope",
    ),
    _c("model-directory", "`model DIR` (a directory)", 2, r"is not a file", *M, "{d}/adir.json"),
    _c("model-binary", "a model spec that is not UTF-8", 2, r"cannot be read", *M, "{d}/binary.toml"),
    _c(
        "sweep-spec-directory",
        "`sweep DIR` (a directory as the spec)",
        2,
        r"cannot be read",
        *SW,
        "{d}/adir.json",
    ),
]

CLI_CASES += [
    _c(
        "ipopt-starts-huge",
        "`ipopt_models pd-mip --starts 1000000000`",
        4,
        r"at most 10000 are accepted",
        *Q,
        "pd-mip",
        "--distortion",
        "1",
        "--starts",
        "1000000000",
    ),
]

CLI_CASES += [
    # --- answered and certified by theory (once a traceback, an overflow or exit 3)
    _c(
        "theory-eps-1e308",
        "`solve pd-dp --eps 1e308` (e^ε overflows)",
        0,
        r"optimal.*\n.*\n\s+bounds\s+\[0, 7\.36344995e-301\]",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "iid:0.3,0.7",
        "--eps",
        "1e308",
    ),
    _c(
        "theory-eps-800-lp",
        "`solve pd-dp --eps 800 --method lp`",
        0,
        r"optimal",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "iid:0.3,0.7",
        "--eps",
        "800",
        "--method",
        "lp",
    ),
    _c(
        "theory-pd-i-eps-1e308",
        "`solve pd-i --eps 1e308`",
        0,
        r"optimal",
        *S,
        "pd-i",
        *N3,
        "--prior",
        "iid:0.3,0.7",
        "--eps",
        "1e308",
    ),
    _c(
        "theory-eps-1e-320",
        "`solve pd-dp --eps 1e-320` (e^ε rounds to 1): as at ε = 0",
        0,
        r"optimal.*\n.*0\.9 rows",
        *S,
        "pd-dp",
        *N3,
        "--prior",
        "iid:0.3,0.7",
        "--eps",
        "1e-320",
    ),
    _c(
        "theory-calibrate-k-huge",
        "`calibrate exponential --eps 0.5 --k 1000000000`",
        0,
        r"lambda = 4\.118",
        *P,
        "calibrate",
        "exponential",
        "--eps",
        "0.5",
        "--k",
        "1000000000",
    ),
    _c(
        "theory-r-pd-prior",
        "`solve r-pd --prior iid:0.3,0.7`: says the prior is not used",
        0,
        r"prior not used",
        *S,
        "r-pd",
        *N3,
        "--prior",
        "iid:0.3,0.7",
        "--eps",
        "1",
    ),
    _c(
        "theory-constants-uniform-zero",
        "`constants --n 10 --m 10 --prior uniform`: ε_X exactly 0",
        0,
        r"eps_X\s+0\.0\n",
        *P,
        "constants",
        "--n",
        "10",
        "--m",
        "10",
        "--prior",
        "uniform",
    ),
    _c(
        "theory-design-eps-0",
        "`design --eps 0`: the best constant row",
        0,
        r"status optimal: bounds \[0\.5, 0\.5\]",
        *P,
        "design",
        "--n",
        "2",
        "--m",
        "2",
        "--eps",
        "0",
    ),
    _c(
        "theory-pd-mip-d-0",
        "`solve pd-mip --distortion 0`: H(X)",
        0,
        r"optimal value\s+1\.2217286041",
        *S,
        "pd-mip",
        "--n",
        "2",
        "--m",
        "2",
        "--prior",
        "iid:0.3,0.7",
        "--distortion",
        "0",
    ),
]

API_CASES += [
    _a(
        "api-identifiability-no-prior",
        "`identifiability_mechanism(None, 1)`",
        "InvalidPriorError",
        r"takes a problems\.priors\.Prior, got NoneType",
        "identifiability_mechanism(None, 1)",
    ),
    _a(
        "api-pd-i-eps-1e308",
        "`PDI(iid prior).solve(1e308)`: certified by theory",
        "ok",
        r"",
        "assert PDI(priors.iid(DatabaseSpace(3, 2), [0.3, 0.7])).solve(1e308).status == 'optimal'",
    ),
]

API_CASES += [
    # --- priors: refused before the mⁿ pmf is allocated
    _a(
        "api-uniform-n40",
        "`priors.uniform(DatabaseSpace(40, 2))` (8 TiB)",
        "ProblemTooLargeError",
        r"2\^40 = 1\.1e\+12 databases.*N ≤ 1048576",
        "priors.uniform(DatabaseSpace(40, 2))",
    ),
    _a(
        "api-iid-n64",
        "`priors.iid(DatabaseSpace(64, 2), …)`",
        "ProblemTooLargeError",
        r"N ≤ 1048576",
        "priors.iid(DatabaseSpace(64, 2), [0.3, 0.7])",
    ),
    _a(
        "api-iid-n25",
        "`priors.iid(DatabaseSpace(25, 2), …)` (33.5 M entries)",
        "ProblemTooLargeError",
        r"2\^25 = 3\.355e\+07",
        "priors.iid(DatabaseSpace(25, 2), [0.3, 0.7])",
    ),
    _a(
        "api-pdi-uniform-n64",
        "`PDI(priors.uniform(DatabaseSpace(64, 2)))`",
        "ProblemTooLargeError",
        r"N ≤ 1048576",
        "PDI(priors.uniform(DatabaseSpace(64, 2)))",
    ),
    _a(
        "api-contagious-n30",
        "`priors.contagious(DatabaseSpace(30, 2), 0.2)`",
        "ProblemTooLargeError",
        r"N ≤ 1048576",
        "priors.contagious(DatabaseSpace(30, 2), 0.2)",
    ),
    _a(
        "api-mixture-n30",
        "`priors.exchangeable_mixture` at n = 30",
        "ProblemTooLargeError",
        r"N ≤ 1048576",
        "priors.exchangeable_mixture(DatabaseSpace(30, 2), [[0.5, 0.5]], [1.0])",
    ),
    _a(
        "api-from-pmf-n30",
        "`priors.from_pmf(DatabaseSpace(30, 2), …)`",
        "ProblemTooLargeError",
        r"N ≤ 1048576",
        "priors.from_pmf(DatabaseSpace(30, 2), [1.0])",
    ),
    _a(
        "api-uniform-text",
        "`priors.uniform('abc')`",
        "InvalidInputError",
        r"takes a DatabaseSpace first, got str",
        "priors.uniform('abc')",
    ),
    _a(
        "api-contagious-bool",
        "`priors.contagious(space, True)`",
        "InvalidPriorError",
        r"weight must be a number in \[0, 1\], got True",
        "priors.contagious(DatabaseSpace(2, 2), True)",
    ),
    _a(
        "api-parse-prior-trailing",
        "`parse_prior('iid:0.3,0.7,', space)`",
        "InvalidInputError",
        r"empty item 3 .*trailing comma",
        "priors.parse_prior('iid:0.3,0.7,', DatabaseSpace(2, 2))",
    ),
    _a(
        "api-parse-prior-contagious",
        "`parse_prior('contagious:0.2,0.3', space)`",
        "InvalidInputError",
        r"takes one weight",
        "priors.parse_prior('contagious:0.2,0.3', DatabaseSpace(2, 2))",
    ),
    _a(
        "api-eps-x-list",
        "`eps_X([0.5, 0.5])`",
        "InvalidPriorError",
        r"takes a problems\.priors\.Prior, got list",
        "eps_X([0.5, 0.5])",
    ),
    _a(
        "api-space-bool",
        "`DatabaseSpace(True, 2)`",
        "InvalidInputError",
        r"n must be an integer ≥ 1, got True",
        "DatabaseSpace(True, 2)",
    ),
    _a(
        "api-space-text",
        "`DatabaseSpace(2, '2')`",
        "InvalidInputError",
        r"m must be an integer ≥ 2, got '2'",
        "DatabaseSpace(2, '2')",
    ),
    _a(
        "api-uniform-n2000",
        "`priors.uniform(DatabaseSpace(2000, 2))` (N overflows a float)",
        "ProblemTooLargeError",
        r"2\^2000 = about 1\.14e\+602",
        "priors.uniform(DatabaseSpace(2000, 2))",
    ),
    _a(
        "api-pdi-dense-huge",
        "`DatabaseSpace(2000, 2).require_dense()`",
        "ProblemTooLargeError",
        r"N ≤ 4096",
        "DatabaseSpace(2000, 2).require_dense()",
    ),
    _a(
        "api-space-huge",
        "`DatabaseSpace(10**7, 2)`",
        "ProblemTooLargeError",
        r"n ≤ 1000000",
        "DatabaseSpace(10**7, 2)",
    ),
    _a(
        "api-curve-points-huge",
        "`privacy_distortion_curve(…, points=10**8)`",
        "ProblemTooLargeError",
        r"at most 10000",
        "privacy_distortion_curve(priors.uniform(DatabaseSpace(2, 2)), 'd', points=10**8)",
    ),
    _a(
        "api-design-outputs-huge",
        "`design_problem(space, 'count', outputs=10**9)`",
        "ProblemTooLargeError",
        r"10\^9|1000000000 outputs",
        "design_problem(DatabaseSpace(2, 2), 'count', outputs=10**9)",
    ),
    # --- wrong types: typed errors, never AttributeError or TypeError
    _a(
        "api-from-file-none",
        "`priors.from_file(space, None)`",
        "InvalidInputError",
        r"a prior file is a path",
        "priors.from_file(DatabaseSpace(2, 2), None)",
    ),
    _a(
        "api-make-program-none-prior",
        "`make_program('pd-dp', None)`",
        "InvalidPriorError",
        r"takes a Prior, a SymmetricPrior .*got NoneType",
        "make_program('pd-dp', None)",
    ),
    _a(
        "api-make-program-none-name",
        "`make_program(None, prior)`",
        "InvalidInputError",
        r"takes a program name",
        "make_program(None, priors.uniform(DatabaseSpace(2, 2)))",
    ),
    _a(
        "api-symmetric-spec-none",
        "`parse_symmetric_prior(None, 3, 2)`",
        "InvalidInputError",
        r"a prior spec is a string",
        "parse_symmetric_prior(None, 3, 2)",
    ),
    _a(
        "api-curve-none",
        "`privacy_distortion_curve(None, 'd')`",
        "InvalidInputError",
        r"takes a Prior or a SymmetricPrior, got NoneType",
        "privacy_distortion_curve(None, 'd')",
    ),
    _a(
        "api-curve-distortions-text",
        "`privacy_distortion_curve(…, distortions='abc')`",
        "InvalidInputError",
        r"distortions must be numbers in \[0, n\]",
        "privacy_distortion_curve(priors.uniform(DatabaseSpace(2, 2)), 'd', distortions='abc')",
    ),
    _a(
        "api-curve-distortions-above-n",
        "`privacy_distortion_curve(…, distortions=[3])` with n = 2",
        "InvalidDistortionError",
        r"\[0, n\] = \[0, 2\], got 3",
        "privacy_distortion_curve(priors.uniform(DatabaseSpace(2, 2)), 'd', distortions=[3])",
    ),
    _a(
        "api-mechanism-empty",
        "`Mechanism(np.zeros((0, 0)))`",
        "InvalidMechanismError",
        r"at least one row",
        "Mechanism(np.zeros((0, 0)))",
    ),
    _a(
        "api-export-path-none",
        "`export_mechanism(W, None)`",
        "InvalidInputError",
        r"takes a file path",
        "export_mechanism(np.eye(2), None)",
    ),
    _a(
        "api-load-ragged",
        "`load_mechanism` of a ragged JSON matrix",
        "InvalidInputError",
        r"is not a mechanism written by export_mechanism",
        "load_mechanism(D / 'ragged_mechanism.json')",
    ),
    _a(
        "api-load-list",
        "`load_mechanism` of a JSON list",
        "InvalidInputError",
        r"is not a mechanism written by export_mechanism",
        "load_mechanism(D / 'list_mechanism.json')",
    ),
    _a(
        "api-load-csv-text",
        "`load_mechanism` of a CSV with text",
        "InvalidInputError",
        r"is not a mechanism written by export_mechanism",
        "load_mechanism(D / 'text_mechanism.csv')",
    ),
    _a(
        "api-load-directory",
        "`load_mechanism` of a directory",
        "InvalidInputError",
        r"is not a file",
        "load_mechanism(D / 'adir.json')",
    ),
    # --- numbers: booleans and strings are not privacy levels
    _a(
        "api-solve-true",
        "`PDI(..).solve(True)`",
        "InvalidPrivacyLevelError",
        r"got True \(bool\)",
        "PDI(priors.uniform(DatabaseSpace(2, 2))).solve(True)",
    ),
    _a(
        "api-solve-text",
        "`PDI(..).solve('1.0')`",
        "InvalidPrivacyLevelError",
        r"got '1\.0' \(str\)",
        "PDI(priors.uniform(DatabaseSpace(2, 2))).solve('1.0')",
    ),
    _a(
        "api-pddp-solve-false",
        "`PDDP(..).solve(False)`",
        "InvalidPrivacyLevelError",
        r"got False \(bool\)",
        "PDDP(priors.uniform(DatabaseSpace(2, 2))).solve(False)",
    ),
    _a(
        "api-pddp-solve-list",
        "`PDDP(..).solve([1.0])`",
        "InvalidPrivacyLevelError",
        r"got \[1\.0\]",
        "PDDP(priors.uniform(DatabaseSpace(2, 2))).solve([1.0])",
    ),
    _a(
        "api-pdmip-solve-true",
        "`PDMIP(..).solve(True)`",
        "InvalidDistortionError",
        r"got True \(bool\)",
        "PDMIP(priors.uniform(DatabaseSpace(2, 2))).solve(True)",
    ),
    _a(
        "api-reduced-solve-text",
        "`make_program('pd-dp', …).solve('1')`",
        "InvalidPrivacyLevelError",
        r"got '1' \(str\)",
        "make_program('pd-dp', priors.uniform(DatabaseSpace(2, 2))).solve('1')",
    ),
    _a("api-h-true", "`h(True, 3, 2)`", "InvalidPrivacyLevelError", r"got True \(bool\)", "h(True, 3, 2)"),
    _a(
        "api-h-inv-text",
        "`h_inv('1', 3, 2)`",
        "InvalidDistortionError",
        r"got '1' \(str\)",
        "h_inv('1', 3, 2)",
    ),
    _a(
        "api-identifiability-text",
        "`identifiability_mechanism(prior, '2')`",
        "InvalidPrivacyLevelError",
        r"got '2' \(str\)",
        "identifiability_mechanism(priors.uniform(DatabaseSpace(2, 2)), '2')",
    ),
    # --- sweeps
    _a(
        "api-run-sweep-scheduler",
        "`run_sweep(…, scheduler='nonsense')`",
        "InvalidInputError",
        r"--scheduler must be 'synchronous' or the address",
        "run_sweep(SweepSpec(programs=('pd-dp',), eps=(1.0,)), D / 'sweep', scheduler='nonsense')",
    ),
    _a(
        "api-sweep-spec-prior",
        "`SweepSpec(priors=('iid:0.5,0.6',), …)`",
        "InvalidPriorError",
        r"sums to 1\.1",
        "SweepSpec(programs=('pd-dp',), eps=(1.0,), priors=('iid:0.5,0.6',))",
    ),
    _a(
        "api-sweep-spec-eps",
        "`SweepSpec(eps=(1.0, nan))`",
        "InvalidInputError",
        r"finite ε ≥ 0",
        "SweepSpec(programs=('pd-dp',), eps=(1.0, float('nan'))).points()",
    ),
    _a(
        "api-load-spec-unknown",
        "`load_spec` with an unknown key",
        "InvalidInputError",
        r"unknown key\(s\) \['epsilon'\]",
        "load_spec(D / 'sweep_unknown.toml')",
    ),
    # --- models
    _a(
        "api-model-ragged",
        "`MechanismModel` with a ragged loss",
        "ShapeMismatchError",
        r"rectangular 2-D matrix",
        "MechanismModel([0.5, 0.5], [[0, 1], [1]])",
    ),
    _a(
        "api-model-loss-text",
        "`MechanismModel(prior, 'abc')`",
        "InvalidInputError",
        r"2-D matrix of numbers",
        "MechanismModel([0.5, 0.5], 'abc')",
    ),
    _a(
        "api-model-too-large",
        "`MechanismModel.add` whose ratio rows exceed the budget",
        "ProblemTooLargeError",
        r"2000 inputs × 2000 outputs.*would need about",
        "MechanismModel(np.full(2000, 1 / 2000), np.zeros((2000, 2000))).add(model_privacy.differential(1.0))",
    ),
    _a(
        "api-model-spec-key",
        "`model_from_spec` with an unknown key",
        "InvalidInputError",
        r"unknown key\(s\) \['foo'\] in the model spec",
        "model_from_spec({'loss': 'zero_one', 'prior': [0.5, 0.5], 'foo': 1})",
    ),
    # --- files
    _a(
        "api-export-missing-dir",
        "`export_mechanism(W, 'nodir/W.csv')`",
        "InvalidInputError",
        r"directory '.*nodir' does not exist; create it first",
        "export_mechanism(np.eye(2), D / 'nodir' / 'W.csv')",
    ),
    _a(
        "api-export-metadata-type",
        "`export_mechanism(…, metadata='x')`",
        "InvalidInputError",
        r"metadata must be a dict, got str",
        "export_mechanism(np.eye(2), D / 'W.json', metadata='x')",
    ),
    _a(
        "api-export-metadata-nan",
        "`export_mechanism(…, metadata={'x': nan})` (strict JSON)",
        "ok",
        r"",
        "export_mechanism(np.eye(2), D / 'out' / 'W.json', metadata={'x': float('nan')})\n"
        "assert 'NaN' not in (D / 'out' / 'W.json').read_text()\n(D / 'out' / 'W.json').unlink()",
    ),
    # --- answered now
    _a(
        "api-constants-uniform-n30",
        "`symmetric_constants` of the uniform prior, n = 30, m = 10",
        "ok",
        r"",
        "assert symmetric_constants(parse_symmetric_prior('uniform', 30, 10)) == {'eps_X': 0.0, 'eps_tilde': 0.0}",
    ),
    _a(
        "api-memory-budget",
        "`memory_budget()` respects `$PRIVACY_PROBLEMS_MEMORY_LIMIT`",
        "ok",
        r"",
        "assert memory_budget() <= 4 * 2**30",
    ),
]


# ------------------------------------------------------------------------------------------------ fixtures
TOML = {
    "ragged.toml": "prior = [0.5, 0.5]\nloss = [[0, 1], [1]]\n",
    "unknown.toml": 'prior = [0.5, 0.5]\nloss = "zero_one"\nobjectiv = "expected_loss"\n',
    "ckey.toml": 'prior = [0.5, 0.5]\nloss = "zero_one"\n[[constraint]]\nkind = "differential"\nepsilon = 1.0\n',
    "nkey.toml": 'loss = "hamming"\n[neighbours]\nkind = "bounded"\nn = 2\nm = 2\nsize = 4\n',
    "lkey.toml": 'prior = [0.5, 0.5]\n[loss]\nkind = "absolute"\nvalue = [0, 1]\n',
    "bounded12.toml": 'loss = "hamming"\n[neighbours]\nkind = "bounded"\nn = 12\nm = 2\n'
    '[[constraint]]\nkind = "differential"\neps = 1.0\n',
    "garbled.toml": "prior = [0.5, 0.5\n",
    "ckind.toml": 'prior = [0.5, 0.5]\nloss = "zero_one"\n[[constraint]]\nkind = "laplace"\neps = 1.0\n',
    "mprior.toml": 'prior = [0.6, 0.6]\nloss = "zero_one"\n',
    "ntext.toml": 'loss = "hamming"\n[neighbours]\nkind = "bounded"\nn = "two"\nm = 2\n',
    "mdist.toml": 'prior = [0.5, 0.5]\nloss = "zero_one"\n[[constraint]]\nkind = "metric"\neps = 1.0\n'
    "distance = [[0, 1], [1]]\n",
    "ctable.toml": 'prior = [0.5, 0.5]\nloss = "zero_one"\n[constraint]\nkind = "local"\neps = 1.0\n',
    "sweep_unknown.toml": 'programs = ["pd-dp"]\nepsilon = [1.0]\n',
    "sweep_prior.toml": 'programs = ["pd-dp"]\neps = [1.0]\npriors = ["iid:0.5,0.6"]\n',
}


def make_files(d: Path) -> Path:
    """Fill ``d`` with the fixture files the cases name (``{d}/…``)."""
    (d / "empty.npy").write_bytes(b"")
    (d / "garbled.npy").write_bytes(b"this is not an array\n" * 4)
    np.save(d / "pickled.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    np.save(d / "full.npy", np.full(8, 1 / 8))
    (d / "truncated.npy").write_bytes((d / "full.npy").read_bytes()[:-20])
    (d / "empty.csv").write_text("")
    (d / "garbled.csv").write_text("0.5,abc\n")
    (d / "nan.csv").write_text("0.25,0.25,nan,0.5,0,0,0,0\n")
    (d / "garbled.json").write_text("{pmf: [0.5, 0.5]")
    (d / "nokey.json").write_text('{"p": [0.5, 0.5]}')
    (d / "prior.txt").write_text("0.5,0.5")
    np.save(d / "four.npy", np.full(4, 0.25))
    np.save(d / "p4096.npy", np.full(4096, 1 / 4096))
    (d / "afile").write_text("x")
    (d / "adir.json").mkdir()
    (d / "out").mkdir()
    np.save(d / "badchannel.npy", np.array([[0.5, 0.6], [0.5, 0.5]]))
    np.save(d / "nanchannel.npy", np.array([[np.nan, 1.0], [0.5, 0.5]]))
    np.save(d / "rr.npy", np.array([[0.75, 0.25], [0.25, 0.75]]))
    for name, text in TOML.items():
        (d / name).write_text(text)
    (d / "binary.toml").write_bytes(b"\xff\xfe\x00")
    (d / "ragged_mechanism.json").write_text(
        '{"matrix": [[1, 0], [0]], "input_labels": [], "output_labels": []}'
    )
    (d / "list_mechanism.json").write_text("[1, 2]")
    (d / "text_mechanism.csv").write_text("x\\y,0\n0,abc\n")
    return d


def listing(d: Path) -> set[str]:
    return {str(p.relative_to(d)) for p in d.rglob("*")}


def scope(d: Path) -> dict:
    """The names a Python case's ``code`` may use (``D`` is the fixture directory)."""
    from problems import PDDP, PDI, PDMIP, DatabaseSpace, Mechanism, h, h_inv, priors
    from problems.curves import privacy_distortion_curve
    from problems.design.problem import design_problem
    from problems.export import export_mechanism, load_mechanism
    from problems.information.channel import load_channel
    from problems.mechanism import identifiability_mechanism
    from problems.model import MechanismModel
    from problems.model import privacy as model_privacy
    from problems.model.cli import model_from_spec
    from problems.orbit import make_program
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.prior_constants import eps_X, symmetric_constants
    from problems.resources import memory_budget
    from problems.sweep.grid import SweepSpec, load_spec
    from problems.sweep.runner import run_sweep

    return dict(
        np=np, os=os, D=d, PDI=PDI, PDDP=PDDP, PDMIP=PDMIP, DatabaseSpace=DatabaseSpace, Mechanism=Mechanism,
        h=h, h_inv=h_inv, priors=priors, privacy_distortion_curve=privacy_distortion_curve,
        export_mechanism=export_mechanism, load_channel=load_channel, make_program=make_program,
        memory_budget=memory_budget, identifiability_mechanism=identifiability_mechanism,
        MechanismModel=MechanismModel, model_privacy=model_privacy, model_from_spec=model_from_spec,
        parse_symmetric_prior=parse_symmetric_prior, eps_X=eps_X, symmetric_constants=symmetric_constants,
        SweepSpec=SweepSpec, load_spec=load_spec, run_sweep=run_sweep, design_problem=design_problem,
        load_mechanism=load_mechanism,
    )  # fmt: skip


def subprocess_env() -> dict:
    """The environment of a case run as a real process: this checkout first on the path, one BLAS thread, the
    catalogue's memory budget."""
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        PRIVACY_PROBLEMS_MEMORY_LIMIT=BUDGET,
    )
    return env


def argv_of(case: Case, d: Path) -> list[str]:
    """The case's command line with ``{d}`` filled in (``-m problems …``)."""
    return [a.replace("{d}", str(d)) for a in case.argv]


@dataclass
class Outcome:
    """What running a case gave: exit code or exception name, the text to match, wall time, traced peak."""

    code: int | str
    text: str
    stdout: str
    seconds: float
    peak: int


def run_cli_inprocess(case: Case, d: Path) -> Outcome:
    """``main(argv)`` of the case's command line in this process, stdout and stderr captured."""
    argv = argv_of(case, d)
    module, rest = argv[1], argv[2:]
    if module == "problems":
        from problems.cli import main
    else:
        from ipopt_models.cli import main
    out, err = io.StringIO(), io.StringIO()
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(rest)
    finally:
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return Outcome(code, err.getvalue(), out.getvalue(), seconds, peak)


def run_api(case: Case, d: Path) -> Outcome:
    """Execute the case's ``code``; the outcome's code is the exception's class name or ``"ok"``."""
    names = scope(d)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        exec(case.code, names)
        code, text = "ok", ""
    except Exception as exc:  # noqa: BLE001 - the catalogue records whatever was raised
        code, text = type(exc).__name__, str(exc)
    finally:
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return Outcome(code, text, "", seconds, peak)


def outcome_text(expect: int | str) -> str:
    if isinstance(expect, int):
        return {0: "exit 0 (answered)", 2: "exit 2 (bad input)", 4: "exit 4 (too large)"}[expect]
    return "returns" if expect == "ok" else f"`{expect}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def command_text(case: Case) -> str:
    if case.argv:
        return "python " + " ".join(a if a else "''" for a in case.argv).replace("{d}/", "")
    return case.code.split("\n")[0]


HEADER = "| input | command or call | outcome | the message matches | time | peak memory |"


def table_row(case: Case, seconds: float | None = None, peak: float | None = None) -> str:
    """One row of the docs table; the measured columns are ``…`` until measured."""
    t = "…" if seconds is None else f"{seconds:.2f} s"
    m = "…" if peak is None else f"{peak / 2**20:.0f} MiB"
    match = f"`{_cell(case.match)}`" if case.match else "—"
    return f"| {_cell(case.what)} | `{_cell(command_text(case))}` | {outcome_text(case.expect)} | {match} | {t} | {m} |"


def row_key(row: str) -> str:
    """A table row without its two measured columns (what the catalogue alone decides)."""
    return row.rsplit(" | ", 2)[0]


DOC = ROOT / "docs" / "errors.md"
BEGIN, END = "<!-- catalogue: begin -->\n", "<!-- catalogue: end -->"


def doc_rows() -> list[str]:
    text = DOC.read_text()
    body = text[text.index(BEGIN) + len(BEGIN) : text.index(END)]
    return [line for line in body.splitlines() if line.startswith("| ") and not line.startswith("| input |")]


def write_doc(rows: list[str], summary: str) -> None:
    """Replace the table (and the summary line after the end marker's preceding text) in docs/errors.md."""
    text = DOC.read_text()
    table = "\n".join([summary, "", HEADER, "|---|---|---|---|---|---|", *rows]) + "\n"
    DOC.write_text(text[: text.index(BEGIN) + len(BEGIN)] + table + text[text.index(END) :])
