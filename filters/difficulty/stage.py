"""Deprecated: renamed `filters.difficulty.difficulty_stage` (the difficulty stage, not the stage contract
in filters/stage.py).

The old name works, with a DeprecationWarning, until codemix 0.2.0 removes it.
"""

from __future__ import annotations

import warnings
from typing import Any

import filters.difficulty.difficulty_stage as _renamed
from filters.difficulty.difficulty_stage import *  # noqa: F403

__all__ = _renamed.__all__

warnings.warn(
    "filters.difficulty.stage is deprecated and will be removed in codemix 0.2.0; import filters.difficulty.difficulty_stage",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> Any:
    return getattr(_renamed, name)
