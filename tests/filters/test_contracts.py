"""The shared contracts: one home (`filters.contracts`), cheap to import, and the typed row the record."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import curation.schema
import curation.store
from filters import contracts

ROOT = Path(__file__).resolve().parents[2]


def _modules_after(statement: str) -> set[str]:
    """The modules a fresh interpreter holds after running `statement`."""
    code = f"import sys\n{statement}\nprint('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


def test_import_mixer_loads_no_sandbox_and_no_judging_stage():
    loaded = _modules_after("import mixer")
    heavy = {
        "filters.sandbox",
        "filters.stages.verify.stage",
        "filters.stages.dedup.stage",
        "filters.stages.difficulty.difficulty_stage",
        "filters.stages.difficulty.features",
        "filters.stages.difficulty.calibration",
        "filters.stages.decontam.stage",
    }
    assert not loaded & heavy, sorted(loaded & heavy)
    # the frontier sampler reads the difficulty scale (filters.stages.difficulty.irt) and nothing else there
    assert {m for m in loaded if m.startswith("filters.stages.difficulty")} <= {
        "filters.stages.difficulty",
        "filters.stages.difficulty.irt",
    }
    assert "filters.contracts" in loaded  # mixer's UserError comes from the contracts


def test_contracts_import_nothing_heavy_until_an_arrow_schema_is_used():
    loaded = _modules_after("import filters.contracts")
    assert "pyarrow" not in loaded
    assert "pyarrow" in _modules_after("from filters.contracts import REJECTED_SCHEMA")


def test_filters_names_load_on_first_use():
    loaded = _modules_after("from filters import UserError, VerifyStage")
    assert {"filters.stages.verify.stage", "filters.sandbox"} <= loaded
    assert "filters.stages.dedup.stage" not in loaded
    with pytest.raises(AttributeError, match="no_such_name"):
        importlib.import_module("filters").no_such_name  # noqa: B018


def test_the_record_contracts_are_defined_once_and_re_exported_not_copied():
    for name in ("PROBLEM_FIELDS", "PROBLEM_SCHEMA", "RecordError"):  # the `curation` face
        assert getattr(curation, name) is getattr(contracts, name), name
    assert curation.schema.RecordError is contracts.RecordError
    for name in ("PROBLEM_SCHEMA", "KEPT_BASE_SCHEMA", "REJECTED_SCHEMA", "SCHEMA_VERSION", "problem_id"):
        assert name not in curation.schema.__all__, name  # one place: filters.contracts
    for name in ("MANIFEST", "PROBLEMS_DIR", "REJECTED_DIR"):
        assert getattr(curation.store, name) == getattr(contracts, name)
    assert contracts.REJECTED_SCHEMA.names[-3:] == [
        contracts.REJECT_STAGE,
        contracts.REJECT_REASON,
        contracts.REJECT_DETAIL,
    ]


#: Keys read from a problem that are not stored columns, set on derived problems at run time:
#: `typed_calls` marks an assert suite converted to call tests (filters/sandbox/assert_calls.py).
_DERIVED_KEYS = {"typed_calls"}
#: Names under which filters hold one problem record.
_RECORD_NAMES = {"row", "problem", "prob", "rec"}
#: Modules that read other formats: raw benchmark files, and the worker's own messages.
_OTHER_FORMATS = {"references.py", "make_shipped.py", "child.py"}


def _stored_columns() -> set[str]:
    from filters import AmplifyStage, DecontamStage, DedupStage, DifficultyStage, VerifyStage

    columns = set(contracts.PROBLEM_FIELDS) | {contracts.PROBLEM_ID}
    for stage in (AmplifyStage, VerifyStage, DedupStage, DecontamStage, DifficultyStage):
        columns |= set(stage.output_schema.names)
    return columns


def test_filters_read_only_fields_the_contract_declares():
    """A record field read by its name in filters is a contract field or a stage's declared column,
    so a misspelt or renamed field fails here rather than reading None."""
    known = _stored_columns() | _DERIVED_KEYS
    unknown = []
    for path in sorted((ROOT / "filters").rglob("*.py")):
        if path.name in _OTHER_FORMATS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            receiver = key = None
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
                receiver, key = node.value, node.slice.value
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                receiver, key = node.func.value, node.args[0].value
            if isinstance(receiver, ast.Attribute):
                receiver = ast.Name(receiver.attr)
            if (
                isinstance(receiver, ast.Name)
                and receiver.id in _RECORD_NAMES
                and isinstance(key, str)
            ):
                if key not in known:
                    unknown.append(f"{path.relative_to(ROOT)}:{node.lineno}: {key!r}")
    assert not unknown, unknown


def test_the_typed_row_is_the_record_field_for_field():
    """`ProblemRecord` (what mypy checks `row["statement"]` against) has the record's fields, in
    record order, each typed as its Arrow type reads back in Python: a field added to one and not
    the other fails here."""
    import typing

    import pyarrow as pa

    hints = typing.get_type_hints(contracts.ProblemRecord)
    assert list(hints) == list(contracts.PROBLEM_FIELDS)

    def python_of(arrow: pa.DataType) -> object:
        if pa.types.is_list(arrow):
            item = arrow.value_type
            return list[contracts.IOCase] if item == contracts.TEST_STRUCT else list[python_of(item)]
        return {pa.string(): str, pa.float64(): float, pa.bool_(): bool}[arrow]

    def without_none(hint: object) -> object:  # `str | None` -> str: every Arrow field may be null
        args = typing.get_args(hint)
        return next(a for a in args if a is not type(None)) if type(None) in args else hint

    for name, arrow in contracts.PROBLEM_FIELDS.items():
        assert without_none(hints[name]) == python_of(arrow), name
    assert set(typing.get_type_hints(contracts.IOCase)) == set(contracts.TEST_STRUCT.names)
    row_keys = typing.get_type_hints(contracts.ProblemRow)
    assert set(row_keys) - set(hints) == {contracts.PROBLEM_ID, contracts.ROW_COLUMN}
