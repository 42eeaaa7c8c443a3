"""B3 v3's path to a real model (issue 53): any local Hugging Face causal LM folder
(`AutoModelForCausalLM`, prompted through its tokenizer's chat template) on any codemix export,
with the samplers and mixers of `bench.py` run through TRL's trainer (`MixerGRPOTrainer`).

Two commands:

- `probe`: the policy's step 0. `--samples` (16) completions of every train problem, graded by the
  sandbox (`filters.reward.trl_correctness_reward`, the reward the runs train on); reports the
  live pool (problems with at least one passing and one failing completion), every problem's pass
  rate, uniform's expected zero-advantage share for groups of `--group` (over problems and over
  sources; the chance that `--group` completions drawn from the probe's all pass or all fail), and
  the Spearman of the export's `difficulty` (the prior `codemix rank` fitted from other models)
  against the policy's pass rates, overall and inside each source.
- `run`: each arm on each seed, a GRPO run from the folder's weights through `MixerGRPOTrainer`
  (`grpo.run_trl`: TRL's generation, loss and optimizer step; the sampler drawing every generation
  batch; held-out pass@1 at every evaluation; the sampler's ledger of every rollout), one JSON
  file per run in `--out`/<arm>/seed<k>.json, skipped when it exists (resumable).

The export is a `codemix export --format trl` folder (`datasets.load_from_disk`), or a build folder
(its `manifest.json` beside the shards), exported here with `--held-out` of it in the held-out split.

    python benchmarks/code_rl/real.py probe --model MODEL_DIR --export EXPORT --device cuda \
        --max-new-tokens 512 --out probe.json
    python benchmarks/code_rl/real.py run --model MODEL_DIR --export EXPORT --device cuda \
        --arms uniform dapo stack --seeds 0 1 --steps 100 --prompts 16 --group 8 \
        --max-new-tokens 512 --out runs/
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from code_rl.grpo import (  # noqa: E402
    Arm,
    RunConfig,
    config_dict,
    offline_filter,
    ranking_pass_rates,
    run_trl,
    spearman,
)

__all__ = ["load_policy", "load_export", "grade_matrix", "probe", "probe_report", "main"]

HELD_OUT = "test"


def load_policy(folder: Path, device: str = "cpu") -> tuple[Any, Any]:
    """(model, tokenizer) of a local Hugging Face causal LM folder. The tokenizer must have a chat
    template (the export's prompts are conversations); a tokenizer without a padding token pads
    with its end of sequence; generation pads on the left."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(folder))
    if not getattr(tok, "chat_template", None):
        raise SystemExit(f"{folder}: the tokenizer has no chat template (the prompts are chats)")
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    tok.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(str(folder)).to(device).eval()
    return model, tok


def load_export(path: Path, held_out: float = 0.2) -> Any:
    """The export's `DatasetDict` (train, and `test` when it has a held-out split): a `codemix
    export --format trl` folder as it is, or a build folder exported here (into a temporary folder;
    the build is only read)."""
    from datasets import load_from_disk

    if (path / "dataset_dict.json").exists():
        return load_from_disk(str(path))
    if not (path / "manifest.json").exists():
        raise SystemExit(f"{path}: neither a `codemix export --format trl` folder nor a build")
    out = Path(tempfile.mkdtemp(prefix="codemix-real-")) / "trl"
    cmd = [str(Path(sys.executable).with_name("codemix")), "export", str(path), "--format", "trl",
           "--out", str(out), "--split", f"{HELD_OUT}={held_out}"]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    return load_from_disk(str(out))


def grade_matrix(rows: Any, completions: list[str], samples: int) -> np.ndarray:
    """Pass (True) or not of each completion, graded by the sandbox as the runs' reward grades it:
    `completions` problem-major (`samples` per row of `rows`); a sandbox fault counts as a fail."""
    from code_rl.rollout import grade

    gt = [g for g in rows["ground_truth"] for _ in range(samples)]
    r = np.nan_to_num(grade(gt, completions), nan=0.0)
    return r.reshape(len(rows), samples) >= 1.0


def _zero_advantage(passed: np.ndarray, group: int) -> np.ndarray:
    """Per problem, the chance that `group` of its probe's completions drawn without replacement
    all pass or all fail: C(k, g) / C(n, g) + C(n - k, g) / C(n, g) (exact for the probe's draws,
    an unbiased estimate for the policy's)."""
    from math import comb

    n = passed.shape[1]
    if group > n:
        raise ValueError(f"--group {group} is more than the probe's {n} samples")
    k = passed.sum(axis=1)
    total = comb(n, group)
    return np.array([(comb(int(x), group) + comb(n - int(x), group)) / total for x in k])


def probe_report(
    sources: list[str], difficulty: list[Any], passed: np.ndarray, group: int
) -> dict[str, Any]:
    """What a probe says about the pool: per problem its pass rate; overall and per source the
    problems, how many all pass, all fail or are live, the mean pass rate, uniform's expected
    zero-advantage share for groups of `group` (over problems: every problem equally likely; over
    sources: every source equally likely, then its problems), and the Spearman of the prior
    (`difficulty`, higher is harder) against the pass rates (None where it is undefined: fewer than
    three problems with a prior, or a constant side)."""
    src = np.asarray(sources)
    diff = np.array([np.nan if d is None else float(d) for d in difficulty])
    rate = passed.mean(axis=1)
    allp, allf = np.asarray(passed.all(axis=1)), np.asarray(~passed.any(axis=1))
    zero = _zero_advantage(passed, group)

    def rho(k: np.ndarray) -> float | None:
        r = spearman(diff[k], rate[k])
        return None if np.isnan(r) else round(r, 4)

    def part(k: np.ndarray) -> dict[str, Any]:
        return {
            "problems": int(k.sum()),
            "all_pass": int(allp[k].sum()),
            "all_fail": int(allf[k].sum()),
            "live": int((~allp & ~allf)[k].sum()),
            "pass_rate": round(float(rate[k].mean()), 4),
            "zero_advantage": round(float(zero[k].mean()), 4),
            "with_prior": int(np.isfinite(diff[k]).sum()),
            "spearman_prior": rho(k),
        }

    everything = np.ones(len(src), dtype=bool)
    per = {str(s): part(src == s) for s in sorted(set(src.tolist()))}
    inside = [v["spearman_prior"] for v in per.values() if v["spearman_prior"] is not None]
    return {
        "samples": int(passed.shape[1]),
        "group": int(group),
        **part(everything),
        "zero_advantage_over_sources": round(
            float(np.mean([v["zero_advantage"] for v in per.values()])), 4
        ),
        "spearman_prior_inside_sources_mean": round(float(np.mean(inside)), 4) if inside else None,
        "per_source": per,
        "per_problem_pass_rate": [round(float(x), 4) for x in rate],
    }


def probe(
    model: Any,
    tok: Any,
    rows: Any,
    samples: int = 16,
    group: int = 8,
    max_new_tokens: int = 512,
    temperature: float = 1.0,
    seed: int = 0,
    chunk: int = 64,
) -> dict[str, Any]:
    """The step-0 probe of `rows` (the export's train split): `samples` completions each at
    `temperature`, graded by the sandbox, reported by `probe_report`, with the time of each part."""
    import torch

    from code_rl.rollout import prompt_ids, sample

    torch.manual_seed(seed)
    t0, c0 = time.perf_counter(), time.process_time()
    texts, toks = sample(
        model, tok, prompt_ids(tok, rows["prompt"]), samples, max_new_tokens, temperature, chunk
    )
    gen_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    passed = grade_matrix(rows, texts, samples)
    grade_s = time.perf_counter() - t1
    rep = probe_report(list(rows["source"]), list(rows["difficulty"]), passed, group)
    rep["problem_ids"] = list(rows["problem_id"])
    rep["generated_tokens"] = int(sum(len(t) for t in toks))
    rep["truncated"] = int(sum(len(t) >= max_new_tokens for t in toks))
    rep["time"] = {
        "generation_s": round(gen_s, 2),
        "grading_s": round(grade_s, 2),
        "process_cpu_s": round(time.process_time() - c0, 2),
    }
    return rep


def arms() -> dict[str, Arm]:
    """The arms `run` accepts: bench.py's, less the oracle (its probes need the lean loop)."""
    from code_rl.bench import ARMS

    return {k: v for k, v in ARMS.items() if not v.problems.startswith("oracle")}


def _main_probe(a: argparse.Namespace) -> int:
    model, tok = load_policy(a.model, a.device)
    ds = load_export(a.export, a.held_out)
    rows = ds[a.split]
    if a.limit:
        rows = rows.select(range(min(a.limit, len(rows))))
    rep = probe(model, tok, rows, a.samples, a.group, a.max_new_tokens, seed=a.seed, chunk=a.chunk)
    rep.update(model=str(a.model), export=str(a.export), split=a.split, device=a.device)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(rep, indent=1))
    print(
        f"probe: {rep['problems']} problems x {rep['samples']} samples, pass rate "
        f"{rep['pass_rate']:.3f}, live {rep['live']} (all pass {rep['all_pass']}, all fail "
        f"{rep['all_fail']}), uniform's zero-advantage share at groups of {rep['group']}: "
        f"{rep['zero_advantage']:.3f} over problems, {rep['zero_advantage_over_sources']:.3f} over "
        f"sources; prior's Spearman {rep['spearman_prior']} overall, "
        f"{rep['spearman_prior_inside_sources_mean']} inside sources (mean); "
        f"{rep['time']['generation_s']:.0f} s generating, {rep['time']['grading_s']:.0f} s grading",
        flush=True,
    )
    for s, v in rep["per_source"].items():
        print(
            f"  {s}: {v['problems']} problems, pass rate {v['pass_rate']:.3f}, live {v['live']}, "
            f"zero-advantage {v['zero_advantage']:.3f}, Spearman {v['spearman_prior']}",
            flush=True,
        )
    return 0


def _main_run(a: argparse.Namespace) -> int:
    from datasets import DatasetDict

    known = arms()
    bad = [n for n in a.arms if n not in known]
    if bad:
        raise SystemExit(f"unknown arms {bad}: one of {', '.join(known)}")
    ds = load_export(a.export, a.held_out)
    if not isinstance(ds, DatasetDict) or HELD_OUT not in ds:
        raise SystemExit(
            f"{a.export}: no held-out split `{HELD_OUT}` (export with --split test=...)"
        )
    train, held = ds["train"], ds[HELD_OUT]
    if a.limit:
        train = train.select(range(min(a.limit, len(train))))
        held = held.select(range(min(a.limit, len(held))))
    cfg = RunConfig(
        steps=a.steps,
        prompts=a.prompts,
        group=a.group,
        lr=a.lr,
        warmup=a.warmup,
        schedule="constant",
        skip_empty=True,
        max_new_tokens=a.max_new_tokens,
        eval_every=a.eval_every,
        eval_samples=a.eval_samples,
        final_samples=a.final_samples,
        rollouts=a.rollouts,
        device=a.device,
    )
    for seed in a.seeds:
        for name in a.arms:
            out = a.out / name / f"seed{seed}.json"
            if out.exists():
                continue
            arm, rows = known[name], train
            if arm.keep_pass_rate is not None:
                if not a.prior_rollouts:
                    raise SystemExit(f"arm {name}: the offline filter needs --prior-rollouts FILE")
                rows = offline_filter(
                    train, ranking_pass_rates(a.prior_rollouts), arm.keep_pass_rate
                )
            model, tok = load_policy(a.model, a.device)
            t0, c0 = time.perf_counter(), time.process_time()
            with tempfile.TemporaryDirectory(prefix="codemix-real-trl-") as tmp:
                res = run_trl(model, tok, rows, held, arm, cfg, seed, out_dir=tmp)
            res.update(
                arm=name,
                seed=seed,
                train_problems=len(rows),
                model=str(a.model),
                export=str(a.export),
                config=config_dict(cfg),
                wall_s=time.perf_counter() - t0,
                process_cpu_s=time.process_time() - c0,
                load=os.getloadavg(),
            )
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp_out = out.with_suffix(".tmp")
            tmp_out.write_text(json.dumps(res, separators=(",", ":")))
            tmp_out.rename(out)
            last = res["curve"][-1]
            print(
                f"{name} seed {seed}: held-out pass@1 {last['pass1_micro']:.3f}, step "
                f"{last['step']}, rollouts {last['rollouts']}, {res['wall_s']:.0f} s",
                flush=True,
            )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("probe", "run"):
        p = sub.add_parser(name)
        p.add_argument("--model", type=Path, required=True, help="a local causal LM folder")
        p.add_argument("--export", type=Path, required=True, help="a TRL export or a build")
        p.add_argument("--held-out", type=float, default=0.2, help="held-out share (a build)")
        p.add_argument("--device", default="cpu", help="cpu or cuda")
        p.add_argument("--max-new-tokens", type=int, default=512)
        p.add_argument("--group", type=int, default=8, help="completions per prompt")
        p.add_argument("--limit", type=int, default=None, help="the first N problems of a split")
        p.add_argument("--out", type=Path, required=True)
    p = sub.choices["probe"]
    p.add_argument("--split", default="train")
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--chunk", type=int, default=64, help="sequences generated at once")
    p = sub.choices["run"]
    p.add_argument("--arms", nargs="+", default=["uniform", "dapo", "stack"])
    p.add_argument("--seeds", type=int, nargs="+", default=[0])
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--prompts", type=int, default=16, help="prompts per generation batch")
    p.add_argument("--lr", type=float, default=1e-6)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--rollouts", type=int, default=0, help="end at this many rollouts (0: steps)")
    p.add_argument("--eval-every", type=int, default=25)
    p.add_argument("--eval-samples", type=int, default=4)
    p.add_argument("--final-samples", type=int, default=16)
    p.add_argument("--prior-rollouts", type=Path, default=None,
                   help="the ranking's rollouts file: the offline filter of dapo-filter")  # fmt: skip
    a = ap.parse_args(argv)
    if a.device == "cpu":
        import torch

        torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    return _main_probe(a) if a.command == "probe" else _main_run(a)


if __name__ == "__main__":
    raise SystemExit(main())
