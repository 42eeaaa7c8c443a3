"""Deprecated: renamed `filters.reward.trainer_rewards` (reward functions in verl's and TRL's calling
conventions, not the mixer's trainer adapters in mixer/adapters/).

The old name works, with a DeprecationWarning, until codemix 0.3.0 removes it.
"""

from __future__ import annotations

from filters.renamed import renamed_module

__all__, __getattr__ = renamed_module(
    "filters.reward.adapters", "filters.reward.trainer_rewards"
)
