"""The one encoding of "what a completion is judged against", shared by exports and rewards.

`codemix export --format verl|trl` stores it (as `reward_model.ground_truth` or a column), and the
reward functions read it back into a problem dict the sandbox runs. It carries what verify judged
with: the generated tests (`filters.stages.amplify.stage`) and the comparison (`filters.judging.judge_style`).
"""

from __future__ import annotations

import json
from typing import Any

from filters.compare import Comparison

__all__ = ["GROUND_TRUTH_FIELDS", "to_ground_truth", "from_ground_truth"]

#: The record fields a judge needs (everything else is for people or for curation).
GROUND_TRUTH_FIELDS = (
    "problem_id",
    "test_type",
    "entry_point",
    "tests",
    "test_code",
    "checker",
    "time_limit_s",
    "memory_limit_mb",
    "solutions",
    "generated_tests",
    "comparison",
    "solution_languages",
    "language",
)


def to_ground_truth(record: dict[str, Any], language: str | None = None) -> str:
    """A JSON string with the judging fields of a problem record (solutions serve the speed reward,
    `solution_languages` says each one's language). `language`: the language the prompt asks
    completions in (`codemix export --language`); without it, the record's own."""
    gt = {k: record.get(k) for k in GROUND_TRUTH_FIELDS}
    if language is not None:
        gt["language"] = language
    return json.dumps(gt, ensure_ascii=False, sort_keys=True)


def from_ground_truth(ground_truth: str | dict[str, Any]) -> dict[str, Any]:
    """The problem dict back from `to_ground_truth` output (a dict is accepted as is)."""
    gt = json.loads(ground_truth) if isinstance(ground_truth, str) else dict(ground_truth)
    missing = [k for k in ("test_type", "tests") if k not in gt]
    if missing:
        raise ValueError(
            f"ground truth lacks {', '.join(missing)}; was it written by `codemix export`?"
        )
    for k in GROUND_TRUTH_FIELDS:
        gt.setdefault(k, None)
    gt["tests"] = gt["tests"] or []
    gt["solutions"] = gt["solutions"] or []
    gt["generated_tests"] = gt["generated_tests"] or []
    Comparison.parse(gt["comparison"])  # a malformed mode is one clear ValueError here
    return gt
