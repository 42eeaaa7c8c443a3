"""Judging problems and code: stages, sandbox, comparison, test amplification, verification,
dedup, decontamination, difficulty and rewards. Never imports `curation` or `mixer`.

Imports are lazy (PEP 562): `from filters import VerifyStage` loads the verify stage and its
sandbox only then, so a process that needs only the contracts (`filters.contracts`, e.g. `mixer`)
does not pay for the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from filters.tools.lazy import lazy_names

if TYPE_CHECKING:
    from filters.compare import compare_call, compare_stdio
    from filters.contracts import ProblemRow, UserError
    from filters.judging.ground_truth import from_ground_truth, to_ground_truth
    from filters.sandbox import RunResult, Sandbox, TestResult
    from filters.settings import (
        AmplifyConfig,
        DecontamConfig,
        DedupConfig,
        DifficultyConfig,
        VerifyConfig,
    )
    from filters.stage import Decision, GlobalStage, RowStage, Stage, StageResult
    from filters.stages.amplify.stage import AmplifyStage
    from filters.stages.decontam.stage import DecontamStage
    from filters.stages.dedup.minhash import jaccard, minhash_signatures
    from filters.stages.dedup.shingles import code_shingles, code_tokens
    from filters.stages.dedup.stage import DedupStage, find_duplicates
    from filters.stages.difficulty import DifficultyStage, fit_irt, label_prior, plot_calibration
    from filters.stages.verify.stage import VerifyStage

#: public name -> the module that defines it
_HOME = {
    "AmplifyStage": "filters.stages.amplify.stage",
    "DedupStage": "filters.stages.dedup.stage",
    "DecontamStage": "filters.stages.decontam.stage",
    "find_duplicates": "filters.stages.dedup.stage",
    "code_shingles": "filters.stages.dedup.shingles",
    "code_tokens": "filters.stages.dedup.shingles",
    "minhash_signatures": "filters.stages.dedup.minhash",
    "jaccard": "filters.stages.dedup.minhash",
    "UserError": "filters.contracts",
    "ProblemRow": "filters.contracts",
    "from_ground_truth": "filters.judging.ground_truth",
    "to_ground_truth": "filters.judging.ground_truth",
    "Decision": "filters.stage",
    "GlobalStage": "filters.stage",
    "RowStage": "filters.stage",
    "Stage": "filters.stage",
    "StageResult": "filters.stage",
    "Sandbox": "filters.sandbox",
    "RunResult": "filters.sandbox",
    "TestResult": "filters.sandbox",
    "compare_stdio": "filters.compare",
    "compare_call": "filters.compare",
    "VerifyStage": "filters.stages.verify.stage",
    "DifficultyStage": "filters.stages.difficulty",
    "fit_irt": "filters.stages.difficulty",
    "label_prior": "filters.stages.difficulty",
    "plot_calibration": "filters.stages.difficulty",
    "DedupConfig": "filters.settings",
    "DecontamConfig": "filters.settings",
    "DifficultyConfig": "filters.settings",
    "VerifyConfig": "filters.settings",
    "AmplifyConfig": "filters.settings",
}

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
    "ProblemRow",
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
    "DedupConfig",
    "DecontamConfig",
    "DifficultyConfig",
    "VerifyConfig",
    "AmplifyConfig",
]


__getattr__, __dir__ = lazy_names(__name__, _HOME, __all__)
