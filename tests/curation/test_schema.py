"""The canonical record: defaults, validation naming the bad field, JSONL and Parquet round trips."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from curation.record_files import (
    read_jsonl,
    read_parquet,
    records_to_table,
    write_jsonl,
    write_parquet,
)
from curation.schema import RecordError, normalize_record
from filters.contracts import KEPT_BASE_SCHEMA, PROBLEM_FIELDS


def stdio_record(**over):
    rec = {
        "id": "p1",
        "source": "demo",
        "statement": "Read two integers and print their sum.",
        "test_type": "stdio",
        "tests": [{"input": "1 2\n", "output": "3\n"}],
        "solutions": ["a, b = map(int, input().split())\nprint(a + b)\n"],
    }
    rec.update(over)
    return rec


def test_defaults_are_filled():
    rec = normalize_record(stdio_record())
    assert set(rec) == set(PROBLEM_FIELDS)
    assert rec["language"] == "python"
    assert rec["incorrect_solutions"] == [] and rec["tags"] == []
    assert rec["starter_code"] is None and rec["time_limit_s"] is None


def test_integer_limits_become_floats_and_int_ids_strings():
    rec = normalize_record(stdio_record(id=7, time_limit_s=2, memory_limit_mb=256))
    assert rec["id"] == "7" and rec["time_limit_s"] == 2.0 and rec["memory_limit_mb"] == 256.0


@pytest.mark.parametrize(
    "override, field",
    [
        ({"statement": "  "}, "statement"),
        ({"test_type": "interactive"}, "test_type"),
        ({"source": "a/b"}, "source"),
        ({"id": None}, "id"),
        ({"tests": [{"input": "1"}]}, "tests"),
        ({"solutions": "print(1)"}, "solutions"),
        ({"time_limit_s": -1}, "time_limit_s"),
        ({"time_limit_s": "fast"}, "time_limit_s"),
        ({"test_type": "call", "entry_point": None}, "entry_point"),
        ({"test_type": "call", "entry_point": "f", "tests": [{"input": "not json", "output": "1"}]}, "tests"),
        ({"test_type": "call", "entry_point": "f", "tests": [{"input": "{\"a\": 1}", "output": "1"}]}, "tests"),
        ({"test_type": "assert", "entry_point": "f", "test_code": None}, "test_code"),
    ],
)
def test_bad_rows_name_the_field(override, field):
    with pytest.raises(RecordError) as e:
        normalize_record(stdio_record(**override))
    assert e.value.field == field
    assert field in str(e.value)


def test_call_tests_accept_json_values_and_store_strings():
    rec = normalize_record(
        stdio_record(test_type="call", entry_point="add", tests=[{"input": [1, 2], "output": 3}])
    )
    assert rec["tests"] == [{"input": "[1, 2]", "output": "3"}]


def test_jsonl_roundtrip_and_bad_json_line(tmp_path):
    path = tmp_path / "p.jsonl.gz"
    write_jsonl([stdio_record(), stdio_record(id="p2")], path)
    rows = list(read_jsonl(path))
    assert [r["id"] for r in rows] == ["p1", "p2"]
    raw = tmp_path / "bad.jsonl"
    raw.write_text(json.dumps(stdio_record()) + "\n{not json\n\n")
    items = list(read_jsonl(raw))
    assert isinstance(items[0], dict) and isinstance(items[1], RecordError)
    assert f"{raw}:2: not valid JSON" in str(items[1]) and items[1].where == {"file": str(raw), "line": 2}


def test_parquet_roundtrip_keeps_types(tmp_path):
    table = records_to_table([normalize_record(stdio_record()), normalize_record(stdio_record(id="p2", tags=["math"]))])
    assert table.schema == KEPT_BASE_SCHEMA
    assert table.column("problem_id").to_pylist() == ["demo/p1", "demo/p2"]
    write_parquet(table, tmp_path / "t.parquet")
    back = list(read_parquet(tmp_path / "t.parquet"))
    assert back[1]["tags"] == ["math"] and back[0]["tests"] == [{"input": "1 2\n", "output": "3\n"}]
    assert pa.types.is_list(table.schema.field("tests").type)
