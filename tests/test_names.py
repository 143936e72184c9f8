"""Names that mean one thing: one ``mutual_information(W, p)``, one ``dp_level``, no module named like a
function it exports, ``__all__`` written once per package, and the deprecated spellings still working.

References are independent of the library: closed forms and brute-force loops over neighbour pairs.
"""

import importlib
import itertools
import math
import pkgutil
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import ipopt_models
import problems
from problems.database import DatabaseSpace
from problems.measures import dp_level, mutual_information

LAZY_PACKAGES = [
    "problems",
    "problems.design",
    "problems.information",
    "problems.lp",
    "problems.model",
    "problems.orbit",
    "ipopt_models",
]


def _packages():
    """The packages of the library, found on disk; the deprecated shims of moved modules (packages whose
    import hands back the module at the new path) are not packages of the library."""
    for top in (problems, ipopt_models):
        root = Path(top.__path__[0])
        for init in sorted(root.rglob("__init__.py")):
            rel = init.parent.relative_to(root.parent)
            name = ".".join(rel.parts)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                mod = importlib.import_module(name)
            if mod.__name__ == name and hasattr(mod, "__path__"):
                yield name


# ------------------------------------------------------------------------------------ mutual information
def test_mutual_information_of_a_binary_symmetric_channel():
    a = 0.1
    bsc = np.array([[1 - a, a], [a, 1 - a]])
    hb = -a * math.log(a) - (1 - a) * math.log(1 - a)
    assert mutual_information(bsc, [0.5, 0.5]) == pytest.approx(math.log(2) - hb, rel=1e-14)


def test_the_information_package_has_the_same_mutual_information():
    from problems.information import mutual_information as info_mi
    from problems.information.capacity import mutual_information as capacity_mi
    from problems.model.privacy import mutual_information_value

    assert info_mi is mutual_information and capacity_mi is mutual_information
    W, p = np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]]), np.array([0.25, 0.75])
    q = p @ W
    reference = sum(p[x] * W[x, y] * math.log(W[x, y] / q[y]) for x in range(2) for y in range(3))
    assert mutual_information(W, p) == pytest.approx(reference, rel=1e-13)
    assert mutual_information_value(W, p) == pytest.approx(reference, rel=1e-13)


def test_the_order_p_w_still_works_with_a_deprecation_warning():
    W, p = np.array([[0.7, 0.3], [0.2, 0.8]]), np.array([0.4, 0.6])
    with pytest.warns(DeprecationWarning, match=r"\(W, p\)"):
        old = mutual_information(p, W)
    assert old == mutual_information(W, p)


def test_mutual_information_shapes_are_checked():
    from problems.errors import ShapeMismatchError

    with pytest.raises(ShapeMismatchError, match="input distribution"):
        mutual_information(np.eye(3), [0.5, 0.5])
    with pytest.raises(ShapeMismatchError, match="2-D"):
        mutual_information(np.ones((2, 2, 2)) / 2, [0.5, 0.5])


# ------------------------------------------------------------------------------------ dp_level
def _brute_dp(W: np.ndarray, n: int, m: int) -> float:
    """max ln W[x,y]/W[x',y] over databases differing in one row, from the definition."""
    rows = list(itertools.product(range(m), repeat=n))
    worst = 0.0
    for a, x in enumerate(rows):
        for b, xp in enumerate(rows):
            if sum(u != v for u, v in zip(x, xp)) != 1:
                continue
            for y in range(W.shape[1]):
                if W[a, y] > 0 and W[b, y] == 0:
                    return math.inf
                if W[a, y] > 0:
                    worst = max(worst, math.log(W[a, y] / W[b, y]))
    return worst


def test_one_dp_level_for_matrices_and_channels():
    rng = np.random.default_rng(7)
    n, m, K = 2, 3, 4
    W = rng.random((m**n, K)) + 0.05
    W /= W.sum(axis=1, keepdims=True)
    expected = _brute_dp(W, n, m)
    assert dp_level(W, DatabaseSpace(n, m)) == pytest.approx(expected, rel=1e-13)
    assert dp_level(W.reshape(m, m, K)) == pytest.approx(expected, rel=1e-13)  # the channel form


def test_the_information_package_has_the_same_dp_level():
    from problems.information import PrivacyChannel
    from problems.information import dp_level as info_dp

    assert info_dp is dp_level
    p = 0.2
    rr = np.array([[1 - p, p], [p, 1 - p]])
    assert dp_level(PrivacyChannel(rr)) == pytest.approx(math.log((1 - p) / p), rel=1e-14)
    assert math.isinf(dp_level(np.array([[1.0, 0.0], [0.5, 0.5]])))


# ------------------------------------------------------------------------------------ module names
def test_no_module_shares_its_name_with_a_function_of_its_package():
    clashes = []
    for name in _packages():
        pkg = importlib.import_module(name)
        subs = {s.name for s in pkgutil.iter_modules(pkg.__path__)}
        for n in sorted(subs & set(getattr(pkg, "__all__", ()))):
            if not isinstance(getattr(pkg, n), types.ModuleType):
                clashes.append(f"{name}.{n}")
    assert clashes == []


def test_the_renamed_information_modules_keep_their_old_paths_for_a_release():
    import problems.information as info

    with pytest.warns(DeprecationWarning, match="individual_capacity is now problems.information.individual"):
        from problems.information.individual_capacity import individual_capacity
    with pytest.warns(DeprecationWarning, match="max_information_privacy"):
        from problems.information.max_information import max_information
    # the package attributes stay the functions (no submodule is bound over them)
    assert info.individual_capacity is individual_capacity and callable(info.individual_capacity)
    assert info.max_information is max_information and callable(info.max_information)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from problems.information.individual import individual_capacity as new
    assert new is individual_capacity


# ------------------------------------------------------------------------------------ __all__
@pytest.mark.parametrize("package", sorted(_packages()))
def test_all_lists_each_name_once_and_every_name_resolves(package):
    mod = importlib.import_module(package)
    names = list(mod.__all__)
    assert len(names) == len(set(names))
    for n in names:
        getattr(mod, n)


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_the_lazy_table_and_all_agree(package):
    mod = importlib.import_module(package)
    moved = set(getattr(mod, "_MOVED", ()))  # deprecated names typed for one release, not in __all__
    assert set(mod.__all__) == set(mod._LAZY) - moved


# ------------------------------------------------------------------------------------ deprecated, unused API
def test_lp_certificate_warns_and_still_measures_the_kkt_residuals():
    from problems.certificate import lp_certificate

    # min z₁ + z₂ s.t. z₁ + z₂ = 1, −z ≤ 0: z = (1, 0), ν = −1, λ = (0, 0) is an exact KKT point
    A, b = np.array([[1.0, 1.0]]), np.array([1.0])
    G, h = -np.eye(2), np.zeros(2)
    with pytest.warns(DeprecationWarning, match="lp_certificate"):
        cert = lp_certificate(
            np.ones(2), np.array([1.0, 0.0]), A=A, b=b, nu=np.array([-1.0]), G=G, h=h, lam=np.zeros(2)
        )
    assert cert.primal_residual == 0.0 and cert.dual_residual == 0.0 and cert.duality_gap == 0.0


def test_ratio_lp_method_keyword_warns_and_means_the_solver():
    from problems.priors import uniform
    from problems.programs import PDDP

    space = DatabaseSpace(2, 2)
    lp = PDDP(uniform(space)).lp
    with pytest.warns(DeprecationWarning, match="solver="):
        old = lp.solve(0.5, method="cvxpy")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        new = lp.solve(0.5, solver="cvxpy")
    assert old.value == pytest.approx(new.value, abs=1e-9)  # the keyword is routed to the same back end


# ------------------------------------------------------------------------------------ one meaning per name
def test_the_model_mixture_is_no_longer_called_repair():
    from problems.model import privacy
    from problems.model.certify import feasible_mixture, repair
    from problems.model.privacy import ModelContext

    p, L = np.array([0.5, 0.5]), np.array([[0.0, 1.0], [1.0, 0.0]])
    ctx = ModelContext(p, L)
    cons = [privacy.differential(math.log(3.0))]
    W = np.eye(2)  # ratio ∞: only a mixture with a reference mechanism meets ε = ln 3
    objective = lambda M: float(np.sum(p[:, None] * L * M))  # noqa: E731
    new = feasible_mixture(W, cons, ctx, objective, 0.0)
    with pytest.warns(DeprecationWarning, match="feasible_mixture"):
        old = repair(W, cons, ctx, objective, 0.0)
    assert np.array_equal(new.W, old.W) and new.reference == old.reference
    # independent check of the mixture: rows sum to 1 and W[x,y] ≤ 3 W[x',y] for x ≠ x'
    assert np.allclose(new.W.sum(axis=1), 1.0)
    assert np.all(new.W[0] <= 3.0 * new.W[1] * (1 + 1e-12)) and np.all(
        new.W[1] <= 3.0 * new.W[0] * (1 + 1e-12)
    )


def test_reduced_backends_has_its_own_name():
    from problems.orbit import reduced_lp

    assert reduced_lp.REDUCED_BACKENDS == (
        "clarabel",
        "block",
        "highs",
        "highs-scaled",
        "highs-mass",
        "cvxpy",
    )
    with pytest.warns(DeprecationWarning, match="REDUCED_BACKENDS"):
        assert reduced_lp.BACKENDS == reduced_lp.REDUCED_BACKENDS
