"""GRPO on B3, two ways with the same reward function, samplers and mixers:

- `run_trl`: TRL's `GRPOTrainer` through `mixer.adapters.trl.MixerGRPOTrainer` (the sampler
  draws each generation batch, `trl_correctness_reward` grades it, the trainer feeds the sampler;
  a sampler that drops groups is refilled by the trainer, up to `refill_rounds` rounds);
- `run_lean`: the same step written out (sample `group` completions per drawn prompt, grade them
  with `trl_correctness_reward`, `sampler.update`, TRL's loss: group-scaled advantages, the
  "dapo" token-mean loss, `beta=0`, one iteration, AdamW with a linear decay, gradient clip 1),
  which also runs the samplers that drop groups (DAPO) with their refill loop, as verl does.

Both evaluate held-out pass@1 every `eval_every` steps and record the sampler's ledger (every
generated rollout, discarded ones included), generated tokens, scoring tokens (prompt and
reference tokens of every problem the scorer scored) and the sandbox's CPU seconds.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch

from code_rl.rollout import evaluate, grade, prompt_ids, sample, sandbox_cpu_s
from mixer import BetaPosteriorSampler, DynamicSampling, FrontierSampler, ProblemSampler, make_mixer
from mixer.problems.scorers import ReferenceLikelihood, dataset_references

__all__ = ["RunConfig", "Arm", "make_sampler", "run_lean", "run_trl"]

SAMPLERS: dict[str, type[ProblemSampler]] = {
    "uniform": ProblemSampler,
    "frontier": FrontierSampler,
    "dapo": DynamicSampling,
    "mopps": BetaPosteriorSampler,
}


@dataclass(frozen=True)
class RunConfig:
    steps: int = 40
    prompts: int = 16  # prompts per generation batch (one optimizer step each)
    group: int = 8  # completions per prompt
    lr: float = 3e-4
    max_new_tokens: int = 64
    eval_every: int = 10
    eval_samples: int = 4
    refill_rounds: int = 10  # DAPO's max_num_gen_batches
    quality_at: tuple[int, ...] = ()  # steps at which to measure the scorer's quality
    quality_problems: int = 48
    quality_samples: int = 16
    device: str = "cpu"


@dataclass(frozen=True)
class Arm:
    """A problem sampler (`problems`, with `problem_kw`) under a source mixer (`mixer`, with
    `mixer_kw`; "static-size" is static weights by source size); `scorer` sets the policy's
    reference likelihood on a FrontierSampler."""

    name: str
    problems: str = "uniform"
    mixer: str = "uniform"
    scorer: bool = False
    problem_kw: dict[str, Any] = field(default_factory=dict)
    mixer_kw: dict[str, Any] = field(default_factory=dict)


def make_sampler(arm: Arm, train: Any, cfg: RunConfig, seed: int) -> ProblemSampler:
    names = sorted(set(train["source"]))
    kw = dict(arm.mixer_kw)
    policy = arm.mixer
    if policy == "static-size":
        sizes = np.array([sum(1 for s in train["source"] if s == n) for n in names], dtype=float)
        policy, kw = "static", {"weights": sizes / sizes.sum(), **kw}
    mixer = make_mixer(policy, len(names), names=names, seed=seed, **kw)
    cls = SAMPLERS[arm.problems]
    extra: dict[str, Any] = {}
    if cls is FrontierSampler:
        has = any(d is not None for d in train["difficulty"])
        extra = {} if has else {"difficulty_column": None, "std_column": None}
    return cls.from_dataset(
        train,
        cfg.prompts,
        mixer=mixer,
        seed=seed,
        num_steps=cfg.steps,
        **{**extra, **arm.problem_kw},
    )


class CountingScorer:
    """A scorer that counts the tokens of every forward pass it makes (prompt + reference)."""

    def __init__(self, inner: ReferenceLikelihood, tokenizer: Any) -> None:
        self.inner = inner
        self.lengths = np.array(
            [
                len(p if isinstance(p, list) else tokenizer(p)["input_ids"])
                + (len(tokenizer(r, add_special_tokens=False)["input_ids"]) if r else 0)
                for p, r in zip(inner.prompts, inner.references, strict=True)
            ]
        )
        self.tokens = 0

    def __call__(self, indices: np.ndarray) -> np.ndarray:
        self.tokens += int(self.lengths[np.asarray(indices, dtype=np.int64)].sum())
        return self.inner(indices)


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks with ties given their average rank."""
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    r[order] = np.arange(len(x), dtype=float)
    for v in np.unique(x):
        tie = x == v
        r[tie] = r[tie].mean()
    return r


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ok = np.isfinite(a) & np.isfinite(b)
    ra, rb = _ranks(a[ok]), _ranks(b[ok])
    if ok.sum() < 3 or np.ptp(ra) == 0 or np.ptp(rb) == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def _auroc(score: np.ndarray, label: np.ndarray) -> float:
    ok = np.isfinite(score)
    pos, neg = score[ok & label], score[ok & ~label]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def scorer_quality(model: Any, tok: Any, train: Any, cfg: RunConfig, seed: int) -> dict[str, Any]:
    """Reference log-likelihood (mean per token and summed) against the empirical pass rate of
    `quality_samples` completions, on a fixed sample of train problems: Spearman, and AUROC for
    "solved at least once" and for "pass rate >= 0.5"."""
    rng = np.random.default_rng(1234)
    idx = np.sort(rng.choice(len(train), size=min(cfg.quality_problems, len(train)), replace=False))
    rows = train.select(idx.tolist())
    torch.manual_seed(seed + 777)
    ids = prompt_ids(tok, rows["prompt"])
    texts, _ = sample(model, tok, ids, cfg.quality_samples, cfg.max_new_tokens)
    gt = [g for g in rows["ground_truth"] for _ in range(cfg.quality_samples)]
    p = np.nan_to_num(grade(gt, texts), nan=0.0).reshape(len(idx), -1).mean(axis=1)
    refs = dataset_references(rows)
    mean_ll = ReferenceLikelihood(model, tok, ids, refs)(np.arange(len(idx)))
    n_tok = np.array([len(tok(r, add_special_tokens=False)["input_ids"]) for r in refs])
    sum_ll = mean_ll * n_tok
    out: dict[str, Any] = {
        "problems": len(idx),
        "mean_pass": float(p.mean()),
        # per problem, so that the quality inside each source can be read too
        "rows": {
            "source": list(rows["source"]),
            "pass": p.tolist(),
            "mean_ll": mean_ll.tolist(),
            "sum_ll": sum_ll.tolist(),
        },
    }
    for name, ll in (("mean", mean_ll), ("sum", sum_ll)):
        out[name] = {
            "spearman": spearman(ll, p),
            "auroc_solved": _auroc(ll, p > 0),
            "auroc_half": _auroc(ll, p >= 0.5),
        }
    return out


def _grpo_loss(
    model: Any, seqs: list[tuple[list[int], list[int]]], adv: np.ndarray, dev: str
) -> Any:
    """TRL's GRPO loss at beta=0 and one iteration ("dapo": the sum over completion tokens of
    -advantage * log p, over the number of completion tokens)."""
    width = max(len(p) + len(c) for p, c in seqs)
    pad = 0
    ids = torch.full((len(seqs), width), pad, dtype=torch.long)
    mask = torch.zeros_like(ids)
    comp = torch.zeros((len(seqs), width - 1), dtype=torch.float32)
    a = torch.zeros((len(seqs), 1), dtype=torch.float32)
    for k, (p, c) in enumerate(seqs):
        s = p + c
        off = width - len(s)  # left padding, as generation sees it
        ids[k, off:] = torch.tensor(s)
        mask[k, off:] = 1
        comp[k, off + len(p) - 1 : width - 1] = 1.0
        a[k, 0] = float(adv[k])
    pos = (mask.cumsum(1) - 1).clamp(min=0)
    logits = model(
        input_ids=ids.to(dev), attention_mask=mask.to(dev), position_ids=pos.to(dev)
    ).logits
    logp = torch.log_softmax(logits[:, :-1].float(), dim=-1).gather(
        -1, ids[:, 1:].to(dev)[..., None]
    )
    logp = logp.squeeze(-1)
    comp, a = comp.to(dev), a.to(dev)
    return -(a * logp * comp).sum() / comp.sum().clamp(min=1.0)


def _advantages(rewards: np.ndarray, group: int) -> np.ndarray:
    r = np.nan_to_num(rewards, nan=0.0).reshape(-1, group)
    std = r.std(axis=1, ddof=1, keepdims=True) if group > 1 else np.zeros((len(r), 1))
    return ((r - r.mean(axis=1, keepdims=True)) / (std + 1e-4)).reshape(-1)


class _Recorder:
    """The run's curve: held-out pass@1 and the cost so far at each evaluation."""

    def __init__(
        self, model: Any, tok: Any, held_out: Any, train: Any, cfg: RunConfig, seed: int
    ) -> None:
        self.model, self.tok, self.held_out, self.train = model, tok, held_out, train
        self.cfg, self.seed = cfg, seed
        self.curve: list[dict[str, Any]] = []
        self.quality: list[dict[str, Any]] = []
        self.cpu0 = sandbox_cpu_s()
        self.t0 = time.perf_counter()
        self.eval_s = 0.0

    def point(self, step: int, sampler: ProblemSampler, gen_tokens: int, score_tokens: int) -> None:
        t = time.perf_counter()
        if step in self.cfg.quality_at:
            q = scorer_quality(self.model, self.tok, self.train, self.cfg, self.seed)
            self.quality.append({"step": step, **q})
        if step % self.cfg.eval_every == 0 or step == self.cfg.steps:
            ev = evaluate(
                self.model, self.tok, self.held_out, n=self.cfg.eval_samples, seed=self.seed + step
            )
            ev.pop("per_problem")
            self.curve.append(
                {
                    "step": step,
                    **ev,
                    **{k: int(v) for k, v in sampler.ledger.items()},
                    "generated_tokens": int(gen_tokens),
                    "scoring_tokens": int(score_tokens),
                    "sandbox_cpu_s": sandbox_cpu_s() - self.cpu0,
                    "wall_s": time.perf_counter() - self.t0 - self.eval_s,
                }
            )
        self.eval_s += time.perf_counter() - t


def run_lean(
    model: Any, tok: Any, train: Any, held_out: Any, arm: Arm, cfg: RunConfig, seed: int
) -> dict[str, Any]:
    """One GRPO run of `arm` from `model` (trained in place)."""
    torch.manual_seed(seed)
    dev = cfg.device
    model.to(dev)
    sampler = make_sampler(arm, train, cfg, seed)
    scorer = None
    if arm.scorer:
        scorer = CountingScorer(ReferenceLikelihood.from_dataset(model, tok, train), tok)
        assert isinstance(sampler, FrontierSampler)
        sampler.set_scorer(scorer)
    ids = prompt_ids(tok, train["prompt"])
    gts = list(train["ground_truth"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1 - s / cfg.steps))
    rec = _Recorder(model, tok, held_out, train, cfg, seed)
    gen_tokens = 0
    G = cfg.group
    rec.point(0, sampler, 0, 0)
    for step in range(1, cfg.steps + 1):
        kept: list[tuple[int, list[int], np.ndarray]] = []  # (problem, completion ids x G, rewards)
        for _ in range(cfg.refill_rounds):
            batch = sampler.next_batch()
            model.eval()
            texts, toks = sample(model, tok, [ids[i] for i in batch], G, cfg.max_new_tokens)
            gen_tokens += sum(len(t) for t in toks)
            problems = np.repeat(np.asarray(batch, dtype=np.int64), G)
            rewards = grade([gts[i] for i in problems], texts)
            out = sampler.learn(problems, rewards, weights_id=sampler.last_weights_id, group_size=G)
            for g in np.flatnonzero(out.keep_group):
                kept.append(
                    (int(batch[g]), toks[g * G : (g + 1) * G], rewards[g * G : (g + 1) * G])
                )
            if len(kept) >= cfg.prompts or not sampler.drops_groups:
                break
        kept = kept[: cfg.prompts]
        if kept:
            model.train()
            seqs = [(ids[p], c) for p, cs, _ in kept for c in cs]
            adv = np.concatenate([_advantages(r, G) for _, _, r in kept])
            loss = _grpo_loss(model, seqs, adv, dev)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        sched.step()
        model.eval()
        rec.point(step, sampler, gen_tokens, scorer.tokens if scorer else 0)
    return {
        "curve": rec.curve,
        "quality": rec.quality,
        "loop": "lean",
        "weights": sampler.mixer.weights().tolist(),
    }


def run_trl(
    model: Any,
    tok: Any,
    train: Any,
    held_out: Any,
    arm: Arm,
    cfg: RunConfig,
    seed: int,
    out_dir: str,
) -> dict[str, Any]:
    """One GRPO run of `arm` through `MixerGRPOTrainer` (TRL), evaluated by a callback."""
    from transformers import TrainerCallback
    from trl import GRPOConfig

    from filters.reward import trl_correctness_reward
    from mixer.adapters.trl import MixerGRPOTrainer

    sampler = make_sampler(arm, train, cfg, seed)
    args = GRPOConfig(
        output_dir=out_dir,
        max_steps=cfg.steps,
        per_device_train_batch_size=cfg.prompts * cfg.group,
        num_generations=cfg.group,
        generation_batch_size=cfg.prompts * cfg.group,
        max_completion_length=cfg.max_new_tokens,
        temperature=1.0,
        learning_rate=cfg.lr,
        weight_decay=0.0,
        lr_scheduler_type="linear",
        max_grad_norm=1.0,
        beta=0.0,
        loss_type="dapo",
        scale_rewards="group",
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=cfg.device == "cpu",
        seed=seed,
        dataloader_num_workers=0,
        disable_tqdm=True,
        bf16=False,
    )
    state = {"tokens": 0}

    def correctness(completion_ids: Any = None, **kw: Any) -> list[float | None]:
        """`trl_correctness_reward`, counting the tokens TRL generated."""
        state["tokens"] += sum(len(c) for c in completion_ids or [])
        return trl_correctness_reward(completion_ids=completion_ids, **kw)

    trainer = MixerGRPOTrainer(
        model=model,
        reward_funcs=[correctness],
        args=args,
        train_dataset=train,
        processing_class=tok,
        sampler=sampler,
        refill_rounds=cfg.refill_rounds,  # short after them: train on the kept groups, as run_lean
    )
    scorer = None
    if arm.scorer:
        scorer = CountingScorer(trainer.reference_scorer(), tok)
        assert isinstance(sampler, FrontierSampler)
        sampler.set_scorer(scorer)
    rec = _Recorder(trainer.model, tok, held_out, train, cfg, seed)

    class Eval(TrainerCallback):
        def on_step_end(self, args, st, control, **kw):  # noqa: ANN001, ANN202, ARG002
            m = trainer.model
            was = m.training
            m.eval()
            rec.point(int(st.global_step), sampler, state["tokens"], scorer.tokens if scorer else 0)
            m.train(was)

    rec.point(0, sampler, 0, 0)
    trainer.add_callback(Eval())
    trainer.train()
    return {
        "curve": rec.curve,
        "quality": rec.quality,
        "loop": "trl",
        "weights": sampler.mixer.weights().tolist(),
    }


def config_dict(cfg: RunConfig) -> dict[str, Any]:
    return asdict(cfg)
