"""B3's data: the task sources written as canonical JSONL, built with the real `codemix build`
(verify, amplify, dedup, difficulty) and exported with `codemix export --format trl` with a
deterministic held-out split. Each step is skipped when its output exists (resumable)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from code_rl.families import V1, TaskSet, problems

__all__ = ["build_data", "HELD_OUT"]

HELD_OUT = "test"


def _codemix(*args: str) -> None:
    cmd = [str(Path(sys.executable).with_name("codemix")), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")


def build_data(
    cache: Path,
    workers: int = 2,
    held_out: float | None = 0.2,
    limit: int | None = None,
    tasks: TaskSet = V1,
) -> dict[str, Any]:
    """Write `cache/b3.jsonl` (the problems of `tasks`), build it into `cache/build`, export TRL
    splits to `cache/trl` (a `held_out` share in the held-out split; None: one split, `train`, of
    every problem); returns the paths, the wall
    time of each step and the build's counts per source. `limit`: at most that many problems per
    source (the quick modes)."""
    cache.mkdir(parents=True, exist_ok=True)
    src, out, trl = cache / "b3.jsonl", cache / "build", cache / "trl"
    times: dict[str, float] = {}
    if not src.exists():
        tmp = src.with_suffix(".tmp")
        with tmp.open("w") as fh:
            for rec in problems(limit=limit, tasks=tasks):
                fh.write(json.dumps(rec) + "\n")
        tmp.rename(src)
    if not (out / "manifest.json").exists():
        t0 = time.perf_counter()
        _codemix("build", "-s", str(src), "-o", str(out), "-j", str(workers), "--log-json")
        times["build_s"] = time.perf_counter() - t0
    if not (trl / "dataset_dict.json").exists():
        t0 = time.perf_counter()
        _codemix(
            "export",
            str(out),
            "--format",
            "trl",
            "--out",
            str(trl),
            *(["--split", f"{HELD_OUT}={held_out}"] if held_out is not None else []),
        )
        times["export_s"] = time.perf_counter() - t0
    manifest = json.loads((out / "manifest.json").read_text())
    return {
        "jsonl": str(src),
        "build": str(out),
        "trl": str(trl),
        "times": times,
        "manifest": manifest,
        "held_out": held_out,
    }
