"""The README's modelling-layer example, as a script: ``python examples/model.py`` from the repository root.

A mechanism on databases of 0..2 binary rows under (1, 0.05)-DP for add/remove neighbours and I(X;Y) ≤ 0.3
nats, minimising the zero-one loss.  ``examples/spec.toml`` is the same model for ``python -m problems model``.
"""

import numpy as np
from problems.model import MechanismModel, UnboundedSpace, losses, privacy

u = UnboundedSpace(n=2, m=2)                                   # databases of 0..2 binary rows
model = MechanismModel(prior=np.full(u.size, 1 / u.size), loss=losses.zero_one(u.size))
model.add(privacy.approximate(1.0, 0.05, neighbours=u))       # (ε, δ)-DP, add/remove one row
model.add(privacy.mutual_information(at_most=0.3))            # I(X;Y) ≤ 0.3 nats
res = model.solve()
print(res.status, res.value, res.bounds, res.path)            # optimal 0.5526730387… cvxpy-conic
