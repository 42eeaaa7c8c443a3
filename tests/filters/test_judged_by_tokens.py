"""Contest stdio is judged as the contest judge does: the same tokens with other line breaks are
accepted, and nothing else is loosened. The source decides (`judge_style.judged_by_tokens`), and
verify, amplify and the rewards all take it from `comparison_of`."""

from __future__ import annotations

import pytest

from curation.record_files import records_to_table
from curation.schema import normalize_record
from filters.compare import STRICT, Comparison, compare_stdio, explain_stdio
from filters.judging.ground_truth import to_ground_truth
from filters.judging.judge_style import comparison_of, judged_by_tokens
from filters.reward import correctness_reward
from filters.sandbox import Sandbox
from filters.settings import AmplifyConfig, VerifyConfig
from filters.stages.amplify.stage import AmplifyStage
from filters.stages.verify.stage import VerifyStage
from tests.conftest import shared_file

TOKENS = Comparison(tokens=True)


@pytest.mark.parametrize(
    "expected, actual",
    [
        ("1 3 2 4\n", "1\n3\n2\n4\n"),
        ("20\n0 2 1 4 3", "20 0 2 1 4 3\n"),
        ("YES\n1\n2\n", "YES 1\n\n2"),
        ("1 2\n", "1\t2\r\n"),
        ("1\n2\n", "  1   2  \n\n\n"),
    ],
)
def test_tokens_accept_other_line_breaks(expected, actual):
    assert compare_stdio(expected, actual, mode=TOKENS)


@pytest.mark.parametrize(
    "expected, actual",
    [
        ("12\n", "1 2\n"),  # a token split in two
        ("1 2\n", "12\n"),  # two tokens joined
        ("1 2\n", "2 1\n"),  # the same tokens in another order
        ("1 2 3\n", "1 2\n"),  # a missing token
        ("1 2\n", "1 2 3\n"),  # an extra token
        ("1\n2\n", "1\n2\n0\n"),  # an extra line is an extra token
        ("NO\n", "YES\n"),
        ("YES\n", "yes\n"),  # case stays strict without any_case
        ("1\n", "1.0\n"),  # an integer stays exact without a stated error
        ("0.5\n", "0.6\n"),
        ("1,2\n", "1 2\n"),  # punctuation is not whitespace
        ("\n", "0\n"),  # no output against an output
    ],
)
def test_tokens_loosen_nothing_but_whitespace(expected, actual):
    assert not compare_stdio(expected, actual, mode=TOKENS)
    assert not compare_stdio(expected, actual, mode=STRICT)


def test_lines_stay_line_sensitive_in_every_other_mode():
    for mode in (STRICT, Comparison(1e-6, True, True)):
        assert not compare_stdio("1 2\n", "1\n2\n", mode=mode)
    assert compare_stdio("1 2\n", "1\n2\n", mode=Comparison(1e-6, True, False, True))
    assert compare_stdio("0.5 YES\n", "0.5000001\nyes", mode=Comparison(1e-6, True, False, True))


def test_tokens_mode_reads_back_and_explains_by_token():
    for text in ("tokens", "any_case,tokens", "tolerance=1e-06,any_case,tokens"):
        assert str(Comparison.parse(text)) == text
    assert Comparison.parse("tokens").tokens and not Comparison.parse("tokens").strict
    assert Comparison.parse("any_case") == Comparison(any_case=True)  # old records read as before
    with pytest.raises(ValueError, match="tokens"):
        Comparison.parse("token")
    assert explain_stdio("1 2 3", "1\n2\n4", mode=TOKENS) == "token 3: expected '3', got '4'"
    assert explain_stdio("1 2 3", "1\n2", mode=TOKENS) == "token 3: output ends, expected '3'"


@pytest.mark.parametrize(
    "problem, comparison",
    [
        ({"source": "codecontests-subset", "test_type": "stdio"}, "tokens"),
        ({"source": "code-contests", "test_type": "stdio"}, "tokens"),
        ({"source": "codeforces", "test_type": "stdio"}, "tokens"),
        ({"source": "taco", "test_type": "stdio"}, "tokens"),
        ({"source": "apps", "test_type": "stdio"}, "tokens"),
        ({"source": "deepcoder", "id": "taco-17", "test_type": "stdio"}, "tokens"),
        ({"source": "deepcoder", "id": "codeforces-3", "test_type": "stdio"}, "tokens"),
        ({"source": "deepcoder", "id": "lcbv5-3", "test_type": "stdio"}, "strict"),
        ({"source": "deepcoder", "id": "primeintellect-3", "test_type": "stdio"}, "strict"),
        ({"source": "lcb", "test_type": "stdio"}, "strict"),  # LiveCodeBench's grader: lines
        ({"source": "mine", "test_type": "stdio"}, "strict"),
        ({"source": "taco", "test_type": "call"}, "strict"),
        ({"source": "codeforces", "test_type": "stdio", "comparison": "strict"}, "strict"),
        (
            {"source": "codeforces", "test_type": "stdio", "statement": 'Print "YES". Codeforces'},
            "any_case,tokens",
        ),
    ],
)
def test_the_source_decides_tokens_or_lines(problem, comparison):
    assert comparison_of(problem) == comparison
    if "comparison" not in problem:  # a recorded comparison (an old build's) is kept as it is
        assert judged_by_tokens(problem) == comparison.endswith("tokens")


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2) as box:
        yield box


@pytest.fixture(scope="module")
def contest_rows():
    from curation.sources import iter_source

    shared_file("codecontests-subset300.jsonl.gz")

    rows = [
        r
        for r in iter_source("codecontests-subset")
        if isinstance(r, dict) and r["id"].startswith(("288_c_", "487_c_"))
    ]
    assert len(rows) == 2
    return sorted(rows, key=lambda r: r["id"])


def test_codecontests_references_that_break_lines_differently_are_kept(sb, contest_rows):
    """288_C prints its permutation one number a line (and writes it from a fast-I/O buffer's
    finalizer); 487_C prints `1 3 2 4` on one line for n = 4. Both are right on Codeforces."""
    result = VerifyStage(VerifyConfig(mutants=0), sandbox=sb).process(records_to_table(contest_rows))
    assert result.dropped.num_rows == 0
    kept = {r["id"][:5]: r for r in result.kept.to_pylist()}
    assert kept["288_c"]["comparison"] == "tokens"
    assert kept["487_c"]["comparison"] == "any_case,tokens"
    # an old build's record (strict) keeps reading as it was judged: the reference fails there
    old = dict(contest_rows[1], comparison="strict")
    assert sb.run(old, old["solutions"][0]).verdict == "WA"


def test_completions_are_rewarded_as_the_judge_rewards_them(sb, contest_rows):
    record = contest_rows[1]  # 487_C: YES and a permutation, or NO
    one_line = (
        "n = int(input())\n"
        "if n == 1: print('YES 1'); raise SystemExit\n"
        "if n == 4: print('YES\\n1 3 2 4'); raise SystemExit\n"
        "if any(n % p == 0 for p in range(2, int(n ** 0.5) + 1)): print('no'); raise SystemExit\n"
        "print('YES', 1, *(j * pow(j - 1, n - 2, n) % n for j in range(2, n)), n)\n"
    )
    assert correctness_reward(record, one_line, sandbox=sb) == 1.0
    assert correctness_reward(to_ground_truth(dict(record, comparison="any_case,tokens")),
                              one_line, sandbox=sb) == 1.0  # fmt: skip
    swapped = one_line.replace("1 3 2 4", "1 2 3 4")  # same shape, a wrong permutation
    assert correctness_reward(record, swapped, sandbox=sb) == 0.0
    joined = one_line.replace("1 3 2 4", "13 2 4")  # tokens joined: not whitespace
    assert correctness_reward(record, joined, sandbox=sb) == 0.0


def _row(source: str, solutions: list[str]) -> dict:
    out = normalize_record({
        "id": "count", "source": source, "test_type": "stdio", "solutions": solutions,
        "statement": "Print the numbers 1 to n.",
        "tests": [{"input": "1\n", "output": "1\n"}, {"input": "1\n", "output": "1\n"}],
    })  # fmt: skip
    out["problem_id"] = f"{source}/count"
    return out


def test_amplify_labels_with_references_that_agree_token_wise(sb):
    one_line = "print(*range(1, int(input()) + 1))"
    a_line_each = "print(*range(1, int(input()) + 1), sep='\\n')"
    rows = [
        _row("codecontests-subset", [one_line, a_line_each]),
        _row("mine", [one_line, a_line_each]),
    ]
    contest, mine = (
        AmplifyStage(AmplifyConfig(target_tests=6), sandbox=sb).process(records_to_table(rows)).kept.to_pylist()
    )
    assert contest["amplify_status"] == "amplified" and contest["generated_tests"]
    assert "references disagree" not in contest["amplify_note"]
    assert not mine["generated_tests"] and "references disagree" in mine["amplify_note"]
