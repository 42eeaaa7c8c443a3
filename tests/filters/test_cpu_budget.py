"""Each problem's CPU in amplify and in verify is bounded (issue 58): past the stage's
`cpu_budget_s` the stage stops judging it and drops it as `too_slow`, with what its runs took; and
both stages say when each problem starts and when its decision is final, once each."""

from __future__ import annotations

import json
import threading

import pytest

from curation.commands.build import build_config
from curation.record_files import records_to_table
from curation.schema import normalize_record
from filters.contracts import UserError
from filters.sandbox import Sandbox
from filters.settings import DEFAULT_CPU_BUDGET_S, AmplifyConfig, VerifyConfig
from filters.stages.amplify.stage import AmplifyStage
from filters.stages.verify.stage import VerifyStage

GOOD = "a, b = map(int, input().split())\nprint(a + b)"
# about 0.2 s of CPU a test, whatever the load: a loop, then the answer
SLOW = "s = 0\nfor i in range(3_000_000):\n    s += i\na, b = map(int, input().split())\nprint(a + b)"
TESTS = [{"input": f"{a} {b}\n", "output": f"{a + b}\n"} for a, b in [(1, 2), (3, 4), (0, 0), (9, -9), (7, 7)]]


def rec(id_: str, **kw) -> dict:
    base = {"id": id_, "source": "t", "statement": "add two numbers", "test_type": "stdio",
            "tests": TESTS, "solutions": [GOOD], "incorrect_solutions": ["print(0)"]}  # fmt: skip
    base.update(kw)
    out = normalize_record(base)
    out["problem_id"] = f"t/{id_}"
    return out


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2) as box:
        yield box


def _listen(stage) -> list[tuple[str, str]]:
    events: list[tuple[str, str]] = []
    lock = threading.Lock()

    def heard(event: str, key: str) -> None:
        with lock:
            events.append((event, key))

    stage.on_problem = heard
    return events


def test_verify_drops_a_problem_past_its_cpu_budget_as_too_slow_with_its_cost(sb):
    rows = [rec("fast"), rec("slow", solutions=[SLOW])]
    stage = VerifyStage(VerifyConfig(mutants=2, cpu_budget_s=0.5), sandbox=sb)
    result = stage.process(records_to_table(rows))
    assert [r["id"] for r in result.kept.to_pylist()] == ["fast"]
    (slow,) = result.dropped.to_pylist()
    assert slow["reject_reason"] == "too_slow"
    detail = json.loads(slow["reject_detail"])
    assert detail["cpu_budget_s"] == 0.5 and detail["cpu_s"] >= 0.5
    # without a budget the same problem is judged to the end, and kept
    unbounded = VerifyStage(VerifyConfig(mutants=2, cpu_budget_s=None), sandbox=sb).process(records_to_table(rows[1:]))
    assert unbounded.kept.num_rows == 1


def test_amplify_drops_a_problem_past_its_cpu_budget_as_too_slow(sb):
    rows = [rec("slow", solutions=[SLOW])]
    result = AmplifyStage(AmplifyConfig(mutants=2, rounds=1, candidates=4, cpu_budget_s=0.5), sandbox=sb).process(
        records_to_table(rows)
    )
    (slow,) = result.dropped.to_pylist()
    assert slow["reject_reason"] == "too_slow"
    assert json.loads(slow["reject_detail"])["cpu_s"] >= 0.5
    kept = AmplifyStage(AmplifyConfig(mutants=2, rounds=1, candidates=4, cpu_budget_s=None), sandbox=sb).process(
        records_to_table(rows)
    )
    assert kept.kept.num_rows == 1 and kept.dropped.num_rows == 0


def test_each_problem_starts_and_ends_once_and_early_rejects_end_first(sb):
    rows = [rec("good"), rec("few", tests=TESTS[:3]), rec("wrong", solutions=["print(1)"]), rec("two")]
    stage = VerifyStage(VerifyConfig(mutants=2), sandbox=sb)
    events = _listen(stage)
    stage.process(records_to_table(rows))
    keys = [f"t/{r['id']}" for r in rows]
    assert sorted(k for e, k in events if e == "start") == sorted(keys)
    done = [k for e, k in events if e == "done"]
    assert sorted(done) == sorted(keys)
    assert done[0] == "t/few"  # too_few_tests, decided before any run
    assert done.index("t/wrong") < min(done.index("t/good"), done.index("t/two"))
    amp = AmplifyStage(AmplifyConfig(mutants=2, rounds=1, candidates=4), sandbox=sb)
    events = _listen(amp)
    amp.process(records_to_table(rows[:2]))
    assert sorted(events) == sorted([(e, k) for k in keys[:2] for e in ("start", "done")])


def test_the_budget_has_a_documented_default_and_a_range():
    assert VerifyConfig().cpu_budget_s == AmplifyConfig().cpu_budget_s == DEFAULT_CPU_BUDGET_S
    with pytest.raises(UserError, match="verify.cpu_budget_s"):
        VerifyConfig(cpu_budget_s=0)
    cfg = build_config(verify_cpu_budget=5.0, amplify_cpu_budget=7.5)
    assert (cfg.verify.cpu_budget_s, cfg.amplify.cpu_budget_s) == (5.0, 7.5)
    assert build_config().verify.cpu_budget_s == DEFAULT_CPU_BUDGET_S


def test_a_built_too_slow_row_keeps_its_measured_cost_in_the_manifest_not_in_the_shard(tmp_path):
    """The rejected shards hold nothing a run measured, so two builds write them byte for byte
    alike (issue 58): a `too_slow` row's `cpu_s` goes to the manifest's `measured_rejections`."""
    import pyarrow.parquet as pq

    from curation.build import build

    src = tmp_path / "src.jsonl"
    src.write_text("".join(json.dumps({k: v for k, v in rec(i, **kw).items() if k != "problem_id"}) + "\n"
                           for i, kw in (("fast", {}), ("slow", {"solutions": [SLOW]}))))  # fmt: skip
    cfg = build_config(source=[str(src)], skip=["amplify", "dedup", "difficulty"], no_decontaminate=True,
                       verify_cpu_budget=0.5, mutants=2)  # fmt: skip
    result = build(cfg, tmp_path / "out", workers=2, write_report=False)
    (slow,) = pq.read_table(next((tmp_path / "out" / "rejected").glob("*.parquet"))).to_pylist()
    assert slow["reject_reason"] == "too_slow"
    assert json.loads(slow["reject_detail"]) == {
        "cpu_budget_s": 0.5, "note": json.loads(slow["reject_detail"])["note"]}  # fmt: skip
    (cost,) = result.manifest["measured_rejections"]
    assert cost["problem_id"] == slow["problem_id"] and cost["stage"] == "verify" and cost["cpu_s"] >= 0.5
    assert "cpu_s" in result.manifest["measured_columns"]
