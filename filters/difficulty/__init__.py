"""Difficulty on one [0, 1] scale: label priors, item-response fit of rollouts, feature model, buckets."""

from filters.difficulty.calibration import plot_calibration
from filters.difficulty.difficulty_stage import DifficultyConfig, DifficultyStage
from filters.difficulty.features import FeatureModel, cross_val_predict, problem_features
from filters.difficulty.irt import IRTFit, fit_irt, logit_to_unit, unit_to_logit
from filters.difficulty.labels import LabelPrior, label_prior
from filters.difficulty.rollouts import RolloutCounts, count_rollouts, parse_window, read_rollouts
from filters.difficulty.stats import quantile_buckets, spearman

__all__ = [
    "DifficultyConfig",
    "DifficultyStage",
    "FeatureModel",
    "IRTFit",
    "LabelPrior",
    "RolloutCounts",
    "count_rollouts",
    "cross_val_predict",
    "fit_irt",
    "label_prior",
    "logit_to_unit",
    "parse_window",
    "plot_calibration",
    "problem_features",
    "quantile_buckets",
    "read_rollouts",
    "spearman",
    "unit_to_logit",
]
