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
