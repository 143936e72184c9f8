"""Reduced results back to databases: the lifted N×N mechanism (small N) and samples y ~ W(·|x) (any N).

A reduced program's solution is u over orbits of (x, y) pairs — joint types, or Hamming distances for the uniform
prior — and the mechanism is W(y|x) = u[T(x, y)] / c(T | t(x)), the orbit's mass shared equally by its c members.
A single-letter answer (an i.i.d. prior: :mod:`problems.orbit.product_prior`, :mod:`problems.orbit.pd_mip_iid`)
is the n-fold product W₁^{⊗n} of its one-row channel: lifted as the Kronecker power, sampled row by row.  A
constant-output answer (:mod:`problems.orbit.constant_output`) releases (a, …, a) with probability w_a(t(x)); an
output-law answer (Lemma 4's E_i, :mod:`problems.orbit.output_law`) is given by its output law per type.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from ..closed_forms import kron_power
from ..database import DENSE_LIMIT, DatabaseSpace
from ..errors import InvalidInputError, ShapeMismatchError
from ..mechanism import Mechanism
from ..result import SolveResult
from .types import JointTypes, arrange, composition_keys, compositions

__all__ = ["lift_mechanism", "sample"]


def _log_distance_counts(n: int, m: int) -> np.ndarray:
    """ln N_l = ln[C(n, l)(m−1)^l], l = 0..n."""
    l = np.arange(n + 1, dtype=float)
    return gammaln(n + 1.0) - gammaln(l + 1.0) - gammaln(n - l + 1.0) + l * math.log(m - 1)


def _lift_matrix(n: int, m: int, reduction: str, u: np.ndarray, types: JointTypes | None) -> np.ndarray:
    space = DatabaseSpace(n, m)
    e = space.elements
    if reduction == "distance":
        d = np.zeros((space.size, space.size), dtype=np.int64)
        for k in range(n):
            d += e[:, k][:, None] != e[:, k][None, :]
        logN = _log_distance_counts(n, m)
        return (u / np.exp(logN))[d]
    J = types if types is not None else JointTypes(n, m)
    idx = J.pair_index(e, e)
    return (u / np.exp(J.log_count_given_x))[idx]


def _row_channel(result: SolveResult) -> np.ndarray | None:
    """The one-row channel W₁ of a single-letter or mixture-sandwich answer (the mechanism is W₁^{⊗n}), else
    ``None``."""
    ex = result.extras
    if ex.get("reduction") in ("single-letter", "mixture-sandwich") and "single_letter_channel" in ex:
        return np.asarray(ex["single_letter_channel"], dtype=float)
    return None


def _check_result(result: SolveResult) -> tuple[int, int, str, np.ndarray]:
    ex = result.extras
    W1 = _row_channel(result)
    if W1 is not None:
        return int(ex["n"]), int(ex["m"]), "single-letter", W1
    if ex.get("reduction") == "output-law" and "log_output_law" in ex:  # u is ln p̂_Y by type
        return int(ex["n"]), int(ex["m"]), "output-law", np.asarray(ex["log_output_law"], dtype=float)
    if ex.get("reduction") == "constant-output" and "constant_output_weights" in ex:
        return int(ex["n"]), int(ex["m"]), "constant-output", np.asarray(ex["constant_output_weights"], float)
    if ex.get("path") != "reduced" or "u" not in ex:
        raise InvalidInputError(
            f"expected a result of a reduced program (extras['path'] == 'reduced'), got program "
            f"{result.program!r} with path {ex.get('path')!r}"
        )
    return int(ex["n"]), int(ex["m"]), str(ex["reduction"]), np.asarray(ex["u"], dtype=float)


def lift_mechanism(result: SolveResult, *, limit: int = DENSE_LIMIT) -> Mechanism:
    """The full N×N mechanism W(y|x) = u[T(x,y)]/c(T|t(x)) of a reduced result (N = mⁿ ≤ ``limit``)."""
    n, m, reduction, u = _check_result(result)
    space = DatabaseSpace(n, m)
    space.require_dense(limit)
    if result.extras.get("mechanism_level") == "database":
        return result.mechanism
    if reduction == "single-letter":  # u is the one-row channel: the Kronecker power
        return Mechanism.on_space(kron_power(u, n), space, clean=True)
    if reduction == "output-law":  # E_i at its level from ln p̂_Y by type
        from .output_law import lifted

        W = lifted(n, m, float(result.extras["level"]), u)
        return Mechanism.on_space(W, space, clean=True)
    if reduction == "constant-output":  # u is w_a(t): W((a,…,a) | x) = w_a(t(x))
        from .constant_output import lifted_constant_output

        return Mechanism.on_space(lifted_constant_output(n, m, compositions(n, m), u), space, clean=True)
    return Mechanism.on_space(_lift_matrix(n, m, reduction, u, None), space, clean=True)


def _type_channel(n: int, m: int, reduction: str, u: np.ndarray, J: JointTypes | None) -> Mechanism:
    """Type-level channel: P(d(x,Y) = l) (distance) or P(t(Y) = s | t(X) = t) (joint types)."""
    if reduction == "distance":
        g = u / u.sum()
        return Mechanism(g[None, :], ("any x",), tuple(f"d={l}" for l in range(n + 1)))
    assert J is not None
    y_index = J.x_type_index(J.y_types)
    K = J.x_types.shape[0]
    C = sp.csr_matrix((u, (J.x_index, y_index)), shape=(K, K)).toarray()
    C = C / C.sum(axis=1, keepdims=True)
    labels = tuple("t=(" + ",".join(map(str, t)) + ")" for t in J.x_types)
    return Mechanism(C, labels, labels)


def _sample_groups(result: SolveResult, x, size: int, rng: np.random.Generator) -> np.ndarray:  # noqa: ANN001
    """:func:`sample` for a group-product answer (:mod:`problems.orbit.group_product`): the q groups of n₀ rows
    drawn independently, each from the group's own answer."""
    ex = result.extras
    q, n0 = int(ex["groups"]), int(ex["group_rows"])
    x = np.asarray(x, dtype=np.int64)
    if x.shape != (q * n0,):
        raise ShapeMismatchError(f"x must be {q * n0} values, got shape {x.shape}")
    group = replace(result, extras=ex["group_extras"])
    return np.concatenate([sample(group, x[g * n0 : (g + 1) * n0], size, rng) for g in range(q)], axis=1)


def sample(result: SolveResult, x, size: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Draw ``size`` outputs y ~ W(·|x) of a reduced result without building the N×N matrix.

    A single-letter answer draws every row from its one-row channel.  Otherwise the orbit is drawn — the
    distance l from g (distance reduction) or the joint type T from
    u[·| t(x)] — then a uniform element of it: l uniformly chosen rows each moved to a uniformly chosen other
    value, or, for each value a, the rows with x_k = a receive the values b in a uniformly random arrangement
    with counts T_ab.  Returns an ``(size, n)`` integer array.
    """
    if result.extras.get("reduction") == "group-product":  # each group of rows from the group's own answer
        return _sample_groups(result, x, size, np.random.default_rng(rng))
    n, m, reduction, u = _check_result(result)
    rng = np.random.default_rng(rng)
    x = np.asarray(x, dtype=np.int64)
    if x.shape != (n,) or np.any(x < 0) or np.any(x >= m):
        raise ShapeMismatchError(f"x must be {n} values in 0..{m - 1}, got {x!r}")
    size = int(size)
    if reduction == "single-letter":  # each row y_k ~ W₁(·|x_k) independently (inverse cdf)
        cum = np.cumsum(u, axis=1)[x]  # (n, m)
        draws = rng.random((size, n))
        y = (draws[..., None] >= cum * (1.0 / cum[:, -1:])).sum(axis=-1)
        return np.minimum(y, m - 1)
    if reduction == "output-law":  # a joint type from P(T | x), then a random arrangement
        from .output_law import sample_output_law

        return sample_output_law(x, n, m, float(result.extras["level"]), u, size, rng)
    if reduction == "constant-output":  # (a, …, a) with probability w_a(t(x))
        keys = composition_keys(compositions(n, m), n)
        row = int(np.searchsorted(keys, composition_keys(np.bincount(x, minlength=m), n)))
        w = np.clip(u[row], 0.0, None)
        value = rng.choice(m, size=size, p=w / w.sum())
        return np.repeat(value[:, None], n, axis=1).astype(np.int64)
    if reduction == "distance":
        g = np.clip(u, 0, None)
        l = rng.choice(n + 1, size=size, p=g / g.sum())
        keys = rng.random((size, n))
        ranks = np.argsort(np.argsort(keys, axis=1), axis=1)
        change = ranks < l[:, None]
        shift = rng.integers(1, m, size=(size, n))
        return np.where(change, (x[None, :] + shift) % m, x[None, :])
    J = JointTypes(n, m)
    t = np.bincount(x, minlength=m)
    tidx = int(J.x_type_index(t[None, :])[0])
    cand = np.flatnonzero(J.x_index == tidx)
    p = np.clip(u[cand], 0, None)
    chosen = cand[rng.choice(cand.size, size=size, p=p / p.sum())]
    return arrange(x, J.T[chosen], rng)
