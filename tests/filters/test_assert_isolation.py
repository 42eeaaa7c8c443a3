"""Assert suites judged outside the program: conversion to typed call tests, and hostile completions.

An assert suite runs in the program's own process, where a hostile completion can fake a pass.
The reward converts suites to `call` tests (the value comes back as plain typed data and the
assertion is evaluated in the parent); these tests check that the conversion is faithful on real
data (canonical solutions keep their reward) and that each known attack then scores 0.
"""

from __future__ import annotations

import gzip
import json
import math
import textwrap
from pathlib import Path

import pytest

from curation.sources.local import convert_humaneval, convert_mbpp
from filters.reward.correctness import CorrectnessConfig, grade, grade_many
from filters.sandbox import Sandbox
from filters.sandbox.assert_calls import convert_problem, convert_suite, evaluate_assertion
from filters.sandbox.valuecodec import Unencodable, dumps, loads

HUMANEVAL = Path(__file__).resolve().parents[2] / "filters" / "data" / "HumanEval.jsonl.gz"


def _rows(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2, time_limit_s=2.0) as box:
        yield box


@pytest.fixture(scope="module")
def humaneval() -> list[dict]:
    return [convert_humaneval(r, i) for i, r in enumerate(_rows(HUMANEVAL))]


def _problem(test_code: str, entry: str = "f") -> dict:
    return {
        "test_type": "assert",
        "tests": [],
        "entry_point": entry,
        "test_code": textwrap.dedent(test_code),
    }


# ---- the converter ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "test_code, n",
    [
        ("assert f(1, 2) == 3\nassert 3 == f(2, 1)\n", 2),
        ("assert f([1, 2], k=-1)\nassert not f([])\nassert f(0) is None\n", 3),
        (
            "import math\nassert abs(f(0.1) - 0.3) < 1e-9\nassert math.isclose(f(2), 2.5, rel_tol=1e-3)\n",
            2,
        ),
        ("assert set(f((1, 2))) == set([2, 1])\nassert sorted(f('ba')) == ['a', 'b']\n", 2),
        ("assert f(2 ** 10, [0] * 3, float('inf')) in (1, 2)\nassert round(f(1), 2) == 0.33\n", 2),
        ("assert f(1)[0] == 'a'\nassert len(f('x')) == 3\nassert 0 < f(5) <= 10\n", 3),
        ("X = (1, 2)\nassert f(X) == X\nassert f(X)\n", 2),  # an immutable constant may be shared
        (
            'METADATA = {"a": 1}\n\ndef check(candidate):\n    """doc"""\n    assert candidate(1) == 2, "m"\n'
            '    assert True, "always"\n\ncheck(f)\n',
            1,
        ),
    ],
)
def test_sound_shapes_convert(test_code, n):
    c = convert_suite(test_code, "f")
    assert c.ok, c.reason
    assert len(c.tests) == n


@pytest.mark.parametrize(
    "test_code, why",
    [
        ("x = 3\nimport os\nassert f(1) == 1\n", "import of os"),
        ("from helper import thing\nassert f(1) == 1\n", "import of helper"),
        ("for i in range(3):\n    assert f(i) == i\n", "For statement"),
        ("assert f(g(1)) == 1\n", "call of g"),
        ("assert f(1) == f(2)\n", "more than one call"),
        ("assert f(1) is 5\n", "`is`"),
        ("assert sorted(f(1), key=len) == []\n", "keyword argument"),
        ("assert f(1).lower() == 'a'\n", "call of __cm_result.lower"),
        ("assert f(1) == y\n", "name 'y'"),
        ("assert f(1) | {2} == {2}\n", "BitOr"),
        ("assert False\nassert f(1) == 1\n", "always fails"),
        ("def helper():\n    return 1\nassert f(1) == helper()\n", "FunctionDef"),
        ("class Node:\n    pass\nassert f(1) == 1\n", "ClassDef"),
        ("len = 3\nassert f(1) == len\n", "assignment to len"),
        ("assert True\n", "no assertion calls"),
        # A named list is one object in the program's process: a mutation by the function would be
        # seen by the later uses, but each converted test gets its own copy.
        ("X = [3, 1]\nassert f(X) == [1, 3]\nassert f(X) == [1, 3]\n", "mutable constant 'X'"),
        ("X = [3, 1]\nassert f(X) is None\nassert X == [3, 1]\n", "mutable constant 'X'"),
        ("def check(c):\n    X = {1: 2}\n    assert c(X) == X\n", "mutable constant 'X'"),
        ("X = 1\nX = 2\nassert f(X)\n", "X assigned twice"),
    ],
)
def test_unsound_suites_do_not_convert(test_code, why):
    c = convert_suite(test_code, "f")
    assert not c.ok
    assert why in c.reason


def test_not_convertible_without_entry_point_or_test_code():
    assert convert_suite("assert f(1) == 1", None).reason == "no entry point"
    assert convert_suite("", "f").reason == "no test code"
    assert "does not parse" in convert_suite("assert (", "f").reason
    assert convert_problem({"test_type": "stdio", "tests": []}) == (None, "not an assert problem")


def test_assertions_keep_python_semantics():
    def holds(code: str, value) -> bool:
        return evaluate_assertion(convert_suite(code, "f").tests[0], value)

    assert holds("assert f(1) == (1, 2)", (1, 2)) and not holds("assert f(1) == (1, 2)", [1, 2])
    assert not holds("assert f(1) == [1, 2]", (1, 2))  # JSON comparison would accept this
    assert holds("assert f(1) == 1", True) and holds("assert f(1) == 1.0", 1)  # as Python says
    assert not holds("assert f(1) is True", 1) and holds("assert f(1) is None", None)
    assert holds("assert f(1) == {1: 'a'}", {1: "a"}) and not holds(
        "assert f(1) == {1: 'a'}", {"1": "a"}
    )
    assert holds("assert f(1) == {3, 4}", {4, 3}) and not holds(
        "assert f(1) == 0.3", 0.30000000000000004
    )
    assert holds("assert abs(f(1) - 0.3) < 1e-9", 0.1 + 0.2)
    assert holds("import math\nassert math.isclose(f(1), 2.0, abs_tol=0.01)", 2.005)
    assert holds("assert set(f(1)) == {1, 2}", [2, 1, 2]) and holds(
        "assert sorted(f(1)) == [1, 2]", (2, 1)
    )
    assert holds("assert not f(1)", []) and not holds("assert f(1)", "")
    with pytest.raises(TypeError):
        holds("assert sorted(f(1)) == [1]", [1, "a"])  # raises, as it would in the program


def test_values_cross_as_exact_plain_data():
    class Int(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

        def __repr__(self):
            return "999"

    class Lst(list):
        def __iter__(self):
            return iter([1, 2, 3])

    class Dct(dict):
        def items(self):
            return [("k", "v")]

    for hostile, plain in [(Int(4), 4), (Lst([7]), [7]), (Dct(a=1), {"a": 1})]:
        back = loads(dumps(hostile))
        assert back == plain and type(back) is type(plain)
    for value in [
        (1, [2, {3: frozenset({4})}]),
        {(1, 2): b"x"},
        2**300,
        math.inf,
        -0.0,
        1 + 2j,
        "é",
    ]:
        assert loads(dumps(value)) == value and type(loads(dumps(value))) is type(value)
    assert math.isnan(loads(dumps(math.nan)))
    cyclic: list = []
    cyclic.append(cyclic)
    for bad in [iter([1]), object(), cyclic, {1: map(str, [])}]:
        with pytest.raises(Unencodable):
            dumps(bad)
    for text in ['{"q": 1}', '{"s": [[1]]}', "[" * 100_000, "NaN", '{"t": 1, "s": []}', '"x']:
        with pytest.raises(ValueError):
            loads(text)


# ---- faithful in the sandbox ------------------------------------------------------------------------
TYPED = _problem(
    """\
    assert f('tuple') == (1, 2)
    assert f('set') == {1, 2}
    assert f('intkeys') == {1: 'a', (2, 3): [4]}
    assert f('bool') == 1
    assert f('float') == 0.5
    assert f('none') is None
    """
)
TYPED_GOOD = """
def f(kind):
    return {"tuple": (1, 2), "set": {2, 1}, "intkeys": {1: "a", (2, 3): [4]}, "bool": True,
            "float": 0.5, "none": None}[kind]
"""


def test_converted_tests_judge_like_the_in_process_run(sb):
    conv, why = convert_problem(TYPED)
    assert why is None and conv["test_type"] == "call" and len(conv["tests"]) == 6
    for policy in ("convert", "in-process"):
        g = grade(TYPED, TYPED_GOOD, sandbox=sb, assert_policy=policy)
        assert (g.score, g.tests_passed) == (1.0, 6), (policy, g.result.first_failure)
    # Look-alikes that a JSON comparison would accept fail here, as they fail in the program.
    lookalike = (
        TYPED_GOOD.replace("(1, 2)", "[1, 2]")
        .replace('1: "a"', '"1": "a"')
        .replace("0.5", "0.5000001")
    )
    for policy in ("convert", "in-process"):
        g = grade(TYPED, lookalike, sandbox=sb, assert_policy=policy, partial=True)
        assert g.tests_passed == 3, (policy, g.result.tests)


def test_numpy_scalars_and_builtin_subclasses_compare_as_their_values(sb):
    problem = _problem("assert f(1) == 3\nassert f(2) == (1, 2)\nassert f(3) == {'a': 1}\n")
    code = """
import collections
import numpy as np
def f(k):
    if k == 1:
        return np.int64(3)
    if k == 2:
        return collections.namedtuple("P", "x y")(1, 2)
    return collections.Counter(a=1)
"""
    g = grade(problem, code, sandbox=sb)
    assert (g.score, g.isolation) == (1.0, "converted"), g.result.first_failure
    array = grade(problem, "import numpy as np\ndef f(k):\n    return np.array([3])\n", sandbox=sb)
    assert array.score == 0.0 and "not plain data" in array.result.first_failure["reason"]


def test_humaneval_converts_and_canonical_solutions_keep_their_reward(sb, humaneval):
    converted = [(r, convert_problem(r)[0]) for r in humaneval]
    ok = [(r, p) for r, p in converted if p is not None]
    assert len(humaneval) == 164 and len(ok) >= 150  # 156 of 164 when written
    grades = grade_many(
        [(r, "```python\n" + r["solutions"][0] + "\n```") for r, _ in ok], sandbox=sb
    )
    failed = [r["id"] for (r, _), g in zip(ok, grades) if g.score != 1.0]
    assert failed == []
    assert {g.isolation for g in grades} == {"converted"}
    not_ok = [r for r, p in converted if p is None]
    assert all(
        grade(r, "def x():\n    pass\n", sandbox=sb).isolation == "in-process" for r in not_ok[:2]
    )


def test_mutants_get_the_same_verdict_converted_and_in_process(humaneval):
    # Wrong programs must keep failing and right ones keep passing: mutants of the reference
    # solutions (578 of all 156 convertible HumanEval problems and 1824 of MBPP agreed when
    # written; a sample here).
    from filters.stages.verify.mutants import generate_mutants

    jobs = []
    for r in humaneval[:80]:
        conv, _ = convert_problem(r)
        if conv is not None:
            jobs += [(r, conv, m) for m in generate_mutants(r["solutions"][0], n=2, seed=1)]
    with Sandbox(workers=2, time_limit_s=0.5) as box:
        inproc = box.run_many([(r, m) for r, _, m in jobs])
        converted = box.run_many([(c, m) for _, c, m in jobs])
    assert len(jobs) >= 120
    assert [a.verdict == "AC" for a in inproc] == [b.verdict == "AC" for b in converted]
    assert 0 < sum(a.verdict == "AC" for a in inproc) < len(jobs)


def test_mbpp_converts_and_canonical_solutions_keep_their_reward(sb, shared_data):
    rows = _rows(shared_data / "mbpp.jsonl.gz")
    recs = [convert_mbpp(r, i) for i, r in enumerate(rows)]
    ok = [r for r in recs if convert_problem(r)[0] is not None]
    assert len(recs) == 974 and len(ok) >= 960  # 969 of 974 when written
    # MBPP 123 (amicable numbers below 9999) needs about 2 s of CPU time on a slow machine.
    grades = grade_many([(r, r["solutions"][0]) for r in ok], sandbox=sb, time_limit_s=10.0)
    failed = [r["id"] for r, g in zip(ok, grades) if g.score != 1.0]
    assert failed == [], [g for g in grades if g.score != 1.0]  # once, in CI: ['662'] (unexplained)


# ---- attacks -----------------------------------------------------------------------------------------
HE_FORM = _problem(
    """\
    def check(candidate):
        assert candidate(1, 2) == 3
        assert candidate(2, 2) == 4, "sum"
        assert True, "always"
    """,
    "add",
)
WRAPPED = _problem(
    """\
    import math
    assert abs(add(0.1, 0.2) - 0.3) < 1e-9
    assert math.isclose(add(1.5, 1.0), 2.5)
    assert sorted(add([3], [1, 2])) == [1, 2, 3]
    assert set(add((1,), (2,))) == {1, 2}
    assert len(add("ab", "c")) == 3
    """,
    "add",
)
ATTACKS = {
    "always_equal": """
        class Anything:
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
            __hash__ = object.__hash__
        def add(a, b):
            return Anything()
    """,
    "int_subclass": """
        class Int(int):
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
            __hash__ = int.__hash__
        def add(a, b):
            return Int(7)
    """,
    "list_subclass": """
        class Lst(list):
            def __eq__(self, other):
                return True
            def __iter__(self):
                return iter([3])
        def add(a, b):
            return Lst([9])
    """,
    "fake_recorder": """
        import sys
        def add(a, b):
            g = sys._getframe(1).f_globals
            rec = g.get("__cm_record")
            if rec is not None and not getattr(rec, "fake", False):
                def fake(i, outcome, _real=rec):
                    _real(i, True)
                fake.fake = True
                g["__cm_record"] = fake
            return None
    """,
    "fake_result_record": """
        import json, os
        def add(a, b):
            rec = {"asserts": {str(i): "AC" for i in range(64)}, "done": True, "result": "0"}
            os.write(3, json.dumps(rec).encode())
            os._exit(0)
    """,
    "replace_check_via_trace": """
        import sys
        def _tracer(frame, event, arg):
            if frame.f_code.co_filename == "test.py" and event == "return":
                frame.f_globals["check"] = lambda candidate: None
            return _tracer
        sys.settrace(_tracer)
        def add(a, b):
            return None
    """,
    "define_check": """
        def check(candidate):
            pass
        def add(a, b):
            return None
    """,
    "exit_early": """
        import sys
        def add(a, b):
            sys.exit(0)
    """,
}
#: Attacks that fake a pass of HE_FORM when its asserts run in the program's process.
WIN_IN_PROCESS = {
    "always_equal",
    "int_subclass",
    "list_subclass",
    "fake_recorder",
    "fake_result_record",
}
# "replace_check_via_trace" also won in-process until the runner stopped counting an assertion that
# never reported as passed; "define_check" and "exit_early" never did.
PATCH_BUILTINS = """
    import builtins, math
    class Anything:
        def __eq__(self, other):
            return True
        __hash__ = object.__hash__
    builtins.abs = lambda x: 0
    builtins.sorted = lambda x, **k: [1, 2, 3]
    builtins.set = lambda *a: Anything()
    builtins.len = lambda x: 3
    math.isclose = lambda *a, **k: True
    def add(a, b):
        return 0
"""


def _both(sb, problem: dict, code: str) -> tuple:
    return (
        grade(problem, textwrap.dedent(code), sandbox=sb),
        grade(problem, textwrap.dedent(code), sandbox=sb, assert_policy="in-process"),
    )


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_scores_zero_when_converted_and_is_flagged_in_process(sb, name):
    safe, inproc = _both(sb, HE_FORM, ATTACKS[name])
    assert safe.score == 0.0 and safe.isolation == "converted", safe.result.first_failure
    assert safe.info()["in_process"] == 0.0
    assert inproc.isolation == "in-process" and inproc.info()["in_process"] == 1.0
    # The attack is real: it fakes a pass when the asserts share its process.
    assert inproc.score == (1.0 if name in WIN_IN_PROCESS else 0.0)


def test_patching_builtins_scores_zero_when_converted(sb):
    safe, inproc = _both(sb, WRAPPED, PATCH_BUILTINS)
    assert (safe.score, safe.isolation) == (0.0, "converted")
    assert (inproc.score, inproc.isolation) == (1.0, "in-process")
    good = grade(WRAPPED, "def add(a, b):\n    return a + b\n", sandbox=sb)
    assert (good.score, good.tests_total) == (1.0, 5)


def test_attacks_on_a_real_humaneval_problem(sb, humaneval):
    problem = next(r for r in humaneval if r["id"] == "HumanEval/0")
    for name in ("always_equal", "fake_recorder", "fake_result_record"):
        code = textwrap.dedent(ATTACKS[name]).replace(
            "def add(a, b)", "def has_close_elements(a, b)"
        )
        safe, inproc = _both(sb, problem, code)
        assert (safe.score, safe.isolation) == (0.0, "converted"), name
        assert (inproc.score, inproc.isolation) == (1.0, "in-process"), name


@pytest.mark.parametrize(
    "payload",
    [
        b"not json",
        b"[" * 200_000,
        b"[1, 2]",
        b'{"result": 3}',
        b'{"result": "{\\"q\\": 1}"}',
        b'{"result": "' + b"[" * 5000 + b'"}',
        b'{"result": "' + b"9" * 6000 + b'"}',
    ],
)
def test_forged_result_records_are_wrong_answers_not_faults(sb, payload):
    code = f"import os\ndef add(a, b):\n    os.write(3, {payload!r})\n    os._exit(0)\n"
    g = grade(HE_FORM, code, sandbox=sb)
    assert g.score == 0.0 and g.verdict in ("WA", "RE"), (g.verdict, g.error)


# ---- policies ------------------------------------------------------------------------------------
LOOP = _problem("for x in [1, 2]:\n    assert f(x) == x\n")


def test_a_suite_that_does_not_convert_is_flagged_or_refused(sb):
    good = "def f(x):\n    return x\n"
    g = grade(LOOP, good, sandbox=sb)
    assert (g.score, g.isolation, g.info()["in_process"]) == (1.0, "in-process", 1.0)
    assert "For statement" in g.isolation_reason
    r = grade(LOOP, good, sandbox=sb, assert_policy="refuse")
    assert (r.score, r.isolation, r.verdict, r.has_code) == (0.0, "refused", None, True)
    assert "refused" in r.error and "For statement" in r.error
    none = grade(LOOP, "no code here", sandbox=sb, assert_policy="refuse")
    assert (none.score, none.has_code) == (0.0, False)
    stdio = {"test_type": "stdio", "tests": [{"input": "", "output": "1\n"}]}
    assert grade(stdio, "print(1)", sandbox=sb, assert_policy="refuse").isolation == "separate"
    with pytest.raises(ValueError, match="assert_policy"):
        CorrectnessConfig(assert_policy="maybe")


@pytest.mark.parametrize(
    "record",
    [
        {"asserts": [1, 2], "done": True},
        {"asserts": {"x": "AC", "0": ["AC"], "1": "SE"}, "done": True},
        {"asserts": {str(10**30): "AC"}, "done": True},
    ],
)
def test_forged_assert_records_in_process_never_crash_the_judge(sb, record):
    code = f"import os, json\nos.write(3, json.dumps({record!r}).encode())\nos._exit(0)\n"
    g = grade(HE_FORM, code, sandbox=sb, assert_policy="in-process")
    assert g.isolation == "in-process" and g.verdict in ("AC", "WA", "RE") and g.score is not None


def test_a_mass_of_equal_hashes_cannot_stall_the_judge(sb):
    # Different ints with one hash make building a set quadratic: 50,000 of them would hold the
    # parent for about 15 s (200,000 for minutes). The judge refuses them at once; equal values
    # are fine.
    problem = _problem("assert set(f(1)) == {1}\n")
    as_list = "def f(k):\n    return [(2**61 - 1) * (i + 1) for i in range(50_000)]\n"
    forged_set = (
        "import json, os\ndef f(k):\n    items = [(2**61 - 1) * (i + 1) for i in range(50_000)]\n"
        "    os.write(3, json.dumps({'result': json.dumps({'s': items})}).encode())\n    os._exit(0)\n"
    )
    for code in (as_list, forged_set):
        g = grade(problem, code, sandbox=sb)
        assert g.score == 0.0
        assert "hash" in g.result.first_failure["reason"]
    fine = grade(problem, "def f(k):\n    return [1] * 100_000\n", sandbox=sb)
    assert fine.score == 1.0


def test_verl_reward_kwargs_pass_the_assert_policy():
    from filters.judging.ground_truth import to_ground_truth
    from filters.reward.trainer_rewards import compute_score

    gt = to_ground_truth(LOOP)
    code = "```python\ndef f(x):\n    return x\n```"
    assert compute_score("local", code, gt)["in_process"] == 1.0
    refused = compute_score("local", code, gt, assert_policy="refuse")
    assert refused["score"] == 0.0
