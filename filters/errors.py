"""Deprecated: `UserError` lives in `filters.contracts` (import it from there or from `filters`).

This module is removed in codemix 0.2.0.
"""

from __future__ import annotations

import warnings

from filters.contracts import UserError

__all__ = ["UserError"]

warnings.warn(
    "filters.errors is deprecated and will be removed in codemix 0.2.0; "
    "import UserError from filters.contracts",
    DeprecationWarning,
    stacklevel=2,
)
