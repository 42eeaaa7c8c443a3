"""The two name-to-class registries (mixer policies, problem samplers) share one shape."""

from __future__ import annotations

import importlib
import sys

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


@pytest.mark.parametrize(
    ("old", "names"),
    [("mixer.factory", ("make_mixer", "POLICIES")),
     ("mixer.problem_factory", ("make_problem_sampler", "PROBLEM_SAMPLERS")),
     ("mixer.problem_samplers", ("make_problem_sampler", "PROBLEM_SAMPLERS")),
     ("mixer.acodm", ("ACODM",)), ("mixer.base", ("Mixer",)),
     ("mixer.baselines", ("ODM", "Static", "Uniform", "AdvantageBandit")),
     ("mixer.dump", ("DUMP",)), ("mixer.proxy", ("ProxyACODM",)),
     ("mixer.transfer", ("TransferBandit",)), ("mixer.sketch", ("GradientSketch",)),
     ("mixer.frontier", ("FrontierSampler",)), ("mixer.learnability", ("PassRateModel",)),
     ("mixer.posterior", ("BetaPosteriorSampler",)),
     ("mixer.rollout_filters", ("DynamicSampling", "GRESO", "PassRateBand")),
     ("mixer.problems", ("ProblemSampler", "GroupOutcome"))],
)  # fmt: skip
def test_old_module_names_still_import_and_say_they_are_deprecated(old, names) -> None:
    """The modules' names before the two wings (issue 44) import until the one removal release;
    `mixer.problems` is the problem wing itself now, and warns of nothing."""
    import warnings

    import mixer
    from filters.tools.renamed import REMOVED_IN

    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    said = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    if old == "mixer.problems":
        assert said == []
    else:
        assert any(f"removed in {REMOVED_IN}" in m for m in said), said
        assert REMOVED_IN in (module.__doc__ or "")
    for name in names:
        assert getattr(module, name) is getattr(mixer, name)


def test_old_private_names_still_read_through_an_old_module() -> None:
    with pytest.warns(DeprecationWarning):
        from mixer.acodm import interference_scores
        from mixer.scorers import reference_log_likelihood
    from mixer.policies.acodm import interference_scores as new_interference
    from mixer.problems.scorers import reference_log_likelihood as new_rll

    assert interference_scores is new_interference and reference_log_likelihood is new_rll


def test_proxy_acodm_learn_is_the_old_name_of_fit_runs() -> None:
    from mixer import ProxyACODM

    m = ProxyACODM(2, horizon=4, segments=2, seed=0)
    with pytest.warns(DeprecationWarning, match="fit_runs"):
        m.learn([])
