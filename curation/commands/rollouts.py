"""`codemix rollouts DIR --completions FILE.jsonl --model NAME --out ROLLOUTS.jsonl`: judge sampled completions.

Each completion line is `{"problem_id": ..., "completion": ...}` (the model's raw answer; code is
taken from its fenced block). Every completion is judged against the build's tests in the
sandbox; the output has one line per attempt, `{problem_id, model, passed, verdict}`, the format
`codemix rank --rollouts` reads. Sandbox errors (SE) are the harness's fault, not the model's:
they are left out of the output and counted apart.
"""

from __future__ import annotations

import json
import os
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import typer
from rich.text import Text

from curation.commands import app, console
from curation.record_files import read_jsonl
from curation.schema import RecordError
from curation.store import PROBLEMS_DIR
from filters.contracts import PROBLEM_FIELDS, UserError
from filters.reward.extract import extract_code

__all__ = ["rollouts_command", "judge_completions"]


def _read_completions(path: Path) -> list[tuple[str, str | None]]:
    if not path.is_file():
        raise UserError(
            f"completions file {path} does not exist; pass a JSONL of {{problem_id, completion}}"
        )
    out = []
    for i, obj in enumerate(read_jsonl(path), 1):
        if isinstance(obj, RecordError):  # completions are not records: a broken file is refused
            raise UserError(f'{obj.message}; expected {{"problem_id": str, "completion": str}} lines')
        if not isinstance(obj, dict) or not isinstance(obj.get("problem_id"), str):
            raise UserError(f'{path} line {i}: expected {{"problem_id": str, "completion": str}}')
        comp = obj.get("completion")
        if comp is not None and not isinstance(comp, str):
            raise UserError(f"{path} line {i}: `completion` must be a string")
        out.append((obj["problem_id"], comp))
    return out


def _load_problems(out: Path, ids: set[str]) -> dict[str, dict[str, Any]]:
    files = sorted((out / PROBLEMS_DIR).glob("*.parquet"))
    if not files:
        raise UserError(
            f"{out / PROBLEMS_DIR} holds no parquet shards; pass the --out directory of a `codemix build`"
        )
    wanted = pa.array(sorted(ids), type=pa.string())
    found: dict[str, dict[str, Any]] = {}
    for f in files:
        t = pq.read_table(f)
        cols = ["problem_id", *[c for c in PROBLEM_FIELDS if c in t.column_names]]
        t = t.select(cols).filter(pc.is_in(t["problem_id"], value_set=wanted))
        for r in t.to_pylist():
            found[r["problem_id"]] = r
    return found


def judge_completions(
    out: str | Path,
    completions: str | Path,
    model: str,
    dest: str | Path,
    workers: int | None = None,
) -> dict[str, Any]:
    """Judge every completion, write per-attempt rollout lines to `dest` (atomically); return counts."""
    from filters.sandbox import Sandbox

    out, dest = Path(out), Path(dest)
    items = _read_completions(Path(completions))
    problems = _load_problems(out, {p for p, _ in items})
    unknown = Counter(p for p, _ in items if p not in problems)
    jobs: list[tuple[int, dict[str, Any], str]] = []
    verdicts: list[str | None] = [None] * len(items)
    for i, (pid, comp) in enumerate(items):
        if pid not in problems:
            continue
        code = extract_code(comp)
        if code is None:
            verdicts[i] = "CE"  # no code in the answer: a failed attempt of the model
        else:
            jobs.append((i, problems[pid], code))
    with Sandbox(workers=workers) as sb:
        results = sb.run_many([(p, c) for _, p, c in jobs], stop_on_failure=True)
    for (i, _, _), r in zip(jobs, results):
        verdicts[i] = r.verdict
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    written = 0
    with open(tmp, "w", encoding="utf-8") as f:
        for (pid, _), v in zip(items, verdicts):
            if v is None or v == "SE":
                continue
            f.write(
                json.dumps({"problem_id": pid, "model": model, "passed": v == "AC", "verdict": v})
                + "\n"
            )
            written += 1
    tmp.replace(dest)
    return {
        "completions": len(items),
        "written": written,
        "verdicts": dict(sorted(Counter(v for v in verdicts if v).items())),
        "sandbox_errors": sum(1 for v in verdicts if v == "SE"),
        "unknown_problem_ids": sum(unknown.values()),
    }


@app.command("rollouts")
def rollouts_command(
    out: Path = typer.Argument(..., help="A build's output directory (with problems/*.parquet)."),
    completions: Path = typer.Option(
        ..., "--completions", help="JSONL of {problem_id, completion}."
    ),
    model: str = typer.Option(..., "--model", help="Name of the model that wrote the completions."),
    dest: Path = typer.Option(
        ..., "--out", "-o", help="Rollouts JSONL to write (one line per attempt)."
    ),
    workers: int | None = typer.Option(
        None, "--workers", "-j", help="Parallel sandbox workers (default: all cores)."
    ),
) -> None:
    """Judge model completions in the sandbox and write rollouts for `codemix rank`."""
    err = console(stderr=True)
    s = judge_completions(out, completions, model, dest, workers)
    err.print(
        f"judged {s['completions']} completions of {model}: {s['verdicts']}; wrote {s['written']} lines to {dest}"
    )
    if s["sandbox_errors"]:
        err.print(Text(f"{s['sandbox_errors']} sandbox errors (SE) left out: not the model's fault", style="yellow"))
    if s["unknown_problem_ids"]:
        err.print(
            Text(f"{s['unknown_problem_ids']} completions name problem ids that are not in {out}", style="yellow")
        )
    err.print(f"next: codemix rank {shlex.quote(str(out))} --rollouts {shlex.quote(str(dest))}")
