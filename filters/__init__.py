"""Judging problems and code: stages, sandbox, comparison, test amplification, verification,
dedup, decontamination, difficulty and rewards. Never imports `curation` or `mixer`."""

from filters.amplify import AmplifyStage
from filters.compare import compare_call, compare_stdio
from filters.decontam import DecontamStage
from filters.dedup import DedupStage, find_duplicates
from filters.difficulty import DifficultyStage, fit_irt, label_prior, plot_calibration
from filters.errors import UserError
from filters.ground_truth import from_ground_truth, to_ground_truth
from filters.minhash import jaccard, minhash_signatures
from filters.sandbox import RunResult, Sandbox, TestResult
from filters.shingles import code_shingles, code_tokens
from filters.stage import Decision, GlobalStage, RowStage, Stage, StageResult
from filters.verify import VerifyStage

__all__ = [
    "AmplifyStage",
    "DedupStage",
    "DecontamStage",
    "find_duplicates",
    "code_shingles",
    "code_tokens",
    "minhash_signatures",
    "jaccard",
    "UserError",
    "from_ground_truth",
    "to_ground_truth",
    "Decision",
    "GlobalStage",
    "RowStage",
    "Stage",
    "StageResult",
    "Sandbox",
    "RunResult",
    "TestResult",
    "compare_stdio",
    "compare_call",
    "VerifyStage",
    "DifficultyStage",
    "fit_irt",
    "label_prior",
    "plot_calibration",
]
