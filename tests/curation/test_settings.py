"""One home per setting: the command line, a recipe and the Python API resolve to the same defaults,
and a stage built by the build has the defaults the stage has on its own."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from curation.build import BuildConfig, SourceSpec, make_stage
from curation.cli import app
from curation.recipe import load_recipe
from filters.decontam import DecontamConfig, DecontamStage
from filters.dedup import DedupConfig, DedupStage
from filters.difficulty import DifficultyConfig, DifficultyStage


class _Captured(Exception):
    pass


def _cli_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, *args: str) -> BuildConfig:
    """The configuration `codemix build ARGS` resolves (the build itself is not run)."""
    seen: list[BuildConfig] = []

    def capture(cfg: BuildConfig, out: Any, **kwargs: Any) -> Any:
        seen.append(cfg)
        raise _Captured

    command = importlib.import_module("curation.commands.build")
    monkeypatch.setattr(command, "build", capture)
    result = CliRunner().invoke(app, ["build", "--out", str(tmp_path / "out"), *args])
    assert isinstance(result.exception, _Captured), result.output
    return seen[0]


def test_command_line_recipe_and_python_resolve_the_same_defaults(monkeypatch, tmp_path):
    python = BuildConfig(sources=[SourceSpec("demo")])
    cli = _cli_config(monkeypatch, tmp_path)
    recipe_file = tmp_path / "demo.toml"
    recipe_file.write_text('[[source]]\nname = "demo"\n')
    recipe = load_recipe(str(recipe_file))
    assert recipe.prefer == ["demo"]  # a recipe's sources, in order, are its preference for dedup
    recipe.prefer = []
    assert cli.as_dict() == python.as_dict() == recipe.as_dict()


def test_the_command_line_overrides_a_recipe_instead_of_being_ignored(monkeypatch, tmp_path):
    cfg = _cli_config(
        monkeypatch, tmp_path, "--recipe", "demo", "--min-tests", "3", "--buckets", "4"
    )
    assert (cfg.min_tests, cfg.buckets) == (3, 4)
    assert cfg.shard_rows == BuildConfig.__dataclass_fields__["shard_rows"].default


def test_the_settings_module_loads_no_stage():
    out = subprocess.run(
        [sys.executable, "-c", "import sys, filters.settings; print(sorted(sys.modules))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    loaded = set(ast.literal_eval(out.stdout))
    assert not loaded & {"numpy", "pyarrow", "filters.dedup", "filters.decontam", "filters.verify"}


def test_build_settings_default_to_the_stages_own():
    cfg = BuildConfig(sources=[SourceSpec("demo")])
    assert cfg.dedup_threshold == DedupConfig.threshold
    assert (cfg.ngram, tuple(cfg.decontaminate_against)) == (
        DecontamConfig.ngram,
        DecontamConfig.against,
    )
    assert cfg.buckets == DifficultyConfig.buckets


@pytest.mark.parametrize(
    ("name", "alone"),
    [("dedup", DedupStage), ("decontam", DecontamStage), ("difficulty", DifficultyStage)],
)
def test_a_stage_built_by_the_build_has_the_stages_own_defaults(name, alone):
    """`DifficultyStage()` used 10 buckets and the build 5; `DecontamStage()` checked HumanEval
    only and the build every shipped benchmark."""
    built = make_stage(name, BuildConfig(sources=[SourceSpec("demo")]), 1)
    assert built.config() == alone().config()
