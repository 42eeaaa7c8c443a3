"""Every stage's settings and their defaults, in one light module: the stages, `BuildConfig`, the
command line and recipes all take a default from here, so no two of them can drift apart.

Each stage's constructor documents what its settings mean. This module imports no stage (nor the
sandbox, numpy or pyarrow), so the command line and the build read defaults without loading them.
"""

from __future__ import annotations

from dataclasses import dataclass

from filters.decontam_refs import DEFAULT_BENCHMARKS

__all__ = [
    "AmplifyConfig",
    "VerifyConfig",
    "DedupConfig",
    "DecontamConfig",
    "DifficultyConfig",
    "STAGE_SETTINGS",
    "FLAT_SETTINGS",
    "CALIBRATION_LIMIT_S",
]

#: How long a reference may take while its time limit is still being calibrated (verify, amplify).
CALIBRATION_LIMIT_S = 10.0


@dataclass
class AmplifyConfig:
    """The test amplification stage's settings (`filters.amplify.AmplifyStage`). The build asks
    for at least verify's `min_tests` tests (`target_tests` is raised to it)."""

    target_tests: int = 10
    max_generated: int = 40
    mutants: int = 10
    rounds: int = 4
    candidates: int = 24
    max_solutions: int = 4
    max_output_bytes: int = 4096
    time_floor_s: float = 1.0
    time_factor: float = 3.0
    seed: int = 0


@dataclass
class VerifyConfig:
    """The verify stage's settings (`filters.verify.VerifyStage`)."""

    min_tests: int = 5
    repeats: int = 2
    mutants: int = 8
    time_floor_s: float = 1.0
    time_factor: float = 3.0
    max_solutions: int = 8
    drop_weak: bool = True
    seed: int = 0
    hash_check: bool = True
    #: without known-incorrect solutions, a suite killing fewer of the mutants is weak_tests
    min_mutation_score: float = 0.5
    keep_incomplete_tests: bool = False


@dataclass
class DedupConfig:
    """The dedup stage's settings (`filters.dedup.DedupStage`)."""

    threshold: float = 0.8
    num_perm: int = 128
    prefer: tuple[str, ...] = ()
    use_solutions: bool = False
    #: tokens per code-aware shingle (`filters.shingles.DEFAULT_K`)
    k: int = 5
    seed: int = 1
    bands: int | None = None
    rows: int | None = None
    transitive: bool = False


@dataclass
class DecontamConfig:
    """The decontamination stage's settings (`filters.decontam.DecontamStage`); by default every
    benchmark shipped with codemix (`filters.decontam_refs.DEFAULT_BENCHMARKS`)."""

    against: tuple[str, ...] = DEFAULT_BENCHMARKS
    ngram: int = 13
    lcb_start: str | None = None
    lcb_end: str | None = None
    check_tests: bool = True
    check_solutions: bool = True
    max_df: int = 10
    min_coverage: float = 0.5


@dataclass
class DifficultyConfig:
    """The difficulty stage's settings (`filters.difficulty.DifficultyStage`), which `codemix rank`
    uses too."""

    buckets: int = 5
    two_pl: bool = False
    keep_pass_rate: tuple[float, float] | None = None
    target_model: str | None = None
    min_labelled: int = 30
    ridge_alpha: float = 3.0
    min_align: int = 30


#: The stages' settings in a BuildConfig (`curation.build`): attribute -> its class.
STAGE_SETTINGS: dict[str, type] = {
    "amplify": AmplifyConfig,
    "verify": VerifyConfig,
    "dedup": DedupConfig,
    "decontam": DecontamConfig,
    "difficulty": DifficultyConfig,
}

#: The flat names of the settings the command line sets (`--min-tests` sets `min_tests`), which
#: BuildConfig and recipes accepted before the stages' settings were nested: name -> (stage, setting).
FLAT_SETTINGS: dict[str, tuple[str, str]] = {
    "min_tests": ("verify", "min_tests"),
    "mutants": ("verify", "mutants"),
    "min_mutation_score": ("verify", "min_mutation_score"),
    "keep_incomplete_tests": ("verify", "keep_incomplete_tests"),
    "dedup_threshold": ("dedup", "threshold"),
    "prefer": ("dedup", "prefer"),
    "decontaminate_against": ("decontam", "against"),
    "ngram": ("decontam", "ngram"),
    "lcb_start": ("decontam", "lcb_start"),
    "lcb_end": ("decontam", "lcb_end"),
    "buckets": ("difficulty", "buckets"),
}
