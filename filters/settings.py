"""Every stage's settings and their defaults, in one light module: the stages, `BuildConfig`, the
command line and recipes all take a default from here, so no two of them can drift apart.

Each stage's constructor documents what its settings mean. Each settings class checks its own
ranges when it is made (`__post_init__`; `dataclasses.replace` makes one too), so a recipe, a flag,
`BuildConfig` and a stage made in Python all fail on the same one line (a `UserError`). This module
imports no stage (nor the sandbox, numpy or pyarrow), so the command line and the build read
defaults without loading them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from filters.contracts import UserError

if TYPE_CHECKING:
    from filters.stage import Stage

__all__ = [
    "AmplifyConfig",
    "VerifyConfig",
    "DedupConfig",
    "DecontamConfig",
    "DifficultyConfig",
    "StageEntry",
    "Flag",
    "STAGES",
    "DEFAULT_STAGES",
    "FLAGS",
    "STAGE_SETTINGS",
    "FLAT_SETTINGS",
    "CALIBRATION_LIMIT_S",
    "MUTANT_BATCH_FLOOR_S",
    "MUTANT_TIME_FLOOR_S",
    "TIME_MARGIN",
    "DEFAULT_CPU_BUDGET_S",
]

#: The benchmarks decontam compares against by default: every one shipped with codemix in
#: filters/data (`filters.stages.decontam.references.SHIPPED`, which a test holds equal to this).
DEFAULT_BENCHMARKS: tuple[str, ...] = ("humaneval", "mbpp-test", "codecontests-test")

#: How long a reference may take while its time limit is still being calibrated (verify, amplify).
CALIBRATION_LIMIT_S = 10.0

#: A mutant's call in a batch stops past max(this, `time_factor` x the slowest passing reference's
#: slowest test), below its limit, and that test runs alone under the mutant's limit (a failure in
#: a batch is confirmed by a fresh child): a mutant that loops spends this much in its batch, not
#: a second limit (verify, amplify).
MUTANT_BATCH_FLOOR_S = 0.1

#: A mutant's time limit: max(this, `time_factor` x the slowest passing reference on the same
#: tests), within the problem's limit (`SandboxedStage.mutant_limit_s`). A mutant slower than that
#: is killed by its timeout, as mutation testing tools count a mutant that times out at a multiple
#: of the original's time (PIT's TIMED_OUT, mutmut's timeouts): such a mutant is told apart from
#: the reference by the test it runs out of time on. The problem's own floor (1 s, for the
#: completions the rewards grade) made each mutant that loops forever cost a second a run in
#: amplify, then in verify: most of both stages' time (measured in benchmarks/RESULTS.md).
MUTANT_TIME_FLOOR_S = 0.25

#: How far a measured CPU time must stay from the bound a decision compares it to, where a
#: build's content hangs on it (issue 42: the same command and data give the same dataset under
#: any load): a new input may cost amplify's labeller this many times its own slowest original
#: test, and the runs that check a label (its rerun, the other references) get this many times
#: the time limit. The same program's CPU time moved by up to 26% between an idle and a loaded
#: build, and by 10% between two idle ones (benchmarks/pages/load-determinism.md).
TIME_MARGIN = 2.0

#: The CPU (s) one problem's runs may take in amplify, and again in verify, before the stage stops
#: judging it and drops it as `too_slow` (with what it cost): a handful of slow CodeContests
#: problems (a time limit x tests x mutants x confirmed timeouts) held the shared big build's
#: last 8% for 25 minutes (issue 58). A problem costs about 2 CPU-s a stage on average
#: (benchmarks/RESULTS.md); this is 30x that. Which problems cross it is a measurement: near it,
#: two builds may decide a problem differently (docs/pipeline.md, measured columns).
DEFAULT_CPU_BUDGET_S = 60.0


def _require(stage: str, setting: str, ok: bool, rule: str, value: Any) -> None:
    """A setting out of its range is one line, the same from a recipe, a flag or Python: it names
    the setting as a recipe does (`stage.setting`) and, where there is one, its flag."""
    if ok:
        return
    flags = {(f.stage, f.setting): name.replace("_", "-") for name, f in FLAGS.items()}
    flag = f" (--{flags[stage, setting]})" if (stage, setting) in flags else ""
    raise UserError(f"{stage}.{setting}{flag} must be {rule}, got {value!r}")


#: The ranges settings are checked against, by what a message says of them.
_RULES: dict[str, Callable[[Any], bool]] = {
    "at least 0": lambda v: v >= 0,
    "at least 1": lambda v: v >= 1,
    "at least 1 (or unset)": lambda v: v is None or v >= 1,
    "positive": lambda v: v > 0,
    "positive (or unset)": lambda v: v is None or v > 0,
    "in [0, 1]": lambda v: 0 <= v <= 1,
    "in (0, 1]": lambda v: 0 < v <= 1,
}


def _check(stage: str, settings: Any, rule: str, *names: str) -> None:
    """Each named setting of `settings` within `rule` (a key of `_RULES`)."""
    for name in names:
        value = getattr(settings, name)
        _require(stage, name, _RULES[rule](value), rule, value)


@dataclass
class AmplifyConfig:
    """The test amplification stage's settings (`filters.stages.amplify.stage.AmplifyStage`). The build asks
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
    #: guide a problem whose only passing references are C++ by token mutants of one (off: on 11
    #: CodeContests problems they chose suites no stronger, at 6.2x the time; benchmarks/RESULTS.md)
    cpp_mutants: bool = False
    #: CPU seconds a problem's runs may take here before it is dropped as too_slow (None: no budget)
    cpu_budget_s: float | None = DEFAULT_CPU_BUDGET_S

    def __post_init__(self) -> None:
        counts = ("target_tests", "max_generated", "mutants", "rounds", "candidates")
        _check("amplify", self, "at least 0", *counts)
        _check("amplify", self, "positive (or unset)", "cpu_budget_s")
        _check("amplify", self, "at least 1", "max_solutions", "max_output_bytes")
        _check("amplify", self, "positive", "time_floor_s", "time_factor")


@dataclass
class VerifyConfig:
    """The verify stage's settings (`filters.stages.verify.stage.VerifyStage`)."""

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
    #: CPU seconds a problem's runs may take here before it is dropped as too_slow (None: no budget)
    cpu_budget_s: float | None = DEFAULT_CPU_BUDGET_S

    def __post_init__(self) -> None:
        _check("verify", self, "at least 0", "min_tests", "mutants")
        _check("verify", self, "positive (or unset)", "cpu_budget_s")
        _check("verify", self, "at least 1", "repeats", "max_solutions")
        _check("verify", self, "positive", "time_floor_s", "time_factor")
        _check("verify", self, "in [0, 1]", "min_mutation_score")


@dataclass
class DedupConfig:
    """The dedup stage's settings (`filters.stages.dedup.stage.DedupStage`)."""

    threshold: float = 0.8
    num_perm: int = 128
    prefer: tuple[str, ...] = ()
    use_solutions: bool = False
    #: tokens per code-aware shingle (`filters.stages.dedup.shingles.DEFAULT_K`)
    k: int = 5
    seed: int = 1
    bands: int | None = None
    rows: int | None = None
    transitive: bool = False

    def __post_init__(self) -> None:
        _check("dedup", self, "in (0, 1]", "threshold")
        _check("dedup", self, "at least 1", "num_perm", "k")
        _check("dedup", self, "at least 1 (or unset)", "bands", "rows")


@dataclass
class DecontamConfig:
    """The decontamination stage's settings (`filters.stages.decontam.stage.DecontamStage`); by default every
    benchmark shipped with codemix (`filters.stages.decontam.references.DEFAULT_BENCHMARKS`)."""

    against: tuple[str, ...] = DEFAULT_BENCHMARKS
    ngram: int = 13
    lcb_start: str | None = None
    lcb_end: str | None = None
    check_tests: bool = True
    check_solutions: bool = True
    max_df: int = 10
    min_coverage: float = 0.5

    def __post_init__(self) -> None:
        _check("decontam", self, "at least 1", "ngram")
        _check("decontam", self, "at least 0", "max_df")
        _check("decontam", self, "in [0, 1]", "min_coverage")


@dataclass
class DifficultyConfig:
    """The difficulty stage's settings (`filters.stages.difficulty.DifficultyStage`), which `codemix rank`
    uses too."""

    buckets: int = 5
    two_pl: bool = False
    keep_pass_rate: tuple[float, float] | None = None
    target_model: str | None = None
    min_labelled: int = 30
    ridge_alpha: float = 3.0
    min_align: int = 30

    def __post_init__(self) -> None:
        _check("difficulty", self, "at least 1", "buckets")
        _check("difficulty", self, "at least 0", "min_labelled", "min_align", "ridge_alpha")
        w = self.keep_pass_rate
        fits = w is None or (len(w) == 2 and 0.0 <= w[0] <= w[1] <= 1.0)
        _require("difficulty", "keep_pass_rate", fits, "(LO, HI) with 0 <= LO <= HI <= 1", w)


@dataclass(frozen=True)
class StageEntry:
    """A build stage: where its class lives (`module:Class`, imported only when the stage runs, so
    reading the registry loads no stage) and its settings class (None: it has no settings)."""

    stage: str
    settings: type | None = None

    def load(self) -> type[Stage]:
        module, _, name = self.stage.partition(":")
        cls: type[Stage] = getattr(importlib.import_module(module), name)
        return cls


#: Every build stage, in the order a build runs them: the one declaration of a stage. A build
#: (`curation.build`: `BuildConfig`, `make_stage`), recipes (`[build.<name>]`) and the command
#: line (`--skip`) all read it. docs/pipeline.md, "Adding a stage".
STAGES: dict[str, StageEntry] = {
    "exact_id": StageEntry("filters.stages.exact_id:ExactIdStage"),
    "decontam": StageEntry("filters.stages.decontam.stage:DecontamStage", DecontamConfig),
    "amplify": StageEntry("filters.stages.amplify.stage:AmplifyStage", AmplifyConfig),
    "verify": StageEntry("filters.stages.verify.stage:VerifyStage", VerifyConfig),
    "dedup": StageEntry("filters.stages.dedup.stage:DedupStage", DedupConfig),
    "difficulty": StageEntry("filters.stages.difficulty:DifficultyStage", DifficultyConfig),
}

#: The stages codemix ships, in the order a build runs them (a build's default is every stage in
#: `STAGES`, which a stage registered there joins).
DEFAULT_STAGES: tuple[str, ...] = tuple(STAGES)


class _StageSettings(Mapping[str, type]):
    """A live view of `STAGES`: stage name -> its settings class, for the stages that have one."""

    def __getitem__(self, name: str) -> type:
        settings = STAGES[name].settings
        if settings is None:
            raise KeyError(name)
        return settings

    def __iter__(self) -> Iterator[str]:
        return (name for name, entry in STAGES.items() if entry.settings is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: The stages' settings in a BuildConfig (`curation.build`): attribute -> its class (a view of
#: `STAGES`, so a stage registered there has its settings here too).
STAGE_SETTINGS: Mapping[str, type] = _StageSettings()


@dataclass(frozen=True)
class Flag:
    """A stage's setting that the command line sets (`codemix build --<name>`), by its flat name;
    BuildConfig and recipes accepted the flat names before the stages' settings were nested."""

    stage: str
    setting: str
    help: str
    metavar: str | None = None


#: The command line's stage options: flat name -> Flag. `codemix build` makes one option per entry
#: (`min_tests` is `--min-tests`; its type and default are the setting's), so a setting gets an
#: option by one entry here.
FLAGS: dict[str, Flag] = {
    "min_tests": Flag("verify", "min_tests", "Drop problems with fewer tests, too_few_tests."),
    "mutants": Flag(
        "verify", "mutants", "Mutants of a reference that measure a suite's strength (0: none)."
    ),
    "min_mutation_score": Flag(
        "verify",
        "min_mutation_score",
        "Without known-incorrect solutions, a suite killing fewer of the mutants is weak_tests.",
    ),
    "keep_incomplete_tests": Flag(
        "verify",
        "keep_incomplete_tests",
        "Judge problems whose source says it left tests out (open-r1/codeforces), instead of "
        "dropping them as incomplete_tests: their tests may accept programs the real judge rejects.",
    ),
    "verify_cpu_budget": Flag(
        "verify",
        "cpu_budget_s",
        "CPU seconds a problem's runs may take in verify before it is dropped as too_slow, with "
        "what they took.",
        metavar="SECONDS",
    ),
    "amplify_cpu_budget": Flag(
        "amplify",
        "cpu_budget_s",
        "CPU seconds a problem's runs may take in amplify before it is dropped as too_slow, with "
        "what they took.",
        metavar="SECONDS",
    ),
    "dedup_threshold": Flag(
        "dedup", "threshold", "Jaccard similarity that makes a duplicate, in (0, 1]."
    ),
    "prefer": Flag(
        "dedup",
        "prefer",
        "Source to keep first in a duplicate cluster; repeatable, in order.",
        metavar="SOURCE",
    ),
    "decontaminate_against": Flag(
        "decontam",
        "against",
        f"Benchmark NAME ({', '.join(DEFAULT_BENCHMARKS)}, lcb: LiveCodeBench from the hub), "
        "NAME=PATH (lcb=PATH: a local file) or a canonical PATH; repeatable. Replaces the default, "
        "every shipped benchmark, which `shipped` stands for.",
        metavar="BENCHMARK",
    ),
    "ngram": Flag("decontam", "ngram", "Word n-gram length for decontamination."),
    "lcb_start": Flag(
        "decontam",
        "lcb_start",
        "With lcb or lcb=PATH: only LiveCodeBench problems released on or after this date "
        "(YYYY-MM-DD).",
    ),
    "lcb_end": Flag(
        "decontam",
        "lcb_end",
        "With lcb or lcb=PATH: only LiveCodeBench problems released on or before this date.",
    ),
    "buckets": Flag("difficulty", "buckets", "Number of difficulty buckets, quantiles."),
}

#: The flat names of the settings the command line sets: name -> (stage, setting).
FLAT_SETTINGS: dict[str, tuple[str, str]] = {
    name: (flag.stage, flag.setting) for name, flag in FLAGS.items()
}
