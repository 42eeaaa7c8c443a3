"""The small parts of the loaders: code extraction, test normalisation, safe unpickling, checkers."""

from __future__ import annotations

import base64
import json
import pickle
import sys
import zlib
from pathlib import Path

import pytest

from curation.schema import RecordError
from curation.sources.callnorm import (
    call_args,
    call_output,
    entry_point_for,
    lines_to_args,
    taco_tests,
)
from curation.sources.codeforces import wrap_argv_checker
from curation.sources.extract import extract_code
from curation.sources.fields import json_field, number_in, str_list
from curation.sources.local import mbpp_entry_point
from curation.sources.safepickle import UnsafePickleError, decode_lcb_blob, safe_loads

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from make_fixtures import CHECKER  # noqa: E402


def test_extract_code_prefers_python_block_and_rejects_prose():
    text = "Idea first.\n```text\nnot code\n```\n```python\nprint(1)\n```\nbye"
    assert extract_code(text) == "print(1)\n"
    assert extract_code("```\nx = 1\n```") == "x = 1\n"
    assert extract_code("x = 2\nprint(x)\n") == "x = 2\nprint(x)\n"
    assert extract_code("Just add the two numbers.") is None
    assert extract_code("```cpp\nint main(){}\n```") is None
    assert extract_code("") is None
    assert extract_code("```python\nprint(3)\n") == "print(3)\n"  # unterminated fence


def test_call_encodings_normalise_to_json_arrays():
    assert lines_to_args('[1, 2]\n"a"\n3') == [[1, 2], "a", 3]
    assert call_args([[1, 2], 3]) == "[[1, 2], 3]"
    assert call_args("[1, 2]") == "[[1, 2]]"  # one line = one argument
    assert call_output([[1, 2]], wrapped=True) == "[1, 2]"
    assert call_output([1, 2], wrapped=True) == "[1, 2]"
    assert call_output(None, wrapped=False) == "null"
    with pytest.raises(RecordError) as e:
        lines_to_args("[1,\n2]")
    assert e.value.field == "tests"


def test_taco_tests_and_entry_points():
    kind, tests, fn = taco_tests({"fn_name": "f", "inputs": [[1, "a"]], "outputs": [[True]]})
    assert (kind, fn) == ("call", "f") and tests == [{"input": '[1, "a"]', "output": "true"}]
    kind, tests, fn = taco_tests({"inputs": [["1", "2"]], "outputs": ["3\n"]})
    assert kind == "stdio" and tests == [{"input": "1\n2", "output": "3\n"}]
    with pytest.raises(RecordError):
        taco_tests({"inputs": ["1"], "outputs": []})
    assert entry_point_for("go", "class Solution:\n    def go(self): ...") == "Solution().go"
    assert entry_point_for("go", "def go(): ...") == "go"
    assert entry_point_for(None, None) is None


def test_fields_helpers():
    assert json_field('{"a": 1}', "x") == {"a": 1}
    assert json_field("", "x", default=[]) == []
    with pytest.raises(RecordError) as e:
        json_field("{bad", "tests")
    assert e.value.field == "tests"
    assert number_in("2 seconds") == 2.0 and number_in("256 megabytes") == 256.0
    assert number_in(None) is None and number_in(0) is None and number_in("none") is None
    assert str_list("['Math', 'Greedy']") == ["Math", "Greedy"]
    assert str_list('["a"]') == ["a"] and str_list(None) == []


def _blob(obj: object) -> str:
    return base64.b64encode(zlib.compress(pickle.dumps(obj))).decode()


def test_safe_unpickler_decodes_plain_data():
    payload = json.dumps([{"input": "1", "output": "2", "testtype": "stdin"}])
    assert decode_lcb_blob(_blob(payload)) == payload
    assert safe_loads(pickle.dumps({"a": [1, 2.5, None, b"x", True]}, protocol=2)) == {
        "a": [1, 2.5, None, b"x", True]
    }


class _Opener:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_safe_unpickler_never_runs_code(tmp_path):
    marker = tmp_path / "pwned"
    with pytest.raises(UnsafePickleError, match="not allowed"):
        decode_lcb_blob(_blob(_Opener(str(marker))))
    assert not marker.exists()
    with pytest.raises(UnsafePickleError):
        safe_loads(pickle.dumps({1, 2}))  # a set is not plain data
    with pytest.raises(UnsafePickleError):
        safe_loads(pickle.dumps((1, 2)))  # nor a tuple
    with pytest.raises(UnsafePickleError):
        decode_lcb_blob("!!! not base64 or zlib")


def test_argv_checker_is_wrapped_into_our_contract():
    ns: dict = {}
    exec(wrap_argv_checker(CHECKER), ns)
    assert ns["check"]("3 4\n", "3 4\n", "4 3\n") is True
    assert ns["check"]("3 4\n", "3 4\n", "4 4\n") is False
    ns2: dict = {}
    exec(wrap_argv_checker("import sys\nsys.exit(1)\n"), ns2)
    assert ns2["check"]("", "x", "x") is False


def test_mbpp_entry_point_is_the_called_defined_function():
    code = "def helper(x):\n    return x\ndef area(r):\n    return helper(r) * 2\n"
    assert mbpp_entry_point(code, ["assert area(2) == 4"]) == "area"
    assert mbpp_entry_point("", ["assert set(f(1)) == {1}"]) == "f"


def test_deepcoder_reads_primeintellect_style_list_tests():
    from curation.sources.deepcoder import convert_deepcoder

    tests = [{"input": [3], "output": 6, "type": "function_call", "fn_name": "dbl"}]
    rec = convert_deepcoder(
        {"problem": "Double it.", "tests": json.dumps(tests)}, 4, config="primeintellect"
    )
    assert rec["id"] == "primeintellect-4" and rec["entry_point"] == "dbl"
    assert rec["tests"] == [{"input": "[3]", "output": "6"}]
    stdin = [{"input": "1\n", "output": "1\n", "type": "stdin_stdout"}]
    assert (
        convert_deepcoder({"problem": "Echo.", "tests": json.dumps(stdin)})["test_type"] == "stdio"
    )


def test_lcb_and_deepcoder_convert_functional_tests_alike():
    # One conversion (callnorm.functional_test) for LiveCodeBench's functional tests, read
    # directly (lcb) or inside DeepCoder's lcbv5 config; the same errors from both.
    from curation.sources.deepcoder import convert_deepcoder
    from curation.sources.lcb import convert_lcb

    meta = json.dumps({"func_name": "add"})
    good = [{"input": "1\n2", "output": "3", "testtype": "functional"}]
    bad = [{"input": "1", "output": "not json", "testtype": "functional"}]
    mixed = good + [{"input": "1", "output": "1", "testtype": "stdin"}]

    def lcb(tests):
        return convert_lcb({"question_content": "Add.", "public_test_cases": json.dumps(tests),
                            "private_test_cases": "", "metadata": meta})  # fmt: skip

    def deepcoder(tests):
        return convert_deepcoder({"problem": "Add.", "tests": json.dumps(tests), "metadata": meta})

    for convert in (lcb, deepcoder):
        rec = convert(good)
        assert (rec["test_type"], rec["entry_point"]) == ("call", "add")
        assert rec["tests"] == [{"input": "[1, 2]", "output": "3"}]
        with pytest.raises(RecordError, match="test 0: functional output"):
            convert(bad)
        with pytest.raises(RecordError, match="mixes test types"):
            convert(mixed)
        with pytest.raises(RecordError, match="test 1 must be an object"):
            convert(good + ["x"])


def _checker(source: str):
    ns: dict = {}
    exec(wrap_argv_checker(source), ns)
    return ns["check"]


@pytest.mark.parametrize(
    "prints, exits, passes",
    [
        ("1", None, True), ("100", None, True), (" 1 \n", None, True), ("1\n0\n0", None, True),
        ("", None, False), ("0.5", None, False), ("OK", None, False), ("yes", None, False),
        ("0", None, False), ("2", None, False), ("1", 1, False), ("1", 0, True), ("1", "'bad'", False),
    ],
)  # fmt: skip
def test_a_wrapped_checker_passes_exactly_what_the_codeforces_judge_passes(prints, exits, passes):
    """Bug: no output, '0.5', 'OK' or any word but a rejection word passed (a reward hole).

    The judge (piston's codeforces `run`, scored by open-r1's cf_scoring) passes a test only when
    the checker exits 0 and its stdout without whitespace is exactly 1 or 100."""
    src = f"import sys\nsys.stdout.write({prints!r})\n"
    if exits is not None:
        src += f"sys.exit({exits})\n"
    assert _checker(src)("1\n", "1\n", "1\n") is passes


def test_a_crashing_checker_fails_the_test():
    assert _checker("print(1)\nraise ValueError('boom')\n")("", "1\n", "1\n") is False


def test_the_checker_sees_the_files_the_judge_writes():
    """The judge drops a trailing \\r from each line of input and expected output, and empty lines
    from both outputs (the expected one after `$(cat ...)` dropped its trailing newlines)."""
    same = (
        "import sys\n"
        "inp, exp, out = (open(p).read() for p in sys.argv[1:4])\n"
        "print(1 if (inp, exp, out) == ('5\\n2 3\\n', '2\\n3\\n', '2\\n3') else 0)\n"
    )
    check = _checker(same)
    assert check("5\r\n2 3\r\n", "2\r\n\n3\r\n\n\n", "\n2\n\n3") is True
    assert (
        check("5\n2 3\n", "2\n3\n", "2\n3\n") is False
    )  # the actual output keeps its last newline


def test_code_contests_difficulty_follows_the_proto_enum():
    """Bug: letters were counted from 7 without the gap, so 19 (L) read 'M' and 29 (V) read 'W'."""
    from curation.sources.code_contests import cc_difficulty_label

    got = {v: cc_difficulty_label(v) for v in (0, 1, 6, 7, 17, 18, 19, 29, 30)}
    assert got == {
        0: None,
        1: "EASY",
        6: "EXTERNAL",
        7: "A",
        17: "K",
        18: None,
        19: "L",
        29: "V",
        30: None,
    }


def test_primeintellect_instructions_are_stripped_and_a_starter_kept():
    from curation.sources.instructions import strip_instructions

    head = "Solve the following coding problem using the programming language python:\n\n"
    stdin = (
        head
        + "Add a and b.\n\nThe input will be stdin and you should print your solution to stdout\n\n\nNow solve the problem and return the code."
    )
    assert strip_instructions(stdin) == ("Add a and b.", None)
    call = (head + "Count toothpicks.\n\nWrite your solution by modifying this code:\n\n```python\ndef toothpick(n):\n\t\n```\n\n"
            'Your solution should implemented in the function "toothpick". The inputs will be passed to it and it should '
            "return the correct solution.\n\n\nNow solve the problem and return the code.")  # fmt: skip
    assert strip_instructions(call) == ("Count toothpicks.", "def toothpick(n):\n\t\n")
    quoted = "Print the words 'Now solve the problem and return the code.'"
    assert strip_instructions(quoted) == (quoted, None)  # no header: nothing is touched


def test_long_integers_parse_up_to_the_bound():
    """Bug: an integer past 4,300 digits (APPS and TACO hold some) made the row malformed."""
    from curation.schema import BIG_INT_DIGITS
    from curation.sources.fields import dumps, loads

    big = "9" * 5000
    assert dumps(loads(f"[{big}]", "tests")) == f"[{big}]"
    with pytest.raises(RecordError, match="longer than 100,000 digits"):
        loads("7" * (BIG_INT_DIGITS + 1), "tests")
    assert sys.get_int_max_str_digits() == 4300  # the process's limit is left as it was


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64, 1 << 20])
def test_json_array_reader_is_exact_at_any_chunk_size(chunk):
    import io

    from curation.sources.jsonarray import iter_json_array

    rows = [{"a": i, "s": "x" * (i % 37), "n": [1.5, 2, None, True, 'é"\\\n']} for i in range(60)]
    rows += [123456789, 3.25, -1e-7, "str", None, True, [1, 2], 0, {}]
    for text in (json.dumps(rows), json.dumps(rows, indent=2), "\ufeff " + json.dumps(rows)):
        assert list(iter_json_array(io.StringIO(text), "t", chunk=chunk)) == rows


def test_call_output_wrapping_is_decided_by_site():
    from curation.sources.taco import call_outputs_wrapped, site_of

    assert (
        site_of("codewars", "") == "codewars"
        and site_of(None, "https://leetcode.com/problems/x/") == "leetcode"
    )
    assert (
        site_of("", "https://www.codewars.com/kata/abc") == "codewars"
        and site_of(None, None) is None
    )
    assert (
        call_outputs_wrapped("codewars", None) is True
        and call_outputs_wrapped("hackerrank", None) is False
    )
    assert call_outputs_wrapped(None, "class Solution:\n    def f(self): ...") is False
    assert (
        call_outputs_wrapped(None, "def f(x):\n    ") is True
        and call_outputs_wrapped("codechef", None) is None
    )
