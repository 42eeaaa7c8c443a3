"""The stage lifecycle as the pipeline and the build drive it, and rerunning one stage on a finished build."""

from __future__ import annotations

import importlib
import json
import warnings
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from curation.build import BuildConfig, SourceSpec, build
from curation.pipeline import Pipeline, _unit_paths, process_unit, rerun_stage
from curation.record_files import write_jsonl
from curation.store import read_manifest, read_table, sha256_file
from filters.contracts import REJECTED_SCHEMA, UserError
from filters.settings import DecontamConfig
from filters.stage import Decision, GlobalStage, RowStage, Stage
from filters.stages.exact_id import ExactIdStage


def rec(i: int) -> dict[str, Any]:
    return {
        "id": f"p{i}",
        "source": "odd" if i % 2 else "even",
        "statement": f"Print the number {i}.",
        "test_type": "stdio",
        "tests": [{"input": "", "output": f"{i}\n"}],
        "solutions": [f"print({i})"],
    }


class Minimal(RowStage):
    """A stage that declares nothing but its judgement: the lifecycle's defaults do the rest."""

    name = "minimal"

    def judge(self, row: dict[str, Any]) -> Decision:
        return Decision(True)


class DropOdd(RowStage):
    name = "drop_odd"
    output_schema = pa.schema([pa.field("number", pa.int64())])

    def judge(self, row: dict[str, Any]) -> Decision:
        n = int(row["id"][1:])
        return Decision(True, columns={"number": n}) if n % 2 == 0 else Decision.drop("odd", n=n)


class KeepLargest(GlobalStage):
    """Keeps the `k` problems with the largest numbers: needs every row before it can decide."""

    name = "keep_largest"

    def __init__(self, k: int) -> None:
        self.k = k
        self.seen: list[int] = []
        self.observed_batches = 0
        self.cut: int | None = None

    def observe(self, batch: pa.Table) -> None:
        self.observed_batches += 1
        self.seen += [int(i[1:]) for i in batch.column("id").to_pylist()]

    def decide(self) -> None:
        self.cut = sorted(self.seen)[-self.k]

    def judge_rows(self, rows: list[dict[str, Any]]) -> list[Decision]:
        assert self.cut is not None, "judged before decide()"
        return [
            Decision(True) if int(r["id"][1:]) >= self.cut else Decision.drop("small") for r in rows
        ]


class Recorder(RowStage):
    """Counts its closes and reports an environment."""

    name = "recorder"

    def __init__(self) -> None:
        self.closed = 0

    def judge(self, row: dict[str, Any]) -> Decision:
        return Decision(True)

    def environment(self) -> dict[str, Any]:
        return {"seen": "yes"}

    def close(self) -> None:
        self.closed += 1


def test_lifecycle_defaults_let_a_stage_declare_only_its_judgement():
    stage = Minimal()
    assert stage.config() == {} and stage.environment() is None
    stage.close()  # holds nothing; closing is harmless, twice too
    stage.close()
    assert stage.process(pa.table({"id": ["a"]})).kept.num_rows == 1


def test_a_global_stage_is_recognised_by_its_type(tmp_path: Path):
    stage = KeepLargest(2)
    runs = Pipeline(tmp_path / "w", [stage], batch_rows=2).run(rec(i) for i in range(5))
    assert stage.observed_batches == 3  # every unit observed before any is judged
    assert sum(runs[-1].kept.values()) == 2 and dict(runs[-1].reasons) == {"small": 3}


def test_process_unit_closes_the_stages_it_builds_and_only_those(tmp_path: Path):
    pipe = Pipeline(tmp_path / "w", [], batch_rows=10)
    pipe.ingest(rec(i) for i in range(3))
    unit = _unit_paths(pipe._dir(0, "schema"), 0)[0]
    built: list[Recorder] = []

    def factory() -> Stage:
        built.append(Recorder())
        return built[-1]

    process_unit(factory, unit, tmp_path / "a", 0)
    assert [s.closed for s in built] == [1]
    given = Recorder()
    process_unit(given, unit, tmp_path / "b", 0)
    assert given.closed == 0  # a stage passed in belongs to its caller


def test_process_unit_says_the_stage_environment_only_when_asked(tmp_path: Path):
    """A local build asks nothing per unit (a stage's environment() can start a sandbox); a task
    on another node asks, to report the isolation on its worker."""
    pipe = Pipeline(tmp_path / "w", [], batch_rows=10)
    pipe.ingest(rec(i) for i in range(3))
    unit = _unit_paths(pipe._dir(0, "schema"), 0)[0]
    asked: list[int] = []

    class Counting(Recorder):
        def environment(self) -> dict[str, Any]:
            asked.append(1)
            return super().environment()

    assert process_unit(Counting(), unit, tmp_path / "a", 0) == (3, None) and not asked
    done = process_unit(Counting(), unit, tmp_path / "b", 0, report_environment=True)
    assert done.rows == 3 and done.environment == {"seen": "yes"} and asked == [1]


def test_build_closes_every_stage_once_and_stores_only_environments_that_say_something(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    stages: list[Stage] = [ExactIdStage(), Minimal(), Recorder()]
    build_module = importlib.import_module(
        "curation.build"
    )  # `curation.build` is also the function
    monkeypatch.setattr(build_module, "make_stages", lambda cfg, workers: stages)
    write_jsonl([rec(i) for i in range(4)], tmp_path / "in.jsonl")
    cfg = BuildConfig(
        sources=[SourceSpec("canonical", str(tmp_path / "in.jsonl"))],
        decontam=DecontamConfig(against=()),
    )
    result = build(cfg, tmp_path / "out", write_report=False)
    assert stages[2].closed == 1  # type: ignore[attr-defined]
    assert result.manifest["environment"] == {"recorder": {"seen": "yes"}}


def _finished_build(tmp_path: Path, n: int = 9) -> Path:
    write_jsonl([rec(i) for i in range(n)], tmp_path / "in.jsonl")
    cfg = BuildConfig(
        sources=[SourceSpec("canonical", str(tmp_path / "in.jsonl"))],
        stages=["exact_id"],
        decontam=DecontamConfig(against=()),
        shard_rows=4,
    )
    return build(cfg, tmp_path / "out", write_report=False).out


def test_rerun_a_row_stage_on_a_finished_build(tmp_path: Path):
    out = _finished_build(tmp_path)
    stage = DropOdd()
    rerun = rerun_stage(out, stage)
    kept = read_table(out, "problems")
    assert kept.column("number").to_pylist() == [0, 2, 4, 6, 8]
    assert [e["file"] for e in rerun.problems] == ["problems/part-00000.parquet", "problems/part-00001.parquet",
                                                   "problems/part-00002.parquet"]  # fmt: skip
    for entry in rerun.problems:
        assert sha256_file(out / entry["file"]) == entry["sha256"]
    rejected = pq.read_table(out / rerun.rejected["file"])  # type: ignore[index]
    assert rerun.rejected["file"] == "rejected/drop_odd-00000.parquet"  # type: ignore[index]
    assert rejected.schema == REJECTED_SCHEMA
    assert set(rejected.column("reject_stage").to_pylist()) == {"drop_odd"}
    assert [json.loads(d)["n"] for d in rejected.column("reject_detail").to_pylist()] == [
        1,
        3,
        5,
        7,
    ]
    assert dict(rerun.run.kept) == {"even": 5} and dict(rerun.run.reasons) == {"odd": 4}
    assert not list(out.glob(".problems*"))

    manifest = read_manifest(out)
    assert manifest is not None
    rerun.update_manifest(manifest, stage)
    assert manifest["problems"] == rerun.problems
    assert manifest["rejected"][-1] == rerun.rejected
    assert manifest["counts"]["output"] == {"even": 5} and manifest["counts"]["rejected"] == 4
    assert manifest["counts"]["stages"][-1] == {
        "stage": "drop_odd",
        "kept": {"even": 5},
        "dropped": {"odd": 4},
        "reasons": {"odd": 4},
        "reasons_by_source": {"odd": {"odd": 4}},
        "in": {"even": 5, "odd": 4},
    }
    rerun.update_manifest(manifest, stage)  # a second run of the same stage replaces its funnel row
    assert [s["stage"] for s in manifest["counts"]["stages"]].count("drop_odd") == 1


def test_rerun_a_global_stage_observes_every_shard_first(tmp_path: Path):
    out = _finished_build(tmp_path)
    stage = KeepLargest(3)
    rerun = rerun_stage(out, stage)
    assert stage.observed_batches == 3
    assert read_table(out, "problems").column("id").to_pylist() == ["p6", "p7", "p8"]
    assert rerun.rejected is not None and rerun.rejected["rows"] == 6
    again = rerun_stage(out, KeepLargest(1))  # the next rerun's rejected file does not overwrite
    assert (
        again.rejected is not None
        and again.rejected["file"] == "rejected/keep_largest-00001.parquet"
    )


def test_rerun_on_a_directory_without_shards_is_a_user_error(tmp_path: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserError, match="holds no parquet shards"):
            rerun_stage(tmp_path, Minimal())
