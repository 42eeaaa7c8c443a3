"""Deprecated: renamed `filters.reward.trainer_rewards` (reward functions in verl's and TRL's calling
conventions, not the mixer's trainer adapters in mixer/adapters/).

The old name works, with a DeprecationWarning, for one release.
"""

from __future__ import annotations

from filters.renamed import renamed_module

__all__, __getattr__ = renamed_module(
    "filters.reward.adapters", "filters.reward.trainer_rewards", "the next release"
)
