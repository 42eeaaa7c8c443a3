"""Fixtures shared by the trainer tests: the demo build and its TRL export with a held-out split."""

from __future__ import annotations

import subprocess
import sys

import pytest

CLI = [sys.executable, "-c", "from curation.cli import main; main()"]


@pytest.fixture(scope="session")
def demo_trl(demo_build, tmp_path_factory):
    """(build directory, TRL export directory): the demo build and its `codemix export --format trl
    --split test=0.2` (36 train rows of 45), made once per session."""
    root = tmp_path_factory.mktemp("demo-trl")
    subprocess.run(
        [*CLI, "export", str(demo_build), "--format", "trl", "--out", str(root / "trl"),
         "--split", "test=0.2"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return demo_build, root / "trl"


@pytest.fixture
def demo(demo_trl):
    """(build directory, the export's train split as a `datasets.Dataset`)."""
    from datasets import load_from_disk

    return demo_trl[0], load_from_disk(str(demo_trl[1]))["train"]
