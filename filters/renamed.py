"""What a renamed module leaves behind: its old name, kept importable with a DeprecationWarning.

A shim module is its docstring (which says when it goes) and one line,
`__all__, __getattr__ = renamed_module(__name__, "new.module", "codemix 0.2.0")`: every name of
the new module is read through the old one, `import *` included, and a file loaded by path (verl's
`custom_reward_function.path`) works too.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["renamed_module"]


def renamed_module(old: str, new: str, removed_in: str) -> tuple[list[str], Callable[[str], Any]]:
    """Warn that `old` is deprecated for `new` (removed in `removed_in`: "codemix 0.2.0", "the
    next release"); return the new module's `__all__` and a module `__getattr__` reading from it."""
    warnings.warn(
        f"{old} is deprecated and will be removed in {removed_in}; import {new}",
        DeprecationWarning,
        stacklevel=3,
    )
    module = importlib.import_module(new)

    def __getattr__(name: str) -> Any:
        return getattr(module, name)

    return list(module.__all__), __getattr__
