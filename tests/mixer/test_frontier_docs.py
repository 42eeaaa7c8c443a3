"""Every Python block of docs/frontier.md runs as written (in a directory holding a small build `OUT`)."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "frontier.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def _write_build(root: Path) -> None:
    """A curated build's shards as the difficulty stage writes them: source, difficulty (some null)."""
    rng = np.random.default_rng(0)
    n = 300
    d = rng.uniform(0.05, 0.95, n)
    table = pa.table(
        {
            "problem_id": [f"s{i % 3}/{i}" for i in range(n)],
            "source": [f"s{i % 3}" for i in range(n)],
            "difficulty": [None if i % 17 == 0 else float(x) for i, x in enumerate(d)],
            "difficulty_std": [None if i % 17 == 0 else 0.05 for i in range(n)],
        }
    )
    (root / "OUT" / "problems").mkdir(parents=True)
    pq.write_table(table, root / "OUT" / "problems" / "part-00000.parquet")


def test_the_page_has_examples() -> None:
    assert len(_blocks()) >= 2


@pytest.mark.parametrize("k", range(len(_blocks())))
def test_frontier_doc_block_runs(k: int, tmp_path: Path) -> None:
    _write_build(tmp_path)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(_blocks()[k], f"docs/frontier.md block {k}", "exec"), {})
    finally:
        os.chdir(cwd)
