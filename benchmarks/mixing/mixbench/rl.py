"""B2: a tiny policy, warmed up by supervised learning, then GRPO on mixed task sources with one mixer."""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from mixbench.common import (
    MixerSpec,
    Timer,
    build_mixer,
    deploy_from_proxy,
    feedback_needs,
    split_proxy,
)
from mixbench.compute import ComputeMeter, mlp_forward_flops
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
    ACODM,
    Feedback,
    GradientSketch,
    MixedSampler,
    ProxyACODM,
    feedback_from_rewards,
    grpo_advantages,
)
from mixer.policies.base import to_state

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


def run_rl(spec: MixerSpec, seed: int, cfg: RLConfig, keep_mixer: bool = False) -> dict:
    """One GRPO run; returns held-out pass-rate curves, weights over time, timings and compute.

    An arm with `proxy={...}` first runs its proxy (`deploy_from_proxy`); `keep_mixer` returns
    the mixer's final state (for a proxy run). Per-source gradients, when a mixer needs them, come
    from per-source micro-batches (the step's own forward and backward, split: no extra FLOPs)."""
    spec, proxy = split_proxy(spec)
    proxy_state, proxy_info = (
        deploy_from_proxy(run_rl, spec, seed, cfg, proxy) if proxy is not None else (None, None)
    )
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
    sel = [model.net[0].weight, model.net[2].weight, model.net[4].weight]
    sel_coords = sum(p.numel() for p in sel)
    meter = ComputeMeter(mlp_forward_flops(SEQ, cfg["emb"], cfg["hidden"], N_ANS))
    # supervised warm-up: identical for every mixer at a given seed (so not counted for a target
    # run; a proxy run counts it, since its model needs it too)
    opt = torch.optim.Adam(params, lr=cfg["sl_lr"])
    wrng = np.random.default_rng([seed, 3])
    for _ in range(cfg["sl_steps"]):
        tok, y = warmup_batch(wrng, cfg["sl_batch"])
        F.cross_entropy(model(torch.from_numpy(tok)), torch.from_numpy(y)).backward()
        opt.step()
        opt.zero_grad()
    sl_flops = 3.0 * meter.fwd * cfg["sl_steps"] * cfg["sl_batch"]
    if keep_mixer:
        meter.train += sl_flops
    opt = torch.optim.Adam(params, lr=cfg["lr"])

    mixer_kw = dict(spec.kw)
    target_loss = mixer_kw.pop("target_loss", "pass")  # the dev loss whose gradient is the target
    mixer_spec = MixerSpec(spec.label, spec.policy, **mixer_kw)
    mixer = build_mixer(mixer_spec, n, SOURCES, seed, horizon=cfg["steps"], n_norms=len(sel))
    if proxy_state is not None:
        mixer.load_state_dict(proxy_state)
        mixer.deploy()
    needs = feedback_needs(spec)
    if isinstance(mixer, ACODM) and mixer.frozen:  # a frozen policy needs no reward feedback
        needs = {**needs, "sketch": False, "target": False, "dev": False}
    sampler = MixedSampler(groups, cfg["prompts"], mixer=mixer, seed=seed)
    sketch = GradientSketch(cfg["sketch_dim"], seed=seed) if needs["sketch"] else None
    if needs["target"]:  # held-out target: NLL of verified answers on a dev set (not the eval set)
        dev_tok, dev_y = (torch.from_numpy(a) for a in make_dev(seed, DEV_PER_SOURCE))
        dev_rng = np.random.default_rng([seed, 56])
    # proxy mode while learning: the held-out objective (minus the expected pass rate on the dev set)
    # before training and at every segment end; a deployed proxy policy needs no held-out feedback
    proxy_learning = isinstance(mixer, ProxyACODM) and not mixer.deployed
    if proxy_learning:
        obj_tok, obj_y = (torch.from_numpy(a) for a in make_dev(seed, DEV_PER_SOURCE))

    def dev_objective() -> float:
        meter.forward_rows(len(obj_y))
        with torch.no_grad():
            return float(_dev_loss(model(obj_tok), obj_y, "pass"))

    if isinstance(mixer, ProxyACODM):
        mixer.start_run(eval_loss=dev_objective() if proxy_learning else None)
    if needs[
        "dev"
    ]:  # fixed held-out slice per source, NLL of its stored references after each step
        slices = [
            (torch.from_numpy(t), torch.from_numpy(y))
            for t, y in make_dev_slices(seed, DEV_PER_SOURCE, cfg["noise"], pools)
        ]
    gen = torch.Generator().manual_seed(seed * 7919 + 1)
    G = cfg["group"]
    t_mix, t_step, t_fb = Timer(), Timer(), Timer()
    curve_steps, curve_pass, curve_src, curve_flops = [], [], [], []
    weights, rewards = [], []

    def evaluate(step: int) -> None:
        pr = _pass_rates(model, evalset)
        curve_steps.append(step)
        curve_src.append(pr)
        curve_pass.append(float(np.mean(pr)))
        curve_flops.append(meter.total)

    evaluate(0)
    for step in range(1, cfg["steps"] + 1):
        with t_step:
            idx = np.asarray(sampler.next_batch())
            src = sampler.last_sources
            with t_mix:
                w = mixer.weights()
            tok = torch.from_numpy(np.repeat(tokens[idx], G, axis=0))
            sid = np.repeat(src, G)
            R = len(sid)
            meter.train_rows(R)
            if sketch is None:
                parts = [np.arange(R)]
                logits = [model(tok)]
            else:  # one forward per source, so each source's backward is its own
                parts = [np.flatnonzero(sid == s) for s in np.unique(sid)]
                logits = [model(tok[torch.from_numpy(rows)]) for rows in parts]
            order = np.concatenate(parts)
            inv = np.empty(R, dtype=np.int64)
            inv[order] = np.arange(R)
            logp_parts = [F.log_softmax(lg, -1) for lg in logits]
            probs = torch.cat([lp.detach().exp() for lp in logp_parts])[torch.from_numpy(inv)]
            ans = torch.multinomial(probs, 1, generator=gen).squeeze(1)
            r = (ans.numpy() == np.repeat(ref[idx], G)).astype(np.float64)
            gid = np.repeat(np.arange(len(idx)), G)
            adv = grpo_advantages(r, gid)
            grad_sketch = None if sketch is None else np.full((n, cfg["sketch_dim"]), np.nan)
            prev = None
            for rows, lp in zip(parts, logp_parts, strict=True):
                rows_t = torch.from_numpy(rows)
                logp = lp.gather(1, ans[rows_t][:, None]).squeeze(1)
                part = -(torch.from_numpy(adv[rows]).float() * logp).sum() / R
                part.backward()
                if sketch is not None:
                    with t_fb:
                        flat = torch.cat([p.grad.reshape(-1) for p in sel])
                        g = flat if prev is None else flat - prev  # this source's part
                        prev = flat.clone()
                        s = int(sid[rows[0]])
                        grad_sketch[s] = sketch.project(g) * (R / len(rows))  # of its mean
                        meter.touch(sel_coords)
            target_sketch = None
            if needs["target"]:
                with t_fb:
                    pick = torch.from_numpy(dev_rng.choice(len(dev_y), DEV_BATCH, replace=False))
                    tl = _dev_loss(model(dev_tok[pick]), dev_y[pick], target_loss)
                    gd = torch.autograd.grad(tl, sel)
                    meter.gradient_rows(DEV_BATCH)
                    target_sketch = sketch.project(torch.cat([g.reshape(-1) for g in gd]))
                    meter.touch(sel_coords)
            opt.step()
            opt.zero_grad()
            dev_loss = None
            if needs["dev"]:
                with t_fb, torch.no_grad():
                    dev_loss = [float(_dev_loss(model(t), y, target_loss)) for t, y in slices]
                meter.forward_rows(sum(len(y) for _, y in slices))
            extra = {}
            if needs["norms"]:
                extra["param_norms"] = [float(p.detach().norm()) for p in sel]
                meter.touch(sel_coords)
            eval_loss = None
            if proxy_learning and (step % mixer.segment_len == 0 or step == cfg["steps"]):
                with t_fb:
                    eval_loss = dev_objective()
            fb0 = feedback_from_rewards(r, sid, n, advantages=adv)
            fb = Feedback(
                counts=sampler.last_counts,
                loss=1.0 - fb0.reward,  # each source's error rate: the loss the paper's state reads
                reward=fb0.reward,
                pass_rate=fb0.pass_rate,
                adv_abs=fb0.adv_abs,
                grad_sketch=grad_sketch,
                target_sketch=target_sketch,
                dev_loss=dev_loss,
                eval_loss=eval_loss,
                extra=extra,
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
        "step_flops": 3.0 * meter.fwd * cfg["prompts"] * G,
        "flops_curve": curve_flops,
        "flops_train": meter.train,
        "flops_feedback": meter.feedback,
        "flops_total": meter.total,
        "flops_pretrain": sl_flops,  # the supervised warm-up (in flops_total only for a proxy run)
        "proxy": proxy_info,
    }
    if proxy_learning:
        out["examples"] = to_state(mixer.end_run(learn=False))
    if keep_mixer:
        out["mixer_state"] = to_state(mixer.state_dict())
    return out
