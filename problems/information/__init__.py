"""Information privacy: individual channel capacity and the information privacy model.

Papers: Wu, Xia, He, *Achieving Dalenius' goal* (000); Wu, *Constructing privacy channels* (004); Wu, *Group and
composition privacy* (003); Wu, Xia, He, *Statistical disclosure control via information theory* (001).
All quantities are in nats; convert with :func:`problems.units.to_unit`.  See ``docs/information_privacy.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import deprecated_module_alias, lazy_exports

# Imported on first use (PEP 562), so that importing the package (and the command line) stays cheap.
__getattr__, __dir__ = lazy_exports(__name__, globals())

if TYPE_CHECKING:  # the lazily loaded names: for type checkers, and the table lazy_exports reads
    from ..measures import dp_level, mutual_information
    from .basic_channels import (
        Calibration,
        DataIndependentReport,
        NoiseComparison,
        binary_entropy,
        calibrate_exponential,
        calibrate_gaussian,
        calibrate_randomized_response,
        data_independent_bound,
        exponential_channel,
        exponential_entropy,
        gaussian_amplitude_capacity,
        gaussian_capacity_bound,
        gaussian_noise_comparison,
        randomized_response_channel,
    )
    from .capacity import (
        CapacityResult,
        blahut_arimoto,
        blahut_arimoto_batch,
        capacity_bounds,
        capacity_conic,
        channel_capacity,
        divergences,
    )
    from .channel import PrivacyChannel, load_channel, validate_channel_array
    from .composition import (
        BasicCompositionReport,
        ParallelCompositionExample,
        basic_composition,
        compose_independent,
        cross_capacity,
        general_composition_channel,
        group_capacity,
        parallel_composition_example,
    )
    from .dependent import (
        ContagiousExample,
        DependentPrivacyReport,
        Theorem2Bound,
        blocks_prior,
        clamped_geometric_count_channel,
        contagious_example,
        dependent_privacy_report,
        information_privacy_ratios,
        theorem2_bound,
    )
    from .individual import (
        IndividualCapacityResult,
        adversary_distribution,
        individual_capacity,
        information_privacy,
    )
    from .max_information_privacy import (
        DPWitness,
        MaxInformationResult,
        dp_witness,
        max_information,
        max_information_independent,
        optimise_max_information_independent,
        product_prior,
    )
    from .vertex import VertexSearch, vertex_search


__all__ = [
    # channel
    "PrivacyChannel",
    "load_channel",
    "validate_channel_array",
    # capacity
    "CapacityResult",
    "blahut_arimoto",
    "blahut_arimoto_batch",
    "capacity_bounds",
    "capacity_conic",
    "channel_capacity",
    "divergences",
    "mutual_information",
    # individual capacity
    "IndividualCapacityResult",
    "individual_capacity",
    "adversary_distribution",
    "information_privacy",
    "VertexSearch",
    "vertex_search",
    # max-information / DP
    "DPWitness",
    "MaxInformationResult",
    "dp_level",
    "dp_witness",
    "max_information",
    "max_information_independent",
    "optimise_max_information_independent",
    "product_prior",
    # dependent sources
    "ContagiousExample",
    "DependentPrivacyReport",
    "Theorem2Bound",
    "blocks_prior",
    "clamped_geometric_count_channel",
    "contagious_example",
    "dependent_privacy_report",
    "information_privacy_ratios",
    "theorem2_bound",
    # basic channels
    "Calibration",
    "DataIndependentReport",
    "NoiseComparison",
    "binary_entropy",
    "calibrate_exponential",
    "calibrate_gaussian",
    "calibrate_randomized_response",
    "data_independent_bound",
    "exponential_channel",
    "exponential_entropy",
    "gaussian_amplitude_capacity",
    "gaussian_capacity_bound",
    "gaussian_noise_comparison",
    "randomized_response_channel",
    # composition
    "BasicCompositionReport",
    "ParallelCompositionExample",
    "basic_composition",
    "compose_independent",
    "cross_capacity",
    "general_composition_channel",
    "group_capacity",
    "parallel_composition_example",
]


# The submodules renamed so that no module shares its name with a function it exports.
deprecated_module_alias(__name__, "individual_capacity", "individual")
deprecated_module_alias(__name__, "max_information", "max_information_privacy")
