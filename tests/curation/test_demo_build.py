"""End to end: the embedded demo builds, every planted defect is caught by the stage meant to catch
it, every clean problem survives, and the build is the same on the local and the Ray executor."""

from __future__ import annotations

import json

import datasets
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.demo import CLEAN_IDS, DEMO_SOURCES, PLANTED
from curation.store import read_table
from filters.settings import STAGES
from tests.curation.reproducible import comparable

runner = CliRunner()


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "out"
    r = runner.invoke(app, ["build", "--out", str(out), "--workers", "2"])
    assert r.exit_code == 0, r.output
    return out


def test_every_planted_defect_is_caught_where_it_should_be(demo):
    rejected = {r["problem_id"]: r for r in read_table(demo, "rejected").to_pylist()}
    for pid, (stage, reason) in PLANTED.items():
        row = rejected.get(pid)
        assert row is not None, f"{pid} was not rejected"
        assert row["reject_stage"] == stage, (pid, row["reject_stage"], row["reject_reason"])
        if stage == "schema":
            assert row["reject_reason"] == f"malformed:{reason}"
        else:
            assert row["reject_reason"].startswith(reason), (pid, row["reject_reason"])
    assert set(rejected) == set(PLANTED)


def test_clean_problems_survive_with_every_stage_column(demo):
    kept = read_table(demo, "problems")
    assert set(kept.column("problem_id").to_pylist()) == set(CLEAN_IDS)
    for col in (
        "verified",
        "passing_solutions",
        "tests_total",
        "ref_cpu_ms",
        "test_strength",
        "time_limit_s",
        "dup_cluster",
        "dup_cluster_size",
        "contaminated_by",
        "difficulty",
        "difficulty_bucket",
    ):
        assert col in kept.column_names, col
    rows = kept.to_pylist()
    assert all(
        r["verified"] and r["passing_solutions"] >= 1 and r["tests_total"] >= 5 for r in rows
    )
    assert all(r["time_limit_s"] > 0 and r["ref_cpu_ms"] > 0 for r in rows)
    assert all(r["contaminated_by"] is None for r in rows)


def test_manifest_reports_isolation_and_the_funnel(demo):
    m = json.loads((demo / "manifest.json").read_text())
    assert m["environment"]["verify"]
    stages = [s["stage"] for s in m["counts"]["stages"]]
    assert stages == ["schema", *STAGES]  # every registered stage, in the registry's order
    assert sum(m["counts"]["output"].values()) == len(CLEAN_IDS)
    assert "ref_cpu_ms" in m["measured_columns"]


def test_info_query_and_every_export_format_load_back(demo, tmp_path):
    r = runner.invoke(app, ["info", str(demo)])
    assert r.exit_code == 0 and "too_few_tests" in r.output and "difficulty" in r.output
    r = runner.invoke(app, ["query", str(demo), "SELECT count(*) AS n FROM rejected", "--json"])
    assert json.loads(r.stdout.splitlines()[0]) == {"n": len(PLANTED)}
    n = len(CLEAN_IDS)
    for fmt in ("jsonl", "parquet", "hf", "verl", "trl"):
        out = tmp_path / fmt
        r = runner.invoke(
            app, ["export", str(demo), "--format", fmt, "--out", str(out), "--split", "test=0.2"]
        )
        assert r.exit_code == 0, r.output
        if fmt in ("hf", "trl"):
            dd = datasets.load_from_disk(str(out))
            total = sum(len(d) for d in dd.values())
            first = dd["train"][0]
        else:
            ext = "jsonl" if fmt == "jsonl" else "parquet"
            dd = datasets.load_dataset(
                "json" if ext == "jsonl" else "parquet",
                data_files={s: str(out / f"{s}.{ext}") for s in ("train", "test")},
            )
            total = sum(len(d) for d in dd.values())
            first = dd["train"][0]
        assert total == n, fmt
        if fmt == "verl":
            assert first["prompt"][0]["role"] == "user" and first["reward_model"]["style"] == "rule"
            assert json.loads(first["reward_model"]["ground_truth"])["test_type"] in (
                "stdio",
                "call",
                "assert",
            )
        if fmt == "trl":
            assert first["prompt"][0]["role"] == "user" and "ground_truth" in first
    r = runner.invoke(
        app,
        [
            "export",
            str(demo),
            "--format",
            "jsonl",
            "--out",
            str(tmp_path / "by"),
            "--split-by",
            "test_type",
        ],
    )
    assert r.exit_code == 0 and {p.stem for p in (tmp_path / "by").glob("*.jsonl")} == {
        "stdio",
        "call",
        "assert",
    }


def test_the_demo_gives_a_mixer_sources_to_mix(demo):
    """Grouping the demo by source gives three groups of different difficulty, not weights [1.0]."""
    from mixer import MixedSampler

    by_source = MixedSampler.from_shards(demo, batch_size=8, group_by="source", seed=0)
    assert by_source.names == sorted(DEMO_SOURCES) and len(by_source.mixer.weights()) == 3
    table = by_source.dataset
    mean = {
        s: sum(
            d
            for d, src in zip(
                table.column("difficulty").to_pylist(), table.column("source").to_pylist()
            )
            if src == s
        )
        / table.column("source").to_pylist().count(s)
        for s in DEMO_SOURCES
    }
    assert mean["demo-contest"] > mean["demo-basics"]  # contest problems are harder on average
    by_bucket = MixedSampler.from_shards(demo, batch_size=8, group_by="difficulty_bucket", seed=0)
    assert len(by_bucket.names) == 5


def test_ray_executor_builds_the_same_demo(demo, tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "ray"
    r = runner.invoke(app, ["build", "--out", str(out), "--executor", "ray", "--workers", "2"])
    assert r.exit_code == 0, r.output
    local, ray = comparable(demo), comparable(out)
    for part in ("manifest", "problems", "rejected"):
        assert local[part] == ray[part], part


def test_shards_are_zstd_parquet(demo):
    meta = pq.ParquetFile(next((demo / "problems").glob("*.parquet"))).metadata
    assert meta.row_group(0).column(0).compression == "ZSTD"
