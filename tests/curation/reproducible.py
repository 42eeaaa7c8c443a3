"""What two builds of the same input must agree on: everything but measured columns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from curation.store import read_table


def _without_measured(row: dict[str, Any], measured: set[str]) -> dict[str, Any]:
    """A stored row without its measured columns, and without the same measurements inside its
    `reject_detail` (verify's `weak_tests` detail repeats `test_strength`)."""
    out = {k: v for k, v in row.items() if k not in measured}
    detail = out.get("reject_detail")
    if isinstance(detail, str) and measured:
        try:
            parsed = json.loads(detail)
        except ValueError:
            return out
        if isinstance(parsed, dict):
            out["reject_detail"] = {k: v for k, v in parsed.items() if k not in measured}
    return out


def comparable(out: Path) -> dict[str, Any]:
    """The manifest without shard checksums and the shards without measured columns, as Python data.

    Measured columns (reference CPU time and what is derived from it) differ between any two
    runs; when a build has none, the checksums themselves must match, so they are kept.
    """
    manifest = json.loads((out / "manifest.json").read_text())
    measured = set(manifest.get("measured_columns", []))
    tables = {}
    for kind in ("problems", "rejected"):
        t: pa.Table = read_table(out, kind)
        tables[kind] = [_without_measured(r, measured) for r in t.to_pylist()]
    if measured:
        manifest.pop("environment", None)  # diagnostics of the run, e.g. a fit's held-out score
        for kind in ("problems", "rejected"):
            manifest[kind] = [{k: v for k, v in f.items() if k != "sha256"} for f in manifest[kind]]
    return {"manifest": manifest, **tables}


def differences(a: Path, b: Path) -> dict[str, list[str]]:
    """Problem id -> what differs between two builds of the same command, outside the columns
    their manifests declare measured: `kept in one only`, `rejected at <stage> in one only`, or the
    names of the columns whose values differ. Empty when the builds agree."""
    ca, cb = comparable(a), comparable(b)
    out: dict[str, list[str]] = {}
    for kind in ("problems", "rejected"):
        rows_a = {_key(r, kind): r for r in ca[kind]}
        rows_b = {_key(r, kind): r for r in cb[kind]}
        for key in sorted(rows_a.keys() | rows_b.keys(), key=str):
            pid = str(key[0])
            ra, rb = rows_a.get(key), rows_b.get(key)
            if ra is None or rb is None:
                what = "kept" if kind == "problems" else f"rejected at {key[1]}"
                out.setdefault(pid, []).append(f"{what} in one build only")
                continue
            cols = sorted(c for c in ra.keys() | rb.keys() if ra.get(c) != rb.get(c))
            if cols:
                out.setdefault(pid, []).extend(cols)
    return out


def _key(row: dict[str, Any], kind: str) -> tuple[Any, ...]:
    return (row.get("problem_id"),) if kind == "problems" else (
        row.get("problem_id"), row.get("reject_stage"), row.get("id"))
