"""Difficulty on one [0, 1] scale: label priors, item-response fit of rollouts, feature model, buckets.

Imports are lazy (PEP 562), as in `filters`: `mixer` reads `filters.stages.difficulty.irt` without
loading the stage, the feature model or matplotlib's calibration plot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from filters.tools.lazy import lazy_names

if TYPE_CHECKING:
    from filters.stages.difficulty.calibration import plot_calibration
    from filters.stages.difficulty.difficulty_stage import DifficultyConfig, DifficultyStage
    from filters.stages.difficulty.features import FeatureModel, cross_val_predict, problem_features
    from filters.stages.difficulty.irt import IRTFit, fit_irt, logit_to_unit, unit_to_logit
    from filters.stages.difficulty.labels import LabelPrior, label_prior
    from filters.stages.difficulty.rollouts import (
        RolloutCounts,
        count_rollouts,
        parse_window,
        read_rollouts,
    )
    from filters.stages.difficulty.stats import quantile_buckets, spearman

#: public name -> the module that defines it
_HOME = {
    "plot_calibration": "filters.stages.difficulty.calibration",
    "DifficultyConfig": "filters.stages.difficulty.difficulty_stage",
    "DifficultyStage": "filters.stages.difficulty.difficulty_stage",
    "RankStage": "filters.stages.difficulty.difficulty_stage",
    "FeatureModel": "filters.stages.difficulty.features",
    "cross_val_predict": "filters.stages.difficulty.features",
    "problem_features": "filters.stages.difficulty.features",
    "IRTFit": "filters.stages.difficulty.irt",
    "fit_irt": "filters.stages.difficulty.irt",
    "logit_to_unit": "filters.stages.difficulty.irt",
    "unit_to_logit": "filters.stages.difficulty.irt",
    "LabelPrior": "filters.stages.difficulty.labels",
    "label_prior": "filters.stages.difficulty.labels",
    "RolloutCounts": "filters.stages.difficulty.rollouts",
    "count_rollouts": "filters.stages.difficulty.rollouts",
    "parse_window": "filters.stages.difficulty.rollouts",
    "read_rollouts": "filters.stages.difficulty.rollouts",
    "quantile_buckets": "filters.stages.difficulty.stats",
    "spearman": "filters.stages.difficulty.stats",
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
