"""Sweeps: grid, keys, resume, tables, refusals, and a real LocalCluster — values equal to direct solves."""

from __future__ import annotations

import json
import math

import pyarrow.parquet as pq
import pytest

from problems import DatabaseSpace
from problems.errors import InvalidInputError
from problems.priors import iid, uniform
from problems.programs import PDDP, PDI
from problems.sweep import COLUMNS, SCHEMA, Point, SweepSpec, load_spec, run_sweep
from problems.sweep.cli import register  # noqa: F401  (the subcommand module imports cleanly)

TOL = 1e-9


def _direct(row: dict) -> float:
    """The same point solved directly with the dense program classes (no sweep, no reduction)."""
    space = DatabaseSpace(row["n"], row["m"])
    prior = uniform(space) if row["prior"] == "uniform" else iid(space, [0.3, 0.7])
    cls = {"pd-dp": PDDP, "pd-i": PDI}[row["program"]]
    return cls(prior).solve(row["eps"], method="lp").value


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOL * max(1.0, abs(b))


SPEC = SweepSpec(
    programs=("pd-dp", "pd-i"), priors=("uniform", "iid:0.3,0.7"), n=(3,), m=(2,), eps=(0.5, 1.0, 1.5)
)


def test_grid_expands_in_order_without_duplicates():
    pts = SPEC.points()
    assert len(pts) == 12
    assert len({p.key for p in pts}) == 12
    assert [p.program for p in pts[:6]] == ["pd-dp"] * 6
    dup = SweepSpec(programs=("pd-dp",), eps=(1.0, 1.0), n=(2,), m=(2,))
    assert len(dup.points()) == 1


def test_key_hashes_values_and_changes_with_every_field():
    p = Point("pd-dp", 3, 2, "iid:0.3,0.7", eps=1.0)
    assert p.key == Point("pd-dp", 3, 2, "iid:0.30,0.70", eps=1.0).key  # by value, not by text
    others = [
        Point("pd-i", 3, 2, "iid:0.3,0.7", eps=1.0),
        Point("pd-dp", 4, 2, "iid:0.3,0.7", eps=1.0),
        Point("pd-dp", 3, 2, "iid:0.4,0.6", eps=1.0),
        Point("pd-dp", 3, 2, "iid:0.3,0.7", eps=1.5),
        Point("pd-dp", 3, 2, "iid:0.3,0.7", eps=1.0, solver="highs"),
        Point("pd-dp", 3, 2, "iid:0.3,0.7", eps=1.0, version="0.0.0"),
    ]
    assert len({p.key} | {o.key for o in others}) == 7


def test_file_prior_is_keyed_by_its_bytes(tmp_path):
    f = tmp_path / "p.json"
    f.write_text("[0.25, 0.25, 0.25, 0.25]")
    k1 = Point("pd-dp", 2, 2, f"file:{f}", eps=1.0).key
    f.write_text("[0.1, 0.2, 0.3, 0.4]")
    assert Point("pd-dp", 2, 2, f"file:{f}", eps=1.0).key != k1


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(programs=()),
        dict(programs=("pd-x",), eps=(1.0,)),
        dict(programs=("pd-dp",)),  # no ε
        dict(programs=("eps-d",)),  # no D
        dict(programs=("pd-dp",), eps=(-1.0,)),
        dict(programs=("pd-dp",), eps=(math.nan,)),
        dict(programs=("pd-mip",), distortion=(5.0,), n=(3,)),  # D > n
        dict(programs=("pd-dp",), eps=(1.0,), priors=("gauss:1",)),
        dict(programs=("pd-dp",), eps=(1.0,), priors=("dirichlet:-1:0",)),
        dict(programs=("pd-dp",), eps=(1.0,), m=(1,)),
    ],
)
def test_bad_grids_are_typed_errors(kwargs):
    with pytest.raises(InvalidInputError):
        SweepSpec(**kwargs).points()


def test_spec_file(tmp_path):
    f = tmp_path / "study.toml"
    f.write_text(
        '[sweep]\nprograms = ["pd-dp", "eps-i"]\nn = [3]\nm = [2]\neps = [0.5, 1.0]\n'
        'distortion_over_n = [0.1, 0.2]\npriors = ["uniform"]\n[sweep.dirichlet]\nalpha = 1.0\nseeds = 3\n'
    )
    spec = load_spec(f)
    assert spec.priors == ("uniform", "dirichlet:1:0", "dirichlet:1:1", "dirichlet:1:2")
    assert len(spec.points()) == 4 * 2 + 4 * 2
    (tmp_path / "bad.toml").write_text("programs = [")
    with pytest.raises(InvalidInputError, match="not valid TOML"):
        load_spec(tmp_path / "bad.toml")
    (tmp_path / "typo.toml").write_text('program = ["pd-dp"]\nepsilon = [1]\n')
    with pytest.raises(InvalidInputError, match="epsilon"):
        load_spec(tmp_path / "typo.toml")


def test_resume_skips_finished_points_and_recomputes_missing_ones(tmp_path):
    first = SweepSpec(programs=("pd-dp",), priors=("uniform",), n=(3,), m=(2,), eps=(0.5, 1.0))
    s1 = run_sweep(first, tmp_path, scheduler="synchronous", progress=False, figures=False)
    assert (s1.computed, s1.skipped) == (2, 0)
    s2 = run_sweep(SPEC, tmp_path, scheduler="synchronous", progress=False, figures=False)
    assert (s2.points, s2.computed, s2.skipped) == (12, 10, 2)
    s3 = run_sweep(SPEC, tmp_path, scheduler="synchronous", progress=False, figures=False)
    assert (s3.computed, s3.skipped) == (0, 12)
    # a lost or corrupt point file is recomputed; nothing else is
    files = sorted((tmp_path / "points").glob("*.json"))
    files[0].unlink()
    files[1].write_text("{not json")
    s4 = run_sweep(SPEC, tmp_path, scheduler="synchronous", progress=False, figures=False)
    assert (s4.computed, s4.skipped) == (2, 10)
    assert [r["key"] for r in s4.rows] == [p.key for p in SPEC.points()]
    assert not list((tmp_path / "points").glob(".*.tmp"))  # nothing half-written


def test_tables_schema_parquet_and_csv(tmp_path):
    spec = SweepSpec(
        programs=("pd-dp", "eps-d"), priors=("uniform",), n=(2,), m=(2,), eps=(1.0,), distortion=(0.5,)
    )
    s = run_sweep(spec, tmp_path, scheduler="synchronous", progress=False)
    table = pq.read_table(tmp_path / "results.parquet")
    assert table.column_names == list(COLUMNS)
    assert {f.name: str(f.type) for f in table.schema} == SCHEMA
    header = (tmp_path / "results.csv").read_text().splitlines()[0].split(",")
    assert header == list(COLUMNS)
    rows = table.to_pylist()
    assert [r["program"] for r in rows] == ["pd-dp", "eps-d"]
    assert rows[0]["eps"] == 1.0 and rows[0]["distortion"] is None
    assert rows[1]["distortion"] == 0.5 and rows[1]["eps"] is None
    assert all(r["certified"] for r in rows)
    assert [f.split("/")[-1] for f in s.figures] == ["eps-d_n2_m2.png", "pd-dp_n2_m2.png"]


def test_failed_and_infeasible_points_are_rows_not_crashes(tmp_path):
    pts = [
        Point("pd-dp", 3, 2, "pmf:0.5,0.5", eps=1.0),  # wrong length: fails when run
        Point("pd-i", 3, 2, "iid:0.3,0.7", eps=0.5),  # ε < ε_X: proved infeasible (Lemma 3)
        Point("pd-dp", 3, 2, "uniform", eps=1.0),
    ]
    s = run_sweep(pts, tmp_path, scheduler="synchronous", progress=False, figures=False)
    status = [r["status"] for r in s.rows]
    assert status == ["failed", "infeasible", "optimal"]
    assert "ShapeMismatchError" in s.rows[0]["error"] and "(8,)" in s.rows[0]["error"]
    assert s.rows[1]["value"] is None and "ε_X" in s.rows[1]["error"]
    assert s.failed == 1


def test_oversized_points_are_refused_before_they_are_sent(tmp_path):
    pts = [
        Point("pd-dp", 2, 2, "uniform", eps=1.0),
        Point("pd-dp", 10, 2, "pmf:" + ",".join(["1"] * 1024), eps=1.0),
    ]
    # a tiny worker memory limit: the dense n = 10 point is refused, the n = 2 point needs no cluster work
    s = run_sweep(pts, tmp_path, workers=1, memory_limit=400 * 2**20, progress=False, figures=False)
    assert [r["status"] for r in s.rows] == ["optimal", "refused"]
    assert "GiB" in s.rows[1]["error"]


def test_local_cluster_two_processes_equals_direct_solves(tmp_path):
    s = run_sweep(SPEC, tmp_path, workers=2, progress=False, figures=False)
    assert s.points == s.computed == 12 and s.workers == 2
    assert len({r["worker"] for r in s.rows}) == 2  # both processes did work
    for r in s.rows:
        if r["status"] == "infeasible":
            assert r["program"] == "pd-i" and r["eps"] < math.log(7 / 3)  # ε_X = ln(0.7/0.3)
            continue
        assert r["certified"] and r["lower"] <= r["value"] <= r["upper"]
        assert _close(r["value"], _direct(r)), r


def test_cli_sweep_json_and_exit_codes(tmp_path, capsys):
    from problems.cli import main

    argv = ["sweep", "--program", "pd-dp", "--n", "2", "--m", "2", "--prior", "uniform", "--eps", "0.5,1"]
    rc = main(argv + ["--out", str(tmp_path), "--scheduler", "synchronous", "--json", "--quiet"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert {"points", "computed", "skipped", "failed", "scheduler", "workers", "table"} <= set(out)
    assert out["points"] == 2 and list(out["table"][0]) == list(COLUMNS)
    assert main(["sweep", "--program", "pd-q", "--eps", "1", "--out", str(tmp_path)]) == 2
    assert main(["sweep", "--program", "pd-dp", "--out", str(tmp_path)]) == 2  # no ε
    assert main(argv + ["--out", str(tmp_path), "--workers", "0"]) == 2
    assert main(argv + ["--out", str(tmp_path), "--solver", "gurobi"]) == 2
    f = tmp_path / "file"
    f.write_text("x")
    assert main(argv + ["--out", str(f)]) == 2  # output is an existing file


def test_capacity_and_design_jobs(tmp_path):
    from problems.design import design_mechanism, design_problem

    pts = [Point("c1-dp", 3, 2, "uniform", eps=e) for e in (0.5, 1.0)] + [
        Point("design", 2, 2, "uniform", eps=0.5, query="count")
    ]
    s = run_sweep(pts, tmp_path, scheduler="synchronous", progress=False)
    for r in s.rows[:2]:  # ε-DP implies C₁ ≤ ε (Wu 2019b); the bracket is proved
        assert r["lower"] <= r["value"] <= r["upper"] <= r["eps"] + 1e-9
    direct = design_mechanism(design_problem(DatabaseSpace(2, 2), "count"), 0.5).value
    assert _close(s.rows[2]["value"], direct)
    assert any(f.endswith("c1-dp_n3_m2.png") for f in s.figures)


def test_model_points_sweep_the_marked_fields(tmp_path):
    # binary ε-local DP, uniform prior, 0–1 loss: randomized response, error 1/(1 + e^ε) (Kairouz et al. 2014)
    spec = tmp_path / "rr.toml"
    spec.write_text('prior = [0.5, 0.5]\nloss = "zero_one"\n[[constraint]]\nkind = "local"\neps = "sweep"\n')
    s = run_sweep(
        SweepSpec(programs=("model",), models=(str(spec),), eps=(0.5, 1.0, 2.0)),
        tmp_path / "out",
        scheduler="synchronous",
        progress=False,
    )
    for r in s.rows:
        assert r["certified"] and r["prior"] == f"model:{spec}"
        assert _close(r["value"], 1 / (1 + math.exp(r["eps"])))
    with pytest.raises(InvalidInputError, match="model spec files"):
        SweepSpec(programs=("model",), eps=(1.0,))


def test_worker_memory_limit_is_the_library_budget(tmp_path):
    """In a worker, the library's memory guard uses the worker's limit (what the sweep sized it by)."""
    from distributed import Client, LocalCluster

    def budget() -> int:
        from problems.resources import memory_budget
        from problems.sweep.jobs import _worker_memory_budget

        _worker_memory_budget()
        return memory_budget()

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, memory_limit="3GiB", dashboard_address=":0"
    ) as lc:
        with Client(lc) as c:
            assert c.submit(budget, pure=False).result() == 3 * 2**30


def test_prior_specs_take_fractions_like_the_command_line():
    assert (
        Point("pd-dp", 3, 2, "iid:1/3,2/3", eps=1.0).key
        == Point("pd-dp", 3, 2, f"iid:{1 / 3!r},{2 / 3!r}", eps=1.0).key
    )
    with pytest.raises(InvalidInputError, match="finite"):
        Point("pd-dp", 3, 2, "iid:0.3,nan", eps=1.0)
