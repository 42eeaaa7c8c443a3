"""make_mixer: build any policy by name, so switching policy is one argument."""

from __future__ import annotations

from typing import Any

from filters.contracts import UserError
from mixer.acodm import ACODM
from mixer.base import Mixer
from mixer.baselines import ODM, AdvantageBandit, Static, Uniform
from mixer.dump import DUMP
from mixer.proxy import ProxyACODM
from mixer.transfer import TransferBandit

__all__ = ["make_mixer", "POLICIES"]

POLICIES: dict[str, type[Mixer]] = {
    "uniform": Uniform,
    "static": Static,
    "odm": ODM,
    "acodm": ACODM,
    "acodm-proxy": ProxyACODM,
    "advantage-bandit": AdvantageBandit,
    "dump": DUMP,
    "transfer-bandit": TransferBandit,
}


def make_mixer(name: str, n_sources: int, **kw: Any) -> Mixer:
    """A mixer policy by name, one of `POLICIES` (keywords go to its constructor)."""
    key = name.strip().lower().replace("_", "-")
    cls = POLICIES.get(key)
    if cls is None:
        raise UserError(f"unknown mixer policy {name!r}; choose one of: {', '.join(POLICIES)}")
    return cls(n_sources, **kw)
