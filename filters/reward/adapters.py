"""Deprecated: renamed `filters.reward.trainer_rewards` (reward functions in verl's and TRL's calling
conventions, not the mixer's trainer adapters in mixer/adapters/).

The old name works, with a DeprecationWarning, for one release.
"""

from __future__ import annotations

import warnings
from typing import Any

import filters.reward.trainer_rewards as _renamed
from filters.reward.trainer_rewards import *  # noqa: F403

__all__ = _renamed.__all__

warnings.warn(
    "filters.reward.adapters is deprecated and will be removed in the next release; import filters.reward.trainer_rewards",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> Any:
    return getattr(_renamed, name)
