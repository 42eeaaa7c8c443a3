"""Registry: a name-to-class table that builds by name, the one shape of `POLICIES` and
`PROBLEM_SAMPLERS` (so a config switches policy or sampler with one string)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

from filters.contracts import UserError

__all__ = ["Registry", "UnknownName"]

T = TypeVar("T")


class UnknownName(UserError, ValueError):
    """A name no registry entry has; the message lists the names there are.

    A `UserError` (the command line prints it on one line) and a `ValueError` (what an unknown
    problem sampler raised before the registries shared one shape)."""


class Registry(Mapping[str, type[T]], Generic[T]):
    """`{name: class}` for the `what` it builds; `lookup(name)` forgives case, spaces and `_` for
    `-` (`"ACODM_proxy"` is `"acodm-proxy"`). A mapping to read; `register` is its one way in."""

    def __init__(self, what: str, classes: Mapping[str, type[T]]) -> None:
        self.what = what
        self._classes = dict(classes)

    @staticmethod
    def normalize(name: str) -> str:
        return name.strip().lower().replace("_", "-")

    def lookup(self, name: str) -> type[T]:
        """The class registered as `name`; `UnknownName` when there is none."""
        cls = self._classes.get(self.normalize(name))
        if cls is None:
            raise UnknownName(f"unknown {self.what} {name!r}; choose one of: {', '.join(self)}")
        return cls

    def register(self, name: str, cls: type[T]) -> type[T]:
        """Add `cls` under `name` (normalised as `lookup` does), so every config that takes a name
        (`make_mixer`, the trainer adapters, verl's `data.sampler.mixer`) can build it; a name
        already taken raises `ValueError`. Returns `cls`."""
        key = self.normalize(name)
        if not key:
            raise ValueError(f"a {self.what} needs a name")
        if key in self._classes:
            raise ValueError(f"{self.what} {key!r} is already registered ({self._classes[key]!r})")
        self._classes[key] = cls
        return cls

    def __getitem__(self, name: str) -> type[T]:
        return self._classes[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._classes)

    def __len__(self) -> int:
        return len(self._classes)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {self._classes!r})"
