"""Correctness reward: the completion's program against the problem's tests, as strict as the verifier.

1.0 when every test is `AC` (same sandbox, same comparator, same limits as verification), else 0.0;
optionally the fraction of tests passed, and a penalty when the completion holds no code. A sandbox
fault (`SE`) is never a wrong answer: it is retried, then raised (`on_system_error="raise"`) or
reported as a missing reward (`"none"`: the score is None, which TRL treats as unscorable).

`assert` suites run in the program's own process, where a hostile program can fake a pass. By
default (`assert_policy="convert"`) a suite that converts to `call` tests (`assert_calls`) is
graded that way, outside the program; one that does not is graded in-process and flagged
(`Grade.isolation == "in-process"`, metric `in_process`). `"refuse"` scores such problems 0.0
without running them; `"in-process"` never converts (the old behaviour).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from filters.judging.ground_truth import from_ground_truth
from filters.judging.judge_style import comparison_of
from filters.judging.judged import judged_problem
from filters.reward.extract import extract_program
from filters.reward.pool import shared_sandbox
from filters.sandbox import RunResult, Sandbox
from filters.sandbox.assert_calls import convert_problem

__all__ = [
    "ASSERT_POLICIES",
    "CorrectnessConfig",
    "Grade",
    "RewardSystemError",
    "as_problem",
    "expected_language",
    "select_tests",
    "grade",
    "grade_many",
    "correctness_reward",
]

ON_SYSTEM_ERROR = ("raise", "none")
#: convert: assert suites that convert run as call tests, the others in-process (flagged);
#: refuse: the others score 0.0 unrun; in-process: never convert (every assert suite in-process).
ASSERT_POLICIES = ("convert", "refuse", "in-process")


class RewardSystemError(RuntimeError):
    """The sandbox failed (`SE`) on a completion even after retries: a harness fault, not the model's."""


@dataclass(frozen=True)
class CorrectnessConfig:
    """How completions are graded.

    max_tests: run only this many tests, the most demanding first (longest inputs); None = all.
    partial: score = fraction of tests passed instead of all-or-nothing.
    format_penalty: a completion without code scores -format_penalty (0.0: it scores 0).
    on_system_error: "raise" (RewardSystemError after retries) or "none" (score None, reported).
    se_retries: extra attempts after the sandbox's own retries came back SE.
    time_limit_s / memory_limit_mb: override the problem's limits (None: the problem's, then defaults).
    assert_policy: "convert" (default: assert suites that convert run as call tests outside the
        program, the others in-process and flagged), "refuse" (those others score 0.0 unrun, with
        the reason in `Grade.error`) or "in-process" (never convert).
    """

    max_tests: int | None = None
    partial: bool = False
    format_penalty: float = 0.0
    on_system_error: str = "raise"
    se_retries: int = 1
    time_limit_s: float | None = None
    memory_limit_mb: float | None = None
    assert_policy: str = "convert"

    def __post_init__(self) -> None:
        if self.assert_policy not in ASSERT_POLICIES:
            raise ValueError(
                f"assert_policy must be one of {ASSERT_POLICIES}, got {self.assert_policy!r}"
            )
        if self.on_system_error not in ON_SYSTEM_ERROR:
            raise ValueError(
                f"on_system_error must be one of {ON_SYSTEM_ERROR}, got {self.on_system_error!r}"
            )
        if self.max_tests is not None and self.max_tests < 1:
            raise ValueError("max_tests must be at least 1 (or None for all tests)")


@dataclass
class Grade:
    """One completion's grade. `score` is None only for an unresolved sandbox fault with on_system_error="none"."""

    score: float | None
    has_code: bool
    verdict: str | None = None  # None when there was no code to run
    tests_passed: int = 0
    tests_total: int = 0
    cpu_ms: float = 0.0
    error: str | None = None
    attempts: int = 0
    code: str | None = field(default=None, repr=False)
    result: RunResult | None = field(default=None, repr=False)
    #: the program's language ("python", "cpp"): its fence's, else the one the prompt asked for
    language: str | None = None
    #: "separate" (stdio/call tests: expected values never enter the program's process),
    #: "converted" (an assert suite run as call tests), "in-process" (an assert suite run in the
    #: program's process: a hostile program can fake a pass) or "refused" (not run, score 0.0).
    isolation: str = "separate"
    #: why an assert suite was not converted (None when it was, or for other test types)
    isolation_reason: str | None = None

    @property
    def accepted(self) -> bool:
        return self.verdict == "AC"

    @property
    def system_error(self) -> bool:
        return self.verdict == "SE"

    def info(self) -> dict[str, float]:
        """Numeric per-sample metrics (same keys for every sample, as verl's reward_extra_info needs)."""
        return {
            "acc": 1.0 if self.accepted else 0.0,
            "has_code": 1.0 if self.has_code else 0.0,
            "pass_frac": self.tests_passed / self.tests_total if self.tests_total else 0.0,
            "system_error": 1.0 if self.system_error else 0.0,
            "in_process": 1.0 if self.isolation in ("in-process", "refused") else 0.0,
        }


def as_problem(problem: str | dict[str, Any]) -> dict[str, Any]:
    """A problem dict from a record, or from the ground truth that `codemix export` writes (str or dict).

    A record without a recorded `comparison` (not verified) is judged under the one verify would
    record for it (`filters.judging.judge_style.comparison_of`: its statement's and its source's)."""
    if isinstance(problem, str):
        return from_ground_truth(problem)
    if "tests" not in problem or "test_type" not in problem:
        return from_ground_truth(problem)
    if problem.get("comparison") is None:
        return dict(problem, comparison=comparison_of(problem))
    return problem


def select_tests(problem: dict[str, Any], max_tests: int | None) -> list[dict[str, Any]] | None:
    """The `max_tests` most demanding tests (longest input first, ties in original order); None = all."""
    tests = problem.get("tests") or []
    if max_tests is None or len(tests) <= max_tests or problem.get("test_type") == "assert":
        return None
    order = sorted(range(len(tests)), key=lambda i: (-len(str(tests[i].get("input", ""))), i))
    return [tests[i] for i in order[:max_tests]]


def _score(r: RunResult, cfg: CorrectnessConfig) -> float:
    if r.verdict == "AC":
        return 1.0
    if cfg.partial and r.tests_total:
        return r.tests_passed / r.tests_total
    return 0.0


def _prepare(
    problem: dict[str, Any], cfg: CorrectnessConfig
) -> tuple[dict[str, Any] | None, str, str | None]:
    """(the problem to run, or None to refuse it; its isolation; why it runs in-process).

    A problem with generated tests runs as verify judged it (`judged_problem`): an assert suite
    then always runs converted, whatever the policy, since its generated tests are call tests.
    """
    if problem.get("generated_tests"):
        judged = judged_problem(problem)
        return judged, "converted" if problem.get("test_type") == "assert" else "separate", None
    if problem.get("test_type") != "assert":
        return problem, "separate", None
    if cfg.assert_policy == "in-process":
        return problem, "in-process", "assert_policy='in-process'"
    converted, why = convert_problem(problem)
    if converted is not None:
        return converted, "converted", None
    if cfg.assert_policy == "refuse":
        return None, "refused", why
    return problem, "in-process", why


def expected_language(problem: dict[str, Any]) -> str:
    """The language completions to `problem` are asked in: its ground truth's `language` (what
    `codemix export --language` wrote), Python when it says none."""
    return str(problem.get("language") or "python")


def _judge(
    sb: Sandbox, problem: dict[str, Any], code: str, cfg: CorrectnessConfig, lang: str = "python"
) -> Grade:
    if lang != "python" and (problem.get("test_type") or "stdio") != "stdio":
        why = f"{lang} programs are judged on stdio problems only"
        return Grade(0.0, True, None, error=why, code=code, language=lang)
    # A converted suite keeps every assertion, as the in-process run did (max_tests ignored).
    tests = None if problem.get("typed_calls") else select_tests(problem, cfg.max_tests)
    r = RunResult("SE")
    attempts = 0
    for extra in range(cfg.se_retries + 1):
        if extra:
            time.sleep(0.05 * extra)
        r = sb.run(
            problem,
            code,
            time_limit_s=cfg.time_limit_s,
            memory_limit_mb=cfg.memory_limit_mb,
            tests=tests,
            stop_on_failure=not cfg.partial,
            language=lang,
        )
        attempts += r.attempts
        if r.verdict != "SE":
            break
    if r.verdict == "SE":
        return Grade(
            None,
            True,
            "SE",
            0,
            r.tests_total,
            0.0,
            r.error or "sandbox error",
            attempts,
            code,
            r,
            language=lang,
        )
    return Grade(
        _score(r, cfg),
        True,
        r.verdict,
        r.tests_passed,
        r.tests_total,
        r.cpu_ms,
        None,
        attempts,
        code,
        r,
        language=lang,
    )


def grade_many(
    items: Sequence[tuple[str | dict[str, Any], Any]],
    *,
    sandbox: Sandbox | None = None,
    config: CorrectnessConfig | None = None,
    **options: Any,
) -> list[Grade]:
    """Grade many (problem, completion) pairs in parallel on the sandbox's workers, in input order.

    Problems may be records or ground-truth strings; completions strings or chat messages. Identical
    (problem, code) pairs (common in a GRPO group) run once. `options` override fields of `config`.
    """
    cfg = replace(config or CorrectnessConfig(), **options)
    parsed: dict[str | int, dict[str, Any]] = {}  # a ground truth by its text, a record by id
    problems: list[dict[str, Any]] = []
    for p, _ in items:
        pkey = p if isinstance(p, str) else id(p)
        if pkey not in parsed:
            parsed[pkey] = as_problem(p)
        problems.append(parsed[pkey])
    programs = [extract_program(c, expected_language(p)) for p, (_, c) in zip(problems, items)]
    codes = [pr[0] if pr else None for pr in programs]
    langs = [pr[1] if pr else None for pr in programs]
    prepared: dict[int, tuple[dict[str, Any] | None, str, str | None]] = {}
    for prob in problems:
        if id(prob) not in prepared:
            prepared[id(prob)] = _prepare(prob, cfg)
    jobs: dict[tuple[int, str, str], tuple[dict[str, Any], str, CorrectnessConfig, str]] = {}
    for prob, code, lang in zip(problems, codes, langs):
        run_as = prepared[id(prob)][0]
        if code is not None and lang is not None and run_as is not None:
            jobs.setdefault((id(prob), code, lang), (run_as, code, cfg, lang))
    done: dict[tuple[int, str, str], Grade] = {}
    if jobs:
        sb = sandbox or shared_sandbox()
        keys = list(jobs)
        with ThreadPoolExecutor(max(1, min(sb.n_workers, len(keys)))) as ex:
            for key, g in zip(keys, ex.map(lambda k: _judge(sb, *jobs[k]), keys)):
                done[key] = g
    grades: list[Grade] = []
    for prob, code, lang in zip(problems, codes, langs):
        run_as, isolation, why = prepared[id(prob)]
        if code is None or lang is None:
            g = Grade(-cfg.format_penalty if cfg.format_penalty else 0.0, False)
        elif run_as is None:
            g = Grade(
                0.0,
                True,
                None,
                error=f"refused: assert suite would run in-process ({why})",
                code=code,
            )
        else:
            g = replace(done[(id(prob), code, lang)])
        g.isolation, g.isolation_reason = isolation, why
        grades.append(g)
    if cfg.on_system_error == "raise":
        bad = [g for g in grades if g.system_error]
        if bad:
            raise RewardSystemError(
                f"sandbox error on {len(bad)} of {len(grades)} completions after "
                f"{bad[0].attempts} attempts: {bad[0].error}"
            )
    return grades


def grade(
    problem: str | dict[str, Any],
    completion: Any,
    *,
    sandbox: Sandbox | None = None,
    config: CorrectnessConfig | None = None,
    **options: Any,
) -> Grade:
    """Grade one completion (see `grade_many`)."""
    return grade_many([(problem, completion)], sandbox=sandbox, config=config, **options)[0]


def correctness_reward(
    problem: str | dict[str, Any],
    completion: Any,
    *,
    sandbox: Sandbox | None = None,
    config: CorrectnessConfig | None = None,
    **options: Any,
) -> float | None:
    """1.0 when the completion's code passes every test, else 0.0 (options: partial, format_penalty, max_tests...)."""
    return grade(problem, completion, sandbox=sandbox, config=config, **options).score
