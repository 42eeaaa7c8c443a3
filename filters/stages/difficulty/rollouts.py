"""Rollouts: attempts of models at problems, read from JSONL, counted per (problem, model).

Two line formats are accepted, mixed freely:
- aggregated: `{"problem_id": ..., "model": ..., "passed": 3, "attempts": 8}`
- one attempt: `{"problem_id": ..., "model": ..., "passed": true}`
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filters.contracts import UserError

__all__ = ["RolloutCounts", "read_rollouts", "count_rollouts", "parse_window", "in_window"]


@dataclass
class RolloutCounts:
    """Passed and attempted counts per (problem_id, model)."""

    counts: dict[tuple[str, str], list[int]] = field(default_factory=dict)

    def add(self, problem_id: str, model: str, passed: int, attempts: int) -> None:
        c = self.counts.setdefault((problem_id, model), [0, 0])
        c[0] += passed
        c[1] += attempts

    @property
    def models(self) -> list[str]:
        return sorted({m for _, m in self.counts})

    @property
    def problems(self) -> list[str]:
        return sorted({p for p, _ in self.counts})

    def by_problem(self) -> dict[str, dict[str, tuple[int, int]]]:
        """problem_id -> model -> (passed, attempts)."""
        out: dict[str, dict[str, tuple[int, int]]] = {}
        for (p, m), (k, n) in self.counts.items():
            out.setdefault(p, {})[m] = (k, n)
        return out


def _line_counts(obj: Any, where: str) -> tuple[str, str, int, int]:
    if not isinstance(obj, dict):
        raise UserError(
            f"{where}: expected a JSON object with problem_id, model, passed[, attempts]"
        )
    pid, model, passed = obj.get("problem_id"), obj.get("model"), obj.get("passed")
    if not isinstance(pid, str) or not pid:
        raise UserError(
            f"{where}: `problem_id` must be a non-empty string (the shards' `source/id`)"
        )
    if not isinstance(model, str) or not model:
        raise UserError(f"{where}: `model` must be a non-empty string")
    if "attempts" in obj and obj["attempts"] is not None:
        n = obj["attempts"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise UserError(f"{where}: `attempts` must be a non-negative integer, got {n!r}")
        if isinstance(passed, bool) or not isinstance(passed, int) or not 0 <= passed <= n:
            raise UserError(
                f"{where}: `passed` must be an integer in [0, attempts], got {passed!r}"
            )
        return pid, model, passed, n
    if not isinstance(passed, bool):
        raise UserError(
            f"{where}: a line without `attempts` is one attempt; `passed` must be true or false"
        )
    return pid, model, int(passed), 1


def count_rollouts(lines: Iterable[Any], origin: str = "rollouts") -> RolloutCounts:
    """Count parsed JSON objects (either format) into RolloutCounts; bad lines raise UserError."""
    rc = RolloutCounts()
    for i, obj in enumerate(lines, 1):
        rc.add(*_line_counts(obj, f"{origin} line {i}"))
    return rc


def read_rollouts(path: str | Path) -> RolloutCounts:
    """Read a rollouts JSONL (optionally .gz) file."""
    path = Path(path)
    if not path.is_file():
        raise UserError(
            f"rollouts file {path} does not exist; pass a JSONL of {{problem_id, model, passed[, attempts]}}"
        )
    raw = gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")
    rc = RolloutCounts()
    with io.TextIOWrapper(raw, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path} line {lineno}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise UserError(f"{where} is not valid JSON ({e.msg})") from None
            rc.add(*_line_counts(obj, where))
    return rc


def parse_window(text: str) -> tuple[float, float]:
    """`"0.05:0.95"` -> (0.05, 0.95); a UserError when malformed or out of [0, 1]."""
    try:
        lo_s, hi_s = text.split(":")
        lo, hi = float(lo_s), float(hi_s)
    except ValueError:
        raise UserError(f"pass-rate window {text!r} must look like LO:HI, e.g. 0.05:0.95") from None
    if not 0.0 <= lo <= hi <= 1.0:
        raise UserError(f"pass-rate window {text!r} needs 0 <= LO <= HI <= 1")
    return lo, hi


def in_window(rate: float, window: tuple[float, float]) -> bool:
    """Inclusive window test."""
    return window[0] <= rate <= window[1]
