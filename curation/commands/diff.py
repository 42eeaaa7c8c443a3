"""`codemix diff A B`: what changed between two builds, per source and stage and per problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from curation.commands import app, table_console
from curation.pipeline import reason_kind
from curation.store import PROBLEMS_DIR, REJECTED_DIR, require_build, shard_files

__all__ = ["diff_command", "problem_fates", "diff_builds"]


def problem_fates(out: Path) -> dict[str, str]:
    """problem_id -> `kept` or `stage:reason` (the reason's kind) for every row a build read."""
    import pyarrow.parquet as pq

    fates: dict[str, str] = {}
    for f in shard_files(out, REJECTED_DIR):
        t = pq.read_table(f, columns=["problem_id", "reject_stage", "reject_reason"])
        for pid, stage, reason in zip(*(t.column(c).to_pylist() for c in t.column_names)):
            fates[pid] = f"{stage}:{reason_kind(reason or '')}"
    for f in shard_files(out, PROBLEMS_DIR):
        for pid in pq.read_table(f, columns=["problem_id"]).column("problem_id").to_pylist():
            fates[pid] = "kept"
    return fates


def _counts(manifest: dict[str, Any]) -> dict[tuple[str, str], int]:
    c = manifest["counts"]
    out = {(src, "input"): n for src, n in c["input"].items()}
    for st in c["stages"]:
        for src in c["input"]:
            out[(src, st["stage"])] = st["kept"].get(src, 0)
    return out


def diff_builds(a: Path, b: Path) -> dict[str, Any]:
    """Counts per (source, stage) in each build, and the problems whose fate differs."""
    ma, mb = require_build(a), require_build(b)
    ca, cb = _counts(ma), _counts(mb)
    stages = ["input"] + list(dict.fromkeys(s["stage"] for m in (ma, mb) for s in m["counts"]["stages"]))
    sources = sorted({src for src, _ in ca} | {src for src, _ in cb})
    counts = [
        {"source": src, "stage": st, "a": ca.get((src, st)), "b": cb.get((src, st))} for src in sources for st in stages
    ]
    fa, fb = problem_fates(a), problem_fates(b)
    changes: dict[str, list[Any]] = {"added": [], "removed": [], "changed_reason": [], "only_in_a": [], "only_in_b": []}
    for pid in sorted(set(fa) | set(fb)):
        x, y = fa.get(pid), fb.get(pid)
        if x == y:
            continue
        if x is None or y is None:
            key = "only_in_b" if x is None else "only_in_a"
        elif y == "kept":
            key = "added"
        elif x == "kept":
            key = "removed"
        else:
            key = "changed_reason"
        changes[key].append({"problem_id": pid, "a": x, "b": y})
    return {"a": str(a), "b": str(b), "stages": stages, "counts": counts, "changes": changes}


@app.command("diff")
def diff_command(
    a: Path = typer.Argument(..., help="A build's output directory (the old one)."),
    b: Path = typer.Argument(..., help="Another build's output directory (the new one)."),
    show: int = typer.Option(20, "--show", help="Problems listed per kind of change (0: counts only)."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole difference as one JSON object."),
) -> None:
    """Compare two builds: kept counts per source and stage, problems added or removed, changed reasons."""
    d = diff_builds(a, b)
    if as_json:
        print(json.dumps(d, ensure_ascii=False))
        return
    console = table_console()
    t = Table(title=f"kept after each stage: {a} -> {b} (one number: unchanged)")
    t.add_column("source", no_wrap=True)
    for st in d["stages"]:
        t.add_column(st, justify="right", no_wrap=True)
    for src in sorted({c["source"] for c in d["counts"]}):
        cells = []
        for st in d["stages"]:
            c = next(c for c in d["counts"] if c["source"] == src and c["stage"] == st)
            x, y = ("-" if v is None else str(v) for v in (c["a"], c["b"]))
            cells.append(x if x == y else f"{x} -> {y}")
        t.add_row(src, *cells)
    console.print(t)
    ch = d["changes"]
    console.print(
        f"problems: {len(ch['added'])} added (kept in B only), {len(ch['removed'])} removed (kept in A only), "
        f"{len(ch['changed_reason'])} dropped for another reason, {len(ch['only_in_a'])} read by A only, "
        f"{len(ch['only_in_b'])} read by B only",
        highlight=False,
    )
    if show > 0:
        for key, title in (("added", "added"), ("removed", "removed"), ("changed_reason", "dropped for another reason")):
            if not ch[key]:
                continue
            p = Table(title=f"{title} ({len(ch[key])}{', first ' + str(show) if len(ch[key]) > show else ''})")
            for col in ("problem_id", "in A", "in B"):
                p.add_column(col, no_wrap=True)
            for row in ch[key][:show]:
                p.add_row(row["problem_id"], row["a"], row["b"])
            console.print(p)
