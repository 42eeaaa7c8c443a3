"""docs/record.md against the code, both ways: every field and column the code has is documented
with its type, and the doc lists nothing the code does not have."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pyarrow as pa
import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORD_DOC = ROOT / "docs" / "record.md"


def _section(text: str, heading: str) -> str:
    """The text under a markdown heading, up to the next heading of the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    start = text.index(heading + "\n") + len(heading) + 1
    stop = re.compile(rf"^#{{1,{level}}} ", re.M).search(text, start)
    return text[start : stop.start() if stop else len(text)]


def table_rows(heading: str, first: str | None = None) -> list[list[str]]:
    """The rows (each a list of cells, header left out) of the first table under `heading`, or of
    the one whose header starts with the cell `first`."""
    found: list[list[list[str]]] = []
    block: list[str] = []
    for ln in [*_section(RECORD_DOC.read_text(), heading).splitlines(), ""]:
        if ln.startswith("|"):
            block.append(ln)
        elif block:
            found.append(
                [[c.strip() for c in row.strip().strip("|").split(" | ")] for row in block]
            )
            block = []
    for table in found:
        if first is None or table[0][0] == first:
            return table[2:]
    raise AssertionError(f"no table {first or ''} under {heading!r} in docs/record.md")


def _code(cell: str) -> str:
    m = re.fullmatch(r"`([^`]+)`", cell)
    assert m, f"expected one `code` value, got {cell!r}"
    return m.group(1)


def arrow_type(t: pa.DataType) -> str:
    """A type as the doc writes it: pyarrow's text, without the list item's name."""
    return str(t).replace("item: ", "")


def documented(heading: str) -> dict[str, str]:
    """column -> type, from the first two cells of the table under `heading`."""
    rows = table_rows(heading)
    names = [_code(r[0]) for r in rows]
    assert len(names) == len(set(names)), f"a name is listed twice under {heading!r}"
    return {_code(r[0]): _code(r[1]) for r in rows}


def test_record_table_is_problem_fields_in_order() -> None:
    from filters.contracts import PROBLEM_FIELDS

    doc = documented("## The record")
    assert list(doc) == list(PROBLEM_FIELDS)
    assert doc == {k: arrow_type(t) for k, t in PROBLEM_FIELDS.items()}


def default_stage_columns() -> dict[str, pa.DataType]:
    """Every column the default stages can add, as `curation.build` makes them; the difficulty
    stage's columns depend on its settings (rollouts add two), so it is made both ways."""
    from curation.build import DEFAULT_STAGES, BuildConfig, make_stage
    from filters.settings import DecontamConfig
    from filters.stages.difficulty import DifficultyStage
    from filters.stages.difficulty.rollouts import RolloutCounts

    cfg = BuildConfig(
        sources=[], decontam=DecontamConfig(against=())
    )  # no benchmark index to build
    stages = [make_stage(name, cfg, workers=1) for name in DEFAULT_STAGES]
    rollouts = RolloutCounts()
    rollouts.add("s/1", "model", 1, 2)
    stages.append(DifficultyStage(rollouts=rollouts))
    columns: dict[str, pa.DataType] = {}
    try:
        for stage in stages:
            for f in stage.output_schema:
                assert columns.setdefault(f.name, f.type) == f.type, f"{f.name}: two types"
    finally:
        for stage in stages:
            stage.close()
    return columns


def test_stage_columns_table_is_the_default_stages_output_schemas() -> None:
    doc = documented("## Columns the stages add")
    code = {k: arrow_type(t) for k, t in default_stage_columns().items()}
    assert sorted(set(doc) - set(code)) == [], "documented, but no default stage adds them"
    assert sorted(set(code) - set(doc)) == [], "added by a default stage, not documented"
    assert doc == code


def test_stage_columns_name_their_stage() -> None:
    from curation.build import DEFAULT_STAGES

    for row in table_rows("## Columns the stages add"):
        assert row[2] in DEFAULT_STAGES, row


def test_generated_test_fields() -> None:
    from filters.stages.amplify.stage import GENERATED_TEST

    doc = documented("### `generated_tests`")
    assert doc == {f.name: arrow_type(f.type) for f in GENERATED_TEST}


def test_stored_row_columns() -> None:
    from filters.contracts import KEPT_BASE_SCHEMA, PROBLEM_FIELDS, REJECTED_SCHEMA

    doc = documented("## Stored rows, kept and rejected")
    beyond = {f.name: arrow_type(f.type) for f in REJECTED_SCHEMA if f.name not in PROBLEM_FIELDS}
    assert doc == beyond
    assert {f.name for f in KEPT_BASE_SCHEMA} - set(PROBLEM_FIELDS) <= set(doc)


def _reason_kinds() -> list[tuple[str, str]]:
    """(kind, stage) of the reason table: `duplicate_of:<problem_id> (jaccard=<j>)` -> `duplicate_of`."""
    reasons = table_rows("## Stored rows, kept and rejected", first="reason kind")
    return [(re.split(r"[: ]", _code(cells[0]), maxsplit=1)[0], cells[1]) for cells in reasons]


def _stage_sources() -> dict[str, str]:
    """Default stage name -> the source text of the module that defines it."""
    from curation.build import DEFAULT_STAGES, BuildConfig, make_stage
    from filters.settings import DecontamConfig

    cfg = BuildConfig(sources=[], decontam=DecontamConfig(against=()))
    out = {}
    for name in DEFAULT_STAGES:
        stage = make_stage(name, cfg, workers=1)
        out[name] = Path(inspect.getsourcefile(type(stage)) or "").read_text()
        stage.close()
    return out


def test_reject_reasons_both_ways() -> None:
    kinds = _reason_kinds()
    sources = _stage_sources()
    from curation.build import DEFAULT_STAGES

    assert {stage for _, stage in kinds} <= {"schema", *DEFAULT_STAGES}
    # each documented kind is written by the code of its stage
    schema_code = "\n".join(p.read_text() for p in (ROOT / "curation").rglob("*.py"))
    schema_code += (ROOT / "filters" / "contracts.py").read_text()
    for kind, stage in kinds:
        code = schema_code if stage == "schema" else sources[stage]
        assert re.search(rf"""["']{kind}\b""", code), (
            f"{kind} ({stage}) is documented; its stage never writes it"
        )
    # each reason a stage writes literally (`Decision.drop("kind...")`) is documented
    documented_kinds = {kind for kind, _ in kinds}
    for stage, code in sources.items():
        for kind in re.findall(r"""Decision\.drop\(\s*f?["']([a-z_]+)""", code):
            assert kind in documented_kinds, (
                f"{stage} drops rows as {kind!r}, not in docs/record.md"
            )
        for kind in re.findall(r"""(?:reason|reason, detail) = ["']([a-z_]+)["']""", code):
            assert kind in documented_kinds, (
                f"{stage} drops rows as {kind!r}, not in docs/record.md"
            )


@pytest.mark.parametrize(
    "name", ["tests_complete", "source_prompt", "comparison", "generated_tests", "amplify_status"]
)
def test_named_fields_are_explained(name: str) -> None:
    """The fields the issue names have a meaning, not only a row."""
    text = RECORD_DOC.read_text()
    row = next(ln for ln in text.splitlines() if ln.startswith(f"| `{name}` |"))
    assert len(row.split(" | ")[-1]) > 40, row
