"""Adding a stage is one declaration plus its code (docs/pipeline.md, "Adding a stage"): a settings
class, a stage class, and an entry in `filters.settings.STAGES`. Nothing else is edited, and the
build, BuildConfig, recipes, `make_stage` and the manifest all know the new stage."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow.parquet as pq
import pytest

from curation.build import BuildConfig, SourceSpec, build, make_stage
from curation.recipe import load_recipe
from curation.sources import get_source, iter_source
from filters.contracts import ProblemRow
from filters.settings import STAGE_SETTINGS, STAGES, StageEntry
from filters.stage import Decision, RowStage


@dataclass
class WordsConfig:
    """The toy stage's settings: the fewest words a statement may have."""

    min_words: int = 3


class WordsStage(RowStage):
    """Drops a problem whose statement has fewer than `min_words` words."""

    name = "words"
    settings_class = WordsConfig

    def __init__(self, settings: WordsConfig | None = None) -> None:
        self.settings = self.settings_from(settings)

    def judge(self, row: ProblemRow) -> Decision:
        n = len(row["statement"].split())
        if n < self.settings.min_words:
            return Decision.drop("short_statement", words=n)
        return Decision(True)


@pytest.fixture
def words_stage(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one declaration: the stage's entry in the registry."""
    monkeypatch.setitem(STAGES, "words", StageEntry(f"{__name__}:WordsStage", WordsConfig))


def _demo_words(limit: int) -> list[int]:
    return [len(r["statement"].split()) for r in list(iter_source(get_source("demo")))[:limit]]


def test_a_registered_stage_is_configured_everywhere(words_stage: None, tmp_path: Any) -> None:
    assert STAGE_SETTINGS["words"] is WordsConfig
    cfg = BuildConfig(sources=[SourceSpec("demo")])
    assert cfg.stages[-1] == "words" and cfg.settings_of("words") == WordsConfig()
    cfg = BuildConfig(sources=[SourceSpec("demo")], extra={"words": WordsConfig(min_words=40)})
    assert cfg.as_dict()["words"] == {"min_words": 40}
    assert BuildConfig.from_dict(cfg.as_dict()) == cfg
    assert cfg.updated(shard_rows=7).settings_of("words").min_words == 40
    assert cfg.updated(words=WordsConfig(min_words=9)).extra["words"].min_words == 9
    stage = make_stage("words", cfg, workers=1)
    assert isinstance(stage, WordsStage) and stage.config() == {"min_words": 40}
    with pytest.raises(TypeError, match="WordsConfig"):
        BuildConfig(sources=[SourceSpec("demo")], extra={"words": {"min_words": 4}})

    recipe = tmp_path / "r.toml"
    recipe.write_text('[build]\nstages = ["exact_id", "words"]\n[build.words]\nmin_words = 40\n'
                      '[[source]]\nname = "demo"\n')  # fmt: skip
    assert load_recipe(str(recipe)).settings_of("words").min_words == 40
    recipe.write_text('[build.words]\nmin_wordz = 4\n[[source]]\nname = "demo"\n')
    with pytest.raises(Exception, match="min_wordz"):
        load_recipe(str(recipe))


def test_a_registered_stage_runs_in_a_build_and_is_counted(
    words_stage: None, tmp_path: Any
) -> None:
    limit = 40
    words = _demo_words(limit)
    cut = sorted(words)[len(words) // 3]  # about a third of the demo rows are shorter
    expected_drops = sum(1 for n in words if n < cut)
    assert 0 < expected_drops < limit
    cfg = BuildConfig(
        sources=[SourceSpec("demo", limit=limit)],
        stages=["exact_id", "words"],
        extra={"words": WordsConfig(min_words=cut)},
    )
    result = build(cfg, tmp_path / "out", workers=1, write_report=False)
    run = next(r for r in result.manifest["counts"]["stages"] if r["stage"] == "words")
    assert sum(run["dropped"].values()) == expected_drops
    assert run["reasons"] == {"short_statement": expected_drops}
    assert result.manifest["stage_config"]["words"] == {"min_words": cut}
    assert result.manifest["config"]["words"] == {"min_words": cut}
    kept = sum(pq.read_table(f).num_rows for f in (tmp_path / "out" / "problems").glob("*.parquet"))
    assert kept == limit - expected_drops
