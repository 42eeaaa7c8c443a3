"""Deprecated: renamed `filters.decontam_refs` (the evaluation sets decontamination compares against, not the
performance scripts in benchmarks/).

The old name works, with a DeprecationWarning, until codemix 0.2.0 removes it.
"""

from __future__ import annotations

import warnings
from typing import Any

import filters.decontam_refs as _renamed
from filters.decontam_refs import *  # noqa: F403

__all__ = _renamed.__all__

warnings.warn(
    "filters.benchmarks is deprecated and will be removed in codemix 0.2.0; import filters.decontam_refs",
    DeprecationWarning,
    stacklevel=2,
)


def __getattr__(name: str) -> Any:
    return getattr(_renamed, name)
