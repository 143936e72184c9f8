"""Deprecated alias: the mechanism-design report section is :mod:`problems.reproduce.design`.

Kept for one release.
"""

import warnings

from ..reproduce.design import reproduce_section
from ..reproduce.figures import BASELINES, comparison_figure, privacy_distortion_ip_figure

__all__ = ["reproduce_section", "comparison_figure", "privacy_distortion_ip_figure", "BASELINES"]

warnings.warn(
    "problems.design.figures is deprecated and will be removed in the next release; "
    "use problems.reproduce.design (and the figures of problems.reproduce.figures)",
    DeprecationWarning,
    stacklevel=2,
)
