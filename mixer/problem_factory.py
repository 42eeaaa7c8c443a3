"""Old name of `mixer.problem_samplers` (deprecated, removed in 0.3): import
`make_problem_sampler` from `mixer`."""

import warnings

from mixer.problem_samplers import PROBLEM_SAMPLERS, make_problem_sampler

__all__ = ["PROBLEM_SAMPLERS", "make_problem_sampler"]

warnings.warn(
    "mixer.problem_factory is deprecated (removed in 0.3): import from mixer or mixer.problem_samplers",
    DeprecationWarning,
    stacklevel=2,
)
