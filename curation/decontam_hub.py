"""Benchmarks a build decontaminates against, read from the hub: LiveCodeBench's evaluation window.

A bare `lcb` in `decontam.against` is LiveCodeBench code_generation_lite read through the `lcb`
source, the same hub files a build trains on (`curation.sources`), kept to the problems whose
`contest_date` falls in `lcb_start`..`lcb_end`: no local file to find. `lcb=PATH` still reads a
local JSONL/Parquet file (`filters.stages.decontam.references`). `filters` never reads the hub, so the build
loads these problems here and hands them to `DecontamStage`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from filters.stages.decontam.references import BenchmarkProblem

__all__ = ["HUB_BENCHMARKS", "hub_benchmark", "hub_problems"]

#: Benchmarks a bare name in `decontam.against` reads from the hub: name -> the source that reads it.
HUB_BENCHMARKS = {"lcb": "lcb"}


def hub_benchmark(spec: str) -> str | None:
    """The source a `decontam.against` entry reads from the hub (a bare `lcb`), else None."""
    spec = spec.strip()
    return HUB_BENCHMARKS.get(spec)


def _problem(name: str, record: dict[str, Any]) -> BenchmarkProblem:
    tests = [str(t.get("input", "")) for t in record.get("tests") or [] if isinstance(t, dict)]
    return BenchmarkProblem(
        name,
        str(record["id"]),
        record.get("statement") or "",
        tests=tests,
        entry_point=record.get("entry_point"),
    )


def hub_problems(
    against: Sequence[str],
    lcb_start: str | None = None,
    lcb_end: str | None = None,
) -> list[BenchmarkProblem]:
    """The problems of the hub benchmarks named in `against`, inside their date window.

    A row whose tests do not convert still has its statement compared (as `lcb=PATH` compares
    every row's); a problem in several release files counts once. The hub being unreachable is
    the UserError `iter_source` raises (or pass `lcb=PATH`, a local file).
    """
    from curation.sources import iter_source

    out: dict[tuple[str, str], BenchmarkProblem] = {}
    for spec in against:
        source = hub_benchmark(spec)
        if source is None:
            continue
        name = spec.strip()
        for item in iter_source(source, start=lcb_start, end=lcb_end):
            record = item if isinstance(item, dict) else item.partial
            if record.get("id") is not None and record.get("statement"):
                out.setdefault((name, str(record["id"])), _problem(name, record))
    return list(out.values())
