"""Correctness reward: strict like the verifier, partial credit, format penalty, max_tests, SE handling."""

from __future__ import annotations

import pytest

from filters.judging.ground_truth import to_ground_truth
from filters.reward import (
    CorrectnessConfig,
    RewardSystemError,
    correctness_reward,
    grade,
    grade_many,
    select_tests,
)
from filters.sandbox import Sandbox

ADD = {
    "test_type": "stdio",
    "tests": [
        {"input": f"{a} {b}\n", "output": f"{a + b}\n"}
        for a, b in [(1, 2), (3, 4), (10, 20), (7, -7)]
    ],
}
GOOD = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"


def _wrong_output_cases() -> list[tuple[str, str]]:
    """The comparator's own wrong-output cases (tests/filters/test_compare.py), else a local copy."""
    try:
        from tests.filters.test_compare import (
            test_wrong_outputs_of_the_right_shape_are_rejected as t,
        )

        return [tuple(c) for c in t.pytestmark[0].args[1]]
    except (ImportError, AttributeError, IndexError):
        return [
            ("YES\n", "NO\n"),
            ("yes", "YES"),
            ("3\n", "4\n"),
            ("1 2 3\n", "1 2\n"),
            ("1\n2\n", "1\n"),
            ("1 2\n", "1\n2\n"),
            ("0.5\n", "0.6\n"),
            ("2\n", "2.0\n"),
            ("\n", "0\n"),
        ]


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2, time_limit_s=2.0) as box:
        yield box


def test_all_tests_pass_scores_one(sb):
    assert correctness_reward(ADD, GOOD, sandbox=sb) == 1.0
    g = grade(ADD, GOOD, sandbox=sb)
    assert g.accepted and g.tests_passed == g.tests_total == 4 and g.attempts == 1


def test_wrong_outputs_of_the_right_shape_score_zero(sb):
    cases = _wrong_output_cases()
    assert len(cases) >= 9
    items = []
    for expected, actual in cases:
        problem = {"test_type": "stdio", "tests": [{"input": "", "output": expected}]}
        items.append((problem, f"```python\nimport sys\nsys.stdout.write({actual!r})\n```"))
        # the right output of the same problem is accepted, so the zeros are about the output alone
        items.append((problem, f"```python\nimport sys\nsys.stdout.write({expected!r})\n```"))
    grades = grade_many(items, sandbox=sb)
    for (expected, actual), wrong, right in zip(cases, grades[::2], grades[1::2]):
        assert wrong.score == 0.0 and wrong.verdict == "WA", (expected, actual)
        assert right.score == 1.0, expected


def test_partial_credit_and_stop_on_failure(sb):
    half = "```python\na, b = map(int, input().split())\nprint(a + b if a < 5 else 0)\n```"
    assert correctness_reward(ADD, half, sandbox=sb) == 0.0
    assert correctness_reward(ADD, half, sandbox=sb, partial=True) == pytest.approx(3 / 4)


def test_format_penalty_when_no_code(sb):
    assert correctness_reward(ADD, "I think the answer is 3.", sandbox=sb) == 0.0
    g = grade(ADD, "I think the answer is 3.", sandbox=sb, format_penalty=0.2)
    assert g.score == -0.2 and not g.has_code and g.verdict is None
    # code that does not compile is not a format problem: plain 0
    assert grade(ADD, "```python\ndef f(:\n```", sandbox=sb, format_penalty=0.2).verdict == "CE"


def test_limits_and_crashes_score_zero(sb):
    loop = grade(ADD, "```python\nwhile True:\n    pass\n```", sandbox=sb, time_limit_s=0.3)
    assert loop.verdict == "TLE" and loop.score == 0.0
    crash = grade(ADD, "```python\nraise ValueError('x')\n```", sandbox=sb)
    assert crash.verdict == "RE" and crash.score == 0.0


def test_max_tests_takes_the_longest_inputs(sb):
    problem = {
        "test_type": "stdio",
        "tests": [
            {"input": "1\n", "output": "1\n"},
            {"input": "1 2 3 4 5\n", "output": "5\n"},
            {"input": "1 2\n", "output": "2\n"},
        ],
    }
    assert [t["input"] for t in select_tests(problem, 2)] == ["1 2 3 4 5\n", "1 2\n"]
    assert select_tests(problem, None) is None
    fails_long = "```python\nx = input().split()\nprint(len(x) if len(x) < 5 else -1)\n```"
    fails_short = "```python\nx = input().split()\nprint(len(x) if len(x) > 1 else -1)\n```"
    assert grade(problem, fails_long, sandbox=sb, max_tests=1).score == 0.0
    g = grade(problem, fails_short, sandbox=sb, max_tests=1)
    assert g.score == 1.0 and g.tests_total == 1
    assert grade(problem, fails_short, sandbox=sb).score == 0.0


def test_call_and_assert_problems_and_ground_truth_strings(sb):
    call = {
        "problem_id": "lc/1",
        "test_type": "call",
        "entry_point": "Solution().add",
        "tests": [{"input": "[1, 2]", "output": "3"}, {"input": "[5, 5]", "output": "10"}],
    }
    code = "```python\nclass Solution:\n    def add(self, a, b):\n        return a + b\n```"
    assert correctness_reward(call, code, sandbox=sb) == 1.0
    assert correctness_reward(to_ground_truth(call), code, sandbox=sb) == 1.0
    wrong = code.replace("a + b", "str(a + b)")  # "3" is not 3: strict JSON types
    assert correctness_reward(call, wrong, sandbox=sb) == 0.0
    asserts = {
        "test_type": "assert",
        "entry_point": "inc",
        "tests": [],
        "test_code": "def check(candidate):\n    assert candidate(1) == 2\n    assert candidate(-1) == 0\n",
    }
    assert correctness_reward(asserts, "def inc(x):\n    return x + 1\n", sandbox=sb) == 1.0
    assert (
        correctness_reward(asserts, "def inc(x):\n    return 2\n", sandbox=sb, partial=True) == 0.5
    )


def test_identical_completions_run_once_and_keep_order(sb):
    bad = "```python\nprint(0)\n```"
    grades = grade_many(
        [(ADD, GOOD), (ADD, bad), (ADD, GOOD), (ADD, "no code"), (ADD, GOOD)], sandbox=sb
    )
    assert [g.score for g in grades] == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert grades[0] is not grades[2]


def test_system_error_is_raised_or_reported_never_zero(sb):
    # A test suite that does not parse is the harness's fault (SE), whatever the program does.
    broken = {
        "test_type": "assert",
        "entry_point": "f",
        "tests": [],
        "test_code": "def check(c):\n    assert (\n",
    }
    with pytest.raises(RewardSystemError, match="sandbox error"):
        correctness_reward(broken, "def f():\n    return 1\n", sandbox=sb)
    g = grade(broken, "def f():\n    return 1\n", sandbox=sb, on_system_error="none")
    assert (
        g.score is None and g.system_error and g.attempts >= 2 and g.info()["system_error"] == 1.0
    )
    with pytest.raises(ValueError):
        CorrectnessConfig(on_system_error="zero")


def test_dead_workers_are_retried_not_scored(sb):
    for w in list(sb._all):
        w.proc.kill()
        w.proc.wait()
    grades = grade_many([(ADD, GOOD)] * 3 + [(ADD, GOOD.replace("a + b", "a - b"))], sandbox=sb)
    assert [g.score for g in grades] == [1.0, 1.0, 1.0, 0.0]


def test_reward_sandbox_workers_survive_their_starting_threads():
    """`Sandbox` starts workers from short-lived threads, and their parent-death signal kills them."""
    with Sandbox(workers=2) as box:
        import time

        time.sleep(0.2)
        assert all(w.alive() for w in box._all)
        assert [r.attempts for r in box.run_many([(ADD, GOOD[10:-3])] * 4)] == [1, 1, 1, 1]
