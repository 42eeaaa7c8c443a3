"""How the mixer's knob-heavy classes take their settings: one frozen dataclass, validated once when
it is made (`__post_init__`), given whole (`settings=`) or as its fields' keywords."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["resolve"]

S = TypeVar("S")


def resolve(cls: type[S], settings: S | None, kw: dict[str, Any]) -> S:
    """`settings`, or a `cls` made from the keywords in `kw` that name its fields (taken out of
    `kw`, so the rest can go on to a base class). Both at once raise ValueError."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    given = {k: kw.pop(k) for k in list(kw) if k in names}
    if settings is None:
        return cls(**given)
    if given:
        raise ValueError(f"give settings= or its fields ({', '.join(given)}), not both")
    if not isinstance(settings, cls):
        raise TypeError(f"settings must be a {cls.__name__}, got {type(settings).__name__}")
    return settings
