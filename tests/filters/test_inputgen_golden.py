"""The input generator's output, pinned: fixed seeds on fixed problems give the recorded inputs.

A refactoring of `filters.stages.amplify.inputgen` must not change what amplification draws. For every problem
of a corpus this draws `DRAWS` candidates as `filters.stages.amplify.stage` does (seed `k`, parent `k % tests`,
the same exceptions caught) and compares a digest of them with `inputgen_golden.json`:

- `demo` and `trees`: the embedded demo corpus and call problems on trees and linked lists
  written out here, always there;
- `leetcodedataset`: every row of ../shared/data's copy (1890 call problems once converted), read
  by the source registry's own loader (skipped when the data is absent).

A change that means to change the generated inputs records the file again:
`.venv/bin/python -m tests.filters.test_inputgen_golden` (then review the diff of the JSON).
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from curation.schema import normalize_record
from curation.sources import iter_source
from filters.contracts import RecordError
from filters.sandbox.assert_calls import convert_problem
from filters.sandbox.valuecodec import encode, list_value, tree_value
from filters.stages.amplify.inputgen import input_generator

GOLDEN = Path(__file__).with_name("inputgen_golden.json")
SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
SHARED = {"leetcodedataset": "LeetCodeDataset-v0.2.0-train.jsonl.gz"}
DRAWS = 8


def _typed(*calls: dict[str, Any]) -> list[dict[str, str]]:
    return [
        {
            "input": json.dumps({"args": [], "kwargs": {k: encode(v) for k, v in c.items()}}),
            "output": "null",
        }
        for c in calls
    ]


def _tree_problems() -> Iterator[dict[str, Any]]:
    """Call problems whose arguments are trees and linked lists (the demo corpus has none)."""
    bst = [tree_value(v) for v in ([4, 2, 7, 1, 3], [8, 3, 10, 1, 6, None, 14], [2, 1, 3])]
    full = [tree_value(v) for v in ([2, 1, 3], [3, 1, 2, 0, 1, 1, 0], [1, 0, 1, None, None, 0, 1])]
    cases = {
        "bst-with-k": _typed(*({"root": t, "k": k} for t, k in zip(bst, (3, 5, 1)))),
        "complete-min-tree": _typed(
            *(
                {"root": tree_value(v)}
                for v in ([1, 2, 3, 4, 5, 6], [2, 2, 5, None, None, 5, 7], [5])
            )
        ),
        "full-operator-tree": _typed(*({"root": t} for t in full)),
        "two-linked-lists": _typed(
            {"l1": list_value([2, 4, 3]), "l2": list_value([5, 6, 4])},
            {"l1": list_value([0]), "l2": list_value([0])},
            {"l1": list_value([9, 9, 9, 9]), "l2": list_value([9, 9])},
        ),
        "even-linked-list-and-empty": _typed(
            {"head": list_value([1, 2, 3, 4])}, {"head": list_value([5, 6])}, {"head": None}
        ),
    }
    for name, tests in cases.items():
        yield {
            "problem_id": f"trees/{name}",
            "test_type": "call",
            "typed_calls": True,
            "tests": tests,
        }


def _rows(source: str, path: Path | None = None) -> Iterator[dict[str, Any]]:
    for rec in iter_source(source, path):
        if isinstance(rec, dict):
            try:
                yield normalize_record(dict(rec, source=source))
            except RecordError:  # the demo's planted malformed rows: a build rejects them
                continue


def _judged(problem: dict[str, Any]) -> dict[str, Any] | None:
    """The form amplification mutates: an assert suite as call tests, else the problem itself."""
    if problem.get("test_type") != "assert":
        return problem if problem.get("tests") else None
    converted, _ = convert_problem(problem)
    return converted


def _draws(problem: dict[str, Any]) -> str:
    """A digest of DRAWS generated inputs (or what stopped each draw) of one problem."""
    base = _judged(problem)
    if base is None:
        return "not mutated"
    try:
        gen = input_generator(base)
    except (ValueError, KeyError, TypeError) as e:
        return f"no generator: {type(e).__name__}"
    out: list[str | None] = []
    for k in range(DRAWS):
        try:
            out.append(gen.generate(random.Random(k), k % len(base["tests"])))
        except (ValueError, TypeError, IndexError, RecursionError) as e:
            out.append(f"raised {type(e).__name__}")
    return hashlib.sha256(json.dumps(out).encode()).hexdigest()[:16]


def _corpus(name: str) -> dict[str, str]:
    if name == "trees":
        problems: Iterator[dict[str, Any]] = _tree_problems()
    elif name == "demo":
        problems = _rows("demo")
    else:
        problems = _rows(name, SHARED_DATA / SHARED[name])
    return {str(p.get("problem_id") or p.get("id")): _draws(p) for p in problems}


@pytest.mark.parametrize("corpus", ["demo", "trees", *SHARED])
def test_generated_inputs_are_the_recorded_ones(corpus):
    if corpus in SHARED and not (SHARED_DATA / SHARED[corpus]).exists():
        pytest.skip("../shared/data is absent")
    recorded = json.loads(GOLDEN.read_text())[corpus]
    got = _corpus(corpus)
    changed = sorted(k for k in recorded.keys() | got.keys() if recorded.get(k) != got.get(k))
    assert not changed, (
        f"{len(changed)} of {len(recorded)} problems draw other inputs: {changed[:10]}"
    )
    assert len(set(got.values())) > len(got) // 2  # digests of real draws, not one constant


if __name__ == "__main__":  # record the file again
    corpora = ["demo", "trees", *SHARED]
    missing = [c for c in SHARED if not (SHARED_DATA / SHARED[c]).exists()]
    if missing:
        sys.exit(f"../shared/data lacks {missing}: record where every corpus is present")
    GOLDEN.write_text(json.dumps({c: _corpus(c) for c in corpora}, indent=0, sort_keys=True) + "\n")
