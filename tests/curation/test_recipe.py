"""Recipes: shipped ones parse, mistakes are named, and a recipe build stores its resolved recipe."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.recipe import RECIPES_DIR, load_recipe
from curation.record_files import write_jsonl
from filters.contracts import UserError

runner = CliRunner()


@pytest.mark.parametrize("name", sorted(p.stem for p in RECIPES_DIR.glob("*.toml")))
def test_shipped_recipes_parse(name):
    cfg = load_recipe(name)
    assert cfg.sources and list(cfg.dedup.prefer) == [s.name for s in cfg.sources]


def test_deepcoder_recipe_is_what_the_issue_asks_for():
    cfg = load_recipe("deepcoder")
    assert [s.name for s in cfg.sources] == ["taco-verified", "primeintellect", "lcb"]
    assert cfg.verify.min_tests == 5 and "humaneval" in cfg.decontam.against
    assert any(b.startswith("lcb") for b in cfg.decontam.against) and cfg.decontam.lcb_start and cfg.decontam.lcb_end


@pytest.mark.parametrize(
    "text, message",
    [
        ("[build]\nmin_tests = 5\n", "no [[source]]"),
        ("[build]\nmin_test = 5\n[[source]]\nname='demo'\n", "unknown [build] key(s) min_test"),
        ("[[source]]\npath='x'\n", "needs `name`"),
        ("[oops]\n", "unknown table"),
        ("[build\n", "not valid TOML"),
    ],
)
def test_recipe_mistakes_are_user_errors(tmp_path, text, message):
    p = tmp_path / "r.toml"
    p.write_text(text)
    with pytest.raises(UserError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        load_recipe(str(p))


def test_recipe_build_records_the_resolved_recipe_and_refuses_a_change(tmp_path):
    rows = [{"id": f"r{i}", "source": "toy", "statement": f"Print {i} squared.", "test_type": "stdio",
             "tests": [{"input": "", "output": f"{i * i}\n"}] * 5, "solutions": [f"print({i}*{i})"]} for i in range(1, 7)]
    # (from 1: every mutant of `print(0*0)` prints 0 too, so its tests are weak_tests by mutation score)
    write_jsonl(rows, tmp_path / "toy.jsonl")
    recipe = tmp_path / "r.toml"
    recipe.write_text('[build]\nmin_tests = 5\nshard_rows = 4\n\n[[source]]\nname = "canonical"\npath = "toy.jsonl"\n')
    out = tmp_path / "out"
    r = runner.invoke(app, ["build", "--recipe", str(recipe), "--out", str(out)])
    assert r.exit_code == 0, r.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["config"]["shard_rows"] == 4 and m["config"]["sources"][0]["path"] == str(tmp_path / "toy.jsonl")
    assert sum(m["counts"]["output"].values()) == 6
    recipe.write_text(recipe.read_text().replace("shard_rows = 4", "shard_rows = 5"))
    r = runner.invoke(app, ["build", "--recipe", str(recipe), "--out", str(out)])
    assert r.exit_code == 2 and "--force" in r.output
    r = runner.invoke(app, ["build", "--recipe", str(recipe), "--source", "mbpp", "--out", str(out)])
    assert r.exit_code == 2 and "either --recipe or --source" in r.output


def test_deepcoder_decontaminates_against_livecodebench_read_from_the_hub_by_date(
    monkeypatch, tmp_path
):
    """Bug: the recipe decontaminated against lcb=/data/livecodebench/test6.jsonl, a path no user
    has. Now a bare `lcb` is LiveCodeBench's files on the hub, read as the `lcb` source reads them
    (here a folder standing in for hf://datasets, the fixture rows in the hub's schema, split
    over its release files test.jsonl ... test6.jsonl), kept to the decontam window by date.
    Reading them through `datasets` also showed that its JSON reader makes `contest_date` a
    timestamp, which the column check refused: the `lcb` source could not read the hub at all."""
    from pathlib import Path

    from curation.build import _decontamination, make_stage
    from curation.record_files import records_to_table
    from curation.schema import normalize_record
    from curation.sources import iter_source

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("curation.sources.hub.HUB_URL", str(tmp_path))
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "hub" / "lcb"
    lines = (fixture / "test.jsonl").read_text().splitlines()
    repo = tmp_path / "livecodebench" / "code_generation_lite"
    repo.mkdir(parents=True)
    for i in range(6):  # one row a file; the last files repeat the last row (counted once)
        name = "test.jsonl" if i == 0 else f"test{i + 1}.jsonl"
        (repo / name).write_text(lines[min(i, len(lines) - 1)] + "\n")
    cfg = load_recipe("deepcoder")
    assert "lcb" in cfg.decontam.against and not any("=" in a for a in cfg.decontam.against)
    stage = make_stage("decontam", cfg, None)
    # 2024-09 and 2024-10 (9902's private tests do not decode: its statement still counts);
    # abc999_a (2023-06) is training data
    assert sorted(p.id for p in stage.problems if p.benchmark == "lcb") == ["9901", "9902"]
    (entry,) = [d for d in _decontamination(cfg, [stage]) if d["name"] == "lcb"]
    assert entry["hub"] == "livecodebench/code_generation_lite" and entry["problems"] == 2
    assert entry["lcb_start"] == "2024-08-01" and entry["lcb_end"] == "2025-05-01"
    training = [normalize_record(r) for r in iter_source("lcb", fixture) if isinstance(r, dict)]
    result = stage.process(records_to_table(training))
    assert [r["id"] for r in result.kept.to_pylist()] == ["abc999_a"]
    # the local-file option stays: lcb=PATH reads that file, inside the same window
    local_cfg = cfg.updated(decontaminate_against=[f"lcb={fixture / 'test.jsonl'}"])
    assert {p.id for p in make_stage("decontam", local_cfg, None).problems} == {"9901", "9902"}
