"""Answers that may come in any order (`any_order` comparison) and problems that accept several
answers (no generated tests from fewer than three references), on real LeetCodeDataset rows."""

from __future__ import annotations

import pytest

from curation.record_files import records_to_table
from curation.schema import normalize_record
from filters.compare import Comparison, compare_call
from filters.judging.judge_style import allows_any_order, comparison_of, several_valid_answers
from filters.judging.judged import judged_problem
from filters.reward import grade
from filters.sandbox import Sandbox
from filters.stages.amplify.stage import AmplifyStage

WANTED = {
    "palindrome-pairs",
    "two-sum",
    "encode-string-with-shortest-length",
    "reconstruct-itinerary",
    "range-addition",
    "evaluate-division",
}


@pytest.fixture(scope="module")
def rows() -> dict[str, dict]:
    from curation.sources import default_path, get_source, iter_source
    from filters.contracts import UserError

    try:
        default_path(get_source("leetcodedataset"))
    except UserError:
        pytest.skip("no local file for leetcodedataset (../shared/data is absent)")
    out = {}
    for r in iter_source("leetcodedataset", limit=400):
        if isinstance(r, dict) and r.get("id") in WANTED:
            rec = normalize_record(r)
            rec["problem_id"] = f"leetcodedataset/{rec['id']}"
            out[rec["id"]] = rec
    assert set(out) == WANTED
    return out


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2) as box:
        yield box


# A correct palindrome-pairs program whose pairs come in the reverse order of the reference's.
REVERSED = """
_reference = Solution.palindromePairs


def _reversed(self, words):
    return list(reversed(_reference(self, words)))


Solution.palindromePairs = _reversed
"""


def test_the_mode_is_text_and_compares_the_top_level_list_as_a_multiset():
    mode = Comparison.parse("any_order")
    assert mode == Comparison(any_order=True) and str(mode) == "any_order" and not mode.strict
    assert str(Comparison.parse("tolerance=1e-06,any_order")) == "tolerance=1e-06,any_order"
    assert compare_call("[[0, 1], [1, 0], [3, 2]]", "[[3, 2], [0, 1], [1, 0]]", mode=mode)
    assert not compare_call("[[0, 1], [1, 0]]", "[[1, 0], [0, 1]]")  # strict: in order
    assert not compare_call("[1, 1, 2]", "[1, 2, 2]", mode=mode)  # each element as often
    assert not compare_call("[[0, 1]]", "[[1, 0]]", mode=mode)  # elements compared as always
    with pytest.raises(ValueError):
        Comparison.parse("any_order=1")


def test_any_order_is_read_from_real_statements(rows):
    # "Return an array of all the palindrome pairs of words." / "You can return the answer in
    # any order." (two-sum); a list whose positions mean something is not loosened
    assert comparison_of(rows["palindrome-pairs"]) == "any_order"
    assert comparison_of(rows["two-sum"]) == "any_order"
    for kept_in_order in ("range-addition", "evaluate-division", "reconstruct-itinerary"):
        assert comparison_of(rows[kept_in_order]) == "strict", kept_in_order
    # a stdio answer in any order needs a checker, not this mode
    assert comparison_of(dict(rows["two-sum"], test_type="stdio")) == "strict"
    assert allows_any_order("You may return the answer in any order.")
    assert not allows_any_order("You can visit the rooms in any order. Return the cost.")


def test_several_valid_answers_beyond_their_order(rows):
    assert several_valid_answers(rows["encode-string-with-shortest-length"]["statement"])
    # "If there are multiple valid itineraries, you should return the one that has the smallest
    # lexical order": a tie-break, one right answer
    assert not several_valid_answers(rows["reconstruct-itinerary"]["statement"])
    assert not several_valid_answers(rows["palindrome-pairs"]["statement"])


def test_a_reordered_correct_answer_gets_reward_1(rows, sb):
    row = dict(rows["palindrome-pairs"])
    code = row["solutions"][0] + REVERSED
    row["comparison"] = comparison_of(row)  # what verify records
    assert grade(row, code, sandbox=sb).score == 1.0
    assert grade(dict(row, comparison="strict"), code, sandbox=sb).score == 0.0


def test_verify_and_the_rewards_accept_any_order_on_the_amplified_suite(rows, sb):
    row = rows["palindrome-pairs"]
    (out,) = AmplifyStage(sandbox=sb).process(records_to_table([row])).kept.to_pylist()
    assert out["amplify_status"] == "amplified" and out["generated_tests"]
    out["comparison"] = comparison_of(out)
    code = row["solutions"][0] + REVERSED
    assert sb.run(judged_problem(out), code).verdict == "AC"  # as verify judges it
    assert grade(out, code, sandbox=sb).score == 1.0  # as the rewards judge it


def test_several_answers_and_too_few_references_keep_the_original_tests(rows, sb):
    row = rows["encode-string-with-shortest-length"]
    (out,) = AmplifyStage(sandbox=sb).process(records_to_table([row])).kept.to_pylist()
    assert out["amplify_status"] == "skipped" and not out["generated_tests"]
    assert "several answers" in out["amplify_note"]
