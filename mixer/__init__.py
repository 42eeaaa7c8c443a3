"""Training-time data mixing, in two wings: source mixers (`mixer.policies`: how much to draw from
each source) and problem samplers (`mixer.problems`: which problems inside each source), both
learning from what the trainer reports; `mixer.sampler` turns weights into batches and
`mixer.adapters` plugs them into trainers. This module is the face: import from here."""

from mixer.feedback import Feedback, feedback_from_rewards, grpo_advantages, per_source_mean
from mixer.history import load_history
from mixer.policies import POLICIES, make_mixer
from mixer.policies.acodm import ACODM, ACODMSettings
from mixer.policies.base import Mixer
from mixer.policies.baselines import ODM, AdvantageBandit, Static, Uniform
from mixer.policies.dump import DUMP
from mixer.policies.proxy import ProxyACODM
from mixer.policies.sketch import GradientSketch, alignment_scores, target_scores
from mixer.policies.transfer import TransferBandit
from mixer.problems import PROBLEM_SAMPLERS, GroupOutcome, ProblemSampler, make_problem_sampler
from mixer.problems.frontier import FrontierSampler, FrontierSettings
from mixer.problems.pass_rate import PassRateModel, PassRateSettings
from mixer.problems.posterior import BetaPosteriorSampler
from mixer.problems.rollout_filters import GRESO, DynamicSampling, PassRateBand
from mixer.sampler import MixedDataset, MixedSampler, stochastic_round

__all__: list[str] = [
    "ACODM",
    "ACODMSettings",
    "AdvantageBandit",
    "BetaPosteriorSampler",
    "DUMP",
    "DynamicSampling",
    "Feedback",
    "FrontierSampler",
    "FrontierSettings",
    "GRESO",
    "GradientSketch",
    "GroupOutcome",
    "MixedDataset",
    "MixedSampler",
    "Mixer",
    "ODM",
    "POLICIES",
    "PROBLEM_SAMPLERS",
    "PassRateBand",
    "PassRateModel",
    "PassRateSettings",
    "ProblemSampler",
    "ProxyACODM",
    "Static",
    "TransferBandit",
    "Uniform",
    "feedback_from_rewards",
    "grpo_advantages",
    "load_history",
    "make_mixer",
    "make_problem_sampler",
    "per_source_mean",
    "stochastic_round",
    "alignment_scores",
    "target_scores",
]

