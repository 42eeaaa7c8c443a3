"""Difficulty on one [0, 1] scale: label priors, item-response fit of rollouts, feature model, buckets.

Imports are lazy (PEP 562), as in `filters`: `mixer` reads `filters.difficulty.irt` without
loading the stage, the feature model or matplotlib's calibration plot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from filters.lazy import lazy_names

if TYPE_CHECKING:
    from filters.difficulty.calibration import plot_calibration
    from filters.difficulty.difficulty_stage import DifficultyConfig, DifficultyStage
    from filters.difficulty.features import FeatureModel, cross_val_predict, problem_features
    from filters.difficulty.irt import IRTFit, fit_irt, logit_to_unit, unit_to_logit
    from filters.difficulty.labels import LabelPrior, label_prior
    from filters.difficulty.rollouts import (
        RolloutCounts,
        count_rollouts,
        parse_window,
        read_rollouts,
    )
    from filters.difficulty.stats import quantile_buckets, spearman

#: public name -> the module that defines it
_HOME = {
    "plot_calibration": "filters.difficulty.calibration",
    "DifficultyConfig": "filters.difficulty.difficulty_stage",
    "DifficultyStage": "filters.difficulty.difficulty_stage",
    "RankStage": "filters.difficulty.difficulty_stage",
    "FeatureModel": "filters.difficulty.features",
    "cross_val_predict": "filters.difficulty.features",
    "problem_features": "filters.difficulty.features",
    "IRTFit": "filters.difficulty.irt",
    "fit_irt": "filters.difficulty.irt",
    "logit_to_unit": "filters.difficulty.irt",
    "unit_to_logit": "filters.difficulty.irt",
    "LabelPrior": "filters.difficulty.labels",
    "label_prior": "filters.difficulty.labels",
    "RolloutCounts": "filters.difficulty.rollouts",
    "count_rollouts": "filters.difficulty.rollouts",
    "parse_window": "filters.difficulty.rollouts",
    "read_rollouts": "filters.difficulty.rollouts",
    "quantile_buckets": "filters.difficulty.stats",
    "spearman": "filters.difficulty.stats",
}

__all__ = [
    "DifficultyConfig",
    "DifficultyStage",
    "FeatureModel",
    "IRTFit",
    "LabelPrior",
    "RankStage",
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


__getattr__, __dir__ = lazy_names(__name__, _HOME, __all__)
