"""Pre-train B3's small code model once, into the benchmark's cache, and pick the checkpoint that
every arm starts from: B3's, the last evaluated one whose held-out pass@1 (mean over sources) lies
in [5%, 40%]; B3 v2's, the one whose per-source held-out pass rates lie closest to their bands
(`bands`: the last of the ties). Checkpoints along the way are kept: they are the "other models"
whose pass rates give the build its difficulty (`codemix rank`)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from code_rl.families import V1, TaskSet, pretrain_pairs
from code_rl.model import SIZES, build_tokenizer, load, new_model, pretrain, save, size_info
from code_rl.rollout import evaluate
from curation.export import prompt_text

__all__ = ["ensure_model", "BAND", "band_miss"]

BAND = (0.05, 0.40)


def band_miss(per_source: dict[str, float], bands: dict[str, tuple[float, float]]) -> float:
    """How far the per-source pass rates lie outside their bands, summed (0: every one inside);
    a source with no problem here counts as inside."""
    return float(
        sum(
            max(lo - per_source[s], 0.0, per_source[s] - hi)
            for s, (lo, hi) in bands.items()
            if s in per_source
        )
    )


def ensure_model(
    cache: Path,
    held_out: Any,
    size: str = "small",
    steps: int = 1200,
    every: int = 150,
    device: str = "cpu",
    eval_samples: int = 4,
    seed: int = 0,
    stop: int | None = None,
    tasks: TaskSet = V1,
    bands: dict[str, tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """The pre-trained model's record (`cache/model-<size>/pretrain.json`), training it first
    if it is missing. `held_out` is the export's held-out split; `bands` choose the checkpoint by
    per-source pass rates (else B3's `BAND` on their mean)."""
    root = cache / f"model-{size}"
    rec_path = root / "pretrain.json"
    if rec_path.exists():
        return json.loads(rec_path.read_text())
    pairs = [(prompt_text(r), ref) for r, ref in pretrain_pairs(tasks)]
    tok = build_tokenizer([p for p, _ in pairs] + [c for _, c in pairs], SIZES[size].vocab)
    model = new_model(tok, SIZES[size], seed)
    evals: list[dict[str, Any]] = []
    t0 = time.perf_counter()

    def checkpoint(step: int) -> None:
        ev = evaluate(model, tok, held_out, n=eval_samples, seed=seed)
        ev.pop("per_problem")
        ev.update(step=step, wall_s=time.perf_counter() - t0)
        evals.append(ev)
        save(model, tok, root / f"step-{step}")
        print(
            f"pretrain step {step}: held-out pass@1 {ev['pass1']:.3f} {ev['per_source']}",
            flush=True,
        )

    log = pretrain(
        model,
        tok,
        pairs,
        steps=steps,
        seed=seed,
        device=device,
        on_checkpoint=checkpoint,
        every=every,
        stop=stop,
    )
    if bands is not None:
        for e in evals:
            e["band_miss"] = band_miss(e["per_source"], bands)
        best = min(e["band_miss"] for e in evals)
        inside = [e for e in evals if e["band_miss"] == 0.0]
        chosen = [e for e in evals if e["band_miss"] == best][-1]
    else:
        inside = [e for e in evals if BAND[0] <= e["pass1"] <= BAND[1]]
        chosen = (inside or sorted(evals, key=lambda e: abs(e["pass1"] - sum(BAND) / 2)))[-1]
    rec = {
        "size": size,
        "model": size_info(load(root / f"step-{chosen['step']}")[0], SIZES[size]),
        "pairs": len(pairs),
        "steps": steps,
        "stopped_at": stop or steps,
        "batch_size": 32,
        "lr": 2e-3,
        "schedule": "AdamW, 20 warm-up steps, cosine to 0; loss on program tokens only",
        "evals": evals,
        "loss": log,
        "chosen_step": chosen["step"],
        "chosen": chosen,
        "checkpoint": str(root / f"step-{chosen['step']}"),
        "wall_s": time.perf_counter() - t0,
        "in_band": bool(inside),
        "tasks": tasks.name,
        "bands": bands,
    }
    rec_path.write_text(json.dumps(rec, indent=1))
    return rec
