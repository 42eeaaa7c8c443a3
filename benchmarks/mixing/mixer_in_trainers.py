"""The mixer inside real trainers on CPU: draws per source against the weights, the credit error
a "current weights" mixer would have made, and the time the sampler + mixer take per step.

TRL: the real GRPOTrainer with a tiny GPT-2 built offline (the whole step: generation, rewards,
loss, optimizer). verl (run it with the verl environment's Python): the legacy trainer's data path
as in `tests/mixer/test_adapter_verl09.py` (verl's dataloader with 2 workers, rewards from its
NaiveRewardManager calling our compute_score in the sandbox, GRPO advantages); generation and the
actor update need GPUs and are not in its step time.

    python benchmarks/mixing/mixer_in_trainers.py --steps 40                      # TRL
    .venv-verl/bin/python benchmarks/mixing/mixer_in_trainers.py --trainer verl --steps 20
Writes benchmarks/results/mixer_in_trainers.json (TRL) or mixer_in_trainers_verl.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SOURCES = ["easy", "hard", "mid"]


def _model_and_tokenizer(
    n_positions: int = 64, n_embd: int = 16, n_layer: int = 1, n_head: int = 2
):
    """A GPT-2 of the given size and a character tokenizer, built offline."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {
        c: i for i, c in enumerate(["<pad>", "<eos>", *"abcdefghijklmnopqrstuvwxyz0123456789 "])
    }
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<pad>"))
    tk.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="<eos>")
    cfg = GPT2Config(
        vocab_size=len(vocab), n_positions=n_positions, n_embd=n_embd, n_layer=n_layer,
        n_head=n_head, bos_token_id=1, eos_token_id=1, pad_token_id=0,
    )  # fmt: skip
    torch.manual_seed(0)
    return GPT2LMHeadModel(cfg), tok


def _reward(completions, source, **kw):
    """'mid' prompts get mixed groups (0 then 1), 'hard' rarely, 'easy' never: |advantage| differs."""
    return [
        float(s == "mid") * (i % 2) + float(s == "hard") * (i % 4 == 1)
        for i, s in enumerate(source)
    ]


def run(policy: str, steps: int) -> dict:
    import trl
    from datasets import Dataset

    from mixer import make_mixer
    from mixer.adapters.trl import MixerGRPOTrainer

    mixer = make_mixer(policy, 3, names=SOURCES, seed=0)
    drew: dict[int, np.ndarray] = {}
    now: list[np.ndarray] = []
    cost = {"draw_s": 0.0, "update_s": 0.0}
    issue, update = mixer.issue, mixer.update

    def timed_issue():
        wid, w = issue()
        drew[wid] = w.copy()
        return wid, w

    def timed_update(fb):
        now.append(mixer.weights().copy())
        t = time.perf_counter()
        update(fb)
        cost["update_s"] += time.perf_counter() - t

    mixer.issue, mixer.update = timed_issue, timed_update
    model, tok = _model_and_tokenizer()
    ds = Dataset.from_dict({"prompt": [f"p{i} " for i in range(60)], "source": SOURCES * 20})
    with tempfile.TemporaryDirectory() as out:
        args = trl.GRPOConfig(
            output_dir=out, per_device_train_batch_size=6, num_generations=2,
            max_completion_length=3, max_steps=steps, report_to=[], logging_steps=1000,
            use_cpu=True, save_strategy="no", seed=0, disable_tqdm=True,
        )  # fmt: skip
        tr = MixerGRPOTrainer(
            model=model, reward_funcs=_reward, args=args, train_dataset=ds,
            processing_class=tok, mixer=mixer,
        )  # fmt: skip
        next_batch = tr.mixed_sampler.next_batch

        def timed_next_batch():
            t = time.perf_counter()
            out_ = next_batch()
            cost["draw_s"] += time.perf_counter() - t
            return out_

        tr.mixed_sampler.next_batch = timed_next_batch
        t0 = time.perf_counter()
        tr.train()
        wall = time.perf_counter() - t0
    res = _summary(policy, SOURCES, mixer, drew, now)
    hist = mixer.history
    return {
        **res,
        "trainer_s_per_step": wall / len(hist),
        "mixer_s_per_step": (cost["draw_s"] + cost["update_s"]) / len(hist),
        "mixer_share_of_step": (cost["draw_s"] + cost["update_s"]) / wall,
    }


def _summary(policy: str, names: list[str], mixer, drew: dict, now: list) -> dict:
    """Draws per source against the weights that drew them, and the credit errors."""
    hist = mixer.history
    credited = np.array([h["weights"] for h in hist])
    drawing = np.array([drew[h["weights_id"]] for h in hist])
    current = np.array(now)
    counts = np.array([h["counts"] for h in hist])
    prompts = counts.sum(1, keepdims=True)
    return {
        "policy": policy,
        "steps": len(hist),
        "draws": len(drew),
        "draws_per_source": dict(zip(names, counts.sum(0).tolist(), strict=True)),
        "expected_per_source": dict(
            zip(names, (drawing * prompts).sum(0).round(2).tolist(), strict=True)
        ),
        "credit_error_now": float(np.abs(credited - drawing).max()),
        "credit_error_current_weights": float(np.abs(current - drawing).max()),
        "steps_where_current_differs": int((np.abs(current - drawing).max(1) > 1e-12).sum()),
        "final_weights": dict(zip(names, mixer.weights().round(3).tolist(), strict=True)),
    }


def _char_tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    chars = [chr(i) for i in range(32, 127)] + ["\n", "\t"]
    vocab = {c: i for i, c in enumerate(["<pad>", "<eos>", *chars])}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<pad>"))
    tk.pre_tokenizer = pre_tokenizers.Split("", "isolated")
    tk.decoder = decoders.Fuse()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="<eos>")
    tok.chat_template = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
    return tok


def _verl_config(export: Path, policy: str):
    from hydra import compose, initialize_config_dir
    from verl.trainer import main_ppo

    root = Path(__file__).resolve().parents[2]
    config_dir = os.path.join(os.path.dirname(main_ppo.__file__), "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        return compose(
            "ppo_trainer",
            overrides=[
                f"data.train_files={export / 'train.parquet'}",
                f"data.val_files={export / 'test.parquet'}",
                "data.train_batch_size=6",
                "data.max_prompt_length=4096",
                "data.dataloader_num_workers=2",
                "data.custom_cls.path=pkg://mixer.adapters.verl",
                "data.custom_cls.name=MixerRLHFDataset",
                f"+data.sampler.mixer={policy}",
                "+data.sampler.source_key=difficulty_bucket",
                f"reward.custom_reward_function.path={root / 'filters/reward/trainer_rewards.py'}",
            ],
        )


def run_verl(policy: str, steps: int, work: Path) -> dict:
    """verl's legacy data path with the mixer, `steps` steps over the demo build's verl export:
    bucket 4's responses all fail (no advantage), the others get one passing response of two."""
    import subprocess
    import uuid

    import torch
    from verl import DataProto
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager
    from verl.trainer.ppo.ray_trainer import RayPPOTrainer, compute_advantage
    from verl.trainer.ppo.reward import get_custom_reward_fn
    from verl.trainer.ppo.utils import create_rl_dataset
    from verl.utils.dataset.rl_dataset import collate_fn

    from mixer.adapters.verl import mixer_trainer_class
    from mixer.adapters.verl_main import mixer_sampler

    export = work / "verl"
    if not (export / "train.parquet").is_file():
        cli = [sys.executable, "-c", "from curation.cli import main; main()"]
        subprocess.run(
            [*cli, "build", "--out", str(work / "demo")], check=True, capture_output=True
        )
        subprocess.run(
            [*cli, "export", str(work / "demo"), "--format", "verl", "--out", str(export)]
            + ["--split", "test=0.2"],
            check=True,
            capture_output=True,
        )
    config = _verl_config(export, policy)
    tok = _char_tokenizer()
    train = create_rl_dataset(config.data.train_files, config.data, tok, None, is_train=True)
    val = create_rl_dataset(config.data.val_files, config.data, tok, None, is_train=False)
    sampler = mixer_sampler(config.data, train)
    mixer = sampler.mixer
    drew: dict[int, np.ndarray] = {}
    now: list[np.ndarray] = []
    cost = dict.fromkeys(("draw", "feed", "reward", "adv", "loader"), 0.0)
    issue, next_batch = mixer.issue, sampler.mixed.next_batch

    def timed_issue():
        wid, w = issue()
        drew[wid] = w.copy()
        return wid, w

    def timed_next_batch():
        t = time.perf_counter()
        out = next_batch()
        cost["draw"] += time.perf_counter() - t
        return out

    mixer.issue, sampler.mixed.next_batch = timed_issue, timed_next_batch
    tr = object.__new__(mixer_trainer_class(RayPPOTrainer))
    tr.config, tr.tokenizer, tr.processor = config, tok, None
    RayPPOTrainer._create_dataloader(tr, train, val, collate_fn, sampler)
    manager = NaiveRewardManager(config, tok, get_custom_reward_fn(config))
    n_rollout, done, t_all = 2, 0, time.perf_counter()
    while done < steps:
        it = iter(tr.train_dataloader)
        while done < steps:
            t = time.perf_counter()
            batch_dict = next(it, None)
            cost["loader"] += time.perf_counter() - t
            if batch_dict is None:
                break
            batch = DataProto.from_single_dict(batch_dict)
            batch.non_tensor_batch["uid"] = np.array([str(uuid.uuid4()) for _ in range(len(batch))])
            batch = batch.repeat(repeat_times=n_rollout, interleave=True)
            t = time.perf_counter()
            nt = batch.non_tensor_batch
            ids = []
            for i, (gt, info) in enumerate(zip(nt["reward_model"], nt["extra_info"], strict=True)):
                sol = json.loads(gt["ground_truth"])["solutions"][0]
                right = i % n_rollout == 0 and info["difficulty_bucket"] != 4
                text = f"```python\n{sol if right else 'print(0)'}\n```"
                ids.append(tok(text, add_special_tokens=False)["input_ids"])
            width = max(map(len, ids))
            pad = [r + [0] * (width - len(r)) for r in ids]
            mask = [[1] * len(r) + [0] * (width - len(r)) for r in ids]
            scores = torch.zeros(len(ids), width)
            for i, r in enumerate(ids):
                item = DataProto.from_dict(
                    tensors={
                        "responses": torch.tensor([pad[i]]),
                        "attention_mask": torch.tensor([mask[i]]),
                    },
                    non_tensors={
                        k: nt[k][i : i + 1] for k in ("data_source", "reward_model", "extra_info")
                    },
                )
                out = manager.loop.run_until_complete(manager.run_single(item))
                scores[i, len(r) - 1] = float(out["reward_score"])
            cost["reward"] += time.perf_counter() - t
            batch.batch["token_level_scores"] = scores
            batch.batch["token_level_rewards"] = scores
            batch.batch["response_mask"] = torch.tensor(mask, dtype=torch.float32)
            t = time.perf_counter()
            batch = compute_advantage(batch, adv_estimator="grpo", num_repeat=n_rollout)
            cost["adv"] += time.perf_counter() - t
            now.append(mixer.weights().copy())
            t = time.perf_counter()
            tr._feed_mixer(batch)
            cost["feed"] += time.perf_counter() - t
            done += 1
    wall = time.perf_counter() - t_all
    return {
        **_summary(policy, sampler.mixed.names, mixer, drew, now),
        "cpu_step_s": wall / done,
        "loader_wait_s_per_step": cost["loader"] / done,
        "reward_s_per_step": cost["reward"] / done,
        "advantage_s_per_step": cost["adv"] / done,
        "mixer_s_per_step": (cost["draw"] + cost["feed"]) / done,
        "mixer_share_of_cpu_step": (cost["draw"] + cost["feed"]) / wall,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trainer", choices=["trl", "verl"], default="trl")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--policies", default="advantage-bandit,acodm")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    name = "mixer_in_trainers" + ("_verl" if a.trainer == "verl" else "")
    out = a.out or str(Path(__file__).resolve().parents[1] / "results" / f"{name}.json")
    if a.trainer == "verl":
        with tempfile.TemporaryDirectory() as work:
            rows = [run_verl(p, a.steps, Path(work)) for p in a.policies.split(",")]
    else:
        rows = [run(p, a.steps) for p in a.policies.split(",")]
    res = {
        "command": " ".join(["python", *sys.argv]),
        "load_avg": os.getloadavg(),
        "machine": f"{os.cpu_count()} cores",
        "runs": rows,
    }
    Path(out).write_text(json.dumps(res, indent=1) + "\n")
    for r in rows:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
