"""AST mutants: each is one small change of a correct program, distinct, deterministic, valid Python."""

from __future__ import annotations

import ast

from filters.stages.verify.mutants import generate_mutants, mutation_sites

CODE = '''
def count_below(xs, k):
    """How many items are below k."""
    n = 0
    for x in xs:
        if x < k and x >= 0:
            n += 1
        elif x == -1:
            break
    return n
'''


def test_mutants_are_distinct_single_changes():
    muts = generate_mutants(CODE, n=50)
    original = ast.unparse(ast.parse(CODE))
    assert len(muts) >= 10
    assert len(set(muts)) == len(muts) and original not in muts
    for m in muts:
        ast.parse(m)
    text = "\n".join(muts)
    assert "x <= k" in text  # flipped comparison
    assert "n -= 1" in text  # swapped operator
    assert "n += 2" in text or "n += 0" in text  # off-by-one constant
    assert " or " in text  # and -> or
    assert "continue" in text  # break -> continue
    assert any("return n" not in m for m in muts)  # a dropped statement


def test_deterministic_and_bounded():
    assert generate_mutants(CODE, n=5, seed=1) == generate_mutants(CODE, n=5, seed=1)
    assert len(generate_mutants(CODE, n=5)) == 5
    assert generate_mutants("def f(:", n=5) == []
    assert mutation_sites("x = 1")  # constant 1 -> 0 / 2


def test_mutants_are_caught_by_good_tests():
    from filters.sandbox import Sandbox

    problem = {
        "test_type": "assert",
        "entry_point": "count_below",
        "test_code": "\n".join(
            [
                "assert count_below([1, 2, 3], 3) == 2",
                "assert count_below([0, 5, -2], 1) == 1",
                "assert count_below([3, -1, 0], 10) == 1",
                "assert count_below([], 4) == 0",
                "assert count_below([2, 2], 2) == 0",
            ]
        ),
    }
    muts = generate_mutants(CODE, n=12)
    with Sandbox(workers=2, time_limit_s=1) as sb:
        assert sb.run(problem, CODE).verdict == "AC"
        verdicts = [
            r.verdict for r in sb.run_many([(problem, m) for m in muts], stop_on_failure=True)
        ]
    assert sum(v != "AC" for v in verdicts) >= len(muts) * 0.6


LEETCODE_LIKE = """
class ListNode:
    def __init__(self, val=0, next=None):
        self.val = val
        self.next = next


def is_same_list(a, b):
    while a and b:
        if a.val != b.val:
            return False
        a, b = a.next, b.next
    return a is None and b is None


def helper(x):
    return x * 2 + 1


class Solution:
    def twice(self, nums):
        return [helper(x) - 1 for x in nums if x > 0]
"""


def test_focus_mutates_only_what_the_entry_point_reaches():
    """LeetCodeDataset's references carry helpers they never call; a mutant there is one no test
    can kill, so a strong suite would look weak."""
    everywhere = generate_mutants(LEETCODE_LIKE, n=200)
    focused = generate_mutants(LEETCODE_LIKE, n=200, focus="Solution().twice")
    assert any("a.val == b.val" in m for m in everywhere)  # dead code mutated without a focus
    original = ast.unparse(ast.parse(LEETCODE_LIKE))
    dead = original.split("def helper")[0]
    assert focused and all(m.startswith(dead) for m in focused)  # ListNode, is_same_list untouched
    assert any(
        "x * 2 - 1" in m or "x * 3 + 1" in m or "x + 2 + 1" in m for m in focused
    )  # helper reached
    assert generate_mutants(LEETCODE_LIKE, n=200, focus="missing") == everywhere  # unknown: all


CONTEST_LIKE = """
import sys


def unused_template(a, b):
    return (a * b) // 2 + 1


def solve(n):
    return n * (n + 1) // 2


n = int(sys.stdin.readline())
print(solve(n))
"""


def test_a_program_mutates_what_its_statements_reach():
    """A contest solution's unused template functions never run: no mutant there."""
    muts = generate_mutants(CONTEST_LIKE, n=200)
    original = ast.unparse(ast.parse(CONTEST_LIKE))
    template = original.split("def solve")[0]
    assert muts and all(m.startswith(template) for m in muts)
    assert any("n - 1" in m for m in muts) and any("print(solve(n))" not in m for m in muts)
