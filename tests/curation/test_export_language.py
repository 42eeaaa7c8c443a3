"""`codemix export --language cpp`: prompts that ask for C++, a ground truth that says so."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from curation.export import export, prompt_text
from curation.schema import blank_record
from filters.contracts import UserError


def _build(tmp_path: Path) -> Path:
    out = tmp_path / "build"
    (out / "problems").mkdir(parents=True)
    (out / "manifest.json").write_text(json.dumps({"stages": []}))
    rows = []
    for i, kind in enumerate(["stdio", "call", "stdio"]):
        r = blank_record(
            {
                "source": "toy",
                "id": str(i),
                "statement": f"Print {i}.",
                "test_type": kind,
                "entry_point": "f" if kind == "call" else None,
                "starter_code": "def f():" if kind == "call" else None,
                "tests": [{"input": "[]" if kind == "call" else "", "output": f"{i}\n"}],
                "solutions": [f"print({i})"],
            }
        )
        r["problem_id"] = f"toy/{i}"
        rows.append(r)
    pq.write_table(pa.Table.from_pylist(rows), out / "problems" / "part-00000.parquet")
    return out


def test_a_cpp_export_asks_for_cpp_and_keeps_stdio_problems(tmp_path: Path) -> None:
    build = _build(tmp_path)
    assert export(build, "verl", tmp_path / "cpp", language="cpp") == {"train": 2}
    rows = pq.read_table(tmp_path / "cpp" / "train.parquet").to_pylist()
    for row in rows:
        prompt = row["prompt"][0]["content"]
        assert "C++ program" in prompt and "```cpp" in prompt and "```python" not in prompt
        gt = json.loads(row["reward_model"]["ground_truth"])
        assert gt["language"] == "cpp" and gt["test_type"] == "stdio"
    assert export(build, "verl", tmp_path / "py") == {"train": 3}
    py = pq.read_table(tmp_path / "py" / "train.parquet").to_pylist()[0]
    assert json.loads(py["reward_model"]["ground_truth"])["language"] == "python"


def test_the_python_prompt_is_unchanged() -> None:
    row = {
        "statement": "Add.",
        "test_type": "call",
        "entry_point": "add",
        "starter_code": "def add(a, b):",
    }
    assert prompt_text(row) == prompt_text(row, "python")
    assert "```python" in prompt_text(row) and "in Python" in prompt_text(row)


def test_languages_other_than_the_judged_ones_are_refused(tmp_path: Path) -> None:
    build = _build(tmp_path)
    with pytest.raises(UserError, match="unknown language"):
        export(build, "verl", tmp_path / "x", language="java")
    with pytest.raises(UserError, match="verl or trl"):
        export(build, "jsonl", tmp_path / "x", language="cpp")
