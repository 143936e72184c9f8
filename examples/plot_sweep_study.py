r"""
A study on Dask: the sweep and its parquet table
================================================

A study — many programs, priors and privacy levels — is a *sweep*: every point an independent, keyed Dask
task, each finished point stored atomically (so that a re-run resumes), and one table with a row per point
(``results.parquet`` and ``results.csv``). This is ``python -m problems sweep`` from Python.

The sweep below runs on a small local Dask cluster inside this process (threads). Without ``client``,
:func:`problems.sweep.run_sweep` starts a ``LocalCluster`` with one worker process per core; with
``scheduler="tcp://HOST:PORT"`` it uses a running cluster.
"""

import tempfile
from pathlib import Path

import pyarrow.parquet as pq
from distributed import Client

from problems.plotting import new_figure
from problems.sweep import SweepSpec, run_sweep

spec = SweepSpec(
    programs=("pd-dp", "pd-i"),
    priors=("iid:0.2,0.8", "iid:0.4,0.6"),
    n=(4,),
    m=(2,),
    eps=(0.25, 0.5, 1.0, 1.5, 2.0, 3.0),
)
out = Path(tempfile.mkdtemp(prefix="study-"))

with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
    summary = run_sweep(spec, out, client=client, progress=False, figures=False)
print(
    f"{summary.points} points, {summary.computed} computed, {summary.failed} failed "
    f"in {summary.seconds:.1f} s on {summary.scheduler}"
)

# %%
# The table
# ---------
# One row per point: the program, prior, n, m, the privacy level, the certified value with its bounds,
# the status, timings and the back end that produced it.

table = pq.read_table(summary.table)
print(table.schema.names)
rows = table.to_pylist()
print(f"{'program':<7} {'prior':<15} {'eps':>5} {'value':>12} {'lower':>12} {'upper':>12}  status")


def fmt(x):
    return f"{x:12.9f}" if x is not None else f"{'—':>12}"


for r in rows:
    print(
        f"{r['program']:<7} {r['prior']:<15} {r['eps']:5.2f} {fmt(r['value'])} {fmt(r['lower'])} "
        f"{fmt(r['upper'])}  {r['status']}"
    )
# PD-I is infeasible below ε_X (Wang, Ying & Zhang (2016), Lemma 3): those rows say so, with no value.
assert all(r["status"] in ("optimal", "infeasible") for r in rows)

# %%
# Run it again: every point is already stored, so nothing is recomputed.

with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
    again = run_sweep(spec, out, client=client, progress=False, figures=False)
print(f"second run: {again.computed} computed, {again.skipped} skipped")

fig, ax = new_figure(figsize=(6.0, 3.8))
for k, key in enumerate(sorted({(r["program"], r["prior"]) for r in rows})):
    line = sorted(
        (r["eps"], r["value"]) for r in rows if (r["program"], r["prior"]) == key and r["value"] is not None
    )
    style = dict(ls="-", marker="o") if key[0] == "pd-i" else dict(ls="--", marker="s", mfc="none", ms=9)
    ax.plot(*zip(*line, strict=True), color=f"C{k}", label=f"{key[0]}, {key[1]}", **style)
ax.set_xlabel(r"privacy level $\epsilon$ (nats)")
ax.set_ylabel("minimum expected distortion (rows)")
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
