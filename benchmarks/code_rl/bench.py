"""B3: the whole loop for real. A small code model trained here, GRPO with the sandbox's reward on
a curated build of Python function problems, every source mixer and problem sampler.

Steps (each skipped when its output exists, so the grid completes in parts):
1. data: the task sources (`families.py`) -> canonical JSONL -> `codemix build` -> `codemix export
   --format trl --split test=0.2` (cache, git-ignored);
2. model: tokenizer and Llama pre-trained on the families' pre-training settings until held-out
   pass@1 is in [5%, 40%] (cache);
3. runs: each (arm, seed) a GRPO run from that checkpoint, its curve written to
   `results/<setting>/<arm>/seed<k>.json` (in the repository: small, resumable);
4. summary: final held-out pass@1 per source and mean with paired standard errors against
   uniform, rollouts (discarded included) and compute to reach uniform's final pass rate, the
   scorer's quality; `results/<setting>/summary.json` (development seeds) or
   `summary-fresh.json` (the headline seeds: never mixed with the development ones) and a table.

    OMP_NUM_THREADS=1 python benchmarks/code_rl/bench.py --quick          # under 3 minutes
    OMP_NUM_THREADS=1 python benchmarks/code_rl/bench.py --part dev       # arms on development seeds
    OMP_NUM_THREADS=1 python benchmarks/code_rl/bench.py --part fresh     # headline seeds
    python benchmarks/code_rl/bench.py --device cuda --size base ...      # larger, on a GPU
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FROZEN = HERE / "frozen"  # the inputs every full-mode run starts from (`frozen.py`)
sys.path.insert(0, str(HERE.parent))

import torch  # noqa: E402

from code_rl.build import HELD_OUT, build_data  # noqa: E402
from code_rl.difficulty import ensure_difficulty  # noqa: E402
from code_rl.frozen import freeze, load_frozen  # noqa: E402
from code_rl.grpo import Arm, RunConfig, config_dict, run_lean, run_trl  # noqa: E402
from code_rl.model import load  # noqa: E402
from code_rl.pretrain import ensure_model  # noqa: E402
from code_rl.report import summarize, table  # noqa: E402

LEARN = {"score": "learnability-low", "explore": 0.25}
ARMS = {
    "uniform": Arm("uniform"),
    "static": Arm("static", mixer="static-size"),
    "dump": Arm("dump", mixer="dump"),
    "acodm": Arm("acodm", mixer="acodm"),
    "acodm-learnability": Arm(
        "acodm-learnability", mixer="acodm", mixer_kw={"reward": "learnability"}
    ),
    "frontier": Arm("frontier", problems="frontier"),
    "frontier-scored": Arm("frontier-scored", problems="frontier", scorer=True, problem_kw=LEARN),
    # ablations of the frontier sampler (development seeds): no difficulty prior; a larger explore share
    "frontier-noprior": Arm(
        "frontier-noprior",
        problems="frontier",
        problem_kw={"difficulty_column": None, "std_column": None},
    ),
    "frontier-explore25": Arm(
        "frontier-explore25", problems="frontier", problem_kw={"explore": 0.25}
    ),
    "dapo": Arm("dapo", problems="dapo"),
    "mopps": Arm("mopps", problems="mopps"),
    "frontier-scored+acodm-learnability": Arm(
        "frontier-scored+acodm-learnability",
        problems="frontier",
        mixer="acodm",
        scorer=True,
        problem_kw=LEARN,
        mixer_kw={"reward": "learnability"},
    ),
}
QUALITY_ARMS = {"uniform", "frontier-scored"}
PARTS = {"dev": [0, 1], "fresh": [100, 101, 102, 103, 104]}
MODES: dict[str, dict[str, Any]] = {
    # setting name, problems per source (None: all), model size, pre-training steps, run config
    "full": {
        "limit": None,
        "size": "small",
        "pretrain": 1200,
        "stop": 900,  # of a 1200-step cosine schedule: where the session's run was stopped
        "every": 150,
        "rank_models": 3,
        "rank_samples": 4,
        # 60 steps: at 30 (attempt 1, results/full-small-30x8x8-*) no arm moved beyond noise
        "cfg": RunConfig(steps=60, prompts=8, group=8, eval_samples=8, quality_at=(0, 30, 60)),
    },
    "quick": {
        "limit": 10,
        "size": "tiny",
        "pretrain": 120,
        "every": 60,
        "rank_models": 1,
        "rank_samples": 2,
        "cfg": RunConfig(
            steps=4,
            prompts=4,
            group=4,
            eval_every=2,
            eval_samples=2,
            max_new_tokens=48,
            quality_at=(0, 4),
            quality_problems=8,
            quality_samples=4,
        ),
    },
    "smoke": {
        "limit": 4,
        "size": "tiny",
        "pretrain": 10,
        "every": 10,
        "rank_models": 0,
        "rank_samples": 0,
        "cfg": RunConfig(
            steps=2,
            prompts=2,
            group=2,
            eval_every=2,
            eval_samples=1,
            max_new_tokens=24,
            quality_at=(2,),
            quality_problems=4,
            quality_samples=2,
        ),
    },
}


def run_one(
    data: dict[str, Any],
    ckpt: str,
    arm: Arm,
    seed: int,
    cfg: RunConfig,
    loop: str,
    out: Path,
    inputs: str | None = None,
) -> dict[str, Any]:
    from datasets import load_from_disk

    ds = load_from_disk(data["trl"])
    train, held = ds["train"], ds[HELD_OUT]
    model, tok = load(Path(ckpt), cfg.device)
    if arm.name not in QUALITY_ARMS:  # the scorer's quality is measured on the policies of these
        cfg = RunConfig(**{**config_dict(cfg), "quality_at": ()})
    t0 = time.perf_counter()
    if loop == "trl":
        res = run_trl(
            model, tok, train, held, arm, cfg, seed, out_dir=tempfile.mkdtemp(prefix="b3-trl-")
        )
    else:
        res = run_lean(model, tok, train, held, arm, cfg, seed)
    res.update(
        arm=arm.name,
        seed=seed,
        config=config_dict(cfg),
        wall_s=time.perf_counter() - t0,
        inputs=inputs,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(res, indent=None, separators=(",", ":")))
    tmp.rename(out)
    return res


def _model(
    a: argparse.Namespace,
    mode: str,
    m: dict[str, Any],
    size: str,
    cache: Path,
    data: dict[str, Any],
    frozen: dict[str, Any] | None,
    times: dict[str, float],
) -> dict[str, Any]:
    """The pre-trained model's record: the quick mode reuses the full mode's model (frozen, or in
    the cache) when no size is asked for; otherwise pre-trained into the cache once."""
    from datasets import load_from_disk

    t0 = time.perf_counter()
    shared = a.cache / f"model-{MODES['full']['size']}" / "pretrain.json"
    if mode == "quick" and a.size is None and (frozen is not None or shared.exists()):
        # the full mode's model, pre-trained on the same families' pre-training settings (the
        # quick problems are the first of each source's RL problems, so still disjoint from them)
        rec = frozen["model"] if frozen is not None else json.loads(shared.read_text())
    else:
        held = load_from_disk(data["trl"])[HELD_OUT]
        rec = ensure_model(
            cache,
            held,
            size=size,
            steps=m["pretrain"],
            every=m["every"],
            device=a.device,
            stop=m.get("stop"),
        )
    times["model_s"] = time.perf_counter() - t0
    return rec


def _part_of(seeds: list[int]) -> str:
    """The seed set `seeds` belong to (summaries never mix development and fresh seeds)."""
    for name, part in PARTS.items():
        if set(seeds) <= set(part):
            return name
    return "seeds-" + "-".join(map(str, sorted(seeds)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="a small end-to-end run (under 3 minutes)")
    ap.add_argument("--smoke", action="store_true", help="the smallest end-to-end run (the test)")
    ap.add_argument(
        "--part",
        choices=list(PARTS),
        default="dev",
        help="seed set: dev (choices) or fresh (headline)",
    )
    ap.add_argument("--seeds", type=int, nargs="*", help="explicit seeds (instead of --part)")
    ap.add_argument(
        "--arms", nargs="*", default=None, help=f"arms (default: all): {', '.join(ARMS)}"
    )
    ap.add_argument(
        "--loop",
        choices=["lean", "trl", "both"],
        default="lean",
        help="both: each arm in both loops (their agreement)",
    )
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--size", default=None, help="model size: tiny, small, base, large")
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--prompts", type=int, default=None)
    ap.add_argument("--cache", type=Path, default=HERE / "cache")
    ap.add_argument("--results", type=Path, default=HERE / "results")
    ap.add_argument("--workers", type=int, default=2, help="sandbox workers for the build")
    ap.add_argument(
        "--refreeze",
        action="store_true",
        help="build, pre-train and rank again from the cache, and replace the frozen inputs",
    )
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    mode = "smoke" if a.smoke else "quick" if a.quick else "full"
    m = MODES[mode]
    cfg: RunConfig = m["cfg"]
    over = {k: v for k, v in (("steps", a.steps), ("prompts", a.prompts)) if v is not None}
    size = a.size or m["size"]
    cfg = RunConfig(**{**config_dict(cfg), **over, "device": a.device})
    cache = a.cache if mode == "full" else a.cache / mode
    times: dict[str, float] = {}
    frozen_dir = FROZEN / MODES["full"]["size"]
    # the full mode at its own size runs on the inputs frozen in the repository (`frozen.py`)
    use_frozen = a.size is None or a.size == MODES["full"]["size"]
    inputs = load_frozen(frozen_dir) if use_frozen and not a.refreeze else None
    if mode == "full" and inputs is not None:
        data, model_rec = inputs["data"], inputs["model"]
        print(f"inputs: frozen {inputs['fingerprint']} ({frozen_dir})", flush=True)
    else:
        t0 = time.perf_counter()
        data = build_data(cache, workers=a.workers, limit=m["limit"])
        times["data_s"] = time.perf_counter() - t0
        model_rec = _model(a, mode, m, size, cache, data, inputs, times)
        size = model_rec["size"]
        rank = None
        if m["rank_models"]:
            t0 = time.perf_counter()
            rank = ensure_difficulty(
                cache, data, model_rec, models=m["rank_models"], samples=m["rank_samples"]
            )
            times["difficulty_s"] = time.perf_counter() - t0
            print(f"difficulty: codemix rank on {rank['models']} ({rank['pass_rate']})", flush=True)
        if mode == "full" and use_frozen:
            inputs = freeze(frozen_dir, data, model_rec, rank)
            data, model_rec = inputs["data"], inputs["model"]
            print(f"inputs: frozen as {inputs['fingerprint']} ({frozen_dir})", flush=True)
        elif mode == "full":
            inputs = None
    print(
        f"model: {model_rec['model']['parameters']} parameters, step {model_rec['chosen_step']}, held-out pass@1 "
        f"{model_rec['chosen']['pass1']:.3f} {model_rec['chosen']['per_source']}",
        flush=True,
    )
    fp = inputs["fingerprint"] if mode == "full" and inputs is not None else None
    seeds = a.seeds if a.seeds else ([0] if mode != "full" else PARTS[a.part])
    arms = a.arms or (["uniform", "frontier-scored", "mopps"] if mode != "full" else list(ARMS))
    for loop in ["lean", "trl"] if a.loop == "both" else [a.loop]:
        setting = f"{mode}-{size}-{cfg.steps}x{cfg.prompts}x{cfg.group}-{loop}"
        root = a.results / setting
        for seed in seeds:  # every arm on a seed before the next: a part ends with pairs
            for name in arms:
                arm = ARMS[name]
                out = root / name / f"seed{seed}.json"
                if out.exists():
                    continue
                r = run_one(data, model_rec["checkpoint"], arm, seed, cfg, loop, out, inputs=fp)
                last = r["curve"][-1]
                print(
                    f"{setting} {name} seed {seed}: pass@1 {last['pass1']:.3f}, "
                    f"rollouts {last['rollouts']}, {r['wall_s']:.0f} s",
                    flush=True,
                )
        part = _part_of(seeds)
        summary = summarize(
            root, model_rec, data, times, inputs=fp, seeds=set(PARTS.get(part, seeds))
        )
        (root / ("summary.json" if part == "dev" else f"summary-{part}.json")).write_text(
            json.dumps(summary, indent=1)
        )
        print(setting)
        print(table(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
