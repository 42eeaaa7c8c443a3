"""The demo corpus: original synthetic problems, with defects planted for every stage to catch.

`demo_records()` (also the registered source `demo`) yields about 50 problems in all three test
types: stdio, call and assert, each with 5 to 8 tests computed by running a correct reference
at generation time (seeded, deterministic; `call-vowel-total` has 3, which the amplify stage
grows), plus these planted rows:

| problem id | defect | caught by |
|---|---|---|
| demo/call-broken-json | a call test whose input is not JSON | schema (field `tests`) |
| demo/assert-no-test-code | assert problem without test_code | schema (field `test_code`) |
| demo/empty-statement | yielded as a RecordError (empty statement) | schema (field `statement`) |
| demo/call-middle-value | reference returns the mean, tests hold the median | verify: no_passing_solution |
| demo/stdio-pair-sums-slow | correct O(n^2) reference, n = 20000 tests, 1 s limit | verify: no_passing_solution (TLE) |
| demo/stdio-any-divisor | only 3 tests, several valid answers, one reference (amplify cannot label new inputs) | verify: too_few_tests |
| demo/call-top-reading | wrong solution (last element) passes: tests are sorted | verify: weak_tests |
| demo/stdio-reverse-words-copy | exact copy of stdio-reverse-words | dedup: duplicate_of:demo/stdio-reverse-words |
| demo/stdio-cover-length-v2 | one word reworded, a variable renamed | dedup: duplicate_of:demo/stdio-cover-length |
| demo/call-close-pair | statement copied from HumanEval/0 | decontam: contaminated:humaneval:HumanEval/0 |

Copies are yielded after (and their ids sort after) the originals, so a first-wins dedup drops
the copy. Problems in `CAUGHT_INCORRECT` carry known-wrong solutions that their tests reject:
they must be kept (with a high test strength). Every other problem must be kept too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from curation.demo.bank_assert import ASSERT
from curation.demo.bank_call import CALL
from curation.demo.bank_planted import MALFORMED_ROWS, PLANTED_SPECS
from curation.demo.bank_stdio import STDIO
from curation.demo.spec import Spec, build_record
from curation.schema import RecordError

__all__ = ["demo_records", "PLANTED", "CAUGHT_INCORRECT", "CLEAN_IDS", "SPECS"]

SPECS: list[Spec] = [*STDIO, *CALL, *ASSERT]

#: problem_id -> (stage, expected reject_reason or its prefix; for schema: the field named).
PLANTED: dict[str, tuple[str, str]] = {
    "demo/call-broken-json": ("schema", "tests"),
    "demo/assert-no-test-code": ("schema", "test_code"),
    "demo/empty-statement": ("schema", "statement"),
    "demo/call-middle-value": ("verify", "no_passing_solution"),
    "demo/stdio-pair-sums-slow": ("verify", "no_passing_solution"),
    "demo/stdio-any-divisor": ("verify", "too_few_tests"),
    "demo/call-top-reading": ("verify", "weak_tests"),
    "demo/stdio-reverse-words-copy": ("dedup", "duplicate_of:demo/stdio-reverse-words"),
    "demo/stdio-cover-length-v2": ("dedup", "duplicate_of:demo/stdio-cover-length"),
    "demo/call-close-pair": ("decontam", "contaminated:humaneval:HumanEval/0"),
}
#: Kept problems whose known-incorrect solutions the tests catch.
CAUGHT_INCORRECT: list[str] = [f"demo/{s.id}" for s in SPECS if s.incorrect]
#: Every problem that must survive the whole build.
CLEAN_IDS: list[str] = [f"demo/{s.id}" for s in SPECS]


def demo_records() -> Iterator[dict[str, Any] | RecordError]:
    """The demo corpus as raw canonical rows (clean problems first, then the planted ones)."""
    for spec in SPECS:
        yield build_record(spec)
    for spec in PLANTED_SPECS:
        yield build_record(spec)
    for row, _field in MALFORMED_ROWS:
        yield dict(row)
    yield RecordError("statement", "is empty", {"id": "empty-statement", "source": "demo"})
