"""B3 v3's prior from other models (issue 53): difficulty ranked from models that are not the
policy's lineage, as a user's `codemix rank` would rank it, and how well it predicts the policy.

The policy (B3 v2's frozen `small` Llama, pre-training seed 0) and its v2 prior (three checkpoints
of its own pre-training run) are `frozen/v2-small`. Here each `--models` entry SIZE:SEED:STEPS is
pre-trained from scratch (`pretrain.ensure_model`, another initialisation seed and data order, and
another size or length: other lineages), samples `--samples` completions of every problem of the
frozen export, graded by the sandbox; the attempts go to a rollouts file (the file `codemix rank
--rollouts` reads) and codemix's item-response fit (`filters.stages.difficulty.irt.fit_irt`, 1PL,
prior mean 0 and std 2: what `codemix rank` fits for a problem with no label or feature prior)
turns them into a difficulty per problem. Reported: each model's cost
(CPU seconds) and pass rate, and the Spearman of the new prior and of v2's prior against the
policy's step-0 pass rates (a `real.py probe` file of the frozen policy on the train split),
overall and inside each source.

    OMP_NUM_THREADS=1 python benchmarks/code_rl/real.py probe --model \
        benchmarks/code_rl/frozen/v2-small/checkpoint --export benchmarks/code_rl/frozen/v2-small/trl \
        --max-new-tokens 64 --out benchmarks/code_rl/results/v3-prior/policy-probe.json
    OMP_NUM_THREADS=1 python benchmarks/code_rl/other_prior.py --models tiny:1:600 \
        --probe benchmarks/code_rl/results/v3-prior/policy-probe.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import torch  # noqa: E402

from code_rl.families_v2 import V2  # noqa: E402
from code_rl.grpo import spearman  # noqa: E402
from code_rl.model import load  # noqa: E402
from code_rl.pretrain import ensure_model  # noqa: E402
from code_rl.rollout import grade, prompt_ids, sample  # noqa: E402

FROZEN = HERE / "frozen" / "v2-small"

__all__ = ["attempts", "fit_difficulty", "fit_difficulty_std", "compare", "main"]


def attempts(model: Any, tok: Any, rows: Any, samples: int, name: str, seed: int) -> list[dict]:
    """One rollouts-file line per problem: how many of `samples` completions passed."""
    torch.manual_seed(seed)
    texts, _ = sample(model, tok, prompt_ids(tok, rows["prompt"]), samples)
    gt = [g for g in rows["ground_truth"] for _ in range(samples)]
    ok = np.nan_to_num(grade(gt, texts), nan=0.0).reshape(len(rows), samples) >= 1.0
    return [
        {"problem_id": pid, "model": name, "passed": int(p.sum()), "attempts": samples}
        for pid, p in zip(rows["problem_id"], ok, strict=True)
    ]


def fit_difficulty(lines: list[dict], problem_ids: list[str]) -> dict[str, float]:
    """Difficulty on [0, 1] per problem from rollouts lines: codemix's 1PL item-response fit."""
    return {p: d for p, (d, _) in fit_difficulty_std(lines, problem_ids).items()}


def fit_difficulty_std(lines: list[dict], problem_ids: list[str]) -> dict[str, tuple[float, float]]:
    """(difficulty, its standard deviation) on [0, 1] per problem from rollouts lines: codemix's
    1PL item-response fit (`fit_difficulty`), with the fit's uncertainty (the export's
    `difficulty_std`)."""
    from filters.stages.difficulty.irt import fit_irt

    pidx = {p: i for i, p in enumerate(problem_ids)}
    models = sorted({ln["model"] for ln in lines})
    midx = {m: i for i, m in enumerate(models)}
    fit = fit_irt(
        np.array([pidx[ln["problem_id"]] for ln in lines]),
        np.array([midx[ln["model"]] for ln in lines]),
        np.array([ln["passed"] for ln in lines], dtype=float),
        np.array([ln["attempts"] for ln in lines], dtype=float),
        len(problem_ids),
        len(models),
    )
    d, sd = fit.difficulty()
    return {p: (float(d[i]), float(sd[i])) for p, i in pidx.items()}


def compare(prior: dict[str, float], probe: dict[str, Any], sources: dict[str, str]) -> dict:
    """Spearman of `prior` (higher is harder) against the probe's pass rates, overall and inside
    each source (None where undefined)."""
    ids = probe["problem_ids"]
    rate = np.array(probe["per_problem_pass_rate"], dtype=float)
    diff = np.array([prior.get(p, np.nan) for p in ids], dtype=float)
    src = np.array([sources[p] for p in ids])

    def rho(k: np.ndarray) -> float | None:
        r = spearman(diff[k], rate[k])
        return None if np.isnan(r) else round(r, 4)

    per = {str(s): rho(src == s) for s in sorted(set(src.tolist()))}
    inside = [v for v in per.values() if v is not None]
    return {
        "overall": rho(np.ones(len(ids), dtype=bool)),
        "per_source": per,
        "inside_sources_mean": round(float(np.mean(inside)), 4) if inside else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--models", nargs="+", required=True, help="SIZE:SEED:STEPS each")
    ap.add_argument("--samples", type=int, default=4, help="completions per problem and model")
    ap.add_argument("--probe", type=Path, required=True, help="real.py probe of the policy")
    ap.add_argument("--limit", type=int, default=None, help="the first N problems (a check)")
    ap.add_argument("--cache", type=Path, default=HERE / "cache" / "other-prior")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "v3-prior")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    from datasets import concatenate_datasets, load_from_disk

    ds = load_from_disk(str(FROZEN / "trl"))
    rows = concatenate_datasets([ds["train"], ds["test"]])
    sources = dict(zip(rows["problem_id"], rows["source"], strict=True))
    if a.limit:
        rows = rows.select(range(min(a.limit, len(rows))))
    a.out.mkdir(parents=True, exist_ok=True)
    lines: list[dict] = []
    models: dict[str, Any] = {}
    for spec in a.models:
        size, seed, steps = spec.split(":")
        name = f"{size}-seed{seed}-{steps}"
        c0, t0 = time.process_time(), time.perf_counter()
        held = ds["test"].select(range(min(a.limit, len(ds["test"])))) if a.limit else ds["test"]
        rec = ensure_model(a.cache / name, held, size=size, steps=int(steps),
                           every=int(steps), seed=int(seed), tasks=V2)  # fmt: skip
        pre_cpu = time.process_time() - c0
        model, tok = load(a.cache / name / f"model-{size}" / f"step-{steps}")  # its last step
        c1 = time.process_time()
        mine = attempts(model, tok, rows, a.samples, name, seed=int(seed))
        lines += mine
        models[name] = {
            "size": size,
            "seed": int(seed),
            "steps": int(steps),
            "parameters": rec["model"]["parameters"],
            "pretrain_cpu_s": round(pre_cpu, 1),
            "pretrain_wall_s": round(rec["wall_s"], 1),
            "attempts_cpu_s": round(time.process_time() - c1, 1),
            "wall_s": round(time.perf_counter() - t0, 1),
            "pass_rate": round(sum(x["passed"] for x in mine) / (len(mine) * a.samples), 4),
            "held_out_pass1_at_end": rec["evals"][-1]["pass1_micro"],
        }
        print(f"{name}: {json.dumps(models[name])}", flush=True)
    (a.out / "rollouts.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    prior = fit_difficulty(lines, list(rows["problem_id"]))
    probe = json.loads(a.probe.read_text())
    v2 = dict(zip(rows["problem_id"], rows["difficulty"], strict=True))
    out = {
        "models": models,
        "samples": a.samples,
        "policy_probe": {
            "file": str(a.probe),
            "samples": probe["samples"],
            "pass_rate": probe["pass_rate"],
            "problems": probe["problems"],
        },  # fmt: skip
        "spearman_other_models": compare(prior, probe, sources),
        "spearman_v2_prior": compare({k: float(v) for k, v in v2.items()}, probe, sources),
        "difficulty": prior,
    }
    (a.out / "prior.json").write_text(json.dumps(out, indent=1))
    print(json.dumps({k: v for k, v in out.items() if k != "difficulty"}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
