"""The strict comparator: wrong outputs of the right shape are rejected; floats get tolerance only
where the expected token is a decimal number."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from filters.compare import compare_call, compare_stdio, explain_stdio, values_equal


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


@given(st.lists(st.lists(st.text(alphabet="abcXYZ019.-", min_size=1, max_size=5), min_size=1, max_size=4), max_size=4))
def test_identical_output_always_accepted(lines):
    text = "\n".join(" ".join(t) for t in lines)
    assert compare_stdio(text, text)
    assert compare_stdio(text, text + "\n\n")
