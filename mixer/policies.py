"""The mixer policies by name (`POLICIES`) and `make_mixer`, so switching policy is one argument."""

from __future__ import annotations

from typing import Any

from mixer.acodm import ACODM
from mixer.base import Mixer
from mixer.baselines import ODM, AdvantageBandit, Static, Uniform
from mixer.dump import DUMP
from mixer.proxy import ProxyACODM
from mixer.registry import Registry
from mixer.transfer import TransferBandit

__all__ = ["POLICIES", "make_mixer"]

POLICIES: Registry[Mixer] = Registry(
    "mixer policy",
    {
        "uniform": Uniform,
        "static": Static,
        "odm": ODM,
        "acodm": ACODM,
        "acodm-proxy": ProxyACODM,
        "advantage-bandit": AdvantageBandit,
        "dump": DUMP,
        "transfer-bandit": TransferBandit,
    },
)


def make_mixer(name: str, n_sources: int, **kw: Any) -> Mixer:
    """A mixer policy by name, one of `POLICIES` (keywords go to its constructor)."""
    return POLICIES.lookup(name)(n_sources, **kw)
