"""What a run returns: one verdict per program, with per-test detail and the first failure; or,
unjudged, what it printed or returned on each input (`Output`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from filters.sandbox.limits import Limits
from filters.sandbox.outcome import Outcome, Status

__all__ = ["VERDICTS", "TestResult", "RunResult", "Output", "truncate", "summary", "not_run"]

#: AC accepted, WA wrong answer, TLE time limit, MLE memory limit, RE runtime error,
#: OLE output limit, CE compile error, SE sandbox/system error (never the program's fault).
VERDICTS = ("AC", "WA", "TLE", "MLE", "RE", "OLE", "CE", "SE")
_TRUNC = 500


def truncate(text: str | None, limit: int = _TRUNC) -> str | None:
    """Keep the head of long text, saying how much was cut."""
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + f"... [{len(text) - limit} more chars]"


@dataclass
class TestResult:
    """One test of one run."""

    index: int
    verdict: str
    cpu_ms: float = 0.0
    wall_ms: float = 0.0
    peak_mem_kb: int = 0


@dataclass
class RunResult:
    """One program against one problem's tests. `verdict` is the first non-AC test's verdict."""

    verdict: str
    tests_passed: int = 0
    tests_total: int = 0
    cpu_ms: float = 0.0
    wall_ms: float = 0.0
    peak_mem_kb: int = 0
    tests: list[TestResult] = field(default_factory=list)
    #: {test, verdict, input, expected, actual, reason, stderr}, truncated; None when AC.
    first_failure: dict[str, Any] | None = None
    time_limit_s: float | None = None
    #: Harness detail for SE (what failed in the sandbox), else None.
    error: str | None = None
    attempts: int = 1
    #: the program's language ("python", "cpp") and, for a compiled one, the compile's CPU time
    #: (0 when its binary came from the sandbox's cache); not part of `cpu_ms`
    language: str = "python"
    compile_ms: float = 0.0

    @property
    def accepted(self) -> bool:
        return self.verdict == "AC"

    @property
    def max_test_cpu_ms(self) -> float:
        return max((t.cpu_ms for t in self.tests), default=0.0)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Output:
    """What a program printed (stdio) or returned (call: JSON, or typed text for converted asserts)
    on one input, unjudged; `status` is OK or the test's verdict (RE, TLE, MLE, OLE, CE, SE)."""

    status: str
    text: str | None = None
    cpu_ms: float = 0.0


def not_run(r: Outcome, total: int, limits: Limits) -> RunResult:
    """A program that does not compile (CE), or a harness fault (SE: the suite does not
    compile, the worker failed): no test counts."""
    return RunResult(
        r.status,
        0,
        total,
        first_failure={"verdict": r.status, "stderr": r.error},
        time_limit_s=limits.time_s,
        error=r.error if r.status == Status.SE else None,
    )


def summary(
    verdict: str,
    results: list[TestResult],
    total: int,
    first: dict[str, Any] | None,
    limits: Limits,
) -> RunResult:
    """A run's result from its tests' results: `verdict` and `first`, its first failure."""
    return RunResult(
        verdict=verdict,
        tests_passed=sum(t.verdict == "AC" for t in results),
        tests_total=total,
        cpu_ms=sum(t.cpu_ms for t in results),
        wall_ms=sum(t.wall_ms for t in results),
        peak_mem_kb=max((t.peak_mem_kb for t in results), default=0),
        tests=results,
        first_failure=first,
        time_limit_s=limits.time_s,
    )
