"""A catalogue of bad inputs: each ends in a typed error (exit 2) or a refusal (exit 4), quickly and cheaply.

Command-line cases run in a subprocess limited to 1 GiB of address space (``RLIMIT_AS``) and must finish in
under a second of wall time (the best of three runs, so a moment of load on a shared machine does not fail
the test), with ``error: …`` on stderr, no traceback, no output on stdout and no file left behind.
Python cases must raise the named exception in under a second, allocating less than 1 GiB (tracemalloc), and
no message may show ``np.float64(…)``.

``python tests/test_bad_inputs.py`` prints the table of ``docs/errors.md`` (a test keeps the two equal).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
WALL_LIMIT = 1.0  # seconds
MEMORY_LIMIT = 1 << 30  # bytes (address space of a CLI case, traced allocations of a Python case)
BUDGET = "4G"  # PRIVACY_PROBLEMS_MEMORY_LIMIT: refusals do not depend on the machine


@dataclass(frozen=True)
class Case:
    """One bad input: ``argv`` for the command line (``{d}`` is the fixture directory) or ``code`` for Python."""

    id: str
    what: str
    expect: int | str  # exit code (CLI) or exception class name (Python)
    match: str  # regular expression the message must contain
    argv: tuple[str, ...] = ()
    code: str = ""
    not_match: tuple[str, ...] = field(default=())


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
        "`--path theorem` with PD-MIP",
        2,
        r"--path theorem does not apply to pd-mip",
        (*S, "pd-mip", *N3, "--distortion", "0.5", "--path", "theorem"),
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
        "`solve --path dense --n 30`",
        4,
        r"N ≤ 4096.*reduced",
        (*S, "pd-dp", "--n", "30", "--m", "2", "--prior", "iid:0.3,0.7", "--eps", "1", "--path", "dense"),
    ),
    Case(
        "file-prior-n12",
        "a file prior at n = 12 (N = 4096)",
        4,
        r"would need about .*GiB.*reduced path",
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
        "reduced-lp-n200",
        "`solve pd-dp --n 200 --prior iid:0.3,0.7 --path lp` (1.4 M joint types)",
        4,
        r"reduced LP \(1373701 joint-type variables\) would need about",
        (*S, "pd-dp", "--n", "200", "--m", "2", "--prior", "iid:0.3,0.7", "--eps", "1", "--path", "lp"),
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


# ------------------------------------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bad_inputs")
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
    np.save(d / "badchannel.npy", np.array([[0.5, 0.6], [0.5, 0.5]]))
    np.save(d / "nanchannel.npy", np.array([[np.nan, 1.0], [0.5, 0.5]]))
    np.save(d / "rr.npy", np.array([[0.75, 0.25], [0.25, 0.75]]))
    return d


def _limit_memory() -> None:  # runs in the child before exec
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _env() -> dict:
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        PRIVACY_PROBLEMS_MEMORY_LIMIT=BUDGET,
    )
    return env


def _listing(d: Path) -> set[str]:
    return {str(p.relative_to(d)) for p in d.rglob("*")}


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_cli_bad_input(case: Case, files: Path) -> None:
    argv = [a.replace("{d}", str(files)) for a in case.argv]
    before = _listing(files)
    walls = []
    for _ in range(3):  # the best of three: a moment of load on a shared machine is not a failure
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, *argv],
            capture_output=True,
            text=True,
            env=_env(),
            preexec_fn=_limit_memory,
            cwd=ROOT,
        )
        walls.append(time.perf_counter() - start)
        if walls[-1] < WALL_LIMIT:
            break
    err = proc.stderr
    assert proc.returncode == case.expect, (proc.returncode, err)
    assert "Traceback" not in err and "MemoryError" not in err, err
    assert err.startswith("error: ") or "\nerror: " in err or err.startswith("usage:"), err
    assert re.search(case.match, err), (case.match, err)
    for bad in (*case.not_match, "np.float64("):
        assert bad not in err, err
    assert proc.stdout == "", proc.stdout  # nothing printed as if it were a result
    assert _listing(files) == before  # nothing written, not even a directory
    assert min(walls) < WALL_LIMIT, f"{case.id}: {min(walls):.2f} s"


@pytest.mark.parametrize("case", API_CASES, ids=[c.id for c in API_CASES])
def test_api_bad_input(case: Case, files: Path, monkeypatch) -> None:
    import tracemalloc

    import problems.errors as errors
    from problems import PDDP, PDI, PDMIP, DatabaseSpace, Mechanism, h, h_inv, priors
    from problems.curves import privacy_distortion_curve
    from problems.export import export_mechanism
    from problems.information.channel import load_channel
    from problems.orbit import make_program
    from problems.resources import memory_budget

    monkeypatch.setenv("PRIVACY_PROBLEMS_MEMORY_LIMIT", BUDGET)
    scope = dict(
        np=np, os=os, D=files, PDI=PDI, PDDP=PDDP, PDMIP=PDMIP, DatabaseSpace=DatabaseSpace, Mechanism=Mechanism,
        h=h, h_inv=h_inv, priors=priors, privacy_distortion_curve=privacy_distortion_curve,
        export_mechanism=export_mechanism, load_channel=load_channel, make_program=make_program,
        memory_budget=memory_budget,
    )  # fmt: skip
    before = _listing(files)
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(getattr(errors, case.expect)) as info:
        exec(case.code, scope)
    wall = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    message = str(info.value)
    assert re.search(case.match, message), (case.match, message)
    assert "np.float64(" not in message, message
    assert wall < WALL_LIMIT, f"{case.id}: {wall:.2f} s"
    assert peak < MEMORY_LIMIT, f"{case.id}: {peak / 2**20:.0f} MiB"
    assert _listing(files) == before


def test_catalogue_size() -> None:
    assert len(CLI_CASES) + len(API_CASES) >= 50
    ids = [c.id for c in CLI_CASES + API_CASES]
    assert len(ids) == len(set(ids))


# --------------------------------------------------------------------------------------------------- docs
def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """The table of docs/errors.md."""
    lines = ["| input | command or call | outcome | the message matches |", "|---|---|---|---|"]
    for c in CLI_CASES:
        cmd = "python " + " ".join(a if a else "''" for a in c.argv).replace("{d}/", "")
        outcome = {2: "exit 2 (bad input)", 4: "exit 4 (too large)"}[c.expect]
        lines.append(f"| {_cell(c.what)} | `{_cell(cmd)}` | {outcome} | `{_cell(c.match)}` |")
    for c in API_CASES:
        code = c.code.split("\n")[0]
        lines.append(f"| {_cell(c.what)} | `{_cell(code)}` | `{c.expect}` | `{_cell(c.match)}` |")
    return "\n".join(lines) + "\n"


def _doc_table() -> str:
    text = (ROOT / "docs" / "errors.md").read_text()
    begin, end = "<!-- catalogue: begin -->\n", "<!-- catalogue: end -->"
    return text[text.index(begin) + len(begin) : text.index(end)]


def test_docs_table_is_current() -> None:
    assert _doc_table() == markdown(), "regenerate with: python tests/test_bad_inputs.py"


if __name__ == "__main__":
    doc = ROOT / "docs" / "errors.md"
    text = doc.read_text()
    begin, end = "<!-- catalogue: begin -->\n", "<!-- catalogue: end -->"
    doc.write_text(text[: text.index(begin) + len(begin)] + markdown() + text[text.index(end) :])
    print(f"updated {doc}")


@pytest.mark.parametrize("name", ["eps_X", "eps_tilde", "feasibility_polynomials"])
def test_prior_constants_refuse_a_bare_list_with_a_typed_error(name):
    """A list has no database space (which neighbours to compare would be a guess): a typed error, not an
    AttributeError."""
    import problems.prior_constants as pc
    from problems.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match=r"takes a problems\.priors\.Prior, got list"):
        getattr(pc, name)([0.5, 0.5])
