"""The two name-to-class registries (mixer policies, problem samplers) share one shape."""

from __future__ import annotations

import pytest

from filters.contracts import UserError
from mixer import (
    POLICIES,
    PROBLEM_SAMPLERS,
    BetaPosteriorSampler,
    ProxyACODM,
    make_mixer,
    make_problem_sampler,
)
from mixer.registry import Registry, UnknownName


def test_both_registries_are_read_only_name_to_class_tables() -> None:
    assert isinstance(POLICIES, Registry) and isinstance(PROBLEM_SAMPLERS, Registry)
    assert list(POLICIES) == [
        "uniform", "static", "odm", "acodm", "acodm-proxy", "advantage-bandit", "dump",
        "transfer-bandit",
    ]  # fmt: skip
    assert list(PROBLEM_SAMPLERS) == ["uniform", "frontier", "dapo", "band", "greso", "mopps"]
    assert POLICIES["acodm-proxy"] is ProxyACODM and "mopps" in PROBLEM_SAMPLERS
    with pytest.raises(TypeError):
        POLICIES["mine"] = ProxyACODM  # type: ignore[index]


def test_names_are_forgiving_and_an_unknown_one_lists_the_choices() -> None:
    assert isinstance(make_mixer(" ACODM_proxy ", 3), ProxyACODM)
    groups = {"x": range(10), "y": range(10, 20)}
    assert isinstance(make_problem_sampler("MoPPS", groups, 4), BetaPosteriorSampler)
    for make, what in ((lambda: make_mixer("nope", 3), "mixer policy"),
                       (lambda: make_problem_sampler("nope", groups, 4), "problem sampler")):  # fmt: skip
        with pytest.raises(
            UnknownName, match=f"unknown {what} 'nope'; choose one of: uniform, "
        ) as e:
            make()
        assert isinstance(e.value, UserError) and isinstance(e.value, ValueError)
