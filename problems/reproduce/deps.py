"""The optional dependencies of the reproduction, each probed by an explicit import.

A section names what it needs (:attr:`problems.reproduce.runner.SectionSpec.needs`); when one of them does not
import, the section does not run and ``REPORT.md`` says so, with the reason given here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["OPTIONAL", "missing"]


def _matplotlib() -> None:
    import matplotlib  # noqa: F401


def _dask() -> None:
    import dask  # noqa: F401
    import distributed  # noqa: F401


def _casadi() -> None:
    import casadi  # noqa: F401


def _ipopt_models() -> None:
    import ipopt_models  # noqa: F401


#: Name → (probe, why the sections that need it did not run).
OPTIONAL: dict[str, tuple[Callable[[], None], str]] = {
    "matplotlib": (_matplotlib, "matplotlib is not installed (it draws the figures)"),
    "dask": (_dask, "dask.distributed is not installed (it runs the --full sweep)"),
    "casadi": (_casadi, "the ipopt extra (casadi) is not installed"),
    "ipopt_models": (_ipopt_models, "the ipopt_models package is not installed"),
}


def missing(needs: Iterable[str]) -> str | None:
    """Why a section needing ``needs`` cannot run here (the first dependency that does not import), or None."""
    for name in needs:
        probe, reason = OPTIONAL[name]
        try:
            probe()
        except ImportError:
            return reason
    return None
