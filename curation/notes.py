"""Per-source notes of a finished build: when most of a source was dropped, which stages did it,
why, and the option that would change it. A build prints them at the end and stores them in the
manifest (`notes`); `codemix info` and the report show them again.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from curation.store import REJECTED_DIR, shard_files
from filters.settings import FLAT_SETTINGS, STAGE_SETTINGS

__all__ = ["MOST", "source_notes", "note_line"]

#: A source gets a note when less than this share of its rows is kept.
MOST = 0.5
_BECAUSE = {
    (
        "schema",
        "malformed",
    ): "rows that do not fit the record schema (reject_detail names the field)",
    ("exact_id", "duplicate_id"): "the same id more than once in the source",
    ("verify", "no_tests"): "rows without tests",
    ("verify", "no_passing_solution"): "no reference solution passes the source's own tests",
    ("verify", "sandbox_error"): "the sandbox failed (SE), not the solutions; rerun the build",
    ("verify", "weak_tests"): "a known-incorrect solution passes the tests",
    ("verify", "flaky"): "a passing reference fails on a rerun",
}


def _rejected_details(out: Path, sources: set[str]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(source, stage, reason, detail) of the rejected rows of `sources` (reads four columns only)."""
    import pyarrow.parquet as pq

    rows = []
    for f in shard_files(out, REJECTED_DIR):
        t = pq.read_table(f, columns=["source", "reject_stage", "reject_reason", "reject_detail"])
        for src, stage, reason, detail in zip(*(t.column(c).to_pylist() for c in t.column_names)):
            if src in sources:
                try:
                    d = json.loads(detail) if detail else {}
                except json.JSONDecodeError:
                    d = {}
                rows.append((src, stage, reason or "", d if isinstance(d, dict) else {}))
    return rows


def _too_few_tests_hint(details: list[dict[str, Any]], min_tests: int) -> str:
    counts = sorted(int(d.get("tests_total") or 0) for d in details)
    counts = [c for c in counts if c > 0]
    if not counts:
        return f"they have no tests at all (--min-tests is {min_tests})"
    m = counts[(len(counts) - 1) // 2]  # the lower median: admits at least half of them
    k = sum(c >= m for c in counts)
    have = f"all have {m} tests" if counts[0] == counts[-1] else f"{k} have {m} or more tests"
    return f"{have}, --min-tests is {min_tests}: --min-tests {m} admits {'them' if k == len(counts) else 'those'} to verification"


def _contaminated_hint(reasons: list[str]) -> str:
    benches = Counter(r.split(":")[1] for r in reasons if r.count(":") >= 2)
    against = ", ".join(
        f"{b} {n}" for b, n in sorted(benches.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return (
        f"they overlap evaluation benchmarks ({against}); --no-decontaminate, or --decontaminate-against "
        "without those benchmarks, keeps them"
    )


def _setting(config: dict[str, Any], name: str) -> Any:
    """A stage's setting in a stored configuration, by its command-line name (`min_tests`): nested
    under its stage, flat in a manifest written before, else its default."""
    stage, setting = FLAT_SETTINGS[name]
    nested = config.get(stage)
    if isinstance(nested, dict) and setting in nested:
        return nested[setting]
    return config.get(name, getattr(STAGE_SETTINGS[stage], setting))


def _hint(
    stage: str, kind: str, details: list[tuple[str, dict[str, Any]]], config: dict[str, Any]
) -> str:
    if (stage, kind) == ("verify", "too_few_tests"):
        return _too_few_tests_hint([d for _, d in details], int(_setting(config, "min_tests")))
    if kind == "contaminated":
        return _contaminated_hint([r for r, _ in details])
    if kind == "duplicate_of":
        return (
            f"near-duplicates of problems kept from this or another source; --dedup-threshold "
            f"(now {_setting(config, 'dedup_threshold')}) or --prefer decides which copy stays"
        )
    return _BECAUSE.get(
        (stage, kind),
        f"see `codemix query OUT \"SELECT * FROM rejected WHERE reject_stage = '{stage}'\"`",
    )


def note_line(note: dict[str, Any]) -> str:
    """One line for a note: `mbpp: 0 of 974 kept. decontam dropped 510 as contaminated (...); ...`."""
    parts = [
        f"{d['stage']} dropped {d['rows']} as {d['reason']} ({d['hint']})" for d in note["dropped"]
    ]
    return f"{note['source']}: {note['kept']} of {note['input']} kept. " + "; ".join(parts)


def source_notes(out: str | Path, manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """A note for every source of which less than `MOST` was kept, its drops largest first."""
    counts = manifest["counts"]
    config = manifest.get("config") or {}
    low = {
        src: n
        for src, n in counts["input"].items()
        if n and counts["output"].get(src, 0) < MOST * n
    }
    if not low:
        return []
    by_reason: dict[tuple[str, str, str], list[tuple[str, dict[str, Any]]]] = {}
    for src, stage, reason, detail in _rejected_details(Path(out), set(low)):
        kind = reason.split(":", 1)[0].split(" ", 1)[0]
        by_reason.setdefault((src, stage, kind), []).append((reason, detail))
    notes = []
    for src in sorted(low):
        dropped = []
        for st in counts["stages"]:
            for kind, n in (st.get("reasons_by_source") or {}).get(src, {}).items():
                details = by_reason.get((src, st["stage"], kind), [])
                dropped.append({"stage": st["stage"], "reason": kind, "rows": n,
                                "hint": _hint(st["stage"], kind, details, config)})  # fmt: skip
        dropped.sort(key=lambda d: (-d["rows"], d["stage"], d["reason"]))
        note = {
            "source": src,
            "input": low[src],
            "kept": counts["output"].get(src, 0),
            "dropped": dropped,
        }
        note["line"] = note_line(note)
        notes.append(note)
    return notes
