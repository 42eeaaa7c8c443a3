"""B2: a tiny policy, warmed up by supervised learning, then GRPO on mixed task sources with one mixer."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from mixbench.common import MixerSpec, Timer, build_mixer
from mixbench.tasks import (
    CLEAN,
    N_ANS,
    SEQ,
    SOURCES,
    VOCAB,
    make_dev,
    make_dev_slices,
    make_eval,
    make_pools,
    warmup_batch,
)
from mixer import (
    Feedback,
    GradientSketch,
    MixedSampler,
    ProxyACODM,
    feedback_from_rewards,
    grpo_advantages,
)
from mixer.base import to_state

__all__ = ["RLConfig", "Policy", "run_rl"]

DEV_PER_SOURCE = 256  # dev problems per clean source, for the `target` reward's held-out gradient
DEV_BATCH = 64  # dev problems per step


class RLConfig(dict):
    """Run settings (a dict so it travels to worker processes and into the JSON as is)."""

    @classmethod
    def make(cls, quick: bool) -> RLConfig:
        if quick:
            return cls(
                steps=40,
                prompts=16,
                group=8,
                hidden=64,
                emb=16,
                lr=2e-3,
                sl_steps=40,
                sl_batch=64,
                sl_lr=3e-3,
                eval_every=10,
                eval_per_source=128,
                noise=0.5,
                pool_scale=0.1,
                sketch_dim=64,
            )
        return cls(
            steps=500,
            prompts=64,
            group=8,
            hidden=128,
            emb=32,
            lr=2e-3,
            sl_steps=60,
            sl_batch=128,
            sl_lr=3e-3,
            eval_every=10,
            eval_per_source=512,
            noise=0.5,
            pool_scale=1.0,
            sketch_dim=128,
        )


class Policy(nn.Module):
    """An MLP over the embedded token sequence, giving logits over the answers."""

    def __init__(self, emb: int, hidden: int) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, emb)
        self.net = nn.Sequential(
            nn.Linear(SEQ * emb, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
            nn.Linear(hidden, N_ANS),
        )

    def forward(self, tok: torch.Tensor) -> torch.Tensor:
        return self.net(self.emb(tok).flatten(1))


@torch.no_grad()
def _pass_rates(model: Policy, evalset: dict) -> list[float]:
    return [
        float((model(torch.from_numpy(t)).argmax(1).numpy() == y).mean())
        for t, y in evalset.values()
    ]


def _dev_loss(logits: torch.Tensor, y: torch.Tensor, kind: str) -> torch.Tensor:
    """`nll` of the reference answers, or `pass`: minus the expected pass rate (exact: one token)."""
    if kind == "nll":
        return F.cross_entropy(logits, y)
    return -F.softmax(logits, -1).gather(1, y[:, None]).mean()


def run_rl(spec: MixerSpec, seed: int, cfg: RLConfig) -> dict:
    """One GRPO run; returns held-out pass-rate curves, weights over time and timings."""
    pools = make_pools(seed, cfg["noise"], cfg["pool_scale"])
    evalset = make_eval(seed, cfg["eval_per_source"])
    n = len(pools)
    sizes = np.array([len(p.ref) for p in pools], dtype=np.float64)
    if spec.policy == "static" and "weights" not in spec.kw:
        spec = MixerSpec(spec.label, "static", weights=sizes / sizes.sum(), **spec.kw)
    tokens = np.concatenate([p.tokens for p in pools])
    ref = np.concatenate([p.ref for p in pools])
    off = np.concatenate([[0], np.cumsum(sizes.astype(int))])
    groups = {p.name: np.arange(off[i], off[i + 1]) for i, p in enumerate(pools)}

    torch.manual_seed(seed)
    model = Policy(cfg["emb"], cfg["hidden"])
    params = list(model.parameters())
    # supervised warm-up: identical for every mixer at a given seed
    opt = torch.optim.Adam(params, lr=cfg["sl_lr"])
    wrng = np.random.default_rng([seed, 3])
    for _ in range(cfg["sl_steps"]):
        tok, y = warmup_batch(wrng, cfg["sl_batch"])
        F.cross_entropy(model(torch.from_numpy(tok)), torch.from_numpy(y)).backward()
        opt.step()
        opt.zero_grad()
    opt = torch.optim.Adam(params, lr=cfg["lr"])

    mixer_kw = dict(spec.kw)
    target_loss = mixer_kw.pop("target_loss", "pass")  # the dev loss whose gradient is the target
    mixer_spec = MixerSpec(spec.label, spec.policy, **mixer_kw)
    mixer = build_mixer(mixer_spec, n, SOURCES, seed, horizon=cfg["steps"])
    sampler = MixedSampler(groups, cfg["prompts"], mixer=mixer, seed=seed)
    reward_kind = spec.kw.get("reward")  # the feedback this arm needs
    use_target = reward_kind == "target"
    use_sketch = reward_kind in ("alignment", "target")
    sketch = GradientSketch(cfg["sketch_dim"], seed=seed) if use_sketch else None
    if use_target:  # held-out target: NLL of verified answers on a dev set (not the eval set)
        dev_tok, dev_y = (torch.from_numpy(a) for a in make_dev(seed, DEV_PER_SOURCE))
        dev_rng = np.random.default_rng([seed, 56])
    # proxy mode while learning: the held-out objective (minus the expected pass rate on the dev set)
    # before training and at every segment end; a deployed proxy policy needs no held-out feedback
    proxy_learning = isinstance(mixer, ProxyACODM) and not mixer.deployed
    if proxy_learning:
        obj_tok, obj_y = (torch.from_numpy(a) for a in make_dev(seed, DEV_PER_SOURCE))

    def dev_objective() -> float:
        with torch.no_grad():
            return float(_dev_loss(model(obj_tok), obj_y, "pass"))

    if isinstance(mixer, ProxyACODM):
        mixer.start_run(eval_loss=dev_objective() if proxy_learning else None)
    use_dev = reward_kind == "heldout"
    if use_dev:  # fixed held-out slice per source, NLL of its stored references after each step
        slices = [
            (torch.from_numpy(t), torch.from_numpy(y))
            for t, y in make_dev_slices(seed, DEV_PER_SOURCE, cfg["noise"], pools)
        ]
    gen = torch.Generator().manual_seed(seed * 7919 + 1)
    G = cfg["group"]
    t_mix, t_step, t_fb = Timer(), Timer(), Timer()
    curve_steps, curve_pass, curve_src, weights, rewards = [], [], [], [], []

    def evaluate(step: int) -> None:
        pr = _pass_rates(model, evalset)
        curve_steps.append(step)
        curve_src.append(pr)
        curve_pass.append(float(np.mean(pr)))

    evaluate(0)
    for step in range(1, cfg["steps"] + 1):
        with t_step:
            idx = np.asarray(sampler.next_batch())
            src = sampler.last_sources
            with t_mix:
                w = mixer.weights()
            tok = torch.from_numpy(np.repeat(tokens[idx], G, axis=0))
            logits = model(tok)
            logp_all = F.log_softmax(logits, -1)
            ans = torch.multinomial(logp_all.exp(), 1, generator=gen).squeeze(1)
            r = (ans.numpy() == np.repeat(ref[idx], G)).astype(np.float64)
            gid = np.repeat(np.arange(len(idx)), G)
            sid = np.repeat(src, G)
            adv = grpo_advantages(r, gid)
            logp = logp_all.gather(1, ans[:, None]).squeeze(1)
            per = -torch.from_numpy(adv).float() * logp
            grad_sketch = None
            if sketch is None:
                per.mean().backward()
            else:
                grad_sketch = np.full((n, cfg["sketch_dim"]), np.nan)
                sid_t = torch.from_numpy(sid)
                present = np.unique(sid)
                for j, s in enumerate(present):
                    part = per[sid_t == int(s)].sum() / len(per)
                    gs = torch.autograd.grad(part, params, retain_graph=j < len(present) - 1)
                    for p, g in zip(params, gs, strict=True):
                        p.grad = g if p.grad is None else p.grad + g
                    with t_fb:
                        # gs is the gradient of the source's part of the loss; scale to its mean
                        scale = len(per) / int((sid == s).sum())
                        grad_sketch[s] = scale * sketch.project(
                            torch.cat([g.reshape(-1) for g in gs])
                        )
            target_sketch = None
            if use_target:
                with t_fb:
                    pick = torch.from_numpy(dev_rng.choice(len(dev_y), DEV_BATCH, replace=False))
                    tl = _dev_loss(model(dev_tok[pick]), dev_y[pick], target_loss)
                    gd = torch.autograd.grad(tl, params)
                    target_sketch = sketch.project(torch.cat([g.reshape(-1) for g in gd]))
            opt.step()
            opt.zero_grad()
            dev_loss = None
            if use_dev:
                with t_fb, torch.no_grad():
                    dev_loss = [float(_dev_loss(model(t), y, target_loss)) for t, y in slices]
            eval_loss = None
            if proxy_learning and (step % mixer.segment_len == 0 or step == cfg["steps"]):
                with t_fb:
                    eval_loss = dev_objective()
            fb0 = feedback_from_rewards(r, sid, n, advantages=adv)
            fb = Feedback(
                counts=sampler.last_counts,
                reward=fb0.reward,
                pass_rate=fb0.pass_rate,
                adv_abs=fb0.adv_abs,
                grad_sketch=grad_sketch,
                target_sketch=target_sketch,
                dev_loss=dev_loss,
                eval_loss=eval_loss,
            )
            with t_mix:
                mixer.update(fb)
        weights.append([float(v) for v in w])
        rewards.append(float(r.mean()))
        if step % cfg["eval_every"] == 0 or step == cfg["steps"]:
            evaluate(step)
    out = {
        "label": spec.label,
        "seed": seed,
        "names": list(SOURCES),
        "clean": list(CLEAN),
        "params": sum(p.numel() for p in params),
        "steps": curve_steps,
        "pass_rate": curve_pass,
        "pass_rate_source": curve_src,
        "train_reward": rewards,
        "weights": weights,
        "time_step_s": t_step.total / cfg["steps"],
        "time_mixer_s": t_mix.total / cfg["steps"],
        "time_target_s": t_fb.total / cfg["steps"],
    }
    if proxy_learning:
        out["examples"] = to_state(mixer.end_run(learn=False))
    return out
