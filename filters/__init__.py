"""Judging problems and code: stages, sandbox, comparison, verification, dedup, decontamination,
difficulty and rewards. Never imports `curation` or `mixer`."""

from filters.errors import UserError
from filters.stage import Decision, GlobalStage, RowStage, Stage, StageResult

__all__ = ["UserError", "Decision", "GlobalStage", "RowStage", "Stage", "StageResult"]
