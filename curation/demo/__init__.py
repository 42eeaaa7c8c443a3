"""The demo corpus: original synthetic problems, with defects planted for every stage to catch.

`demo_records()` (also the registered source `demo`) yields about 50 problems in three sources
that differ the way real ones do, so a mixer grouping by `source` has something to mix:

| source | style | tests | difficulty label |
|---|---|---|---|
| `demo-contest` | competitive programming | stdio | round letter A..D (harder on average) |
| `demo-interview` | interview functions | call (JSON arguments, return value) | easy / medium |
| `demo-basics` | textbook exercises | assert (`check(candidate)`) | easy (one medium) |

Each problem has 5 to 8 tests computed by running a correct reference at generation time
(seeded, deterministic; `call-vowel-total` has 3, which the amplify stage grows). These rows
are planted (problem ids are `source/id`):

| problem id | defect | caught by |
|---|---|---|
| demo-interview/call-broken-json | a call test whose input is not JSON | schema (field `tests`) |
| demo-basics/assert-no-test-code | assert problem without test_code | schema (field `test_code`) |
| demo-contest/stdio-empty-statement | yielded as a RecordError (empty statement) | schema (field `statement`) |
| demo-interview/call-middle-value | reference returns the mean, tests hold the median | verify: no_passing_solution |
| demo-contest/stdio-pair-sums-slow | correct O(n^2) reference, n = 20000 tests, 1 s limit | verify: no_passing_solution (TLE) |
| demo-contest/stdio-any-divisor | only 3 tests, several valid answers, one reference (amplify cannot label new inputs) | verify: too_few_tests |
| demo-interview/call-top-reading | wrong solution (last element) passes: tests are sorted | verify: weak_tests |
| demo-contest/stdio-reverse-words-copy | exact copy of stdio-reverse-words | dedup: duplicate_of:demo-contest/stdio-reverse-words |
| demo-contest/stdio-cover-length-v2 | one word reworded, a variable renamed | dedup: duplicate_of:demo-contest/stdio-cover-length |
| demo-interview/call-close-pair | statement copied from HumanEval/0 | decontam: contaminated:humaneval:HumanEval/0 |

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
from curation.demo.spec import SOURCE_OF_KIND, Spec, build_record, source_of
from curation.schema import RecordError

__all__ = [
    "demo_records",
    "problem_id",
    "PLANTED",
    "CAUGHT_INCORRECT",
    "CLEAN_IDS",
    "SPECS",
    "DEMO_SOURCES",
]

SPECS: list[Spec] = [*STDIO, *CALL, *ASSERT]

#: The demo's sources, in the order their rows first appear.
DEMO_SOURCES: list[str] = list(SOURCE_OF_KIND.values())


def problem_id(demo_id: str) -> str:
    """`stdio-sum-evens` -> `demo-contest/stdio-sum-evens` (the id a build gives the row)."""
    return f"{source_of(demo_id)}/{demo_id}"


#: problem_id -> (stage, expected reject_reason or its prefix; for schema: the field named).
PLANTED: dict[str, tuple[str, str]] = {
    problem_id(k): v
    for k, v in {
        "call-broken-json": ("schema", "tests"),
        "assert-no-test-code": ("schema", "test_code"),
        "stdio-empty-statement": ("schema", "statement"),
        "call-middle-value": ("verify", "no_passing_solution"),
        "stdio-pair-sums-slow": ("verify", "no_passing_solution"),
        "stdio-any-divisor": ("verify", "too_few_tests"),
        "call-top-reading": ("verify", "weak_tests"),
        "stdio-reverse-words-copy": ("dedup", f"duplicate_of:{problem_id('stdio-reverse-words')}"),
        "stdio-cover-length-v2": ("dedup", f"duplicate_of:{problem_id('stdio-cover-length')}"),
        "call-close-pair": ("decontam", "contaminated:humaneval:HumanEval/0"),
    }.items()
}
#: Kept problems whose known-incorrect solutions the tests catch.
CAUGHT_INCORRECT: list[str] = [problem_id(s.id) for s in SPECS if s.incorrect]
#: Every problem that must survive the whole build.
CLEAN_IDS: list[str] = [problem_id(s.id) for s in SPECS]


def demo_records() -> Iterator[dict[str, Any] | RecordError]:
    """The demo corpus as raw canonical rows (clean problems first, then the planted ones)."""
    for spec in SPECS:
        yield build_record(spec)
    for spec in PLANTED_SPECS:
        yield build_record(spec)
    for row, _field in MALFORMED_ROWS:
        yield dict(row)
    yield RecordError(
        "statement", "is empty", {"id": "stdio-empty-statement", "source": source_of("stdio-empty")}
    )
