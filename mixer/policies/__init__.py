"""Source mixers: policies that choose each step's sampling weights over sources, and their
registry (`POLICIES`, `make_mixer`), so switching policy is one argument.

The wing's modules: `base` (the `Mixer` interface), `baselines` (uniform, static, ODM, an
|advantage| bandit), `acodm` (the actor-critic) with `actor_critic` (the state and networks it
shares with `proxy`, its proxy-run mode) and `nets` (its numpy networks), `model` (the problem
model's allocation and the default's correction), `dump` (DUMP), `transfer` (a TAC-style
transfer bandit) and `sketch` (gradient sketches some policies read). docs/mixer.md, "Adding a policy", says how a new one joins.
"""

from __future__ import annotations

from typing import Any

from mixer.policies.acodm import ACODM
from mixer.policies.base import Mixer
from mixer.policies.baselines import ODM, AdvantageBandit, Static, Uniform
from mixer.policies.dump import DUMP
from mixer.policies.model import ACODMResidual, ModelAllocation
from mixer.policies.proxy import ProxyACODM
from mixer.policies.transfer import TransferBandit
from mixer.registry import Registry

__all__ = ["POLICIES", "make_mixer"]

POLICIES: Registry[Mixer] = Registry(
    "mixer policy",
    {
        "uniform": Uniform,
        "static": Static,
        "odm": ODM,
        "acodm": ACODM,
        "acodm-proxy": ProxyACODM,
        "acodm-residual": ACODMResidual,
        "model": ModelAllocation,
        "advantage-bandit": AdvantageBandit,
        "dump": DUMP,
        "transfer-bandit": TransferBandit,
    },
)


def make_mixer(name: str, n_sources: int, **kw: Any) -> Mixer:
    """A mixer policy by name, one of `POLICIES` (keywords go to its constructor)."""
    return POLICIES.lookup(name)(n_sources, **kw)
