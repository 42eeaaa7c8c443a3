"""The strict comparator: wrong outputs of the right shape are rejected; floats get tolerance only
where the expected token is a decimal number."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from filters.compare import (
    STRICT,
    Comparison,
    compare_call,
    compare_stdio,
    explain_stdio,
    values_equal,
)
from filters.judging.judge_style import (
    allows_any_case,
    allows_several_answers,
    comparison_of,
    detect_comparison,
    stated_tolerance,
)
from filters.sandbox import Sandbox


@pytest.mark.parametrize(
    "expected, actual",
    [
        ("YES\n", "NO\n"),
        ("NO", "YES"),
        ("yes", "YES"),  # case-sensitive
        ("3\n", "4\n"),
        ("1 2 3\n", "1 2\n"),
        ("1\n2\n", "1\n"),  # a missing line
        ("1\n2\n", "1\n2\n3\n"),  # an extra line
        ("1 2\n", "1\n2\n"),  # same tokens, different lines
        ("1000000000000\n", "1000000000001\n"),  # integers are exact, whatever their size
        ("0.5\n", "0.6\n"),
        ("0.5\n", "abc\n"),
        ("abc\n", "abc.0\n"),
        ("1.0\n", "nan\n"),
        ("2\n", "2.0\n"),  # expected integer: exact token
        ("\n", "0\n"),
    ],
)
def test_wrong_outputs_of_the_right_shape_are_rejected(expected, actual):
    assert not compare_stdio(expected, actual)
    assert explain_stdio(expected, actual)


@pytest.mark.parametrize(
    "expected, actual",
    [
        ("3\n", "3"),
        ("1 2 3\n", "1  2\t3   \n\n\n"),  # whitespace between tokens, trailing blanks
        ("a\r\nb\r\n", "a\nb\n"),
        ("0.333333333\n", "0.3333333333333\n"),
        ("1e-9\n", "0\n"),  # absolute tolerance
        ("123456789.0\n", "123456789.00001\n"),  # relative tolerance
        ("-0.5000\n", "-0.5\n"),
        ("", "\n\n"),
    ],
)
def test_equivalent_outputs_are_accepted(expected, actual):
    assert compare_stdio(expected, actual), explain_stdio(expected, actual)


def test_tolerance_is_configurable():
    assert not compare_stdio("0.5", "0.5001")
    assert compare_stdio("0.5", "0.5001", tol=1e-3)


@pytest.mark.parametrize(
    "expected, actual, ok",
    [
        ("[1, 2]", "[1, 2]", True),
        ("[1, 2]", "[2, 1]", False),
        ("[[1, 2], [3]]", "[[1, 2], [3]]", True),
        ("3", "4", False),
        ("0.1", "0.10000000001", True),
        ("0.1", "0.2", False),
        ("1", "1.0", True),
        ("true", "1", False),
        ("1", "true", False),
        ('"YES"', '"NO"', False),
        ('{"a": 1}', '{"a": 1}', True),
        ('{"a": 1}', '{"a": 1, "b": 2}', False),
        ("null", "[]", False),
        ("[1]", "not json", False),
    ],
)
def test_call_values(expected, actual, ok):
    assert compare_call(expected, actual) is ok


def test_tuples_compare_as_lists():
    assert values_equal([1, [2, 3]], (1, (2, 3)))


@given(
    st.lists(
        st.lists(st.text(alphabet="abcXYZ019.-", min_size=1, max_size=5), min_size=1, max_size=4),
        max_size=4,
    )
)
def test_identical_output_always_accepted(lines):
    text = "\n".join(" ".join(t) for t in lines)
    assert compare_stdio(text, text)
    assert compare_stdio(text, text + "\n\n")


# ---- judge-style modes: a stated float error and YES/NO in any case, recorded per problem ----------
@pytest.mark.parametrize(
    "text, mode",
    [
        (None, STRICT),
        ("strict", STRICT),
        ("tolerance=1e-06", Comparison(1e-6)),
        ("any_case", Comparison(None, True)),
        ("tolerance=0.0001,any_case", Comparison(1e-4, True)),
    ],
)
def test_modes_read_and_write_as_text(text, mode):
    assert Comparison.parse(text) == mode
    assert Comparison.parse(str(mode)) == mode


@pytest.mark.parametrize(
    "bad", ["loose", "tolerance=", "tolerance=abc", "tolerance=2", "any_case=1"]
)
def test_a_malformed_mode_is_one_clear_error(bad):
    with pytest.raises(ValueError, match="comparison|tolerance"):
        Comparison.parse(bad)


# Phrases as CodeContests statements write them (the superscript of 10^{-6} is often lost: "10 - 6").
@pytest.mark.parametrize(
    "statement, tol",
    [
        (
            "The answer will be accepted if it has absolute or relative error not exceeding 10 - 6.",
            1e-6,
        ),
        (
            "The answer will be considered correct, if the absolute or relative error doesn't exceed 10 - 4.",
            1e-4,
        ),
        (
            "Your answer is considered correct if its absolute or relative error does not exceed 10^{-9}.",
            1e-9,
        ),
        ("It is accepted if the relative or absolute error is at most 1e-6.", 1e-6),
        ("Print the answer with at least 6 digits after the decimal point.", None),
        ("Print n - 1 numbers: the edges of the tree.", None),
        (None, None),
    ],
)
def test_stated_tolerance(statement, tol):
    assert stated_tolerance(statement) == tol


@pytest.mark.parametrize(
    "statement, any_case",
    [
        ('Print "YES" if possible. You can print each letter in any case (upper or lower).', True),
        ("Strings yEs, yes, Yes and YES will be recognized as a positive answer.", True),
        ('If the network is reasonable, print "YES". ## Source Codeforces', True),  # CF's checker
        ('If the network is reasonable, print "Yes".', False),  # AtCoder: case-sensitive
        ("In any case, the answer fits in a 64-bit integer.", False),
        (
            "s consists of uppercase and lowercase English letters; the comparison is case-insensitive.",
            False,
        ),
        ("Return true if yes, false otherwise.", False),
    ],
)
def test_any_case_is_read_from_the_statement(statement, any_case):
    assert allows_any_case(statement) is any_case


def test_several_answers_and_the_recorded_mode():
    assert allows_several_answers("If there are several answers, print any of them.")
    assert not allows_several_answers("Print the minimum number of moves.")
    st = "Output the probability. The answer is correct if its absolute error does not exceed 10^{-6}."
    assert detect_comparison(st) == Comparison(1e-6)
    assert comparison_of({"statement": st}) == "tolerance=1e-06"
    assert comparison_of({"statement": st, "comparison": "strict"}) == "strict"  # a record wins


def test_stdio_tolerance_compares_every_number_and_nothing_else():
    mode = Comparison(1e-6)
    assert compare_stdio("1\n", "1.0000000000\n", mode=mode)  # strict: an expected integer is exact
    assert not compare_stdio("1\n", "1.0000000000\n")
    assert compare_stdio("-1 0.6666666667\n", "-1.0 0.666666666\n", mode=mode)
    assert not compare_stdio("0.5\n", "0.5001\n", mode=mode)
    assert not compare_stdio("1\n", "YES\n", mode=mode)
    assert compare_stdio("0.5\n", "0.5001\n", mode=Comparison(1e-3))


def test_any_case_only_for_yes_and_no():
    mode = Comparison(None, True)
    assert compare_stdio("YES\nNO\n", "yes\nNo\n", mode=mode)
    assert not compare_stdio("YES\n", "NO\n", mode=mode)
    assert not compare_stdio("YES\n", "yes\n")  # strict stays case-sensitive
    assert not compare_stdio("abc\n", "ABC\n", mode=mode)  # other words keep their case


def test_call_tolerance_from_the_mode():
    assert compare_call("1", "1.0000001", mode=Comparison(1e-6))
    assert not compare_call("1", "1.0000001")
    assert not compare_call("[1, 2]", "[1, 2.1]", mode=Comparison(1e-6))


def test_the_sandbox_judges_with_the_recorded_mode():
    prob = {"test_type": "stdio", "tests": [{"input": "", "output": "1\nYES\n"}]}
    code = "print('1.00000000')\nprint('yes')"
    with Sandbox(workers=1) as sb:
        assert sb.run(prob, code).verdict == "WA"
        assert sb.run(dict(prob, comparison="tolerance=1e-06"), code).verdict == "WA"
        assert sb.run(dict(prob, comparison="tolerance=1e-06,any_case"), code).verdict == "AC"
        assert sb.run(dict(prob, comparison="any_case"), "print(1)\nprint('NO')").verdict == "WA"
