"""Deprecated alias: the information-privacy report section is :mod:`problems.reproduce.information`.

Kept for one release.
"""

import warnings

from ..reproduce.figures import calibration_figure
from ..reproduce.information import calibration_data, reproduce_section

__all__ = ["reproduce_section", "calibration_figure", "calibration_data"]

warnings.warn(
    "problems.information.figures is deprecated and will be removed in the next release; "
    "use problems.reproduce.information (and problems.reproduce.figures.calibration_figure)",
    DeprecationWarning,
    stacklevel=2,
)
