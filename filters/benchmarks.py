"""Deprecated: renamed `filters.decontam_refs` (the evaluation sets decontamination compares against, not the
performance scripts in benchmarks/).

The old name works, with a DeprecationWarning, until codemix 0.3.0 removes it.
"""

from __future__ import annotations

from filters.renamed import renamed_module

__all__, __getattr__ = renamed_module(
    "filters.benchmarks", "filters.decontam_refs"
)
