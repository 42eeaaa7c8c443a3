"""docs/mixer.md, "Adding a policy": the page's toy policy, added through `POLICIES.register`,
is built by name everywhere a policy name is taken, learns, and resumes exactly."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from mixer import POLICIES, PROBLEM_SAMPLERS, make_problem_sampler
from mixer.registry import Registry

PAGE = Path(__file__).resolve().parents[2] / "docs" / "mixer.md"


@pytest.fixture
def page_policy(monkeypatch):
    """The page's block run as written, with the registry restored afterwards."""
    monkeypatch.setattr(POLICIES, "_classes", dict(POLICIES._classes))
    text = PAGE.read_text()
    section = text[text.index("## Adding a policy") : text.index("## Sampler")]
    (block,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    ns: dict = {}
    exec(compile(block, "docs/mixer.md", "exec"), ns)
    return ns["FollowTheReward"]


def test_the_page_registers_a_policy_that_every_name_taker_builds(page_policy):
    assert POLICIES.lookup("Follow_The_Reward") is page_policy
    groups = {"easy": np.arange(0, 30), "hard": np.arange(30, 60)}
    sampler = make_problem_sampler("frontier", groups, 6, mixer="follow-the-reward", seed=1)
    assert isinstance(sampler.mixer, page_policy)
    rng = np.random.default_rng(0)
    for _ in range(4):
        rows = np.repeat(sampler.next_batch(), 4)
        rewards = (rng.random(rows.size) < np.where(rows < 30, 0.9, 0.1)).astype(float)
        sampler.learn(rows, rewards, weights_id=sampler.last_weights_id, group_size=4)
    assert len(sampler.mixer.history) == 4
    w = sampler.mixer.weights()
    assert w[0] > w[1]  # it followed the reward
    state = sampler.state_dict()
    again = make_problem_sampler("frontier", groups, 6, mixer="follow-the-reward", seed=1)
    again.load_state_dict(state)
    assert again.next_batch() == sampler.next_batch()
    assert np.array_equal(again.mixer.weights(), sampler.mixer.weights())


def test_a_taken_name_is_refused_and_names_are_normalised():
    registry: Registry = Registry("thing", {"one": int})
    with pytest.raises(ValueError, match="already registered"):
        registry.register("ONE", float)
    assert registry.register(" Two_Words ", float) is float
    assert registry.lookup("two-words") is float and "two-words" in registry
    assert "uniform" in PROBLEM_SAMPLERS  # the shipped registries are untouched by this test
