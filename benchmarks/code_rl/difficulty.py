"""The build's curated difficulty, as codemix fits it: pass rates of *other* models (earlier
pre-training checkpoints than the one the arms start from) on every kept problem, written as a
rollouts file and fitted by `codemix rank` (an item-response model) into the shards; the TRL export
is then written again, carrying `difficulty` and `difficulty_std` for `FrontierSampler`'s prior."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from code_rl.build import HELD_OUT, _codemix
from code_rl.model import load
from code_rl.rollout import grade, prompt_ids, sample

__all__ = ["ensure_difficulty", "ranking_checkpoints"]


def ranking_checkpoints(model_rec: dict[str, Any], models: int = 3) -> list[Path]:
    """The `models` pre-training checkpoints nearest the chosen one, the chosen one excluded."""
    chosen = model_rec["chosen_step"]
    steps = sorted(
        (e["step"] for e in model_rec["evals"] if e["step"] != chosen),
        key=lambda s: abs(s - chosen),
    )
    root = Path(model_rec["checkpoint"]).parent
    return [root / f"step-{s}" for s in sorted(steps[:models])]


def ensure_difficulty(
    cache: Path, data: dict[str, Any], checkpoints: list[Path], samples: int = 4
) -> dict[str, Any]:
    """Rank the build once (`cache/difficulty.json` records it) from the pass rates of the models
    at `checkpoints` (`ranking_checkpoints`: other models than the one the arms start from),
    `samples` completions each per problem."""
    rec_path = cache / "difficulty.json"
    if rec_path.exists():
        return json.loads(rec_path.read_text())
    from datasets import concatenate_datasets, load_from_disk

    t0 = time.perf_counter()
    ds = load_from_disk(data["trl"])
    rows = concatenate_datasets([ds["train"], ds[HELD_OUT]])
    out = cache / "rollouts.jsonl"
    rates: dict[str, float] = {}
    with out.open("w") as fh:
        for k, path in enumerate(checkpoints):
            model, tok = load(path)
            torch.manual_seed(k)
            texts, _ = sample(model, tok, prompt_ids(tok, rows["prompt"]), samples)
            gt = [g for g in rows["ground_truth"] for _ in range(samples)]
            passed = np.nan_to_num(grade(gt, texts), nan=0.0).reshape(len(rows), samples) >= 1.0
            for pid, p in zip(rows["problem_id"], passed, strict=True):
                fh.write(
                    json.dumps(
                        {
                            "problem_id": pid,
                            "model": path.name,
                            "passed": int(p.sum()),
                            "attempts": samples,
                        }
                    )
                    + "\n"
                )
            rates[path.name] = float(passed.mean())
    _codemix("rank", data["build"], "--rollouts", str(out))
    shutil.rmtree(data["trl"])
    _codemix(
        "export",
        data["build"],
        "--format",
        "trl",
        "--out",
        data["trl"],
        "--split",
        f"{HELD_OUT}={data.get('held_out', 0.2)}",
    )
    rec = {
        "models": [p.name for p in checkpoints],
        "samples": samples,
        "pass_rate": rates,
        "wall_s": time.perf_counter() - t0,
    }
    rec_path.write_text(json.dumps(rec, indent=1))
    return rec
