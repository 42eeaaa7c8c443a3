"""The curated difficulty of the benchmark's problems, made the way a codemix build makes it.

A build knows, before training, each problem's label and, when someone ran models on the
problems, their attempts. Here the "other models" are three policies trained apart from the run
(another seed, other widths, different training lengths: a weak, a middling and a strong one);
each attempts every training problem `k` times, and `DifficultyStage` (the build's own stage)
fits `difficulty` and `difficulty_std` by IRT with the label prior, or from the labels alone.

Qualities: `label` (labels only, no attempts), `irt-1` and `irt-8` (1 or 8 attempts per model
and problem), and `oracle`, an upper reference that no build has: the trained policy's own pass
probability after its warm-up. Each comes with its Spearman correlation to that probability.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from filters.stages.difficulty import DifficultyStage, RolloutCounts, spearman
from mixbench.frontier_rl import (
    SamplerArm,
    grpo_train,
    pass_probability,
    warm_policy,
)
from mixbench.rl import Policy
from mixbench.spread import Problems, make_problems
from mixer.problems import ProblemSampler

__all__ = ["QUALITIES", "REFERENCE_MODELS", "PriorSpec", "curated_priors", "reference_models"]

QUALITIES = ("label", "irt-1", "irt-8", "oracle")
#: (name, embedding, hidden, warm-up steps, GRPO steps at full scale): the models a build ran.
REFERENCE_MODELS = (
    ("weak", 16, 32, 30, 0),
    ("middle", 32, 64, 60, 100),
    ("strong", 32, 128, 60, 300),
)
_OTHER_SEED = 10_000  # the reference models never see the run's seed


class PriorSpec:
    """The job that computes one seed's priors (a spec for `run_jobs` and its cache)."""

    def __init__(self, task: str) -> None:
        self.label = f"prior-{task}"
        self.task = task

    def to_json(self) -> dict:
        return {
            "label": self.label,
            "task": self.task,
            "models": [list(m) for m in REFERENCE_MODELS],
        }


def reference_models(seed: int, cfg: dict) -> list[tuple[str, Policy]]:
    """The build's other models: trained on another seed's problems, with B2's uniform GRPO."""
    other = _OTHER_SEED + seed
    train = make_problems(cfg["task"], other, cfg["noise"], cfg["pool_scale"])
    scale = cfg["steps"] / 500
    out = []
    for k, (name, emb, hidden, sl, steps) in enumerate(REFERENCE_MODELS):
        model = warm_policy(other + k, cfg, emb=emb, hidden=hidden, sl_steps=sl)
        n = int(round(steps * scale))
        if n:
            sampler = ProblemSampler(train.groups(), cfg["prompts"], seed=other + k)
            grpo_train(model, train, sampler, cfg, other + k, n)
        out.append((name, model))
    return out


def _stage_difficulty(
    problems: Problems, rollouts: RolloutCounts | None
) -> tuple[np.ndarray, np.ndarray, dict]:
    names = problems.names
    rows = [
        {
            "problem_id": f"{names[s]}/{i}",
            "id": str(i),
            "source": names[s],
            "statement": "",
            "difficulty_label": str(lab),
        }
        for i, (s, lab) in enumerate(zip(problems.source.tolist(), problems.label.tolist()))
    ]
    stage = DifficultyStage(rollouts=rollouts)
    stage.observe(pa.Table.from_pylist(rows))
    stage.decide()
    cols = [d.columns for d in stage.judge_rows(rows)]
    d = np.array([np.nan if c["difficulty"] is None else c["difficulty"] for c in cols])
    sd = np.array([np.nan if c["difficulty_std"] is None else c["difficulty_std"] for c in cols])
    return d, sd, stage.summary


def curated_priors(spec: PriorSpec, seed: int, cfg: dict) -> dict[str, Any]:
    """Per quality: difficulty and difficulty_std per problem, and how well they rank the policy."""
    problems = make_problems(cfg["task"], seed, cfg["noise"], cfg["pool_scale"])
    p0 = pass_probability(warm_policy(seed, cfg), problems.tokens, problems.ref)
    models = reference_models(seed, cfg)
    rng = np.random.default_rng([seed, 88])
    probs = {name: pass_probability(m, problems.tokens, problems.ref) for name, m in models}
    out: dict[str, Any] = {}
    for quality in QUALITIES:
        info: dict[str, Any] = {}
        if quality == "oracle":
            d = np.clip(1.0 - p0, 0.0, 1.0)
            sd = np.full(len(d), 0.05)
        elif quality == "label":
            d, sd, info = _stage_difficulty(problems, None)
        else:
            k = int(quality.split("-")[1])
            rc = RolloutCounts()
            for name, p in probs.items():
                passed = rng.binomial(k, p)
                for i in range(len(p)):
                    rc.add(f"{problems.names[problems.source[i]]}/{i}", name, int(passed[i]), k)
            d, sd, info = _stage_difficulty(problems, rc)
            info = {"abilities": info.get("abilities"), "build_rollouts": k * len(models) * len(d)}
        out[quality] = {
            "difficulty": d.tolist(),
            "difficulty_std": sd.tolist(),
            "spearman_vs_policy": spearman(d, 1.0 - p0),
            "mean_std": float(np.nanmean(sd)),
            **info,
        }
    return {"label": spec.label, "seed": seed, "priors": out}


def prior_arm_check(arm: SamplerArm) -> None:
    """A frontier arm's prior must be one of QUALITIES."""
    if arm.prior is not None and arm.prior not in QUALITIES:
        raise ValueError(f"arm {arm.label}: prior must be one of {QUALITIES}, got {arm.prior!r}")
