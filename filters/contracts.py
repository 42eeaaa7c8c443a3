"""The contracts the three rooms share: the problem record, the rejected row, a build's layout, errors.

`curation` writes these, `filters` judges them and `mixer` reads them, so they live here, at the
bottom, in a module that imports nothing: importing it loads no sandbox, verify, dedup or
difficulty, and not even pyarrow until an Arrow schema is first used. The record's field names are
the canonical JSONL format; docs/record.md describes every field, the columns the stages add
and the rejected row (tests/test_record_doc.py checks it against this module).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, NotRequired, TypedDict

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "SCHEMA_VERSION",
    "TEST_TYPES",
    "TEST_STRUCT",
    "PROBLEM_FIELDS",
    "PROBLEM_SCHEMA",
    "IOCase",
    "ProblemRecord",
    "ProblemRow",
    "PROBLEM_ID",
    "ROW_COLUMN",
    "KEPT_BASE_SCHEMA",
    "REJECT_STAGE",
    "REJECT_REASON",
    "REJECT_DETAIL",
    "REJECTED_SCHEMA",
    "MANIFEST",
    "PROBLEMS_DIR",
    "REJECTED_DIR",
    "problem_id",
    "UserError",
    "RecordError",
]

#: Version of the record and manifest layout written into every manifest.
SCHEMA_VERSION = 1
#: How a problem's tests are run: stdin to stdout, a call of `entry_point`, or an assert suite.
TEST_TYPES = ("stdio", "call", "assert")
#: The global id of a problem in shards (`source/id`), the first column of every stored row.
PROBLEM_ID: Final = "problem_id"
#: A row's ordinal in the build's input (added at ingest, dropped before shards are written): the
#: order stages that keep a first occurrence (`filters.stages.exact_id`) go by.
ROW_COLUMN: Final = "_row"
#: A dropped row's stage (added by the pipeline), reason (`kind[:detail]`) and details (JSON text).
REJECT_STAGE = "reject_stage"
REJECT_REASON = "reject_reason"
REJECT_DETAIL = "reject_detail"

class IOCase(TypedDict):
    """One test of a `stdio` or `call` problem (`TEST_STRUCT`): stdin and expected stdout, or
    the JSON arguments and the JSON return value."""

    input: str
    output: str


class ProblemRecord(TypedDict):
    """The record as a Python row: `PROBLEM_FIELDS`' names, in record order, with the types
    `normalize_record` guarantees (docs/record.md; tests/filters/test_contracts.py holds the two
    to each other), so that the type checker sees `row["statement"]`."""

    id: str
    source: str
    statement: str
    starter_code: str | None
    language: str
    test_type: str
    entry_point: str | None
    tests: list[IOCase]
    test_code: str | None
    solutions: list[str]
    incorrect_solutions: list[str]
    solution_languages: list[str]
    incorrect_solution_languages: list[str]
    checker: str | None
    time_limit_s: float | None
    memory_limit_mb: float | None
    difficulty_label: str | None
    tags: list[str]
    tests_complete: bool | None
    source_prompt: str | None


class ProblemRow(ProblemRecord):
    """A row as a stage judges it (`Stage.judge_rows`): the record, its `problem_id` and, inside
    a build, its ordinal `_row` (`ROW_COLUMN`). Columns earlier stages added are there too, read
    with `row.get(name)`."""

    problem_id: str
    _row: NotRequired[int]


if TYPE_CHECKING:  # built on first use (below), so that importing the contracts loads no pyarrow
    #: {input, output}: one test of a `stdio` or `call` problem.
    TEST_STRUCT: pa.DataType
    #: field name -> Arrow type, in record order: the canonical record every source becomes.
    PROBLEM_FIELDS: dict[str, pa.DataType]
    PROBLEM_SCHEMA: pa.Schema
    #: What the store carries for every row from ingestion on: the record plus its global id.
    KEPT_BASE_SCHEMA: pa.Schema
    #: Rejected rows: the record (possibly partial), where and why it was dropped, details as JSON.
    REJECTED_SCHEMA: pa.Schema


def _arrow_contracts() -> dict[str, Any]:
    """The record's Arrow types and schemas (pyarrow is imported here, on first use)."""
    import pyarrow as pa

    test_struct = pa.struct([("input", pa.string()), ("output", pa.string())])
    fields: dict[str, pa.DataType] = {
        "id": pa.string(),
        "source": pa.string(),
        "statement": pa.string(),
        "starter_code": pa.string(),
        "language": pa.string(),
        "test_type": pa.string(),
        "entry_point": pa.string(),
        "tests": pa.list_(test_struct),
        "test_code": pa.string(),
        "solutions": pa.list_(pa.string()),
        "incorrect_solutions": pa.list_(pa.string()),
        # each solution's language, in order ("python", "cpp", "java", "python2"); empty: Python
        "solution_languages": pa.list_(pa.string()),
        "incorrect_solution_languages": pa.list_(pa.string()),
        "checker": pa.string(),
        "time_limit_s": pa.float64(),
        "memory_limit_mb": pa.float64(),
        "difficulty_label": pa.string(),
        "tags": pa.list_(pa.string()),
        "tests_complete": pa.bool_(),
        "source_prompt": pa.string(),
    }
    problem = pa.schema([pa.field(k, t) for k, t in fields.items()])
    kept = pa.schema([pa.field(PROBLEM_ID, pa.string()), *problem])
    rejected = pa.schema(
        [
            *kept,
            pa.field(REJECT_STAGE, pa.string()),
            pa.field(REJECT_REASON, pa.string()),
            pa.field(REJECT_DETAIL, pa.string()),
        ]
    )
    return {
        "TEST_STRUCT": test_struct,
        "PROBLEM_FIELDS": fields,
        "PROBLEM_SCHEMA": problem,
        "KEPT_BASE_SCHEMA": kept,
        "REJECTED_SCHEMA": rejected,
    }


def __getattr__(name: str) -> Any:
    """The Arrow contracts, built once on first access (PEP 562)."""
    if name in (
        "TEST_STRUCT",
        "PROBLEM_FIELDS",
        "PROBLEM_SCHEMA",
        "KEPT_BASE_SCHEMA",
        "REJECTED_SCHEMA",
    ):
        built = _arrow_contracts()
        globals().update(built)
        return built[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: A finished build's directory: `manifest.json` (written last), `problems/`, `rejected/`.
MANIFEST = "manifest.json"
PROBLEMS_DIR = "problems"
REJECTED_DIR = "rejected"


def problem_id(source: str, id_: str) -> str:
    """The global id of a problem in shards: `source/id`."""
    return f"{source}/{id_}"


class UserError(Exception):
    """A problem with the user's input (unknown name, missing file, unreachable dataset).

    The command line prints its message on one line, without a traceback, and exits with code 2.
    The message says what is wrong and how to fix it.
    """


class RecordError(ValueError):
    """A record that does not fit the schema; `field` names the offending field.

    `reason` overrides the reject reason (default `malformed:<field>`), e.g.
    `unsupported_format:geeksforgeeks` for a well-formed row in a format we cannot judge.
    `where` says where a row that could not be parsed at all was read (`file`, `line`).
    """

    def __init__(
        self,
        field: str,
        message: str,
        partial: dict[str, Any] | None = None,
        reason: str | None = None,
        where: dict[str, Any] | None = None,
    ):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        #: Whatever is known of the bad row (id, source, ...), kept in `rejected/`.
        self.partial = partial or {}
        self.reason = reason
        self.where = where or {}

    @property
    def detail(self) -> dict[str, Any]:
        """The rejected row's `reject_detail`: the field, the error, and where the row was read."""
        return {"field": self.field, "error": self.message, **self.where}

    @property
    def reject_reason(self) -> str:
        """The reason recorded in `rejected/`: `reason`, else `malformed:<field>`."""
        return self.reason or f"malformed:{self.field}"
