"""Every reference a source has labels the generated tests: on LeetCodeDataset, the code of
`response` joins `completion`, and inputs outside the problem's unstated contract (on which the
two disagree) are dropped. Judged with a third solution neither reference is."""

from __future__ import annotations

import pytest

from curation.record_files import records_to_table
from curation.schema import normalize_record
from filters.judging.judge_style import comparison_of
from filters.judging.judged import judged_problem
from filters.sandbox import Sandbox
from filters.settings import AmplifyConfig, VerifyConfig
from filters.stages.amplify.stage import SEVERAL_ANSWERS_MIN_REFERENCES, AmplifyStage

# single-number-ii: every element appears three times except one. Inputs that break this have no
# right answer, and the dataset's two solutions answer them differently.
THIRD = """from typing import *


class Solution:
    def singleNumber(self, nums: List[int]) -> int:
        ones = twos = 0
        for x in nums:
            ones = (ones ^ x) & ~twos
            twos = (twos ^ x) & ~ones
        return ones
"""


@pytest.fixture(scope="module")
def row() -> dict:
    from curation.sources import default_path, get_source, iter_source
    from filters.contracts import UserError

    try:
        default_path(get_source("leetcodedataset"))
    except UserError:
        pytest.skip("no local file for leetcodedataset (../shared/data is absent)")
    for r in iter_source("leetcodedataset", limit=200):
        if isinstance(r, dict) and r.get("id") == "single-number-ii":
            rec = normalize_record(r)
            rec["problem_id"] = "leetcodedataset/single-number-ii"
            return rec
    raise AssertionError("single-number-ii not in the first 200 rows")


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2) as box:
        yield box


def test_both_references_label_and_a_third_solution_passes(row, sb):
    assert len(row["solutions"]) == 2  # completion, then response's code
    (out,) = AmplifyStage(sandbox=sb).process(records_to_table([row])).kept.to_pylist()
    assert out["amplify_status"] == "amplified" and out["generated_tests"]
    assert "references disagree" in out["amplify_note"]
    out["comparison"] = comparison_of(out)
    for code in (*row["solutions"], THIRD):
        assert sb.run(judged_problem(out), code).verdict == "AC"


def test_several_answers_need_more_than_two_references(sb):
    statement = "Print a divisor of n greater than 1. If there are several, print any of them."
    ref_small = "n = int(input())\nprint(next(d for d in range(2, n + 1) if n % d == 0))\n"
    ref_same = "n = int(input())\nd = 2\nwhile n % d:\n    d += 1\nprint(d)\n"
    row = normalize_record(dict(
        id="divisor", source="t", statement=statement, test_type="stdio",
        tests=[{"input": "4\n", "output": "2\n"}, {"input": "9\n", "output": "3\n"},
               {"input": "7\n", "output": "7\n"}],
        solutions=[ref_small, ref_same],
    ))  # fmt: skip
    row["problem_id"] = "t/divisor"
    assert SEVERAL_ANSWERS_MIN_REFERENCES == 3
    (out,) = AmplifyStage(sandbox=sb).process(records_to_table([row])).kept.to_pylist()
    # two references that agree (both print the smallest divisor) say nothing of the others
    assert out["amplify_status"] == "skipped" and not out["generated_tests"]
    assert "2 references cannot tell them" in out["amplify_note"]


# Two correct references, one ~100x slower (a module-level loop of ~0.2 s before each answer).
_FAST = "n = int(input())\nprint(n * (n + 1) // 2)\n"
_SLOW = (
    "s = 0\nfor i in range(3_000_000):\n    s += i\nn = int(input())\nprint(sum(range(n + 1)))\n"
)


def _two_speeds() -> dict:
    rec = normalize_record({
        "id": "triangle", "source": "t", "test_type": "stdio", "solutions": [_FAST, _SLOW],
        "statement": "Print 1 + 2 + ... + n.",
        "tests": [{"input": f"{n}\n", "output": f"{n * (n + 1) // 2}\n"} for n in (3, 10)],
    })  # fmt: skip
    rec["problem_id"] = "t/triangle"
    return rec


def test_the_time_limit_comes_from_the_slowest_passing_reference(sb):
    """Calibrated from the fastest (0.1 s here), the slower reference timed out on every new
    input, so no label was kept (LeetCodeDataset's greatest-common-divisor-traversal: see
    benchmarks/RESULTS.md), and verify dropped a problem it reruns as `flaky`."""
    from filters.stages.verify.stage import VerifyStage

    stage = AmplifyStage(AmplifyConfig(time_floor_s=0.1, rounds=1, candidates=4, target_tests=4), sandbox=sb)
    (out,) = stage.process(records_to_table([_two_speeds()])).kept.to_pylist()
    assert out["amplify_status"] == "amplified", out["amplify_note"]
    assert "TLE" not in out["amplify_note"] and "too slow" not in out["amplify_note"]
    verify = VerifyStage(VerifyConfig(mutants=0, min_tests=1, repeats=1, time_floor_s=0.1), sandbox=sb)
    (kept,) = verify.process(records_to_table([_two_speeds()])).kept.to_pylist()
    slow = sb.run(_two_speeds(), _SLOW, time_limit_s=10).max_test_cpu_ms
    # calibrated from the fast one it was 0.1 s, under the slow one's time; from the slow one it is
    # 3x that time (measured again here, under another load: so only "covers it" is asserted)
    assert kept["time_limit_s"] >= slow / 1000.0 and kept["time_limit_source"] == "calibrated"


class _Recording(Sandbox):
    """The real sandbox, recording which program ran under which time limit."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.runs: list[tuple[str, float | None, str]] = []

    def run(self, problem, code, **kw):
        r = super().run(problem, code, **kw)
        self.runs.append((code, kw.get("time_limit_s"), r.verdict))
        return r

    def outputs(self, problem, code, inputs, **kw):
        self.runs.append((code, kw.get("time_limit_s"), "outputs"))
        return super().outputs(problem, code, inputs, **kw)


def test_the_labeller_is_chosen_by_language_and_record_order_not_by_time():
    """It runs on every candidate; the others check only what it kept. Two Python references, the
    ~100x slower first: it labels, in every run (the fastest changed from run to run when two
    were about as fast, and with it the labels: issue 42), and loses no candidate for its
    slowness (its budget is its own slowest original's, `TIME_MARGIN` times)."""
    row = _two_speeds()
    row["solutions"] = [_SLOW, _FAST]
    with _Recording(workers=2) as box:
        stage = AmplifyStage(AmplifyConfig(time_floor_s=0.1, rounds=1, candidates=3, target_tests=4, mutants=1), sandbox=box)
        (out,) = stage.process(records_to_table([row])).kept.to_pylist()
    assert out["amplify_status"] == "amplified", out["amplify_note"]
    assert "too slow" not in out["amplify_note"]
    assert {code for code, _, what in box.runs if what == "outputs"} == {_SLOW}


def test_a_looping_mutant_runs_against_the_references_time_not_the_floor():
    """A mutant that loops forever (`i += 1` mutated) ran the whole 1 s floor on every run; now
    max(MUTANT_TIME_FLOOR_S, 3 x the slowest reference on the same tests)."""
    from filters.settings import MUTANT_TIME_FLOOR_S

    counting = "n = int(input())\ni = s = 0\nwhile i < n:\n    i += 1\n    s += i\nprint(s)\n"
    row = _two_speeds()
    row["solutions"] = [counting]
    with _Recording(workers=2) as box:
        stage = AmplifyStage(AmplifyConfig(rounds=1, candidates=4, target_tests=4), sandbox=box)
        stage.process(records_to_table([row]))
    mutants = [(t, v) for code, t, v in box.runs if code != counting]
    assert mutants and {t for t, _ in mutants} == {MUTANT_TIME_FLOOR_S}
    assert any(v == "TLE" for _, v in mutants)


def test_verify_times_a_looping_mutant_as_amplify_does():
    """Verify ran its mutants under the problem's limit (the 1 s floor meant for completions): a
    mutant that loops forever cost a second a run, most of verify's time on LeetCodeDataset. Now
    both stages give a mutant max(MUTANT_TIME_FLOOR_S, 3 x the slowest reference), and the one
    that loops is still killed by its timeout (the strength counts it)."""
    from filters.settings import MUTANT_TIME_FLOOR_S
    from filters.stages.verify.stage import VerifyStage

    counting = "n = int(input())\ni = s = 0\nwhile i < n:\n    i += 1\n    s += i\nprint(s)\n"
    row = _two_speeds()
    row["solutions"] = [counting]
    with _Recording(workers=2) as box:
        verify = VerifyStage(VerifyConfig(mutants=12, min_tests=1, min_mutation_score=0.0), sandbox=box)
        (kept,) = verify.process(records_to_table([row])).kept.to_pylist()
    assert kept["time_limit_s"] == 1.0  # the problem's limit, for completions: unchanged
    mutants = [(t, v) for code, t, v in box.runs if code != counting]
    assert mutants and {t for t, _ in mutants} == {MUTANT_TIME_FLOOR_S}
    assert any(v == "TLE" for _, v in mutants)
    assert kept["test_strength"] > 0


# A reference that costs the same on every input: a fixed loop of ~0.1 s of CPU (a table it
# precomputes, as many contest solutions do), then the answer.
_PRECOMPUTES = "s = 0\nfor i in range(1_500_000):\n    s += i\nn = int(input())\nprint(n * (n + 1) // 2)\n"


def test_an_input_that_costs_what_the_originals_cost_is_never_too_slow(sb):
    """Issue 42: a new input was kept only within the limit / 3, about 1x the slowest original's
    CPU, so an input that costs what every input costs stood at the bound, and noise (or the
    machine's load) decided it: one build kept 19 such inputs, the same build under load 15. The
    bound is now 2x the labeller's own slowest original (`TIME_MARGIN`), at least the floor's
    share. Here the source's limit is 2.5x what the reference costs on any input: the old bound
    (0.83x) dropped every candidate as too slow."""
    rec = dict(_two_speeds(), solutions=[_PRECOMPUTES])
    cost = sb.run(rec, _PRECOMPUTES, time_limit_s=10).max_test_cpu_ms / 1000.0
    rec["time_limit_s"] = round(2.5 * cost, 3)
    stage = AmplifyStage(AmplifyConfig(rounds=2, candidates=16, target_tests=12), sandbox=sb)
    (out,) = stage.process(records_to_table([rec])).kept.to_pylist()
    assert "too slow" not in out["amplify_note"], (cost, out["amplify_note"])
    assert len(out["generated_tests"]) >= 3, out["amplify_note"]
