"""Deprecated: renamed `filters.difficulty.difficulty_stage` (the difficulty stage, not the stage contract
in filters/stage.py).

The old name works, with a DeprecationWarning, until codemix 0.3.0 removes it.
"""

from __future__ import annotations

from filters.renamed import renamed_module

__all__, __getattr__ = renamed_module(
    "filters.difficulty.stage", "filters.difficulty.difficulty_stage"
)
