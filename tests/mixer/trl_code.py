"""B3's small code model (a Llama of 1.4M parameters pre-trained here) and its TRL export's train
split, frozen in the repository (`benchmarks/code_rl/frozen/v2-small`), for the TRL tests that need
a reward reading the completions: codemix's `trl_correctness_reward` runs each completion against
the problem's tests, and about half of this model's groups are informative."""

from __future__ import annotations

from pathlib import Path
from typing import Any

FROZEN = Path(__file__).resolve().parents[2] / "benchmarks" / "code_rl" / "frozen" / "v2-small"


def code_model() -> tuple[Any, Any]:
    """(model, tokenizer) of the frozen checkpoint."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    ckpt = str(FROZEN / "checkpoint")
    return AutoModelForCausalLM.from_pretrained(ckpt), AutoTokenizer.from_pretrained(ckpt)


def code_train() -> Any:
    """The frozen export's train split (480 problems, 7 sources, `ground_truth` with tests)."""
    from datasets import load_from_disk

    return load_from_disk(str(FROZEN / "trl"))["train"]
