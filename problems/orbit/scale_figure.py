"""Deprecated alias, kept for one release.

The computation of the orbit-scale rows is :mod:`problems.orbit.scale`; the figure, the report section and
the command line are :mod:`problems.reproduce.scale` (``python -m problems.reproduce.scale``) and
:func:`problems.reproduce.figures.scale_plot`.
"""

import warnings

from ..reproduce.figures import scale_plot
from ..reproduce.scale import MIXTURE_NS, MIXTURE_PRIOR, main, mixture_scale_figure, scale_figure
from .scale import (
    DEFAULT_LEVELS,
    DEFAULT_NS,
    FIELDS,
    PRECOMPUTED_CSV,
    _value_and_slope,
    eps_star_curve,
    read_rows,
    scale_rows,
    theorem1_violations,
)

__all__ = [
    "scale_figure",
    "scale_plot",
    "theorem1_violations",
    "scale_rows",
    "read_rows",
    "eps_star_curve",
    "main",
    "DEFAULT_NS",
    "DEFAULT_LEVELS",
    "FIELDS",
    "PRECOMPUTED_CSV",
    "MIXTURE_PRIOR",
    "MIXTURE_NS",
    "mixture_scale_figure",
    "_value_and_slope",
]

warnings.warn(
    "problems.orbit.scale_figure is deprecated and will be removed in the next release; use "
    "problems.orbit.scale (the rows) and problems.reproduce.scale (the figure and the command line)",
    DeprecationWarning,
    stacklevel=2,
)

if __name__ == "__main__":  # pragma: no cover
    main()
