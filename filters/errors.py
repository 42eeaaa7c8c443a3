"""Deprecated: `UserError` lives in `filters.contracts` (import it from there or from `filters`).

This module is removed in codemix 0.3.0 (`filters.renamed.REMOVED_IN`).
"""

from __future__ import annotations

import warnings

from filters.contracts import UserError
from filters.renamed import REMOVED_IN

__all__ = ["UserError"]

warnings.warn(
    f"filters.errors is deprecated and will be removed in {REMOVED_IN}; "
    "import UserError from filters.contracts",
    DeprecationWarning,
    stacklevel=2,
)
