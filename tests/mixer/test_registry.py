"""The two name-to-class registries (mixer policies, problem samplers) share one shape."""

from __future__ import annotations

import re

import pytest

from filters.contracts import UserError
from mixer import (
    POLICIES,
    PROBLEM_SAMPLERS,
    BetaPosteriorSampler,
    Mixer,
    ProblemSampler,
    ProxyACODM,
    make_mixer,
    make_problem_sampler,
)
from mixer.registry import Registry, UnknownName


def test_both_registries_are_read_only_name_to_class_tables() -> None:
    """Read from the registries, not listed here: adding a policy or a sampler edits no test."""
    assert isinstance(POLICIES, Registry) and isinstance(PROBLEM_SAMPLERS, Registry)
    for registry, base in ((POLICIES, Mixer), (PROBLEM_SAMPLERS, ProblemSampler)):
        names = list(registry)
        assert names[0] == "uniform" and len(set(names)) == len(names)  # the baseline first
        for name in names:
            assert re.fullmatch(r"[a-z][a-z0-9-]*", name), name  # what `make_*` normalises to
            assert isinstance(registry[name], type) and issubclass(registry[name], base), name
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
