"""C++ programs in the sandbox: judged like Python ones on stdio problems, through every path
(run, run_many, outputs, a checker's run between two tests), compiled once per program."""

from __future__ import annotations

import shutil

import pytest

from filters.sandbox import Sandbox

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")

ADD = '#include <cstdio>\nint main() { long long a, b; scanf("%lld %lld", &a, &b); printf("%lld\\n", a + b); }\n'
ADD_PY = "a, b = map(int, input().split())\nprint(a + b)\n"
PROBLEM = {
    "test_type": "stdio",
    "tests": [
        {"input": f"{a} {b}\n", "output": f"{a + b}\n"} for a, b in [(1, 2), (-5, 3), (10**12, 1)]
    ],
}


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=1) as box:  # one worker: every program follows the last on it
        yield box


def test_run_many_outputs_and_the_next_python_program(sb):
    wrong = ADD.replace("a + b", "a * b")
    jobs = [
        (PROBLEM, ADD, {"language": "cpp"}),
        (PROBLEM, wrong, {"language": "c++"}),
        (PROBLEM, ADD_PY),
    ]
    got = [(r.verdict, r.language, r.tests_passed) for r in sb.run_many(jobs)]
    assert got == [("AC", "cpp", 3), ("WA", "cpp", 0), ("AC", "python", 3)]
    outs = sb.outputs(PROBLEM, ADD, ["2 2\n", "7 -7\n"], language="cpp")
    assert [(o.status, o.text) for o in outs] == [("OK", "4\n"), ("OK", "0\n")]
    assert [
        o.status for o in sb.outputs(PROBLEM, "int main() { nope }", ["1 1\n"], language="cpp")
    ] == ["CE"]


def test_a_checker_runs_between_the_tests_of_a_compiled_program(sb):
    """The checker's run (Python, a fresh child) must leave the program's binary for its next
    test: each of the three tests is judged by the checker."""
    checker = "def check(input, expected, actual):\n    return int(actual) == sum(map(int, input.split()))\n"
    r = sb.run(dict(PROBLEM, checker=checker), ADD, language="cpp")
    assert r.verdict == "AC" and r.tests_passed == 3, r.first_failure


def test_a_compile_error_says_where(sb):
    r = sb.run(PROBLEM, "#include <cstdio>\nint main() {\n  return missing;\n}\n", language="cpp")
    assert r.verdict == "CE" and r.tests_passed == 0 and r.tests_total == 3
    assert "<stdin>:3" in r.first_failure["stderr"] and "missing" in r.first_failure["stderr"]
    assert r.compile_ms > 0 and r.cpu_ms == 0


def test_cpp_on_call_problems_and_unknown_languages_are_refused(sb):
    call = {"test_type": "call", "entry_point": "f", "tests": [{"input": "[1]", "output": "1"}]}
    with pytest.raises(ValueError, match="stdio"):
        sb.run(call, ADD, language="cpp")
    with pytest.raises(ValueError, match="judges python and cpp"):
        sb.run(PROBLEM, "class Main {}", language="java")


def test_a_compiled_binary_reaches_a_fresh_worker_of_a_sibling_sandbox(sb):
    """A sibling sandbox (another hash seed: amplify's rerun of a labelling reference) shares the
    compiled binaries, and its workers are fresh: their I/O directories hold a binary (3 MB of
    initialised data here) before a run sizes them. They held 2 MB: ENOSPC, a sandbox error on
    every test of amplify's rerun."""
    big = ADD.replace("int main() {", "volatile char pad[3 << 20] = {1};\nint main() { pad[7] = 2;")
    assert sb.run(PROBLEM, big, language="cpp").verdict == "AC"  # compiled: in the cache
    with sb.with_hash_seed(sb.hash_seed + 1) as sibling:
        r = sibling.run(PROBLEM, big, language="cpp")
        assert (r.verdict, r.error) == ("AC", None)
        assert r.compile_ms == 0  # the binary from the shared cache, not compiled again
        outs = sibling.outputs(PROBLEM, big, ["2 2\n"], language="cpp")
        assert [(o.status, o.text) for o in outs] == [("OK", "4\n")]
