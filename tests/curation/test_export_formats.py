"""Every export format and split option loads with the loader its README row names, with one schema
across the export's files, and carries `source`, `difficulty_bucket` and the difficulty prior
(`difficulty`, `difficulty_std`) as top-level columns."""

from __future__ import annotations

import re
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.demo import DEMO_SOURCES
from curation.export import split_name

runner = CliRunner()
README = Path(__file__).resolve().parents[2] / "README.md"
SPLITS = {"none": [], "split": ["--split", "test=0.2"], "by-source": ["--split-by", "source"],
          "by-type": ["--split-by", "test_type"]}  # fmt: skip


@pytest.fixture
def demo(demo_build) -> Path:
    return demo_build


def readme_loader(fmt: str) -> str:
    """The 'load it with' cell of the format's row in the README's Exports table."""
    row = next(line for line in README.read_text().splitlines() if line.startswith(f"| `{fmt}` |"))
    return row.rstrip(" |").rsplit("|", 1)[1]


def load(fmt: str, out: Path) -> dict[str, datasets.Dataset]:
    """Load an export the way its README row says (verl: as verl does, file by file, concatenated)."""
    datasets.disable_progress_bars()
    cell = readme_loader(fmt)
    if fmt in ("jsonl", "parquet"):
        assert "datasets.load_dataset(PATH)" in cell
        return dict(
            datasets.load_dataset(str(out), cache_dir=str(out.parent / f"cache-{out.name}"))
        )
    if fmt in ("hf", "trl"):
        assert "datasets.load_from_disk(PATH)" in cell
        return dict(datasets.load_from_disk(str(out)))
    assert "data.train_files" in cell
    parts = {p.stem: datasets.load_dataset("parquet", data_files=str(p), cache_dir=str(out.parent / "c"))["train"]
             for p in sorted(out.glob("*.parquet"))}  # fmt: skip
    datasets.concatenate_datasets(
        list(parts.values())
    )  # verl concatenates its files: same features needed
    return parts


@pytest.mark.parametrize("split", list(SPLITS))
@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "hf", "verl", "trl"])
def test_every_format_and_split_loads_with_one_schema(
    demo: Path, tmp_path: Path, fmt: str, split: str
) -> None:
    out = tmp_path / f"{fmt}-{split}"
    r = runner.invoke(
        app, ["export", str(demo), "--format", fmt, "--out", str(out), *SPLITS[split]]
    )
    assert r.exit_code == 0, r.output
    loaded = load(fmt, out)
    kept = pq.read_table(demo / "problems").to_pylist()
    assert sum(len(d) for d in loaded.values()) == len(kept)
    expected = {
        "none": {"train"},
        "split": {"train", "test"},
        "by-source": {split_name(s) for s in DEMO_SOURCES},
        "by-type": {"stdio", "call", "assert"},
    }[split]
    assert set(loaded) == expected
    features = [d.features for d in loaded.values()]
    assert all(f == features[0] for f in features), "the files of one export differ in schema"
    for d in loaded.values():
        assert {"source", "difficulty_bucket"} <= set(d.column_names)
        assert d.features["difficulty_bucket"].dtype.startswith("int")
    # the frontier sampler's prior: each problem's difficulty and its uncertainty, as the build fit them
    built = {r["problem_id"]: (r["difficulty"], r["difficulty_std"]) for r in kept}
    for d in loaded.values():
        ids = (
            d["problem_id"]
            if "problem_id" in d.column_names
            else [e["problem_id"] for e in d["extra_info"]]
        )
        assert [built[i] for i in ids] == list(
            zip(d["difficulty"], d["difficulty_std"], strict=True)
        )
    assert any(std is not None for _, std in built.values())
    if split == "by-source":
        for name, d in loaded.items():
            assert {split_name(s) for s in d["source"]} == {name}


def test_split_names_are_valid_and_collisions_refused(demo: Path, tmp_path: Path) -> None:
    assert split_name("demo-contest") == "demo_contest" and split_name(None) == "none"
    assert all(re.fullmatch(r"\w+", split_name(s)) for s in ["a b", "x.y", "ü", "3"])
    r = runner.invoke(app, ["export", str(demo), "--format", "jsonl", "--out", str(tmp_path / "x"),
                            "--split-by", "nope"])  # fmt: skip
    assert r.exit_code == 2 and "no such column" in r.output
