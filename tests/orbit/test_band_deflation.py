"""Pinned deflation of the layered blocks (problems/ipm/band_deflation.py).

References independent of the code under test: the Newton system solved in 60-digit arithmetic (mpmath) from the
same floating-point entries, a dense NumPy solve of a well-conditioned system, and NumPy's connected components of
the tight rows counted by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from layered_systems import random_normal_system  # tests/orbit (pytest puts it on the path)

from problems.ipm import band_deflation as bd
from problems.ipm import block
from problems.ipm.block import RaggedBlockSystem
from problems.orbit import ReducedPDDP
from problems.orbit.symmetric_prior import parse_symmetric_prior

CONTAGIOUS = "contagious:0.9:0.3,0.7"


def _ends(sysm: RaggedBlockSystem) -> tuple[np.ndarray, ...]:
    pieces = [(h[0], h[2], h[4]) for h in sysm._halves] if sysm._halves is not None else [(0, 0, sysm.G0T)]
    ends = bd.row_ends(pieces, sysm.P)
    assert ends is not None
    return ends


def _dense_H(sysm: RaggedBlockSystem, D: np.ndarray, E: np.ndarray) -> np.ndarray:
    i, j, ai, aj = _ends(sysm)
    G = np.zeros((sysm.P, sysm.K))
    G[np.arange(sysm.P), i] = ai
    G[np.arange(sysm.P), j] = aj
    return G.T @ (D[:, None] * G) + np.diag(E)


def _solve(sysm: RaggedBlockSystem, diag, off, pinned, f, rp):  # noqa: ANN001, ANN202
    """H Δu + AᵀΔν = f, A Δu = −r_p through the factorisation's protocol, as the iteration runs it."""
    fac = sysm.factor(diag.copy(), off, 1, pinned)
    rhs1 = fac.forward(f.copy(), slice(None), None) + rp
    dnu, tt = fac.coupling(rhs1, f)
    dz = fac.backward(f.copy(), dnu, slice(None), None)
    fac.border(dz, tt)
    return dz, dnu


def test_row_ends_are_the_ratio_rows_in_the_system_order():
    """(i, j, a_i, a_j) reproduce G u for a random u (G from the system's own product)."""
    spec = ReducedPDDP(parse_symmetric_prior(CONTAGIOUS, 9, 2)).lp.spec
    sysm = RaggedBlockSystem(spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(2.0))
    assert sysm.layers is not None
    i, j, ai, aj = _ends(sysm)
    u = np.random.default_rng(0).standard_normal(sysm.K)
    np.testing.assert_allclose(ai * u[i] + aj * u[j], sysm.G(u), rtol=1e-14, atol=1e-15)


def test_pinned_bordered_solve_equals_the_plain_solve_for_any_pins():
    """On a well-conditioned system (random D, E) pins on arbitrary disjoint vectors U, with H U formed densely,
    give the same Newton direction as the factorisation without pins and as a dense solve: the Woodbury algebra
    and the bordered system are exact."""
    ns = random_normal_system(ReducedPDDP, CONTAGIOUS, 7, 1.0, seed=3)
    sysm, rng, D, E, diag, off = ns.sysm, ns.rng, ns.D, ns.E, ns.diag, ns.off
    lay = sysm.layers
    assert lay is not None
    H = _dense_H(sysm, D, E)
    # two directions in each of three blocks, disjoint supports, pins at their largest entries
    U = []
    for b in (1, 3, 5):
        s0, s1 = int(lay.starts[b]), int(lay.starts[b + 1])
        nodes = rng.permutation(np.arange(s0, s1))
        for part in (nodes[: (s1 - s0) // 2], nodes[(s1 - s0) // 2 :]):
            v = np.zeros(sysm.K)
            v[part] = rng.uniform(0.1, 1.0, part.size)
            U.append(v / np.linalg.norm(v))
    Um = np.array(U)
    pins = Um.argmax(axis=1)
    blocks = np.searchsorted(lay.starts, pins, side="right") - 1
    pinned = bd.BandDeflation(
        pins, diag[pins] * rng.uniform(0.5, 2.0, pins.size), Um[np.arange(pins.size), pins], blocks,
        sp.csr_matrix(Um @ H), sysm._layer,
    )  # fmt: skip
    f = rng.standard_normal(sysm.K)
    rp = rng.standard_normal(sysm.E)
    dz0, dnu0 = _solve(sysm, diag, off, {}, f, rp)
    dz1, dnu1 = _solve(sysm, diag, off, pinned, f, rp)
    Ad = np.zeros((sysm.E, sysm.K))
    Ad[sysm._layer, np.arange(sysm.K)] = 1.0
    kkt = np.block([[H, Ad.T], [Ad, np.zeros((sysm.E, sysm.E))]])
    ref = np.linalg.solve(kkt, np.concatenate([f, -rp]))
    for dz, dnu in ((dz0, dnu0), (dz1, dnu1)):
        np.testing.assert_allclose(dz, ref[: sysm.K], rtol=1e-9, atol=1e-9 * np.abs(ref[: sysm.K]).max())
        np.testing.assert_allclose(dnu, ref[sysm.K :], rtol=1e-9, atol=1e-9 * np.abs(ref[sysm.K :]).max())


def _late_iterate(n: int, monkeypatch) -> tuple:  # noqa: ANN001
    """The block system and the last iterate at which the layered iteration pinned directions (contagious
    prior, PD-DP, ε = 2), with (u, w, r_g, D, E, diag) as the iteration formed them."""
    spec = ReducedPDDP(parse_symmetric_prior(CONTAGIOUS, n, 2)).lp.spec
    seen: list[tuple] = []
    original = RaggedBlockSystem.deflation

    def grab(self, u, w, r_g, D, E, diag):  # noqa: ANN001, ANN202
        out = original(self, u, w, r_g, D, E, diag)
        if isinstance(out, bd.BandDeflation):
            seen.append((self, u.copy(), w.copy(), r_g.copy(), D.copy(), E.copy(), diag.copy(), out))
        return out

    monkeypatch.setattr(RaggedBlockSystem, "deflation", grab)
    monkeypatch.setattr(
        block, "PIN_AFTER_REFINEMENT", -1.0
    )  # pins from μ < DEFLATE_BELOW on, whatever happened
    block.solve_block_lp(
        spec.c, spec.A, spec.b, spec.src, spec.dst, None, math.exp(2.0),
        program=spec.program, log_kappa=spec.log_kappa, tol=1e-14, max_iter=200,
    )  # fmt: skip
    assert seen, "no iterate had a direction to pin"
    return seen[-1]


@pytest.mark.parametrize("force", [False, True])
def test_pins_start_only_after_a_shifted_block_or_a_failed_refinement(force, monkeypatch):
    """The layered iteration looks for directions to pin (μ < DEFLATE_BELOW) only once a block needed the
    diagonal shift or a refinement ended above PIN_AFTER_REFINEMENT; with the threshold below every error it
    pins from DEFLATE_BELOW on (m = 2, n = 14, README mixture, PD-DP ε = 2)."""
    spec = ReducedPDDP(parse_symmetric_prior("mixture:0.5,0.5/0.8,0.2/0.3,0.7", 14, 2)).lp.spec
    if force:
        monkeypatch.setattr(block, "PIN_AFTER_REFINEMENT", -1.0)
    events: list[str] = []
    note, factor, found = RaggedBlockSystem.note_refinement, RaggedBlockSystem.factor, block.band_deflation

    def noted(self, err):  # noqa: ANN001, ANN202
        events.append("fail" if err > block.PIN_AFTER_REFINEMENT else "ok")
        return note(self, err)

    def factored(self, *args):  # noqa: ANN001, ANN202
        fac = factor(self, *args)
        events.append("shift" if fac.shifted else "factor")
        return fac

    def looked(*args):  # noqa: ANN001, ANN202
        events.append("look")
        return found(*args)

    monkeypatch.setattr(RaggedBlockSystem, "note_refinement", noted)
    monkeypatch.setattr(RaggedBlockSystem, "factor", factored)
    monkeypatch.setattr(block, "band_deflation", looked)
    block.solve_block_lp(
        spec.c, spec.A, spec.b, spec.src, spec.dst, spec.kappa, math.exp(2.0), tol=1e-14, threads=1
    )  # fmt: skip
    first = min((events.index(e) for e in ("fail", "shift") if e in events), default=len(events))
    assert "look" not in events[: first + 1]
    if force:
        assert "look" in events


def test_pinned_directions_are_accurate_where_the_blocks_are_singular(monkeypatch):
    """At a late iterate (m = 2, n = 6: H's diagonally scaled matrix has eigenvalues of 1e-16 next to 1) the
    Newton direction with pins agrees with the 60-digit solution of the same floating-point system to 1e-12 in
    the norm scaled by diag(H)^½; the pinned H is well conditioned after that scaling; H u_C as the module forms
    it (from r_g − w, without cancellation) agrees with the exact product."""
    import mpmath

    sysm, u, w, r_g, D, E, diag, pinned = _late_iterate(6, monkeypatch)
    K, P = sysm.K, sysm.P
    i, j, ai, aj = _ends(sysm)
    mpmath.mp.dps = 60
    N = K + sysm.E
    M = mpmath.zeros(N, N)
    for p in range(P):
        ends = ((int(i[p]), mpmath.mpf(ai[p])), (int(j[p]), mpmath.mpf(aj[p])))
        d = mpmath.mpf(D[p])
        for x1, c1 in ends:
            for x2, c2 in ends:
                M[x1, x2] += d * c1 * c2
    for t in range(K):
        M[t, t] += mpmath.mpf(E[t])
        M[t, K + int(sysm._layer[t])] = 1
        M[K + int(sysm._layer[t]), t] = 1
    Hf = np.array([[float(M[a, b]) for b in range(K)] for a in range(K)])
    sq = np.sqrt(np.diag(Hf))
    assert np.linalg.eigvalsh(Hf / np.outer(sq, sq))[0] < 1e-12  # singular to working precision
    Hh = Hf.copy()
    Hh[pinned.pins, pinned.pins] += pinned.tau
    sh = np.sqrt(np.diag(Hh))
    assert np.linalg.cond(Hh / np.outer(sh, sh)) < 1e6
    # H u_C exactly, for the components of the tight rows that hold each pin
    from scipy.sparse.csgraph import connected_components

    tight = np.flatnonzero(D > bd.TIGHT_RATIO * np.maximum(E[i], E[j]))
    _, label = connected_components(
        sp.csr_matrix((np.ones(tight.size), (i[tight], j[tight])), shape=(K, K)), directed=False
    )
    hu = pinned.hu.toarray()
    for k, r in enumerate(pinned.pins):
        members = np.flatnonzero(label == label[r])
        norm = mpmath.sqrt(mpmath.fsum(mpmath.mpf(u[t]) ** 2 for t in members))
        exact = [float(mpmath.fsum(M[a, t] * mpmath.mpf(u[t]) for t in members) / norm) for a in range(K)]
        np.testing.assert_allclose(hu[k], exact, rtol=0, atol=1e-12 * np.abs(exact).max())
    rng = np.random.default_rng(0)
    f = rng.standard_normal(K)
    rp = rng.standard_normal(sysm.E)
    sol = mpmath.lu_solve(M, mpmath.matrix([mpmath.mpf(x) for x in f] + [mpmath.mpf(-x) for x in rp]))
    ref = np.array([float(sol[t]) for t in range(K)])
    d_off = sysm.H_parts(D, E)[1]
    dz, _ = _solve(sysm, diag, d_off, pinned, f, rp)
    assert np.max(np.abs(sq * (dz - ref))) <= 1e-12 * np.max(np.abs(sq * ref))


@pytest.mark.slow
def test_the_n150_point_that_stalled_is_certified_by_the_layered_method_alone():
    """Contagious (0.9; 0.3, 0.7), PD-DP ε = 2, n = 150 (563 K joint types): without pins the layered method
    stalled with bounds 1.26e-6 apart; with them its own point is certified (the chain's certificate as its
    stopping rule).  Reference independent of the LP: the mixture sandwich (the prior's components' values,
    ``mixture_enclosure``), whose lower bound lies 2e-5 below the value."""
    from problems.lp.bounds import certify
    from problems.orbit.mixture_prior import mixture_enclosure
    from problems.solvers.scaled_lp import drop_nonneg

    prog = ReducedPDDP(parse_symmetric_prior(CONTAGIOUS, 150, 2))
    spec, eps = prog.lp.spec, 2.0
    u, nu, lam, _s, _it, _secs = block.solve_block_lp(
        spec.c, spec.A, spec.b, spec.src, spec.dst, None, math.exp(eps),
        program=spec.program, bounded=not drop_nonneg(spec, eps), log_kappa=spec.log_kappa,
        enough=lambda z, nu, lam: bool(certify(spec, eps, z, nu, lam, face=False).certified),
    )  # fmt: skip
    cert = certify(spec, eps, u, nu, lam)
    assert cert.certified
    lo, up = cert.bounds.lower, cert.bounds.upper
    assert up - lo <= 1e-6 * up
    enc = mixture_enclosure(prog.prior, eps)
    assert enc is not None
    assert enc.lower <= lo and up <= enc.upper
    assert lo - enc.lower <= 1e-4 * lo


def test_the_bordered_matrix_is_solved_when_rounding_leaves_it_indefinite():
    """Cholesky where the k×k matrix is positive definite, LU where it is not (against NumPy's solve), from its
    lower triangle only (as the bordered system forms it), in strips narrower than the matrix."""
    rng = np.random.default_rng(1)
    k = 1100  # three strips of the symmetrisation
    X = rng.standard_normal((k, k))
    r = rng.standard_normal(k)
    assert np.linalg.eigvalsh(X + X.T)[0] < 0
    for T in (X @ X.T + np.eye(k), X + X.T):  # positive definite; symmetric indefinite
        x = bd.symmetric_solver(lambda T=T: np.asfortranarray(np.tril(T)))(r)
        np.testing.assert_allclose(
            T @ x, r, rtol=0, atol=1e-8 * np.abs(T).sum(axis=1).max() * np.abs(x).max()
        )
        np.testing.assert_allclose(x, np.linalg.solve(T, r), rtol=1e-6)
