"""Correctness reward: the completion's program against the problem's tests, as strict as the verifier.

1.0 when every test is `AC` (same sandbox, same comparator, same limits as verification), else 0.0;
optionally the fraction of tests passed, and a penalty when the completion holds no code. A sandbox
fault (`SE`) is never a wrong answer: it is retried, then raised (`on_system_error="raise"`) or
reported as a missing reward (`"none"`: the score is None, which TRL treats as unscorable).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from filters.ground_truth import from_ground_truth
from filters.reward.extract import extract_code
from filters.reward.pool import shared_sandbox
from filters.sandbox import RunResult, Sandbox

__all__ = [
    "CorrectnessConfig",
    "Grade",
    "RewardSystemError",
    "as_problem",
    "select_tests",
    "grade",
    "grade_many",
    "correctness_reward",
]

ON_SYSTEM_ERROR = ("raise", "none")


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
    """

    max_tests: int | None = None
    partial: bool = False
    format_penalty: float = 0.0
    on_system_error: str = "raise"
    se_retries: int = 1
    time_limit_s: float | None = None
    memory_limit_mb: float | None = None

    def __post_init__(self) -> None:
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
        }


def as_problem(problem: str | dict[str, Any]) -> dict[str, Any]:
    """A problem dict from a record, or from the ground truth that `codemix export` writes (str or dict)."""
    if isinstance(problem, str):
        return from_ground_truth(problem)
    if "tests" not in problem or "test_type" not in problem:
        return from_ground_truth(problem)
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


def _judge(sb: Sandbox, problem: dict[str, Any], code: str, cfg: CorrectnessConfig) -> Grade:
    tests = select_tests(problem, cfg.max_tests)
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
        )
        attempts += r.attempts
        if r.verdict != "SE":
            break
    if r.verdict == "SE":
        return Grade(
            None, True, "SE", 0, r.tests_total, 0.0, r.error or "sandbox error", attempts, code, r
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
    parsed: dict[str, dict[str, Any]] = {}
    problems: list[dict[str, Any]] = []
    for p, _ in items:
        if isinstance(p, str):
            if p not in parsed:
                parsed[p] = as_problem(p)
            problems.append(parsed[p])
        else:
            problems.append(as_problem(p))
    codes = [extract_code(c) for _, c in items]
    jobs: dict[tuple[int, str], tuple[dict[str, Any], str]] = {}
    for prob, code in zip(problems, codes):
        if code is not None:
            jobs.setdefault((id(prob), code), (prob, code))
    done: dict[tuple[int, str], Grade] = {}
    if jobs:
        sb = sandbox or shared_sandbox()
        keys = list(jobs)
        with ThreadPoolExecutor(max(1, min(sb.n_workers, len(keys)))) as ex:
            for key, g in zip(keys, ex.map(lambda k: _judge(sb, *jobs[k], cfg), keys)):
                done[key] = g
    grades: list[Grade] = []
    for prob, code in zip(problems, codes):
        if code is None:
            grades.append(Grade(-cfg.format_penalty if cfg.format_penalty else 0.0, False))
        else:
            grades.append(replace(done[(id(prob), code)]))
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
