"""Judging problems and code: stages, sandbox, comparison, verification, dedup, decontamination,
difficulty and rewards. Never imports `curation` or `mixer`."""

from filters.errors import UserError
from filters.ground_truth import from_ground_truth, to_ground_truth
from filters.stage import Decision, GlobalStage, RowStage, Stage, StageResult

__all__ = ["UserError", "from_ground_truth", "to_ground_truth", "Decision", "GlobalStage", "RowStage", "Stage", "StageResult"]
