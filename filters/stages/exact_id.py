"""The first stage of a build: a problem id that appeared earlier in the input is a duplicate."""

from __future__ import annotations

import pyarrow as pa

from filters.contracts import PROBLEM_ID, ROW_COLUMN, ProblemRow
from filters.stage import Decision, GlobalStage

__all__ = ["ExactIdStage"]


class ExactIdStage(GlobalStage):
    """Drops a row whose `problem_id` appeared earlier in the input (the first one stays)."""

    name = "exact_id"
    observe_columns = (PROBLEM_ID, ROW_COLUMN)

    def __init__(self) -> None:
        self._first: dict[str, int] = {}

    def observe(self, batch: pa.Table) -> None:
        ids = batch.column(PROBLEM_ID).to_pylist()
        for pid, ordinal in zip(ids, batch.column(ROW_COLUMN).to_pylist(), strict=True):
            if pid not in self._first or ordinal < self._first[pid]:
                self._first[pid] = ordinal

    def decide(self) -> None:
        pass

    def judge_rows(self, rows: list[ProblemRow]) -> list[Decision]:
        out = []
        for r in rows:
            first = self._first.get(r[PROBLEM_ID], r[ROW_COLUMN])
            dup = Decision.drop(f"duplicate_id:{r[PROBLEM_ID]}")
            out.append(Decision(True) if first == r[ROW_COLUMN] else dup)
        return out
