r"""
Exporting a mechanism and re-checking it independently
======================================================

A certified answer is only as good as the check a reader can repeat. Here an optimal identifiability
mechanism (PD-I, Wang, Ying & Zhang (2016)) is exported to JSON and CSV, and the JSON file is then
re-checked with nothing but :mod:`json`, :mod:`itertools` and NumPy — no toolkit code:

* every row is a probability distribution;
* the identifiability constraint :math:`p(x \mid y) \le e^\epsilon p(x' \mid y)` holds for all neighbours
  :math:`x \sim x'` (Hamming distance 1) and outputs :math:`y`;
* the expected Hamming distortion :math:`\sum_{x,y} p(x) W[x, y] d(x, y)` lies within the certified bounds.
"""

import csv
import itertools
import json
import math
import tempfile
from pathlib import Path

import numpy as np

from problems import PDI, DatabaseSpace, priors
from problems.export import export_mechanism
from problems.plotting import new_figure

space = DatabaseSpace(n=3, m=2)
prior = priors.iid(space, [0.3, 0.7])
eps = 1.2
res = PDI(prior).solve(eps)
print(res.status, res.value, res.bounds)

folder = Path(tempfile.mkdtemp(prefix="export-"))
meta = {
    "program": "pd-i",
    "n": 3,
    "m": 2,
    "prior": prior.pmf.tolist(),
    "eps": eps,
    "value": res.value,
    "lower": res.bounds.lower,
    "upper": res.bounds.upper,
}
export_mechanism(res.mechanism, folder / "pd_i.json", metadata=meta)
export_mechanism(res.mechanism, folder / "pd_i.csv")
print((folder / "pd_i.csv").read_text().splitlines()[:3])

# %%
# The independent check
# ---------------------
# Read the file back as plain JSON and verify everything from the definitions.

data = json.loads((folder / "pd_i.json").read_text())
W = np.array(data["matrix"])
p = np.array(data["metadata"]["prior"])
n, m, level = data["metadata"]["n"], data["metadata"]["m"], data["metadata"]["eps"]
databases = list(itertools.product(range(m), repeat=n))  # the toolkit's order, rebuilt here
assert data["input_labels"] == [",".join(map(str, x)) for x in databases]

rows_ok = np.all(W >= 0) and np.allclose(W.sum(axis=1), 1.0, rtol=0, atol=1e-12)
joint = p[:, None] * W  # p(x) W[x, y], proportional to p(x | y) for each y
worst = 0.0
for a, x in enumerate(databases):
    for b, x2 in enumerate(databases):
        if sum(u != v for u, v in zip(x, x2, strict=True)) == 1:
            excess = joint[a] - math.exp(level) * joint[b]
            worst = max(worst, float(excess.max()))
d = np.array([[sum(u != v for u, v in zip(x, y, strict=True)) for y in databases] for x in databases])
distortion = float(np.sum(joint * d))

print(f"rows are distributions: {rows_ok}")
print(f"largest violation of p(x|y) <= e^eps p(x'|y): {worst:.2e} (scaled by p(y))")
print(
    f"distortion {distortion:.12f} within [{data['metadata']['lower']:.12f}, {data['metadata']['upper']:.12f}]"
)
assert rows_ok and worst <= 1e-12
assert data["metadata"]["lower"] - 1e-12 <= distortion <= data["metadata"]["upper"] + 1e-12

with open(folder / "pd_i.csv", newline="") as fh:
    table = list(csv.reader(fh))
assert np.array_equal(np.array([[float(v) for v in row[1:]] for row in table[1:]]), W)  # bit for bit

fig, ax = new_figure(figsize=(4.8, 4.0))
image = ax.imshow(W, cmap="magma", vmin=0, vmax=1)
ax.set_xticks(range(len(databases)), data["output_labels"], rotation=90, fontsize=7)
ax.set_yticks(range(len(databases)), data["input_labels"], fontsize=7)
ax.set_xlabel("output database y")
ax.set_ylabel("input database x")
ax.set_title(rf"optimal {level}-identifiable mechanism", fontsize=10)
fig.colorbar(image, ax=ax, label="p(y | x)")
