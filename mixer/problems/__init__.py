"""Problem samplers: inside each source, which problems to draw, learnt from each group's rewards,
and their registry (`PROBLEM_SAMPLERS`, `make_problem_sampler`) for trainer configs (verl's
`data.sampler.problems`): "uniform", "frontier", "dapo", "band", "greso", "mopps".

The wing's modules: `base` (`ProblemSampler`, `GroupOutcome`: the plain sampler and the rollout
ledger), `frontier` (`FrontierSampler`) with `pass_rate` (its pass-rate model) and `scorers`
(rollout-free signals of the policy now), `posterior` (MoPPS's Beta posterior) and
`rollout_filters` (DAPO's dynamic sampling, a pass-rate band, GRESO).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mixer.policies.base import Mixer
from mixer.problems.base import GroupOutcome, ProblemSampler, group_rewards
from mixer.problems.frontier import FrontierSampler
from mixer.problems.posterior import BetaPosteriorSampler
from mixer.problems.rollout_filters import GRESO, DynamicSampling, PassRateBand
from mixer.registry import Registry

__all__ = [
    "PROBLEM_SAMPLERS",
    "GroupOutcome",
    "ProblemSampler",
    "group_rewards",
    "make_problem_sampler",
]

PROBLEM_SAMPLERS: Registry[ProblemSampler] = Registry(
    "problem sampler",
    {
        "uniform": ProblemSampler,
        "frontier": FrontierSampler,
        "dapo": DynamicSampling,
        "band": PassRateBand,
        "greso": GRESO,
        "mopps": BetaPosteriorSampler,
    },
)


def make_problem_sampler(
    kind: str,
    groups: Mapping[str, Sequence[int] | np.ndarray],
    batch_size: int,
    mixer: Mixer | str | None = None,
    seed: int = 0,
    difficulty: Sequence[float] | np.ndarray | None = None,
    difficulty_std: Sequence[float] | np.ndarray | None = None,
    **kwargs: Any,
) -> ProblemSampler:
    """The problem sampler `kind` (one of `PROBLEM_SAMPLERS`) over `groups`; `difficulty` /
    `difficulty_std` (codemix's [0, 1] scale, NaN where unknown) are the build's prior, which
    every sampler takes (`mixer.problems.prior`)."""
    cls = PROBLEM_SAMPLERS.lookup(kind)
    return cls(
        groups,
        batch_size,
        mixer=mixer,
        seed=seed,
        difficulty=difficulty,
        difficulty_std=difficulty_std,
        **kwargs,
    )
