"""What a renamed module leaves behind: its old name, kept importable with a DeprecationWarning.

A shim module is its docstring (which says when it goes) and one line,
`__all__, __getattr__ = renamed_module(__name__, "new.module", REMOVED_IN)`: every name of the
new module is read through the old one, `import *` included, and a file loaded by path (verl's
`custom_reward_function.path`) works too. A package whose modules moved inside it keeps their old
names without a file each: `renamed_submodules({"pkg.old": "pkg.wing.new", ...})`, called from the
package's `__init__`, answers imports of the old names with the same kind of module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

__all__ = ["REMOVED_IN", "renamed_module", "renamed_submodules"]

#: The release that removes every deprecated name (one date for all of them).
REMOVED_IN = "codemix 0.3.0"


def renamed_module(
    old: str, new: str, removed_in: str = REMOVED_IN
) -> tuple[list[str], Callable[[str], Any]]:
    """Warn that `old` is deprecated for `new` (removed in `removed_in`); return the new module's
    `__all__` and a module `__getattr__` reading from it."""
    warnings.warn(
        f"{old} is deprecated and will be removed in {removed_in}; import {new}",
        DeprecationWarning,
        stacklevel=3,
    )
    module = importlib.import_module(new)

    def __getattr__(name: str) -> Any:
        return getattr(module, name)

    return list(module.__all__), __getattr__


class _RenamedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old names of moved modules and loads each as a shim of its new module."""

    def __init__(self, moves: Mapping[str, str], removed_in: str) -> None:
        self.moves = dict(moves)
        self.removed_in = removed_in

    def find_spec(
        self, fullname: str, path: Any = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.moves:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        new = self.moves[module.__name__]
        names, getattr_ = renamed_module(module.__name__, new, self.removed_in)
        module.__doc__ = f"Old name of `{new}` (deprecated, removed in {self.removed_in})."
        module.__all__ = names  # type: ignore[attr-defined]
        module.__getattr__ = getattr_  # type: ignore[method-assign]


def renamed_submodules(moves: Mapping[str, str], removed_in: str = REMOVED_IN) -> None:
    """Keep each old module name in `moves` ({old: new}) importable, with a DeprecationWarning,
    until `removed_in`."""
    if not any(isinstance(f, _RenamedFinder) and f.moves == dict(moves) for f in sys.meta_path):
        sys.meta_path.insert(0, _RenamedFinder(moves, removed_in))
