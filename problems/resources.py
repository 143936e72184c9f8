"""Resource guards: estimate the memory a path needs *before* allocating, and refuse in time.

Every expensive path of the toolkit calls :func:`require_memory` with an estimate of its peak memory (bytes)
before it builds anything large.  The estimate is compared with the **memory budget**:

the tightest of

* the environment variable ``PRIVACY_PROBLEMS_MEMORY_LIMIT`` (bytes, or a number with a suffix ``K``, ``M``,
  ``G``, ``T``: ``8G``) when it is set — otherwise half of ``MemAvailable`` in ``/proc/meminfo`` (the machine
  is usually shared), or 4 GiB where that file does not exist;
* ``MemAvailable`` itself (a limit set above what the machine has cannot be used);
* the address-space limit ``RLIMIT_AS`` (``ulimit -v``) less the address space already mapped (``VmSize``);
* the cgroup memory limit less the cgroup's usage (v2 ``/sys/fs/cgroup/memory.max`` and ``memory.current``,
  v1 ``/sys/fs/cgroup/memory/memory.limit_in_bytes`` and ``memory.usage_in_bytes``), as containers set it.

:func:`memory_limits` lists each of them; the refusal names the binding one.

A refusal is a :class:`~problems.errors.ProblemTooLargeError` (exit code 4 on the command line) whose message
gives the estimate, the budget and the alternative (the reduced path, the theorem path, a smaller n).
"""

from __future__ import annotations

import math
import os
import warnings

from .errors import InvalidInputError, ProblemTooLargeError

__all__ = [
    "MEMORY_LIMIT_ENV",
    "available_memory",
    "memory_limits",
    "cgroup_room",
    "address_space_room",
    "memory_budget",
    "memory_room",
    "require_memory",
    "format_bytes",
    "format_count",
    "as_bytes",
    "dense_lp_memory",
    "pmf_memory",
    "BASE_MEMORY",
    "dense_lp_seconds",
    "format_seconds",
    "require_dense_lp",
    "require_dense_program",
    "require_reduced_lp",
    "reduced_lp_ratio_rows",
    "reduced_lp_variables",
    "reduced_lp_memory",
    "layered_lp_memory",
    "BYTES_PER_LAYERED_VARIABLE",
    "layered_lp_seconds",
    "LAYERED_SECONDS_N200",
    "m2_joint_type_rows",
]

MEMORY_LIMIT_ENV = "PRIVACY_PROBLEMS_MEMORY_LIMIT"
_FALLBACK = 4 * 2**30
#: Memory of the interpreter with NumPy, SciPy and CVXPY loaded (measured: ~140 MB).
BASE_MEMORY = 150 * 2**20
#: Peak bytes per ratio row of a dense PD-DP/PD-I/R-PD LP (measured with the structured IPM and Clarabel at
#: N = 128 and 256: 500–700 bytes per row; rounded up).
BYTES_PER_RATIO_ROW = 800
_SUFFIX = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def format_bytes(n: float) -> str:
    """``1.5 GiB``-style text."""
    if not math.isfinite(n):
        return "an unbounded amount"
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{int(n)} bytes"


def format_count(k: int) -> str:
    """An integer as text: exact up to 10¹⁵, ``about 6.5e+2400`` beyond (a count of types can have 1000s of digits)."""
    k = int(k)
    if k < 10**15:
        return str(k)
    digits = str(k)
    return f"about {digits[0]}.{digits[1:3]}e+{len(digits) - 1}"


def as_bytes(*factors: float) -> float:
    """The product of ``factors`` (counts may be huge Python ints) as a float; ``inf`` where it overflows."""
    out = 1.0
    for f in factors:
        try:
            out *= float(f)
        except OverflowError:
            return math.inf
    return out


def format_seconds(t: float) -> str:
    """``45 s``, ``12 min``, ``3.5 h`` or ``2 days``."""
    if t < 120:
        return f"{t:.0f} s"
    if t < 7200:
        return f"{t / 60:.0f} min"
    if t < 172800:
        return f"{t / 3600:.1f} h"
    return f"{t / 86400:.0f} days"


def available_memory() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` in bytes, or None where it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _parse_size(text: str) -> int:
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    suffix = t[-1:] if t[-1:] in _SUFFIX else ""
    try:
        value = float(t[: len(t) - len(suffix)] if suffix else t)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InvalidInputError(
            f"{MEMORY_LIMIT_ENV} must be a positive size such as 8G or 500M or a number of bytes, got {text!r}"
        )
    return int(value * _SUFFIX[suffix])


#: cgroup files: (limit, usage) for cgroup v2 and v1.  A limit of ``max`` (v2) or ≥ 2⁶² (v1) means none.
CGROUP_FILES = (
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
    ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
)


def _read_int(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as fh:
            text = fh.read().strip()
    except OSError:
        return None
    try:
        return int(text)
    except ValueError:  # "max": no limit
        return None


def cgroup_room(files: tuple[tuple[str, str], ...] = CGROUP_FILES) -> int | None:
    """Bytes left under the cgroup memory limit (limit − usage), or None when no limit is set or readable."""
    for limit_file, usage_file in files:
        limit = _read_int(limit_file)
        if limit is None or limit >= 2**62:
            continue
        usage = _read_int(usage_file) or 0
        return max(limit - usage, 0)
    return None


def address_space_room() -> int | None:
    """Bytes left under ``RLIMIT_AS`` (``ulimit -v``): the limit less ``VmSize``, or None when unlimited."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError):  # pragma: no cover - not POSIX
        return None
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    used = 0
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    used = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    return max(soft - used, 0)


def memory_limits() -> dict[str, int]:
    """Every limit the memory budget respects, in bytes, by name (only those that are set or readable).

    ``$PRIVACY_PROBLEMS_MEMORY_LIMIT`` (or half of MemAvailable when it is not set, 4 GiB when neither is
    known), ``MemAvailable``, ``RLIMIT_AS`` less the mapped address space, and the cgroup limit less its usage.
    """
    out: dict[str, int] = {}
    env = os.environ.get(MEMORY_LIMIT_ENV)
    avail = available_memory()
    if env:
        out[f"${MEMORY_LIMIT_ENV}"] = _parse_size(env)
    else:
        out["half of MemAvailable"] = _FALLBACK if avail is None else avail // 2
    if avail is not None:
        out["MemAvailable"] = avail
    room = address_space_room()
    if room is not None:
        out["RLIMIT_AS (ulimit -v) less the mapped address space"] = room
    room = cgroup_room()
    if room is not None:
        out["the cgroup memory limit less its usage"] = room
    return out


def memory_budget() -> int:
    """The memory (bytes) a single solve may use: the tightest of :func:`memory_limits`."""
    return min(memory_limits().values())


def memory_room() -> int | None:
    """The memory this process tree may really use: the tightest of :func:`memory_limits` except the
    "half of MemAvailable" default (MemAvailable, RLIMIT_AS, the cgroup, ``$PRIVACY_PROBLEMS_MEMORY_LIMIT`` when
    set).  ``None`` when none of them is known.  The sweep divides it among its local workers.
    """
    hard = [v for k, v in memory_limits().items() if k != "half of MemAvailable"]
    return min(hard) if hard else None


def require_memory(estimate: float, what: str, alternative: str = "") -> None:
    """Raise :class:`ProblemTooLargeError` when ``estimate`` bytes exceed :func:`memory_budget`.

    Cheap (a few small files are read), so every path calls it before allocating.
    """
    limits = memory_limits()
    source, budget = min(limits.items(), key=lambda kv: kv[1])
    if estimate > budget:
        hint = f" {alternative}" if alternative else ""
        raise ProblemTooLargeError(
            f"{what} would need about {format_bytes(estimate)} of memory; the budget is {format_bytes(budget)} "
            f"({source}{'' if source.startswith('$') else f'; set ${MEMORY_LIMIT_ENV} to change it'}).{hint}",
            size=int(min(estimate, 2**62)) if math.isfinite(estimate) else 2**62,
            limit=budget,
        )


def pmf_memory(n: int, m: int, copies: int = 3) -> float:
    """Bytes for ``copies`` float vectors of length mⁿ (a pmf and its temporaries)."""
    return as_bytes(copies, 8, int(m) ** int(n))


def dense_lp_memory(n: int, m: int) -> float:
    """Peak bytes of a dense PD-DP/PD-I/R-PD LP on N = mⁿ databases: N² variables, N²·n(m−1) ratio rows."""
    N = int(m) ** int(n)
    return BASE_MEMORY + as_bytes(BYTES_PER_RATIO_ROW, N, N, n, m - 1)


def dense_lp_seconds(n: int, m: int) -> float:
    """A rough wall time of a dense PD-I/PD-DP solve (measured: N = 256 in ~25 s, N = 512 in ~330 s)."""
    N = as_bytes(int(m) ** int(n))
    try:
        return 25.0 * (N / 256.0) ** 3.7 * (n * (m - 1)) / 8.0
    except OverflowError:
        return math.inf


def require_dense_lp(space, program: str) -> None:  # noqa: ANN001 - DatabaseSpace
    """Refuse a dense PD-DP/PD-I/R-PD program before its N×N arrays are built (memory estimate)."""
    space.require_dense()
    require_memory(
        dense_lp_memory(space.n, space.m),
        f"the dense {program} LP on N = {space.m}^{space.n} = {space.size} databases",
        "Use the reduced program (uniform, iid or exchangeable priors: problems.dispatch.make_program(…, "
        "formulation='reduced'), --formulation reduced), the theorem where it applies (--method theorem), or a "
        "smaller n.",
    )


def require_dense_program(program: str, space, *, lp_time_warning: bool = True) -> None:  # noqa: ANN001
    """The dispatcher's guard before the dense ``program`` (pd-dp, pd-i, r-pd, pd-mip) on ``space`` is built:
    refuse it when its memory estimate does not fit (PD-MIP: N² exponential cones; the LPs:
    :func:`dense_lp_memory`), and warn when its LP may take over a minute (``lp_time_warning``; not for a
    theorem-only solve)."""
    space.require_dense()
    n, m = space.n, space.m
    estimate = BASE_MEMORY + 4000.0 * space.size**2 if program == "pd-mip" else dense_lp_memory(n, m)
    require_memory(
        estimate,
        f"the dense {program} program on N = {m}^{n} = {space.size} databases",
        "Use a uniform, iid or contagious prior (the reduced program, --formulation reduced), the theorem where "
        "it applies (--method theorem), or a smaller n.",
    )
    if program != "pd-mip" and lp_time_warning:
        seconds = dense_lp_seconds(n, m)
        if seconds > 60:
            warnings.warn(
                f"the dense {program} LP on N = {space.size} databases may take about {format_seconds(seconds)} "
                "if the LP is needed (estimate from measured solves; the theorem path, where it applies, "
                "is immediate)",
                stacklevel=3,
            )


#: Peak bytes per variable of a reduced (joint-type) LP solved by a general sparse solver (about four ratio rows per
#: variable at m = 2; Clarabel at n = 200: 1.37 M variables, 7.7 GB); the floor of the estimate for m ≥ 3. The
#: layered block method of m = 2 has its own, smaller estimate (:func:`layered_lp_memory`; 2.2–2.4 GB measured at
#: n = 200).
BYTES_PER_REDUCED_VARIABLE = 6000
#: Peak bytes per variable *and* ratio row of a reduced LP, any m (m = 2, n = 200: 6.8 M of them, 7.7 GB, 1130
#: bytes each; m = 3, n = 10: 481 338 of them, 685 MB peak RSS with the block method, 1120 bytes each).
BYTES_PER_REDUCED_ROW = 1250


def reduced_lp_variables(n: int, m: int) -> int:
    """The number of joint types of (x, y) ∈ Dⁿ × Dⁿ: C(n + m² − 1, m² − 1), the size of the reduced LP."""
    from math import comb

    return comb(n + m * m - 1, m * m - 1)


def reduced_lp_ratio_rows(n: int, m: int) -> int:
    """The ratio rows of the joint-type LP: one per joint type and move of one row's x-value from a to b ≠ a in a
    cell (a, c) it occupies, so m²(m − 1) per joint type of n − 1 rows: m²(m − 1)·C(n + m² − 2, m² − 1)."""
    return 0 if n < 1 else m * m * (m - 1) * reduced_lp_variables(n - 1, m)


#: The layered block method of the m = 2 joint-type LPs (:mod:`problems.ipm.layered`): resident bytes per variable
#: besides its banded factors (measured at n = 200: 1.37 M variables, peak 1.9 GiB, 0.68 GiB of it band factors).
BYTES_PER_LAYERED_VARIABLE = 900


def layered_lp_memory(n: int) -> float:
    """Peak bytes of the layered block method on an m = 2 joint-type LP: the band factors of the blocks j = 0..n
    ((j+1)(n−j+1) variables, half-bandwidth min(j, n−j) + 1) and the per-variable arrays."""
    band = sum((j + 1) * (n - j + 1) * (min(j, n - j) + 2) for j in range(n + 1))
    return BASE_MEMORY + 8.0 * band + BYTES_PER_LAYERED_VARIABLE * float(reduced_lp_variables(n, 2))


#: Measured wall seconds of the layered block method at m = 2, n = 200 (PD-DP ε = 1.5, through the public path on
#: an otherwise idle 2-core machine, certified in one attempt): the calibration of :func:`layered_lp_seconds`.
LAYERED_SECONDS_N200 = 473.0


#: The power of n in :func:`layered_lp_seconds` (measured: n = 100 in 26–34 s, n = 200 in 473 s; one factorisation
#: 0.22 s and 3.9 s, 17.7× for 2× the rows).
LAYERED_SECONDS_POWER = 4.0


def layered_lp_seconds(n: int) -> float:
    """Expected wall seconds of the layered block method on an m = 2 joint-type LP with n rows, on an idle 2-core
    machine: :data:`LAYERED_SECONDS_N200` · (n/200)^:data:`LAYERED_SECONDS_POWER` (the flops per iteration grow
    like n⁴ at these sizes, and the iteration count slowly: 43 at n = 100, 63 at n = 200).  It predicts 30 s at
    n = 100 and 2.1 hours at n = 400.  An estimate for the chain's default time limit, never part of a proof."""
    return LAYERED_SECONDS_N200 * (max(int(n), 0) / 200.0) ** LAYERED_SECONDS_POWER


def m2_joint_type_rows(variables: int, linking_rows: int) -> int | None:
    """n when an LP with ``variables`` columns and ``linking_rows`` row sums is an m = 2 joint-type LP
    (n + 1 row sums, C(n + 3, 3) joint types), else None."""
    n = int(linking_rows) - 1
    return n if n >= 1 and reduced_lp_variables(n, 2) == int(variables) else None


def reduced_lp_memory(variables: int, ratio_rows: int | None = None, m: int | None = None) -> float:
    """Predicted peak bytes of a reduced LP's solve: :data:`BYTES_PER_REDUCED_ROW` per variable and ratio row (when
    the rows are given), at least :data:`BYTES_PER_REDUCED_VARIABLE` per variable; for m = 2 the layered block
    method's (:func:`layered_lp_memory`, n from the count) where that is less."""
    need = as_bytes(BYTES_PER_REDUCED_VARIABLE, variables)
    if ratio_rows is not None:
        need = max(need, as_bytes(BYTES_PER_REDUCED_ROW, variables + ratio_rows))
    need += BASE_MEMORY
    if m == 2 and variables <= 10**15:  # n ≲ 180 000; beyond that the budget refuses either estimate
        n = max(0, int(round((6.0 * float(variables)) ** (1.0 / 3.0))) - 4)  # C(n+3, 3) ≈ n³/6
        while reduced_lp_variables(n, 2) < variables:
            n += 1
        need = min(need, layered_lp_memory(n))
    return need


def require_reduced_lp(variables: int, ratio_rows: int | None = None, m: int | None = None) -> None:
    """Refuse a reduced LP whose solve would not fit in the memory budget (:func:`reduced_lp_memory`)."""
    require_memory(
        reduced_lp_memory(variables, ratio_rows, m),
        f"the reduced LP ({format_count(variables)} joint-type variables)",
        "Use the theorem path where it applies (a uniform or i.i.d. prior, PD-I at ε ≥ ε̃_X, ε = 0), a smaller n or m, "
        f"or a larger budget (${MEMORY_LIMIT_ENV}).",
    )
