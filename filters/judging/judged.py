"""The problem as a judge runs it: its own tests plus the generated ones (`filters.stages.amplify.stage`).

Verify and the rewards both judge `judged_problem(record)`, so a completion is graded on exactly
the tests and the comparison (`comparison` column, read by the sandbox) the problem was verified with.
An `assert` suite with generated tests is judged as call tests (`assert_calls`): its assertions
converted, then the generated calls, all checked outside the program.
"""

from __future__ import annotations

from typing import Any

from filters.sandbox.assert_calls import convert_problem
from filters.sandbox.asserts import count_asserts

__all__ = ["judged_problem", "count_tests"]


def _as_test(t: dict[str, Any], typed: bool) -> dict[str, Any]:
    test = {"input": t["input"], "output": t["output"]}
    if typed:
        test.update(check=t["check"], env=t.get("env") or "{}")
    return test


def judged_problem(problem: dict[str, Any]) -> dict[str, Any]:
    """`problem` with its generated tests appended to `tests` (converted first when it is an assert
    suite); the problem itself when it has none. ValueError when its generated tests cannot apply."""
    generated = problem.get("generated_tests") or []
    if not generated:
        return problem
    if problem.get("test_type") == "assert":
        converted, why = convert_problem(problem)
        if converted is None:
            raise ValueError(
                f"{problem.get('id')}: generated tests on an assert suite that does not convert ({why})"
            )
        out = converted
    else:
        out = dict(problem)
    typed = bool(out.get("typed_calls"))
    if typed and any(not t.get("check") for t in generated):
        raise ValueError(f"{problem.get('id')}: a generated test of a converted suite has no check")
    out["tests"] = [*(out.get("tests") or []), *(_as_test(t, typed) for t in generated)]
    return out


def count_tests(problem: dict[str, Any]) -> int:
    """Tests of a problem: its {input, output} pairs or an `assert` suite's assertions, plus the generated ones."""
    own = (
        count_asserts(problem.get("test_code"))
        if problem.get("test_type") == "assert"
        else len(problem.get("tests") or [])
    )
    return own + len(problem.get("generated_tests") or [])
