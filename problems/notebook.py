"""Notebook views of results and mechanisms: compact HTML (``_repr_html_``) and labelled pandas tables.

Jupyter shows an object through its ``_repr_html_`` method; :class:`~problems.SolveResult` (and so
every result derived from it) and :class:`~problems.Mechanism` delegate to the functions here.
A result shows its program, status, value, rigorous bounds ``lower ≤ optimum ≤ upper`` with their gap, the
solver, and a small table of the mechanism ``p(y | x)`` (rows: inputs, columns: outputs); large mechanisms
show their first and last rows and columns only.

pandas is not a dependency: :func:`mechanism_to_pandas` imports it when called and raises
:class:`PandasUnavailableError` (an :class:`ImportError`) with the fix when it is missing.
"""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import PrivacyToolkitError

if TYPE_CHECKING:  # pragma: no cover
    from .mechanism import Mechanism
    from .result import SolveResult

__all__ = [
    "MAX_ROWS",
    "MAX_COLUMNS",
    "PandasUnavailableError",
    "mechanism_html",
    "mechanism_to_pandas",
    "result_html",
]

#: Rows and columns of a mechanism shown in HTML before the middle is elided.
MAX_ROWS = 10
MAX_COLUMNS = 10

_STATUS_COLOURS = {"optimal": "#1a7f37", "inaccurate": "#9a6700", "failed": "#cf222e"}
_CELL = "padding:1px 6px;text-align:right;font-family:monospace"
_HEAD = "padding:1px 6px;text-align:right"


class PandasUnavailableError(PrivacyToolkitError, ImportError):
    """pandas is not installed; ``pip install pandas`` enables :meth:`problems.Mechanism.to_pandas`."""


def _number(x: Any) -> str:
    if x is None:
        return "—"
    try:
        v = float(x)
    except (TypeError, ValueError):
        return html.escape(str(x))
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    return f"{v:.10g}"


def _shown(count: int, limit: int) -> list[int | None]:
    """Indices shown of ``count`` (``None`` marks the elided middle): the first and last ``limit // 2``."""
    if count <= limit:
        return list(range(count))
    head = limit - limit // 2
    return [*range(head), None, *range(count - limit // 2, count)]


def mechanism_html(mechanism: Mechanism, *, max_rows: int = MAX_ROWS, max_columns: int = MAX_COLUMNS) -> str:
    """An HTML table of ``mechanism.matrix[x, y] = p(y | x)`` with its labels, elided beyond the limits."""
    W = mechanism.matrix
    n_in, n_out = W.shape
    rows, cols = _shown(n_in, max_rows), _shown(n_out, max_columns)
    esc = html.escape
    head = "".join(
        f'<th style="{_HEAD}">{"…" if c is None else esc(mechanism.output_labels[c])}</th>' for c in cols
    )
    body = []
    for r in rows:
        if r is None:
            body.append(
                f'<tr><th style="{_HEAD}">⋮</th>'
                + "".join(f'<td style="{_CELL}">⋮</td>' for _ in cols)
                + "</tr>"
            )
            continue
        cells = "".join(f'<td style="{_CELL}">{"…" if c is None else f"{W[r, c]:.6g}"}</td>' for c in cols)
        body.append(f'<tr><th style="{_HEAD}">{esc(mechanism.input_labels[r])}</th>{cells}</tr>')
    caption = f"Mechanism p(y | x): {n_in} input{'s' * (n_in != 1)} × {n_out} output{'s' * (n_out != 1)}"
    if len(rows) < n_in or len(cols) < n_out:
        caption += " (middle elided)"
    return (
        '<table style="border-collapse:collapse;font-size:0.85em">'
        f'<caption style="caption-side:top;text-align:left">{esc(caption)}</caption>'
        f'<thead><tr><th style="{_HEAD}">x \\ y</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def result_html(result: SolveResult, *, max_rows: int = MAX_ROWS, max_columns: int = MAX_COLUMNS) -> str:
    """A compact HTML summary of ``result``: status, value, bounds, gap, solver, and the mechanism."""
    esc = html.escape
    status = getattr(result.status, "value", str(result.status))
    colour = _STATUS_COLOURS.get(status, "#57606a")
    bounds = result.bounds
    unit = esc(str(result.unit))
    lines = [
        (
            "status",
            f'<b style="color:{colour}">{esc(status)}</b>' + (" (certified)" if result.certified else ""),
        ),
        ("value", f"{_number(result.value)} {unit}"),
        ("bounds", f"[{_number(bounds.lower)}, {_number(bounds.upper)}] {unit}"),
        ("gap", f"{_number(bounds.upper - bounds.lower)} {unit}"),
    ]
    if result.eps is not None:
        lines.append(("ε", f"{_number(result.eps)} nats"))
    if result.distortion is not None:
        lines.append(("distortion bound D", _number(result.distortion)))
    stats = result.stats
    lines.append(("solver", f"{esc(str(stats.solver))}, {_number(round(stats.solve_time, 4))} s"))
    basis = getattr(result.certificate, "basis", None)
    if basis:
        lines.append(("certificate", esc(str(basis))))
    rows = "".join(
        f'<tr><th style="text-align:left;padding:1px 8px">{k}</th><td style="text-align:left">{v}</td></tr>'
        for k, v in lines
    )
    title = f"{esc(type(result).__name__)}: {esc(str(result.program))}"
    return (
        f'<div><div style="font-weight:bold">{title}</div>'
        f'<table style="border-collapse:collapse">{rows}</table>'
        f"{mechanism_html(result.mechanism, max_rows=max_rows, max_columns=max_columns)}</div>"
    )


def mechanism_to_pandas(mechanism: Mechanism):  # -> pandas.DataFrame
    """``mechanism`` as a ``pandas.DataFrame``: index = input labels ("x"), columns = output labels ("y")."""
    try:
        import pandas as pd
    except ImportError:
        raise PandasUnavailableError(
            "Mechanism.to_pandas needs pandas, which is not a dependency of privacy-problems: "
            "pip install pandas (or use mechanism.matrix with mechanism.input_labels / output_labels)"
        ) from None
    return pd.DataFrame(
        np.array(mechanism.matrix),
        index=pd.Index(list(mechanism.input_labels), name="x"),
        columns=pd.Index(list(mechanism.output_labels), name="y"),
    )
