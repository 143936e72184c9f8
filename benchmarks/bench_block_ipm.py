"""The m = 2 layered block interior-point method alone, with the certificate as its stopping rule.

Run: ``python benchmarks/bench_block_ipm.py --n 100 [--program pd-i] [--prior mixture:0.5,0.5/0.8,0.2/0.3,0.7]
[--eps 1.5] [--breakdown] [--krylov 6] [--tile 2] [--refine-basic 0.1] [--peak] [--no-pins]``.

Builds the reduced LP (``prog.lp.spec``), then calls :func:`problems.ipm.block.solve_block_lp` with
``enough`` = the toolkit's certificate (:func:`problems.lp.bounds.certify` without the face points, as the chain
asks it on iterates), as the chain does on its first attempt.  Prints one JSON line: iterations, CPU seconds of
the solve (``time.process_time``, so that other processes on a shared machine do not inflate it), wall seconds,
peak RSS of the process, whether the returned point certifies, and its certified bounds.  ``--breakdown`` adds
the process's CPU time (all threads) spent in the factorisations, in the Newton solves and in the certificates
asked by the iteration, and their numbers (the Newton solves with their refinement steps).  PD-I's ε is
ε_X + ``--eps``; PD-DP's is ``--eps``.  ``--krylov K``
sets :data:`problems.ipm.iteration.KRYLOV_DIM` (0: Richardson refinement) and ``--tile T``
:data:`problems.ipm.layered.TILE_ROWS` (0: banded triangular solves), to reproduce the before/after numbers
of ``docs/benchmarks.md``; ``--refine-basic T`` sets :data:`problems.ipm.iteration.REFINE_TOL_BASIC` (0: the basic
variables refined like the others); ``--former-repair`` has the certificates repair their points as before the
rebalanced closure (:func:`problems.lp.bounds._rebalance`: each group renormalised by its own factor).  The line
also has the returned point's cost and its exact repair both ways (mixing weight t, proved upper bound,
seconds).  ``--peak`` samples the resident memory every 10 ms on a thread and adds the
largest sample with the Python lines (innermost first) the solve was running then, the three places with the
largest samples, and the resident memory before the block system is built (the reduced LP and the interpreter).
``--keep-heap`` gives the C heap's free pages back before the certificates only, not at every iteration
(:data:`problems.ipm.iteration.TRIM_EACH_ITERATION`).  ``--no-pins`` runs the layered method without its pinned
deflation (:mod:`problems.ipm.band_deflation`), as before it.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import threading
import time
import traceback


def _rss_mib() -> float:
    """Resident memory of this process now (Linux: /proc/self/status), MiB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


class _PeakSampler:
    """The largest resident memory seen every ``every`` seconds, and where the main thread was then; ``places``:
    the largest sample at each place (the main thread's four innermost frames outside the thread pool);
    ``outside``: the largest sample while no frame of the main thread was in ``certify`` (the solver's own)."""

    def __init__(self, every: float = 0.01) -> None:
        self.peak, self.where, self.every = 0.0, "", every
        self.outside, self.outside_where = 0.0, ""
        self.places: dict[str, float] = {}
        self._main = threading.main_thread().ident
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            rss = _rss_mib()
            frame = sys._current_frames().get(self._main)
            stack = traceback.extract_stack(frame) if frame is not None else []
            del frame
            # the library's own frames (a wait on the thread pool shows where it was called from)
            own = [f for f in stack if "concurrent" not in f.filename and "threading" not in f.filename]
            stack = own[-4:]
            place = " < ".join(f"{f.name}:{f.lineno}" for f in reversed(stack))
            if rss > self.outside and not any(f.name == "certify" for f in own):
                self.outside, self.outside_where = rss, place
            self.places[place] = max(rss, self.places.get(place, 0.0))
            if rss > self.peak:
                self.peak, self.where = rss, place
            time.sleep(self.every)

    def top(self, k: int = 3) -> list[tuple[float, str]]:
        """The ``k`` places with the largest samples, largest first."""
        return sorted(((round(v, 1), p) for p, v in self.places.items()), reverse=True)[:k]

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--program", choices=["pd-dp", "pd-i"], default="pd-dp")
    ap.add_argument("--prior", default="iid:0.3,0.7")
    ap.add_argument("--eps", type=float, default=None, help="PD-DP: ε (1.5); PD-I: offset from ε_X (0.3)")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--krylov", type=int, default=None, help="GMRES corrections per cycle (0: Richardson)")
    ap.add_argument("--tile", type=int, default=None, help="tile rows per bandwidth (0: dtbtrs)")
    ap.add_argument("--refine-basic", type=float, default=None, help="REFINE_TOL_BASIC (0: as the others)")
    ap.add_argument("--peak", action="store_true", help="sample the resident memory: its peak and where")
    ap.add_argument(
        "--keep-heap",
        action="store_true",
        help="trim the C heap before certificates only (TRIM_EACH_ITERATION off)",
    )
    ap.add_argument("--max-iter", type=int, default=150)
    ap.add_argument(
        "--no-pins", action="store_true", help="no pinned deflation (problems.ipm.band_deflation)"
    )
    ap.add_argument(
        "--former-repair",
        action="store_true",
        help="the certificates repair as before the rebalanced closure",
    )
    args = ap.parse_args()

    import numpy as np

    from problems.ipm import block, iteration, layered
    from problems.lp.bounds import certify
    from problems.orbit import ReducedPDDP, ReducedPDI
    from problems.orbit.symmetric_prior import parse_symmetric_prior
    from problems.solvers.scaled_lp import drop_nonneg

    if args.no_pins:
        block.BAND_DEFLATION = False
    if args.krylov is not None:
        iteration.KRYLOV_DIM = args.krylov
    if args.tile is not None:
        layered.TILE_ROWS = args.tile
    if args.refine_basic is not None:
        iteration.REFINE_TOL_BASIC = args.refine_basic
    if args.keep_heap:
        iteration.TRIM_EACH_ITERATION = False
    from problems.lp import bounds

    rebalance = bounds._rebalance

    def former_rebalance(spec_, v_, rho_):  # noqa: ANN001, ANN202 - the closure as it was: each group renormalised
        return bounds._renormalise(spec_, v_)

    if args.former_repair:
        bounds._rebalance = former_rebalance
    sym = parse_symmetric_prior(args.prior, args.n, 2)
    if args.program == "pd-i":
        prog = ReducedPDI(sym)
        eps = prog.eps_X + (0.3 if args.eps is None else args.eps)
    else:
        prog = ReducedPDDP(sym)
        eps = 1.5 if args.eps is None else args.eps
    spec = prog.lp.spec
    stats = {
        "factor_s": 0.0,
        "factors": 0,
        "solve_s": 0.0,
        "solves": 0,
        "certificate_s": 0.0,
        "certificates": 0,
    }
    if args.breakdown:
        init, raw = layered.LayeredFactor.__init__, iteration._Newton.raw

        def timed_init(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
            t = time.process_time()
            init(self, *a, **k)
            stats["factor_s"] += time.process_time() - t
            stats["factors"] += 1

        def timed_raw(self, *a, **k):  # noqa: ANN001, ANN002, ANN003, ANN202
            t = time.process_time()
            out = raw(self, *a, **k)
            stats["solve_s"] += time.process_time() - t
            stats["solves"] += 1
            return out

        layered.LayeredFactor.__init__ = timed_init
        iteration._Newton.raw = timed_raw
    last = {}

    def enough(z: np.ndarray, nu: np.ndarray, lam: np.ndarray) -> bool:
        t = time.process_time()
        cert = certify(spec, eps, z, nu, lam, face=False)  # as the chain asks on iterates
        stats["certificate_s"] += time.process_time() - t
        stats["certificates"] += 1
        last["cert"] = cert
        return bool(cert.certified)

    rss_lp = _rss_mib()
    sampler = _PeakSampler() if args.peak else None
    c0, w0 = time.process_time(), time.perf_counter()
    u, nu, lam, _s, iters, _secs = block.solve_block_lp(
        spec.c,
        spec.A,
        spec.b,
        spec.src,
        spec.dst,
        None,
        math.exp(eps),
        program=spec.program,
        bounded=not drop_nonneg(spec, eps),
        enough=enough,
        max_iter=args.max_iter,
        log_kappa=spec.log_kappa,  # as the chain passes it
    )
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    if sampler is not None:
        sampler.stop()
    cert = last.get("cert") or certify(spec, eps, u, nu, lam)
    # the returned point's exact repair, with the rebalanced closure and as before it
    point = {"c_z": float(spec.c @ np.clip(u, 0.0, None))}
    for name, fn in (("", rebalance), ("former_", former_rebalance)):
        bounds._rebalance = fn
        t = time.perf_counter()
        zr, mix = bounds.repair(spec, u, eps)
        point[f"{name}repair_s"] = round(time.perf_counter() - t, 2)
        point[f"{name}repair_t"] = mix
        point[f"{name}repair_upper"] = bounds.upper_bound(spec, zr) if zr is not None else None
    bounds._rebalance = rebalance
    out = {
        "program": args.program,
        "prior": args.prior,
        "n": args.n,
        "eps": eps,
        "krylov": iteration.KRYLOV_DIM,
        "tile": layered.TILE_ROWS,
        "refine_basic": iteration.REFINE_TOL_BASIC,
        "trim_each_iteration": iteration.TRIM_EACH_ITERATION,
        "iterations": iters,
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1),
        "certified": bool(cert.certified),
        "lower": cert.bounds.lower,
        "upper": cert.bounds.upper,
    }
    out["former_repair"] = bool(args.former_repair)
    out["returned_point"] = point
    if args.breakdown:
        out.update({k: round(v, 2) if isinstance(v, float) else v for k, v in stats.items()})
    if sampler is not None:
        out.update({"rss_before_mib": round(rss_lp, 1), "sampled_peak_mib": round(sampler.peak, 1)})
        out["peak_at"] = sampler.where
        out["peak_places"] = sampler.top()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
