"""Training-time data mixing: policies that choose per-step sampling weights across sources."""

from mixer.acodm import ACODM
from mixer.base import Mixer
from mixer.baselines import ODM, AdvantageBandit, Static, Uniform
from mixer.dump import DUMP
from mixer.feedback import Feedback, feedback_from_rewards, grpo_advantages, per_source_mean
from mixer.frontier import FrontierSampler
from mixer.history import load_history
from mixer.learnability import PassRateModel
from mixer.policies import POLICIES, make_mixer
from mixer.posterior import BetaPosteriorSampler
from mixer.problem_samplers import PROBLEM_SAMPLERS, make_problem_sampler
from mixer.problems import GroupOutcome, ProblemSampler
from mixer.proxy import ProxyACODM
from mixer.rollout_filters import GRESO, DynamicSampling, PassRateBand
from mixer.sampler import MixedDataset, MixedSampler, stochastic_round
from mixer.sketch import GradientSketch, alignment_scores, target_scores
from mixer.transfer import TransferBandit

__all__: list[str] = [
    "ACODM",
    "AdvantageBandit",
    "BetaPosteriorSampler",
    "DUMP",
    "DynamicSampling",
    "Feedback",
    "FrontierSampler",
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
