"""One home per setting: the command line, a recipe and the Python API resolve to the same defaults,
and a stage built by the build has the defaults the stage has on its own."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from curation.build import STAGE_SETTINGS, BuildConfig, SourceSpec, make_stage
from curation.cli import app
from curation.recipe import load_recipe
from filters.contracts import UserError
from filters.settings import STAGES, DedupConfig, VerifyConfig
from filters.stages.amplify.stage import AmplifyStage
from filters.stages.decontam.stage import DecontamStage
from filters.stages.dedup.stage import DedupStage
from filters.stages.difficulty import DifficultyStage
from filters.stages.verify.stage import VerifyStage


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
    assert recipe.dedup.prefer == ("demo",)  # a recipe's sources, in order, are its preference
    recipe.dedup.prefer = ()
    assert cli.as_dict() == python.as_dict() == recipe.as_dict()


def test_the_command_line_overrides_a_recipe_instead_of_being_ignored(monkeypatch, tmp_path):
    cfg = _cli_config(
        monkeypatch, tmp_path, "--recipe", "demo", "--min-tests", "3", "--buckets", "4"
    )
    assert (cfg.verify.min_tests, cfg.difficulty.buckets) == (3, 4)
    assert cfg.shard_rows == inspect.signature(BuildConfig).parameters["shard_rows"].default


def test_keep_incomplete_tests_is_a_flag_and_reaches_verify(monkeypatch, tmp_path):
    """It was settable only from Python; the flag, the recipe and Python now set the same thing."""
    assert not _cli_config(monkeypatch, tmp_path).verify.keep_incomplete_tests
    cfg = _cli_config(monkeypatch, tmp_path, "--keep-incomplete-tests")
    assert cfg.verify.keep_incomplete_tests
    assert make_stage("verify", cfg, 1).settings.keep_incomplete_tests
    recipe = tmp_path / "r.toml"
    recipe.write_text('[build.verify]\nkeep_incomplete_tests = true\n\n[[source]]\nname = "demo"\n')
    assert load_recipe(str(recipe)).verify == cfg.verify


def test_the_settings_module_loads_no_stage():
    out = subprocess.run(
        [sys.executable, "-c", "import sys, filters.settings; print(sorted(sys.modules))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    loaded = set(ast.literal_eval(out.stdout))
    stages = {"filters.stages.amplify.stage", "filters.stages.dedup.stage", "filters.stages.decontam.stage", "filters.stages.verify.stage"}
    assert not loaded & {"numpy", "pyarrow", *stages}


def test_a_build_nests_each_stages_own_settings():
    cfg = BuildConfig(sources=[SourceSpec("demo")])
    for name, settings_class in STAGE_SETTINGS.items():
        assert getattr(cfg, name) == settings_class(**({"prefer": ()} if name == "dedup" else {}))
    assert cfg.as_dict()["verify"] == asdict(VerifyConfig())


@pytest.mark.parametrize(
    ("name", "alone"),
    [
        ("amplify", AmplifyStage),
        ("verify", VerifyStage),
        ("dedup", DedupStage),
        ("decontam", DecontamStage),
        ("difficulty", DifficultyStage),
    ],
)
def test_a_stage_built_by_the_build_has_the_stages_own_defaults(name, alone):
    """`VerifyStage()` made 6 mutants and the build 8; `DifficultyStage()` used 10 buckets and
    the build 5; `DecontamStage()` checked HumanEval only and the build every shipped benchmark."""
    built = make_stage(name, BuildConfig(sources=[SourceSpec("demo")]), 1)
    assert built.config() == alone().config()


def test_amplify_and_verify_settings_from_a_recipe_reach_the_stages(tmp_path):
    """A recipe's `[build.amplify]` and `[build.verify]` tables set the stages; amplification
    still grows a suite to at least verify's `min_tests` (as the build did before the nesting)."""
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        "[build.verify]\nmin_tests = 12\nmin_mutation_score = 0.25\n\n"
        "[build.amplify]\nmax_generated = 20\nrounds = 2\n\n"
        '[[source]]\nname = "demo"\n'
    )
    cfg = load_recipe(str(recipe))
    amplify = make_stage("amplify", cfg, 1).config()
    assert (amplify["target_tests"], amplify["max_generated"], amplify["rounds"]) == (12, 20, 2)
    verify = make_stage("verify", cfg, 1).config()
    assert (verify["min_tests"], verify["min_mutation_score"]) == (12, 0.25)
    default = make_stage("amplify", BuildConfig(sources=[SourceSpec("demo")]), 1).config()
    assert default["target_tests"] == AmplifyStage().settings.target_tests == 10
    bad = tmp_path / "bad.toml"
    bad.write_text('[build.amplify]\ntargets = 3\n\n[[source]]\nname = "demo"\n')
    with pytest.raises(UserError, match=r"unknown \[build.amplify\] key\(s\) targets"):
        load_recipe(str(bad))


def test_a_recipe_sets_a_stage_setting_by_its_command_line_name_too(tmp_path):
    recipe = tmp_path / "flat.toml"
    recipe.write_text('[build]\nmin_tests = 2\nbuckets = 3\n\n[[source]]\nname = "demo"\n')
    cfg = load_recipe(str(recipe))
    assert (cfg.verify.min_tests, cfg.difficulty.buckets) == (2, 3)


def test_build_config_takes_the_stages_settings_objects_only():
    """The flat names (`min_tests=`) were a compatibility layer for a release that never shipped."""
    with pytest.raises(TypeError, match="min_tests"):
        BuildConfig(sources=[SourceSpec("demo")], min_tests=3)
    cfg = BuildConfig(sources=[SourceSpec("demo")])
    assert not hasattr(cfg, "buckets")


def test_every_flag_is_an_option_that_reaches_its_stage(monkeypatch, tmp_path):
    """`codemix build` makes one option per entry of `filters.settings.FLAGS`; `--mutants` and
    `--min-mutation-score` were named as options in `OPTION_OF` while no such option existed."""
    from filters.settings import FLAGS

    cfg = _cli_config(monkeypatch, tmp_path, "--mutants", "3", "--min-mutation-score", "0.25")
    assert (cfg.verify.mutants, cfg.verify.min_mutation_score) == (3, 0.25)
    assert make_stage("verify", cfg, 1).config()["mutants"] == 3
    help_text = CliRunner().invoke(app, ["build", "--help"], terminal_width=200).output
    for name in FLAGS:
        assert f"--{name.replace('_', '-')}" in help_text, name


def test_build_config_resolves_options_without_the_command_line():
    from curation.commands.build import build_config

    cfg = build_config(source=["demo"], limit=3, min_tests=2, prefer=["demo"], skip=["dedup"])
    assert cfg.sources[0].limit == 3 and cfg.verify.min_tests == 2
    assert cfg.dedup.prefer == ("demo",) and "dedup" not in cfg.stages
    assert build_config() == BuildConfig(sources=[SourceSpec(name="demo")])
    with pytest.raises(UserError, match="--mutants"):
        build_config(mutants=-1)
    with pytest.raises(UserError, match="--skip"):
        build_config(skip=["nope"])


@pytest.mark.parametrize(
    ("flag", "value", "table", "key", "line"),
    [
        ("--dedup-threshold", "1.5", "dedup", "threshold",
         "dedup.threshold (--dedup-threshold) must be in (0, 1], got 1.5"),
        ("--mutants", "-2", "verify", "mutants", "verify.mutants (--mutants) must be at least 0, got -2"),
        ("--buckets", "0", "difficulty", "buckets", "difficulty.buckets (--buckets) must be at least 1, got 0"),
        ("--ngram", "0", "decontam", "ngram", "decontam.ngram (--ngram) must be at least 1, got 0"),
    ],
)  # fmt: skip
def test_an_out_of_range_setting_fails_with_one_line_from_a_recipe_or_a_flag(
    tmp_path, flag, value, table, key, line
):
    """The range of a setting is checked once, by its settings class: the command line checked
    three flags itself while a recipe's `[build.dedup] threshold = 1.5` reached the stage (a
    ValueError there, after the build had started) and `[build.verify] mutants = -2` passed."""
    recipe = tmp_path / "r.toml"
    recipe.write_text(f'[build.{table}]\n{key} = {value}\n\n[[source]]\nname = "demo"\n')
    flat = tmp_path / "flat.toml"  # a setting by its command-line name in [build]
    flat.write_text(f'[build]\n{flag[2:].replace("-", "_")} = {value}\n\n[[source]]\nname = "demo"\n')
    outputs = []
    for args in ([flag, value], ["--recipe", str(recipe)], ["--recipe", str(flat)]):
        r = CliRunner().invoke(app, ["build", "--out", str(tmp_path / "out"), *args])
        assert r.exit_code == 2, r.output
        outputs.append(r.output.strip())
    assert outputs == [f"error: {line}"] * 3
    assert not (tmp_path / "out").exists()  # refused before any work
    settings_class = STAGE_SETTINGS[table]
    typed = {key: type(getattr(settings_class(), key))(value)}
    with pytest.raises(UserError) as made:  # in Python too (a stage takes only this object)
        settings_class(**typed)
    assert str(made.value) == line


def test_every_stage_takes_its_settings_object_and_no_loose_settings():
    """Issue 51: stages took `**overrides` beside their settings object, so the type checker never
    saw a stage's keyword arguments. A stage's signature names what it takes; a setting by name is
    a TypeError."""
    for name, entry in STAGES.items():
        params = inspect.signature(entry.load()).parameters.values()
        assert not [p.name for p in params if p.kind is p.VAR_KEYWORD], name
    with pytest.raises(TypeError, match="threshold"):
        DedupStage(threshold=0.9)  # type: ignore[call-arg]
    assert DedupStage(DedupConfig(threshold=0.9)).settings.threshold == 0.9
