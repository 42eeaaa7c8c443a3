"""What two builds of the same input must agree on: everything but measured columns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from curation.store import read_table


def comparable(out: Path) -> dict[str, Any]:
    """The manifest without shard checksums and the shards without measured columns, as Python data.

    Measured columns (reference CPU time and what is derived from it) differ between any two
    runs; when a build has none, the checksums themselves must match, so they are kept.
    """
    manifest = json.loads((out / "manifest.json").read_text())
    measured = manifest.get("measured_columns", [])
    tables = {}
    for kind in ("problems", "rejected"):
        t: pa.Table = read_table(out, kind)
        tables[kind] = t.drop_columns([c for c in measured if c in t.column_names]).to_pylist()
    if measured:
        manifest.pop("environment", None)  # diagnostics of the run, e.g. a fit's held-out score
        for kind in ("problems", "rejected"):
            manifest[kind] = [{k: v for k, v in f.items() if k != "sha256"} for f in manifest[kind]]
    return {"manifest": manifest, **tables}
