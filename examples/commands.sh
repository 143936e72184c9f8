#!/usr/bin/env bash
# The README's command-line examples, as written there; run from the repository root:
#   bash examples/commands.sh
# Each command prints its answer (JSON where --json is given); exit codes are those of the README.
# tests/test_examples.py checks that these lines are the README's and runs each of them.
set -e
python -m problems solve pd-i --n 3 --m 2 --prior iid:0.3,0.7 --eps 1.5 --json --export W.csv
python -m problems solve pd-dp --n 3 --m 2 --prior iid:0.3,0.7 --eps 30 --method lp --solver highs   # exit 0
python -m problems solve pd-i --n 12 --m 3 --prior iid:0.2,0.3,0.5 --eps 2    # Lemma 4: well under a second
python -m problems solve pd-dp --n 200 --m 2 --prior uniform --eps 1      # orbit-reduced automatically
python -m problems constants --n 4 --m 2 --prior contagious:0.2 --json
python -m problems curve --n 4 --m 2 --prior iid:0.3,0.7 --notion d --points 30 --out curves/
python -m problems capacity --channel examples/channel.npy --unit bits --json   # made by examples/make_channel.py
python -m problems calibrate randomized-response --eps 0.5 --json
python -m problems design --query count --n 4 --m 2 --eps 0.5 --json
python -m ipopt_models capacity --random 3,2:3 --starts 50 --seed 0 --json   # C₁ over the full joint vs Theorem 2
