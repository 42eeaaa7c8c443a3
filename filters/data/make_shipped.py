"""Rebuild the shipped decontamination references from their public sources (see NOTICE).

    python filters/data/make_shipped.py ../shared/data/mbpp.jsonl.gz \
        ../shared/hub-samples/rllm_test_code_contests.json.gz

Writes `mbpp-test.jsonl.gz` (MBPP task ids 11..510, the test split, raw MBPP fields) and
`codecontests-test.jsonl.gz` (the 165 CodeContests test-split problems: statement and test
inputs, in the canonical format; outputs are not needed to decontaminate). Deterministic:
gzip's timestamp is fixed, rows keep their source order.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
MBPP_FIELDS = ("task_id", "text", "code", "test_setup_code", "test_list")


def _write(rows: list[dict], path: Path) -> None:
    data = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(data.encode("utf-8"))


def main(mbpp: str, code_contests_test: str) -> None:
    with gzip.open(mbpp, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    test = [{k: r.get(k) for k in MBPP_FIELDS} for r in rows if 11 <= int(r["task_id"]) <= 510]
    assert len(test) == 500, len(test)
    _write(test, HERE / "mbpp-test.jsonl.gz")
    with gzip.open(code_contests_test, "rt", encoding="utf-8") as f:
        problems = json.load(f)
    cc = [
        {
            "id": f"test-{i:03d}",
            "statement": p["problem"].strip(),
            "tests": [{"input": x} for x in p["tests"]["inputs"]],
        }
        for i, p in enumerate(problems)
    ]
    assert len(cc) == 165, len(cc)
    _write(cc, HERE / "codecontests-test.jsonl.gz")


if __name__ == "__main__":
    main(*sys.argv[1:3])
