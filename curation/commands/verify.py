"""`codemix verify`: judge reference solutions (or a user's candidates) in the sandbox, one line per run."""

from __future__ import annotations

import json
import shlex
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from curation.commands import app, console, styled, table_console
from curation.outlock import refuse_if_locked
from curation.record_files import text_lines
from filters.contracts import RecordError, UserError

__all__ = ["verify_command", "read_candidates", "check_verify_out"]

#: The keys of every line `codemix verify` writes: a file whose first line has them is an earlier
#: verify's output, which a new one may replace; any other file is the user's, and is refused.
_RESULT_KEYS = {"id", "source", "kind", "index", "verdict", "tests_passed", "tests_total"}


def check_verify_out(out: Path) -> None:
    """A UserError unless `out` may receive verify's results: a new file, an empty one, or an
    earlier `codemix verify` output; never a directory, a file verify did not write, or a path
    inside a build that is being written."""
    refuse_if_locked(out.parent, "a verify writing there is refused")
    if out.is_dir():
        raise UserError(f"--out {out} is a directory; pass a file path for the results, e.g. --out {shlex.quote(str(out / 'verify.jsonl'))}")
    if not out.exists() or out.stat().st_size == 0:
        return
    first = b""
    if out.is_file():
        with open(out, "rb") as f:
            first = f.readline(1 << 20)
    try:
        row = json.loads(first)
    except ValueError:
        row = None
    if not (isinstance(row, dict) and _RESULT_KEYS <= row.keys()):
        raise UserError(
            f"--out {out} exists and is not the output of `codemix verify`; codemix never replaces what it "
            "did not write: choose another --out file (or move that one away)"
        )

_CHUNK = 256


def read_candidates(path: Path) -> dict[str, list[str]]:
    """Lines of {id, solution} (or {id, solutions: [...]}) -> id -> candidates, in file order."""
    if not path.exists():
        raise UserError(f"{path}: no such file; pass --solutions with a JSONL file of {{id, solution}} lines")
    if path.is_dir():
        raise UserError(f"--solutions {path} is a directory; pass a JSONL file of {{id, solution}} lines")
    out: dict[str, list[str]] = {}
    for lineno, line in text_lines(path):
        if isinstance(line, RecordError):  # not UTF-8, or a compressed file cut short
            raise UserError(f"{line.message}; expected {{id, solution}} lines")
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise UserError(f"{path}:{lineno}: not valid JSON ({e}); expected {{id, solution}}") from None
        except (ValueError, RecursionError) as e:
            raise UserError(f"{path}:{lineno}: not readable JSON ({e or 'nested too deeply'})") from None
        if not isinstance(row, dict) or "id" not in row or not ("solution" in row or "solutions" in row):
            raise UserError(f"{path}:{lineno}: expected an object with 'id' and 'solution'")
        sols = row["solutions"] if "solutions" in row else [row["solution"]]
        if not isinstance(sols, list) or not all(isinstance(s, str) for s in sols):
            raise UserError(f"{path}:{lineno}: 'solution' must be a string")
        out.setdefault(str(row["id"]), []).extend(sols)
    return out


def _problems(file: str, limit: int | None, err: Console) -> Iterator[dict[str, Any]]:
    from curation.ingest import MAX_RECORD_BYTES, check_text
    from curation.schema import RecordError, normalize_record
    from curation.sources import iter_source, parse_source_arg

    source, path = parse_source_arg(file)
    bad = 0
    for row in iter_source(source, path, limit=limit):
        try:
            if isinstance(row, RecordError):  # a line that does not parse: the build's rule, one row lost
                raise row
            rec = normalize_record(row)
            check_text(rec, MAX_RECORD_BYTES)  # as a build: text that is not UTF-8, a record too large
            yield rec
        except RecordError as e:
            bad += 1
            if bad <= 3:
                err.print(styled("skipped a malformed row:", "yellow", str(e)))
    if bad:
        err.print(Text(f"{bad} malformed row(s) skipped", style="yellow"))


def _jobs(problems: Iterator[dict[str, Any]], candidates: dict[str, list[str]] | None,
          incorrect: bool) -> Iterator[tuple[dict[str, Any], str, int, str, str]]:
    """(problem, kind, index, code, language) of each run; programs in languages the sandbox does
    not judge (Python 2, Java) are left out."""
    from filters.tools.languages import JUDGED_LANGUAGES, languages_of

    for p in problems:
        if candidates is not None:
            for i, code in enumerate(candidates.get(p["id"], [])):
                yield p, "candidate", i, code, "python"
            continue
        kinds = [("solution", "solutions")] + ([("incorrect", "incorrect_solutions")] if incorrect else [])
        for kind, field in kinds:
            for i, (code, lang) in enumerate(zip(p[field], languages_of(p, field))):
                if lang in JUDGED_LANGUAGES:
                    yield p, kind, i, code, lang


@app.command("verify")
def verify_command(
    file: str = typer.Argument(..., help="canonical JSONL/Parquet file, or a source: NAME or NAME:PATH"),
    out: Path = typer.Option(..., "--out", help="results JSONL: one line per (id, kind, index)"),
    solutions: Path | None = typer.Option(None, "--solutions", help="JSONL of {id, solution}: judge these instead"),
    workers: int | None = typer.Option(None, "--workers", help="sandbox workers (default: CPUs available)"),
    limit: int | None = typer.Option(None, "--limit", help="only the first N problems"),
    time_limit: float | None = typer.Option(None, "--time-limit", help="CPU seconds per test (default: the source's, else 10)"),
    incorrect: bool = typer.Option(True, "--incorrect/--no-incorrect", help="also judge incorrect_solutions"),
    hash_seed: int = typer.Option(0, "--hash-seed", help="PYTHONHASHSEED of the programs (builds and rewards use 0); "
                                  "another value shows outputs that follow set iteration order"),
) -> None:
    """Run reference solutions (or --solutions candidates) against their problems' tests in the sandbox."""
    from filters.sandbox import Sandbox

    err = console(stderr=True)
    candidates = read_candidates(solutions) if solutions is not None else None
    check_verify_out(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    counts: Counter[tuple[str, str]] = Counter()
    seen_ids: set[str] = set()
    solved: set[str] = set()
    t0 = time.monotonic()
    n = 0
    with Sandbox(workers, hash_seed=hash_seed) as sb, open(out, "w", encoding="utf-8") as f:
        jobs = _jobs(_problems(file, limit, err), candidates, incorrect)
        while True:
            chunk = [j for _, j in zip(range(_CHUNK), jobs)]
            if not chunk:
                break
            results = sb.run_many(
                [(p, code, {"language": lang}) for p, _, _, code, lang in chunk], time_limit_s=time_limit
            )
            for (p, kind, idx, _, lang), r in zip(chunk, results):
                seen_ids.add(p["id"])
                if kind != "incorrect" and r.verdict == "AC":
                    solved.add(p["id"])
                counts[(kind, r.verdict)] += 1
                f.write(json.dumps({
                    "id": p["id"], "source": p["source"], "kind": kind, "index": idx, "language": lang,
                    "verdict": r.verdict,
                    "tests_passed": r.tests_passed, "tests_total": r.tests_total, "cpu_ms": round(r.cpu_ms, 3),
                    "wall_ms": round(r.wall_ms, 3), "peak_mem_kb": r.peak_mem_kb,
                    "first_failure": r.first_failure, "error": r.error,
                }, ensure_ascii=False) + "\n")
            n += len(chunk)
            err.print(f"judged {n} runs ({time.monotonic() - t0:.0f}s)")
    if candidates is not None:
        missing = set(candidates) - seen_ids
        if missing:
            err.print(Text(f"{len(missing)} candidate id(s) match no problem, e.g. {sorted(missing)[:3]}", style="yellow"))
    table = Table(title=f"codemix verify: {len(seen_ids)} problems, {n} runs, {time.monotonic() - t0:.1f}s")
    verdicts = ["AC", "WA", "TLE", "MLE", "RE", "OLE", "CE", "SE"]
    table.add_column("kind")
    for v in verdicts:
        table.add_column(v, justify="right")
    for kind in ("solution", "incorrect", "candidate"):
        if any(k == kind for k, _ in counts):
            table.add_row(kind, *[str(counts[(kind, v)]) for v in verdicts])
    table_console().print(table)
    console().print(f"problems with a passing {'candidate' if candidates is not None else 'solution'}: "
                    f"{len(solved)} of {len(seen_ids)}; results in {out}")
