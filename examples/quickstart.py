"""The README's short example, as a script: ``python examples/quickstart.py`` from the repository root.

Solves PD-I, PD-DP and PD-MIP for three i.i.d. binary records and writes the PD-MIP mechanism to
``pd_mip.json`` in the current directory.  ``tests/test_examples.py`` checks that this file holds the
README's code verbatim and runs it.
"""

from problems import PDDP, PDI, PDMIP, DatabaseSpace, eps_tilde, eps_X, priors
from problems.export import export_mechanism

space = DatabaseSpace(n=3, m=2)  # 2^3 databases, itertools.product order
prior = priors.iid(space, [0.3, 0.7])  # or uniform / from_pmf / from_file / contagious
print(eps_X(prior), eps_tilde(prior))  # ε_X = ln(7/3), ε̃_X

pd_i = PDI(prior)
for eps in (1.0, 1.5, 2.0):
    res = pd_i.solve(eps)  # raises InfeasibleProgramError below ε_X, saying why
    print(eps, res.status, res.value, res.bounds)  # status "optimal" only when the bounds prove the value
    print(res.certificate.basis)  # "lp-dual" or the theorem of Wang, Ying & Zhang (2016) that proves it

res = PDDP(prior).solve(40.0, method="lp")  # any ε: the LP, repaired and bounded
assert res.certified and res.bounds.lower <= res.value <= res.bounds.upper

res = PDMIP(prior).solve(0.5, unit="bits")  # min I(X;Y) s.t. E d(X,Y) ≤ 0.5
print(res.value, res.duals["distortion"], res.certificate.duality_gap)
export_mechanism(res.mechanism, "pd_mip.json", metadata={"program": "pd-mip", "D": 0.5})
