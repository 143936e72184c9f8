"""Deprecated alias of :mod:`problems.reproduce.report` (kept for one release)."""

import warnings

from .reproduce.report import (
    MANIFEST,
    VERDICT_COLUMNS,
    Check,
    Section,
    prune_stale,
    read_manifest,
    verdict_table,
)

__all__ = ["Check", "Section", "verdict_table", "VERDICT_COLUMNS", "MANIFEST", "read_manifest", "prune_stale"]

warnings.warn(
    "problems.report is deprecated and will be removed in the next release; use problems.reproduce.report",
    DeprecationWarning,
    stacklevel=2,
)
