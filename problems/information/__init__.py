"""Information privacy: individual channel capacity and the information privacy model.

Papers: Wu, Xia, He, *Achieving Dalenius' goal* (000); Wu, *Constructing privacy channels* (004); Wu, *Group and
composition privacy* (003); Wu, Xia, He, *Statistical disclosure control via information theory* (001).
All quantities are in nats; convert with :func:`problems.units.to_unit`.  See ``docs/information_privacy.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import deprecated_module_alias, lazy_exports

# Imported on first use (PEP 562), so the command line stays fast: ``from problems.information import X`` works as usual.
_LAZY: dict[str, str] = {
    "Calibration": ".basic_channels",
    "DataIndependentReport": ".basic_channels",
    "NoiseComparison": ".basic_channels",
    "binary_entropy": ".basic_channels",
    "calibrate_exponential": ".basic_channels",
    "calibrate_gaussian": ".basic_channels",
    "calibrate_randomized_response": ".basic_channels",
    "data_independent_bound": ".basic_channels",
    "exponential_channel": ".basic_channels",
    "exponential_entropy": ".basic_channels",
    "gaussian_amplitude_capacity": ".basic_channels",
    "gaussian_capacity_bound": ".basic_channels",
    "gaussian_noise_comparison": ".basic_channels",
    "randomized_response_channel": ".basic_channels",
    "CapacityResult": ".capacity",
    "blahut_arimoto": ".capacity",
    "blahut_arimoto_batch": ".capacity",
    "capacity_bounds": ".capacity",
    "capacity_conic": ".capacity",
    "channel_capacity": ".capacity",
    "divergences": ".capacity",
    "mutual_information": "..measures",
    "PrivacyChannel": ".channel",
    "load_channel": ".channel",
    "validate_channel_array": ".channel",
    "BasicCompositionReport": ".composition",
    "ParallelCompositionExample": ".composition",
    "basic_composition": ".composition",
    "compose_independent": ".composition",
    "cross_capacity": ".composition",
    "general_composition_channel": ".composition",
    "group_capacity": ".composition",
    "parallel_composition_example": ".composition",
    "ContagiousExample": ".dependent",
    "DependentPrivacyReport": ".dependent",
    "Theorem2Bound": ".dependent",
    "blocks_prior": ".dependent",
    "clamped_geometric_count_channel": ".dependent",
    "contagious_example": ".dependent",
    "dependent_privacy_report": ".dependent",
    "information_privacy_ratios": ".dependent",
    "theorem2_bound": ".dependent",
    "IndividualCapacityResult": ".individual",
    "adversary_distribution": ".individual",
    "individual_capacity": ".individual",
    "information_privacy": ".individual",
    "DPWitness": ".max_information_privacy",
    "MaxInformationResult": ".max_information_privacy",
    "dp_level": "..measures",
    "dp_witness": ".max_information_privacy",
    "max_information": ".max_information_privacy",
    "max_information_independent": ".max_information_privacy",
    "optimise_max_information_independent": ".max_information_privacy",
    "product_prior": ".max_information_privacy",
    "VertexSearch": ".vertex",
    "vertex_search": ".vertex",
}

__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY)

if TYPE_CHECKING:  # the lazily loaded names, for type checkers
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
