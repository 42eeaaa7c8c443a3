"""The pipeline's bookkeeping: units, markers, malformed rows, global stages and resume."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from curation.pipeline import Pipeline, reason_kind
from curation.schema import RecordError
from filters.stage import Decision, RowStage
from filters.stages.exact_id import ExactIdStage


def rec(i: int, source: str = "s", **over: Any) -> dict[str, Any]:
    r = {
        "id": f"p{i}",
        "source": source,
        "statement": f"Print the number {i}.",
        "test_type": "stdio",
        "tests": [{"input": "", "output": f"{i}\n"}],
        "solutions": [f"print({i})"],
    }
    r.update(over)
    return r


class EvenOnly(RowStage):
    """Keeps even-numbered problems and records the number as a new column."""

    name = "even"
    output_schema = pa.schema([pa.field("number", pa.int64())])

    def judge(self, row: dict[str, Any]) -> Decision:
        n = int(row["id"][1:])
        return (
            Decision(True, columns={"number": n}) if n % 2 == 0 else Decision.drop("odd", number=n)
        )


def stream():
    yield rec(0)
    yield rec(1)
    yield {"id": "bad", "source": "s", "statement": "x", "test_type": "nope"}
    yield RecordError("tests", "not a list", partial={"id": "broken", "source": "t"})
    yield rec(2)
    yield rec(2)  # same id again
    yield rec(4, source="t")


def test_units_counts_and_reasons(tmp_path):
    pipe = Pipeline(tmp_path / "w", [ExactIdStage(), EvenOnly()], batch_rows=3)
    runs = pipe.run(stream())
    schema_run, exact, even = runs
    assert dict(schema_run.kept) == {"s": 4, "t": 1}
    assert dict(schema_run.dropped) == {"s": 1, "t": 1}
    assert dict(schema_run.reasons) == {"malformed": 2}
    assert dict(exact.dropped) == {"s": 1} and dict(exact.reasons) == {"duplicate_id": 1}
    assert dict(even.kept) == {"s": 2, "t": 1} and dict(even.reasons) == {"odd": 1}
    assert len(list(pipe.kept())) == 3  # a table per unit of 3 input rows
    kept = pa.concat_tables(pipe.kept())
    assert kept.column("problem_id").to_pylist() == ["s/p0", "s/p2", "t/p4"]
    assert kept.column("number").to_pylist() == [0, 2, 4]
    rej = pa.concat_tables(pipe.rejected())  # stage by stage, in the rejected-row schema
    assert rej.column("reject_stage").to_pylist() == ["schema", "schema", "exact_id", "even"]
    assert rej.column("reject_reason").to_pylist()[:2] == ["malformed:test_type", "malformed:tests"]
    assert rej.column("problem_id").to_pylist() == ["s/bad", "t/broken", "s/p2", "s/p1"]


def test_resume_redoes_only_missing_units(tmp_path):
    work = tmp_path / "w"
    Pipeline(work, [ExactIdStage(), EvenOnly()], batch_rows=3).run(stream())
    # Simulate a kill in the middle of the last stage: its last unit has no marker.
    (work / "02-even" / "unit-00002.json").unlink()
    calls = []

    class Counting(EvenOnly):
        def judge(self, row):
            calls.append(row["id"])
            return super().judge(row)

    runs = Pipeline(work, [ExactIdStage(), Counting()], batch_rows=3).run(stream())
    assert calls == ["p4"]  # only the unit without a marker ran again
    assert dict(runs[-1].kept) == {"s": 2, "t": 1}


def test_reason_kind():
    assert reason_kind("duplicate_of:demo/p1 (jaccard=0.93)") == "duplicate_of"
    assert reason_kind("too_few_tests") == "too_few_tests"


def test_progress_counts_problems_within_a_unit_and_chunking_changes_nothing(tmp_path):
    """A long unit reports each chunk of problems it judged (a 256-row verify unit takes minutes)."""
    rows = [rec(i, source="s" if i % 3 else "t") for i in range(11)]
    events: list[tuple[str, int, int | None]] = []
    pipe = Pipeline(
        tmp_path / "a", [ExactIdStage(), EvenOnly()], batch_rows=5, chunk_rows=2,
        progress=lambda stage, done, total, info: events.append((stage, done, total)),
    )  # fmt: skip
    chunked = pipe.run(iter(rows))
    even = [done for stage, done, total in events if stage == "even"]
    assert even == [0, 2, 4, 5, 7, 9, 10, 11, 11]  # problems, not units (3 units of 5, 5, 1)
    assert {total for stage, _, total in events if stage == "even"} == {11}
    assert [done for stage, done, _ in events if stage == "schema"][-1] == 11
    whole = Pipeline(tmp_path / "b", [ExactIdStage(), EvenOnly()], batch_rows=5, chunk_rows=0).run(
        iter(rows)
    )
    for a, b in zip(chunked, whole):
        assert a.as_dict() == b.as_dict()
    again = list(Pipeline(tmp_path / "b", [ExactIdStage(), EvenOnly()]).kept())
    assert len(again) == 3 and all(a.equals(b) for a, b in zip(pipe.kept(), again))


def test_reasons_are_counted_per_source(tmp_path):
    runs = Pipeline(tmp_path / "w", [ExactIdStage(), EvenOnly()], batch_rows=3).run(stream())
    assert runs[0].as_dict()["reasons_by_source"] == {"s": {"malformed": 1}, "t": {"malformed": 1}}
    assert runs[2].as_dict()["reasons_by_source"] == {"s": {"odd": 1}}


def test_sliced_row_stages_submit_the_heaviest_slices_first(tmp_path):
    """On a cluster the slice holding the heaviest row (a long suite, as CodeContests') goes
    first, weighed by each row's bytes as the unit's marker has them (`UnitStats.kept_bytes`), so
    that a slow problem does not run alone at the end of a stage, whatever unit or place it has;
    every row of every unit is still in exactly one slice."""
    heavy = rec(40, tests=[{"input": "x" * 2000, "output": "40\n"}] * 20)
    pipe = Pipeline(tmp_path / "w", [EvenOnly()], batch_rows=80)
    pipe.ingest([rec(i) for i in range(40)] + [heavy] + [rec(i) for i in range(41, 100)])
    prev = pipe._dir(0, "schema")
    stats = pipe._read_stats(prev, 0)
    assert len(stats.kept_bytes) == 80 and max(stats.kept_bytes) == stats.kept_bytes[40] > 20 * 2000
    unit = pipe._kept_unit(0, "schema", 0)  # each row's bytes as Arrow counts a one-row slice's
    assert all(abs(b - unit.slice(i, 1).nbytes) <= 16 for i, b in enumerate(stats.kept_bytes))
    jobs, labels, cpus, merges, left = pipe._slice_jobs(
        [0, 1], prev, [pipe._dir(1, "even")], ["even"], lambda c: [None], [None]
    )
    assert jobs[0][1] == 0 and jobs[0][5] <= 40 < jobs[0][6]  # the heavy row's slice first
    assert cpus == [1] * len(jobs)  # a local executor: one CPU a task
    assert all(f"rows {j[5]}-{j[6]}" in label for j, label in zip(jobs, labels))
    rows = {u: sorted(r for j in jobs if j[1] == u for r in range(j[5], j[6])) for u in (0, 1)}
    assert rows == {0: list(range(80)), 1: list(range(20))}
    assert set(merges) == set(left) == {0, 1}
