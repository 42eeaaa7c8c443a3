"""A secure, fast sandbox for untrusted Python and C++: fork-server workers, confined children, strict verdicts.

with Sandbox(workers=2) as sb:
    result = sb.run(problem, code)          # RunResult(verdict="AC", tests_passed=..., ...)
    results = sb.run_many([(problem, code), ...])
"""

from filters.sandbox.limits import Limits
from filters.sandbox.result import VERDICTS, RunResult, TestResult
from filters.sandbox.runner import Output, Sandbox, default_workers

__all__ = ["Sandbox", "Output", "RunResult", "TestResult", "Limits", "VERDICTS", "default_workers"]
