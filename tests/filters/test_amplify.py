"""Test amplification: new inputs by mutation, labelled by the references, kept only when sound,
chosen by the mutants they kill; verify and the rewards judge the amplified suite alike."""

from __future__ import annotations

import json
import random

import pytest

from curation.record_files import records_to_table
from curation.schema import normalize_record
from filters.judging.ground_truth import from_ground_truth, to_ground_truth
from filters.judging.judged import count_tests, judged_problem
from filters.reward import grade
from filters.sandbox import Sandbox
from filters.sandbox.assert_calls import convert_problem
from filters.settings import AmplifyConfig, VerifyConfig
from filters.stages.amplify.inputgen import CallInputs, StdioInputs
from filters.stages.amplify.stage import AmplifyStage, expected_check
from filters.stages.verify.stage import VerifyStage


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2) as box:
        yield box


def rec(id_: str, **kw) -> dict:
    base = {
        "id": id_,
        "source": "t",
        "statement": "a toy problem",
        "test_type": "call",
        "solutions": [],
    }
    base.update(kw)
    out = normalize_record(base)
    out["problem_id"] = f"t/{id_}"
    return out


SECOND = "def second_largest(nums):\n    return sorted(set(nums))[-2]\n"
SECOND_SUITE = (
    "assert second_largest([1, 5, 3]) == 3\n"
    "assert second_largest([10, 10, 2, 7]) == 7\n"
    "assert second_largest([4, 9]) == 4\n"
)
# Passes the three original asserts (none longer than 4), wrong when a big value comes later.
SECOND_WRONG = "def second_largest(nums):\n    return sorted(set(nums[:4]))[-2]\n"


def mbpp_like(**kw) -> dict:
    return rec("second", test_type="assert", entry_point="second_largest", test_code=SECOND_SUITE,
               solutions=[SECOND], **kw)  # fmt: skip


# ---- the check of a generated call test ------------------------------------------------------------
@pytest.mark.parametrize(
    "check, value, expected",
    [
        ("__cm_result == 3", 5, "__cm_result == __cm_expected"),
        ("sorted(__cm_result) == [1, 2]", [2, 1], "sorted(__cm_result) == sorted(__cm_expected)"),
        ("abs(__cm_result - 0.33) < 1e-06", 0.5, "abs(__cm_result - __cm_expected) < 1e-06"),
        ("math.isclose(__cm_result, 2.0, rel_tol=0.001)", 1.5,
         "math.isclose(__cm_result, __cm_expected, rel_tol=0.001)"),
        ("__cm_result == 0.5", 0.25, "math.isclose(__cm_result, __cm_expected, rel_tol=1e-09, abs_tol=1e-09)"),
        ("__cm_result is True", False, "(__cm_result) is False"),
        ("not __cm_result", True, "__cm_result == __cm_expected"),
        ("__cm_result != 3", 4, None),  # says what is wrong, not what is right
        ("__cm_result in [1, 2]", 1, None),  # several right answers
        ("__cm_result == 1 or __cm_result == 2", 1, None),
        ("__cm_result > 0", 3, None),
    ],
)  # fmt: skip
def test_expected_check_keeps_the_original_comparison(check, value, expected):
    assert expected_check(check, value) == expected


# ---- input mutation ----------------------------------------------------------------------------------
def _typed(args_list: list[list]) -> list[str]:
    from filters.sandbox.valuecodec import encode

    return [json.dumps({"args": [encode(a) for a in args], "kwargs": {}}) for args in args_list]


def test_call_inputs_keep_what_every_original_shares():
    originals = [[[1, 3, 5], 3, "ab"], [[2, 4, 8, 9], 4, "ba"], [[0, 7], 2, "aab"]]
    gen = CallInputs(_typed(originals), typed=True)
    made = 0
    for seed in range(300):
        text = gen.generate(random.Random(seed), seed % 3)
        if text is None:
            continue
        made += 1
        args = gen.decode(text)
        nums, n, s = args[0], args[1], args[2]
        assert type(nums) is list and all(type(x) is int for x in nums)
        assert nums == sorted(nums) and len(set(nums)) == len(nums)  # sorted, distinct
        assert n == len(nums)  # an int that is the list's length stays its length
        assert min(nums, default=0) >= 0  # no negative value where none was seen
        assert type(s) is str and set(s) <= {"a", "b"}  # the strings' alphabet
    assert made > 200


def test_call_inputs_json_form_and_grids():
    grid = [[[1, 2, 3], [4, 5, 6]]], [[[7, 8], [9, 1], [2, 3]]]
    gen = CallInputs([json.dumps(list(g)) for g in grid], typed=False)
    for seed in range(100):
        text = gen.generate(random.Random(seed), seed % 2)
        if text is None:
            continue
        (g,) = json.loads(text)
        assert len({len(row) for row in g}) == 1  # still rectangular


def test_stdio_inputs_keep_the_line_structure_and_the_counts():
    originals = ["3\n5 1 4\n", "4\n2 2 9 1\n", "2\n7 3\n"]
    gen = StdioInputs(originals)
    for seed in range(200):
        parent = seed % 3
        text = gen.generate(random.Random(seed), parent)
        if text is None:
            continue
        lines = text.split("\n")
        orig = originals[parent].split("\n")
        assert len(lines) == len(orig) and text.endswith("\n")
        assert lines[0] == orig[0]  # the header (a count) never changes
        assert len(lines[1].split()) == int(lines[0])


def test_stdio_edges_stay_a_simple_connected_graph_with_a_consistent_header():
    originals = ["4 3\n1 2\n2 3\n3 4\n", "3 2\n1 3\n2 3\n"]
    gen = StdioInputs(originals)
    rewired = 0
    for seed in range(100):
        text = gen.generate(random.Random(seed), 0)
        if text is None:
            continue
        head, *rows = text.strip().split("\n")
        n, m = map(int, head.split())
        edges = [tuple(sorted(map(int, e.split()))) for e in rows]
        assert len(edges) == m and m >= n - 1  # the count follows the rows; still connected
        assert all(1 <= a < b <= n for a, b in edges) and len(set(edges)) == m  # simple
        rewired += sorted(edges) != [(1, 2), (2, 3), (3, 4)]
    assert rewired > 10


# ---- the stage -------------------------------------------------------------------------------------
def test_an_assert_suite_is_amplified_and_verify_then_keeps_it(sb):
    row = mbpp_like()
    baseline = VerifyStage(VerifyConfig(min_tests=5, mutants=4), sandbox=sb).process(records_to_table([row]))
    assert baseline.dropped.to_pylist()[0]["reject_reason"] == "too_few_tests"

    stage = AmplifyStage(AmplifyConfig(target_tests=10), sandbox=sb)
    amplified = stage.process(records_to_table([row]))
    (out,) = amplified.kept.to_pylist()
    gen = out["generated_tests"]
    assert out["amplify_status"] == "amplified" and len(gen) >= 7
    assert all(isinstance(t["seed"], int) and t["parent"] in (0, 1, 2) for t in gen)
    assert all(t["check"] and "__cm_expected" in t["env"] for t in gen)
    assert len({t["input"] for t in gen}) == len(gen)  # no duplicate input
    assert out["mutation_score_amplified"] >= out["mutation_score_original"]
    assert count_tests(out) == 3 + len(gen)

    verified = VerifyStage(VerifyConfig(min_tests=5, mutants=4), sandbox=sb).process(amplified.kept)
    (kept,) = verified.kept.to_pylist()
    assert kept["tests_total"] == 3 + len(gen) and kept["reward_isolation"] == "converted"


def test_generated_tests_catch_a_wrong_program_the_originals_let_through(sb):
    row = mbpp_like()
    assert sb.run(row, SECOND_WRONG).verdict == "AC"  # the three originals cannot tell
    (out,) = (
        AmplifyStage(AmplifyConfig(target_tests=30), sandbox=sb).process(records_to_table([row])).kept.to_pylist()
    )
    judged = judged_problem(out)
    assert judged["typed_calls"] and len(judged["tests"]) == 3 + len(out["generated_tests"])
    assert sb.run(judged, SECOND).verdict == "AC"
    assert sb.run(judged, SECOND_WRONG).verdict == "WA"
    # The reward judges exactly as verify did: from the record and from the exported ground truth.
    gt = to_ground_truth(out)
    assert from_ground_truth(gt)["generated_tests"] == out["generated_tests"]
    for problem in (out, gt):
        assert grade(problem, SECOND_WRONG, sandbox=sb).score == 0.0
        g = grade(problem, SECOND, sandbox=sb)
        assert (
            g.score == 1.0 and g.tests_total == len(judged["tests"]) and g.isolation == "converted"
        )


def test_a_stdio_problem_with_two_references_keeps_only_inputs_they_agree_on(sb):
    # Both print a divisor of n greater than 1; they agree on the originals (primes) only.
    smallest = "n = int(input())\nprint(next(d for d in range(2, n + 1) if n % d == 0))"
    largest = "n = int(input())\nprint(n)"
    tests = [{"input": f"{p}\n", "output": f"{p}\n"} for p in (7, 13, 29)]
    row = rec("divisor", test_type="stdio", tests=tests, solutions=[smallest, largest],
              statement="Print a divisor of n greater than 1.")  # fmt: skip
    (out,) = (
        AmplifyStage(AmplifyConfig(target_tests=8), sandbox=sb).process(records_to_table([row])).kept.to_pylist()
    )
    judged = judged_problem(out)
    for code in (smallest, largest):
        assert sb.run(judged, code).verdict == "AC"
    assert "references disagree" in out["amplify_note"]


def test_a_problem_with_several_answers_and_one_reference_is_left_alone(sb):
    tests = [{"input": f"{p}\n", "output": f"{p}\n"} for p in (7, 13, 29)]
    row = rec("anydiv", test_type="stdio", tests=tests, solutions=["n = int(input())\nprint(n)"],
              statement="Print a divisor of n greater than 1. If there are several, print any of them.")  # fmt: skip
    (out,) = AmplifyStage(sandbox=sb).process(records_to_table([row])).kept.to_pylist()
    assert out["amplify_status"] == "skipped" and "checker" in out["amplify_note"]
    assert out["generated_tests"] == []


@pytest.mark.parametrize(
    "solution, reason",
    [
        # str hashing changes the order of a set between the label run and its rerun
        ("def f(s):\n    return ''.join(set(s))\n", "differs under another hash seed"),
        # crashes on anything but the inputs it was shown
        (
            "def f(s):\n    assert s in ('abcd', 'bcda', 'cdab')\n    return s[::-1]\n",
            "reference RE",
        ),
        # megabytes for any new input
        (
            "def f(s):\n    return s[::-1] if s in ('abcd', 'bcda', 'cdab') else s * 400000\n",
            "output too large",
        ),
    ],
)
def test_bad_references_leave_the_originals_and_say_why(sb, solution, reason):
    inputs = [json.dumps([s]) for s in ("abcd", "bcda", "cdab")]
    outs = sb.outputs(
        {"test_type": "call", "entry_point": "f"}, solution, inputs
    )  # its own answers
    tests = [{"input": x, "output": o.text} for x, o in zip(inputs, outs)]
    row = rec("bad", entry_point="f", tests=tests, solutions=[solution])
    result = AmplifyStage(AmplifyConfig(rounds=2, candidates=12), sandbox=sb).process(records_to_table([row]))
    (out,) = result.kept.to_pylist()  # nothing is lost
    assert out["amplify_status"] == "failed", out["amplify_note"]
    assert out["generated_tests"] == [] and reason in out["amplify_note"]
    assert out["tests"] == row["tests"]


def test_skips_say_why_and_keep_the_row(sb):
    rows = [
        rec("noref", test_type="stdio", tests=[{"input": "1\n", "output": "1\n"}]),
        rec(
            "wrongref",
            test_type="stdio",
            tests=[{"input": "1\n", "output": "1\n"}],
            solutions=["print(2)"],
        ),
        rec(
            "loop",
            test_type="assert",
            entry_point="f",
            solutions=["def f(x):\n    return x\n"],
            test_code="for i in range(3):\n    assert f(i) == i\n",
        ),  # fmt: skip
    ]
    result = AmplifyStage(sandbox=sb).process(records_to_table(rows))
    assert result.dropped.num_rows == 0
    notes = {r["id"]: (r["amplify_status"], r["amplify_note"]) for r in result.kept.to_pylist()}
    assert notes["noref"] == ("skipped", "no reference solution")
    assert notes["wrongref"][0] == "skipped" and "no reference passes" in notes["wrongref"][1]
    assert notes["loop"][0] == "skipped" and "does not convert" in notes["loop"][1]


def test_a_strong_suite_is_left_alone(sb):
    tests = [{"input": f"{a} {b}\n", "output": f"{a + b}\n"} for a, b in
             [(1, 2), (3, 4), (0, 0), (9, -9), (7, 7), (5, 1), (2, 8), (6, 6), (4, 0), (1, 1)]]  # fmt: skip
    row = rec(
        "add",
        test_type="stdio",
        tests=tests,
        solutions=["a, b = map(int, input().split())\nprint(a + b)"],
    )
    (out,) = (
        AmplifyStage(AmplifyConfig(target_tests=10), sandbox=sb).process(records_to_table([row])).kept.to_pylist()
    )
    assert out["amplify_status"] == "not_needed" and out["generated_tests"] == []


def test_judged_problem_refuses_inconsistent_records():
    row = rec("x", test_type="assert", entry_point="f", test_code="for i in range(2):\n    assert f(i) == i\n",
              solutions=["def f(x):\n    return x\n"])  # fmt: skip
    row["generated_tests"] = [{"input": "[1]", "output": "1", "check": "__cm_result == 1", "env": "{}",
                               "seed": 1, "parent": 0}]  # fmt: skip
    with pytest.raises(ValueError, match="does not convert"):
        judged_problem(row)
    assert convert_problem(row)[0] is None


def test_inputs_outside_the_contract_are_dropped(sb):
    """The reference returns None when no value is a multiple of `d`, which the originals never
    ask (a contract the generator cannot infer): such an input is outside the problem's contract,
    where a correct program may do anything."""
    find = "def find(nums, d):\n    for i, x in enumerate(nums):\n        if x % d == 0:\n            return i\n"
    tests = [
        {"input": json.dumps([nums, d]), "output": json.dumps(i)}
        for nums, d, i in [([4, 8, 15], 5, 2), ([16, 23, 42, 7], 7, 2), ([1, 2], 2, 1)]
    ]
    row = rec("find", entry_point="find", tests=tests, solutions=[find])
    (out,) = (
        AmplifyStage(AmplifyConfig(target_tests=10), sandbox=sb).process(records_to_table([row])).kept.to_pylist()
    )
    assert out["generated_tests"], out["amplify_note"]
    assert all(isinstance(json.loads(t["output"]), int) for t in out["generated_tests"])
    assert "a type the originals never return" in out["amplify_note"]


def test_call_inputs_keep_relations_between_arguments():
    # (left, right) with left <= right, edges whose node ids stay below n, versions without '..'
    originals = [[1, 5, 3, [[0, 1], [1, 2]], "1.01"], [3, 3, 4, [[0, 3], [2, 1]], "1.001"],
                 [0, 7, 5, [[4, 0], [3, 2], [1, 2]], "0.1"]]  # fmt: skip
    gen = CallInputs(_typed(originals), typed=True)
    made = 0
    for seed in range(400):
        text = gen.generate(random.Random(seed), seed % 3)
        if text is None:
            continue
        made += 1
        left, right, n, edges, version = (gen.decode(text)[i] for i in range(5))
        assert left <= right
        assert all(0 <= v < n for e in edges for v in e)
        assert ".." not in version
    assert made > 100


def test_a_rotated_sorted_list_stays_rotated():
    originals = [[[4, 5, 6, 7, 0, 1, 2]], [[6, 7, 1, 2, 3, 4]], [[1, 3]]]
    gen = CallInputs(_typed(originals), typed=True)
    for seed in range(300):
        text = gen.generate(random.Random(seed), seed % 3)
        if text is not None:
            nums = gen.decode(text)[0]
            assert sum(a > b for a, b in zip(nums, nums[1:])) <= 1


def test_rows_keep_their_order_their_steps_and_their_flat_reading():
    intervals = [[[[1, 3], [6, 9]]], [[[1, 2], [3, 5], [6, 7], [8, 10]]], [[[2, 4]]]]
    triangle = [[[[2], [3, 4], [6, 5, 7]]], [[[-10]]], [[[1], [2, 3]]]]
    for originals, check in (
        (intervals, lambda v: all(a <= b for a, b in zip(sum(v, []), sum(v, [])[1:]))),
        (triangle, lambda v: [len(r) for r in v] == list(range(1, len(v) + 1))),
    ):
        gen = CallInputs(_typed(originals), typed=True)
        made = 0
        for seed in range(300):
            text = gen.generate(random.Random(seed), seed % 3)
            if text is not None:
                made += 1
                assert check(gen.decode(text)[0]), text
        assert made > 20


def test_the_stage_pickles_without_its_sandboxes(sb):
    import pickle

    stage = AmplifyStage(AmplifyConfig(target_tests=7), sandbox=sb)
    copy = pickle.loads(pickle.dumps(stage))
    assert copy.config() == stage.config() and copy._sandbox is None and copy._own_sandbox
    copy.close()
