"""Special judges in verify and in the rewards (issue 54), on a real CodeContests problem:
862_C (Mahmoud and Ehab and the xor: any set of n distinct integers with the given xor), as a
CodeContests+-style record that ships a C++ testlib checker. The build keeps it with that checker
(verified first: it rejects an empty output and the input echoed), and `grade_many` rewards each
program exactly as the sandbox judges it there: a different valid answer too."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from curation.record_files import records_to_table
from curation.schema import normalize_record
from filters.judging.ground_truth import to_ground_truth
from filters.reward import grade_many
from filters.reward.trainer_rewards import compute_score, trl_correctness_reward
from filters.sandbox import Sandbox
from filters.settings import VerifyConfig
from filters.stages.verify.stage import VerifyStage
from filters.stages.verify.standard_choice import accepts, choose
from tests.conftest import shared_file

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")

XOR_CHECKER = r"""#include "testlib.h"
#include <set>
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    int n = inf.readInt(), x = inf.readInt();
    std::string ja = upperCase(ans.readToken()), pa = upperCase(ouf.readToken());
    if (pa != "YES" && pa != "NO") quitf(_pe, "YES or NO expected, found %s", pa.c_str());
    if (ja != pa) quitf(_wa, "expected %s, found %s", ja.c_str(), pa.c_str());
    if (pa == "NO") quitf(_ok, "no such set");
    std::set<int> seen;
    int acc = 0;
    for (int i = 0; i < n; i++) {
        int v = ouf.readInt(0, 1000000, "a_i");
        if (!seen.insert(v).second) quitf(_wa, "%d is printed twice", v);
        acc ^= v;
    }
    if (acc != x) quitf(_wa, "the xor is %d, not %d", acc, x);
    quitf(_ok, "n = %d", n);
}
"""


def _row(problem_id: str) -> dict:
    path = shared_file("codecontests-subset300.jsonl.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return next(r for r in map(json.loads, f) if r["id"] == problem_id)


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2) as box:
        yield box


@needs_gxx
def test_a_codecontests_plus_record_with_a_testlib_checker_builds_and_rewards_as_judged(
    sb, monkeypatch
):
    raw = _row("862_c_mahmoud_and_ehab_and_the_xor_2355")
    reference = raw["solution"]
    other = reference.replace("a = 2**17", "a = 2**19").replace("b = 2**18", "b = 2**18 + 1")
    wrong_xor = "n, x = map(int, input().split())\nprint('YES')\nprint(*range(1, n + 1))\n"
    record = normalize_record({
        "id": raw["id"], "source": "codecontests-plus", "statement": raw["statement"],
        "test_type": "stdio", "tests": raw["tests"], "checker": XOR_CHECKER,
        "solutions": [reference, other], "incorrect_solutions": [wrong_xor],
    })  # fmt: skip
    result = VerifyStage(VerifyConfig(min_tests=3), sandbox=sb).process(records_to_table([record]))
    assert result.dropped.num_rows == 0, result.dropped.to_pylist()
    (kept,) = result.kept.to_pylist()
    assert kept["checker_kind"] == "testlib" and kept["checker"] == XOR_CHECKER
    assert kept["solution_verdicts"] == ["AC", "AC"]  # the other valid answer passes too
    programs = [reference, other, wrong_xor, "pass\n", "print('YES')\nprint(1)\n"]
    judged = [sb.run(kept, p).verdict for p in programs]
    assert judged == ["AC", "AC", "WA", "WA", "WA"]
    grades = grade_many([(kept, f"```python\n{p}```") for p in programs], sandbox=sb)
    assert [g.verdict for g in grades] == judged
    assert [g.score for g in grades] == [1.0 if v == "AC" else 0.0 for v in judged]
    # the trainers' functions (verl, TRL) read the checker from the exported ground truth
    monkeypatch.setattr("filters.reward.trainer_rewards.shared_sandbox", lambda: sb)
    monkeypatch.setattr("filters.reward.correctness.shared_sandbox", lambda: sb)
    gt = to_ground_truth(kept)
    completions = [f"```python\n{p}```" for p in programs]
    verl = [compute_score("codecontests-plus", c, gt)["score"] for c in completions]
    trl = trl_correctness_reward(prompts=["p"] * 5, completions=completions, ground_truth=[gt] * 5)
    assert verl == trl == [g.score for g in grades]
    exact = sb.run({k: v for k, v in kept.items() if k != "checker"}, other)
    assert exact.verdict == "WA"  # what exact comparison would have done to a right answer


@needs_gxx
def test_a_checker_that_accepts_an_empty_output_is_not_trusted(sb):
    raw = _row("862_c_mahmoud_and_ehab_and_the_xor_2355")
    lax = ('#include "testlib.h"\nint main(int c, char* v[]) { registerTestlibCmd(c, v);'
           ' while (!ouf.seekEof()) ouf.readToken(); quitf(_ok, "fine"); }\n')
    record = normalize_record({
        "id": raw["id"], "source": "codecontests-plus", "statement": raw["statement"],
        "test_type": "stdio", "tests": raw["tests"], "checker": lax, "solutions": [raw["solution"]],
    })  # fmt: skip
    result = VerifyStage(VerifyConfig(min_tests=3), sandbox=sb).process(records_to_table([record]))
    (dropped,) = result.dropped.to_pylist()
    assert dropped["reject_reason"] == "bad_checker"
    assert "empty output" in json.loads(dropped["reject_detail"])["why"]


def test_the_strictest_standard_checker_that_explains_the_evidence():
    assert choose(["0.5\n"], [["0.50000000001\n"]]) == ("rcmp9", choose(["0.5\n"], [["0.50000000001\n"]])[1])
    assert choose(["0.5\n"], [["0.5000004\n"]])[0] == "rcmp6"
    assert choose(["0.5\n"], [["0.50004\n"]])[0] == "rcmp4"
    assert choose(["0.5\n"], [["0.50004\n"]], stated_tolerance=1e-6) is None  # never looser
    assert choose(["0.5\n"], [["0.6\n"]]) is None
    # integers are never close by a relative error
    assert choose(["1000000000000\n"], [["1000000000001\n"]]) is None
    assert choose(["YES\nNO\n"], [["yes no\n"]])[0] == "nyesno"
    order = "Print the indices in any order."
    assert choose(["3\n1 2 3\n"], [["3\n3 1 2\n"]], statement=order)[0] == "uncmp"
    assert choose(["3\n1 2 3\n"], [["3\n3 1 2\n"]]) is None  # the order is the statement's
    assert choose(["1 2\n3 4\n"], [["1 3\n2 4\n"]], statement=order) is None  # rows, not a list
    # two references must agree with each other as well as with the answer
    assert choose(["1.0\n"], [["1.00004\n"], ["0.99996\n"]])[0] == "rcmp4"
    assert not accepts("rcmp6", "1.5\n", "nan\n") and not accepts("rcmp6", "1.5\n", "inf\n")
