#!/usr/bin/env bash
# The README's sweep example, as written there; run from the repository root: bash examples/sweep.sh
# (starts a Dask LocalCluster; writes study/).
set -e
python -m problems sweep --program pd-dp --program pd-i --n 3 --m 2 \
    --prior iid:0.3,0.7 --prior uniform --eps 0.5,1,1.5 --out study
# study/results.parquet, study/results.csv, study/figures/*.png; run it again: every point is skipped
