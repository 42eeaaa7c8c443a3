"""B1: train a byte-level LM on real text domains with one mixer; the metric is the code domains' validation loss."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from mixbench.common import (
    MixerSpec,
    Timer,
    build_mixer,
    deploy_from_proxy,
    feedback_needs,
    split_proxy,
)
from mixbench.compute import ComputeMeter, lm_forward_flops
from mixbench.domains import TARGET, collect_domains
from mixbench.model import ByteLM
from mixer import ACODM, Feedback, GradientSketch, MixedSampler, ProxyACODM, per_source_mean
from mixer.policies.base import to_state

__all__ = ["LMConfig", "run_lm", "load_corpus", "load_dev", "selected_matrices"]

DEV_PER_DOMAIN = 32  # development windows per domain (apart from the evaluation windows)
DEV_BATCH = 2  # dev windows per target domain in each held-out gradient (`target` reward)
DEV_FIXED = 8  # fixed dev windows per domain whose loss the `heldout` reward follows


class LMConfig(dict):
    """Run settings (a dict so it travels to worker processes and into the JSON as is)."""

    @classmethod
    def make(cls, quick: bool) -> LMConfig:
        if quick:
            return cls(
                steps=40,
                batch=8,
                ctx=48,
                d=48,
                layers=2,
                heads=2,
                lr=3e-3,
                warmup=5,
                eval_every=10,
                val_windows=6,
                cap_bytes=60_000,
                sketch_dim=64,
            )
        return cls(
            steps=1000,
            batch=16,
            ctx=64,
            d=64,
            layers=2,
            heads=2,
            lr=3e-3,
            warmup=20,
            eval_every=25,
            val_windows=16,
            cap_bytes=400_000,
            sketch_dim=256,
        )


@lru_cache(maxsize=2)
def load_corpus(
    cap_bytes: int, ctx: int, val_windows: int
) -> tuple[list[str], np.ndarray, dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """(names, train chunks (N, ctx+1), source groups, val windows (n_dom, W, ctx+1), corpus sizes)."""
    doms = collect_domains(cap_bytes)
    names, chunks, groups, vals = [], [], {}, []
    off = 0
    for d in doms:
        n = len(d.train) // (ctx + 1)
        chunks.append(d.train[: n * (ctx + 1)].reshape(n, ctx + 1))
        groups[d.name] = np.arange(off, off + n)
        off += n
        starts = np.linspace(0, len(d.val) - ctx - 2, val_windows).astype(np.int64)
        vals.append(np.stack([d.val[s : s + ctx + 1] for s in starts]))
        names.append(d.name)
    disk = np.array([d.disk_bytes for d in doms], dtype=np.float64)
    return names, np.concatenate(chunks), groups, np.stack(vals), disk


@lru_cache(maxsize=2)
def load_dev(cap_bytes: int, ctx: int, val_windows: int, per_domain: int) -> np.ndarray:
    """(n_dom, per_domain, ctx+1) development windows from each domain's validation text that do
    not overlap the evaluation windows: the held-out data a mixer may look at (not the metric's).
    The repeated domain's windows are its one text (there is nothing else to hold out)."""
    out = []
    for d in collect_domains(cap_bytes):
        n = len(d.val) - ctx - 2
        starts = np.linspace(0, n, val_windows).astype(np.int64)
        rng = np.random.default_rng(_stable_seed(d.name))
        picked: list[int] = []
        for _ in range(1000 * per_domain):
            if len(picked) == per_domain:
                break
            s = int(rng.integers(0, n))
            if np.all(np.abs(starts - s) > ctx + 1) and all(abs(p - s) > ctx + 1 for p in picked):
                picked.append(s)
        while len(picked) < per_domain:  # short validation text: overlapping windows
            picked.append(int(rng.integers(0, n)))
        out.append(np.stack([d.val[s : s + ctx + 1] for s in picked]))
    return np.stack(out)


def _stable_seed(name: str) -> int:
    return sum(ord(c) * 31**i for i, c in enumerate(name)) % (2**31)


def selected_matrices(model: ByteLM) -> list[torch.Tensor]:
    """The weight matrices whose gradients and norms the mixers see: each block's MLP output
    (the AC-ODM paper uses a few such layers, not the whole model)."""
    return [blk.mlp[2].weight for blk in model.blocks]


@torch.no_grad()
def _val_losses(model: ByteLM, vals: torch.Tensor) -> list[float]:
    model.eval()
    out = [float(model.row_losses(v).mean()) for v in vals]
    model.train()
    return out


def run_lm(spec: MixerSpec, seed: int, cfg: LMConfig, keep_mixer: bool = False) -> dict:
    """One training run; returns curves, final numbers, weights over time, timings and compute.

    The metric `val_loss` is the mean validation loss over the useful domains (`TARGET`);
    `val_loss_domain` has every domain's. An arm with `proxy={...}` first runs its proxy
    (`deploy_from_proxy`); `keep_mixer` returns the mixer's final state (for a proxy run)."""
    spec, proxy = split_proxy(spec)
    proxy_state, proxy_info = (
        deploy_from_proxy(run_lm, spec, seed, cfg, proxy) if proxy is not None else (None, None)
    )
    names, chunks, groups, vals_np, disk = load_corpus(
        cfg["cap_bytes"], cfg["ctx"], cfg["val_windows"]
    )
    n = len(names)
    useful = np.array([nm in TARGET for nm in names])
    if spec.policy == "static" and "weights" not in spec.kw:
        spec = MixerSpec(spec.label, "static", weights=disk / disk.sum(), **spec.kw)
    torch.manual_seed(seed)
    model = ByteLM(cfg["d"], cfg["layers"], cfg["heads"], cfg["ctx"])
    params = [p for p in model.parameters()]
    sel = selected_matrices(model)
    sel_coords = sum(p.numel() for p in sel)
    opt = torch.optim.AdamW(params, lr=cfg["lr"], betas=(0.9, 0.95), weight_decay=0.01)
    steps = cfg["steps"]
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt,
        lambda t: (
            min(1.0, (t + 1) / cfg["warmup"])
            * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * min(t, steps) / steps)))
        ),
    )
    mixer_kw = dict(spec.kw)
    fb_every = int(mixer_kw.pop("feedback_every", 1))  # held-out feedback every k steps
    mixer = build_mixer(
        MixerSpec(spec.label, spec.policy, **mixer_kw),
        n,
        names,
        seed,
        horizon=steps,
        n_norms=len(sel),
    )
    if proxy_state is not None:
        mixer.load_state_dict(proxy_state)
        mixer.deploy()
    needs = feedback_needs(spec)
    deployed = isinstance(mixer, ACODM) and mixer.frozen
    if deployed:  # a frozen policy only follows its state: no reward, so no gradients
        needs = {**needs, "sketch": False, "target": False, "dev": False}
    if spec.policy == "dump" and "signal" not in mixer_kw:
        raise ValueError(f"arm {spec.label}: B1 has no advantages; give dump a signal (loss)")
    sampler = MixedSampler(groups, cfg["batch"], mixer=mixer, seed=seed)
    sketch = GradientSketch(cfg["sketch_dim"], seed=seed) if needs["sketch"] else None
    meter = ComputeMeter(lm_forward_flops(cfg["d"], cfg["layers"], cfg["ctx"]))
    dev = None
    if needs["target"] or needs["dev"]:
        dev = torch.from_numpy(
            load_dev(cfg["cap_bytes"], cfg["ctx"], cfg["val_windows"], DEV_PER_DOMAIN).astype(
                np.int64
            )
        )
        dev_rng = np.random.default_rng([seed, 58])
    # proxy mode while learning: the held-out objective (mean loss over DEV_FIXED development
    # windows per domain) before training and at every segment end; a deployed policy needs none
    proxy_learning = isinstance(mixer, ProxyACODM) and not mixer.deployed
    if proxy_learning:
        obj = torch.from_numpy(
            load_dev(cfg["cap_bytes"], cfg["ctx"], cfg["val_windows"], DEV_PER_DOMAIN)[
                :, :DEV_FIXED
            ].astype(np.int64)
        )

    def dev_objective() -> float:
        meter.forward_rows(obj.shape[0] * obj.shape[1])
        return float(np.mean(_val_losses(model, obj)))

    if isinstance(mixer, ProxyACODM):
        mixer.start_run(eval_loss=dev_objective() if proxy_learning else None)
    vals = torch.from_numpy(vals_np.astype(np.int64))
    t_mix, t_sketch, t_step, t_fb = Timer(), Timer(), Timer(), Timer()
    curve_steps, curve_val, curve_all, curve_dom, curve_flops = [], [], [], [], []
    weights, train_loss = [], []

    def evaluate(step: int) -> None:
        v = np.array(_val_losses(model, vals))
        curve_steps.append(step)
        curve_dom.append(v.tolist())
        curve_val.append(float(v[useful].mean()))
        curve_all.append(float(v.mean()))
        curve_flops.append(meter.total)

    evaluate(0)
    for step in range(1, steps + 1):
        with t_step:
            idx = sampler.next_batch()
            src = sampler.last_sources
            with t_mix:
                w = mixer.weights()
            x = torch.from_numpy(chunks[idx].astype(np.int64))
            B = len(idx)
            meter.train_rows(B)
            fb_step = step % fb_every == 0
            if sketch is None or not fb_step:
                rl = model.row_losses(x)
                rl.mean().backward()
                grad_sketch = None
                row_loss = rl.detach().numpy()
            else:  # per-domain micro-batches: the step's own backward, split (no extra FLOPs)
                row_loss = np.zeros(B)
                grad_sketch = np.full((n, cfg["sketch_dim"]), np.nan)
                prev = None
                for s in np.unique(src):
                    m = src == s
                    rl = model.row_losses(x[torch.from_numpy(m)])
                    (rl.sum() / B).backward()
                    row_loss[m] = rl.detach().numpy()
                    with t_sketch:
                        flat = torch.cat([p.grad.reshape(-1) for p in sel])
                        part = flat if prev is None else flat - prev  # grad of rl.sum() / B
                        grad_sketch[s] = sketch.project(part) * (B / int(m.sum()))  # of the mean
                        prev = flat.clone()
                        meter.touch(sel_coords)
            target_sketch, dev_loss = None, None
            if dev is not None and fb_step:
                with t_fb:
                    if needs["target"]:  # what training should improve: the code domains
                        tgt = np.flatnonzero(useful)
                        pick = dev_rng.integers(0, dev.shape[1], size=(len(tgt), DEV_BATCH))
                        win = torch.stack([dev[i, p] for i, p in zip(tgt, pick, strict=True)])
                        win = win.reshape(-1, dev.shape[-1])
                        gd = torch.autograd.grad(model.row_losses(win).mean(), sel)
                        meter.gradient_rows(len(win))
                        target_sketch = sketch.project(gd)
                        meter.touch(sel_coords)
                    else:
                        with torch.no_grad():
                            dev_loss = [
                                float(model.row_losses(dev[i, :DEV_FIXED]).mean()) for i in range(n)
                            ]
                        meter.forward_rows(n * DEV_FIXED)
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            opt.zero_grad(set_to_none=False)
            sched.step()
            extra = {}
            if needs["norms"]:
                extra["param_norms"] = [float(p.detach().norm()) for p in sel]
                meter.touch(sel_coords)
            eval_loss = None
            if proxy_learning and (step % mixer.segment_len == 0 or step == steps):
                with t_fb:
                    eval_loss = dev_objective()
            fb = Feedback(
                counts=sampler.last_counts,
                loss=per_source_mean(row_loss, src, n),
                eval_loss=eval_loss,
                grad_sketch=grad_sketch,
                target_sketch=target_sketch,
                dev_loss=dev_loss,
                extra=extra,
            )
            with t_mix:
                mixer.update(fb)
        weights.append([float(v) for v in w])
        train_loss.append(float(row_loss.mean()))
        if step % cfg["eval_every"] == 0 or step == steps:
            evaluate(step)
    step_flops = 3.0 * meter.fwd * cfg["batch"]
    out = {
        "label": spec.label,
        "seed": seed,
        "names": names,
        "target_domains": [nm for nm in names if nm in TARGET],
        "params": model.n_params(),
        "steps": curve_steps,
        "val_loss": curve_val,
        "val_loss_all": curve_all,
        "val_loss_domain": curve_dom,
        "train_loss": train_loss,
        "weights": weights,
        "time_step_s": t_step.total / steps,
        "time_mixer_s": t_mix.total / steps,
        "time_sketch_s": t_sketch.total / steps,
        "time_target_s": t_fb.total / steps,
        "step_flops": step_flops,
        "flops_curve": curve_flops,
        "flops_train": meter.train,
        "flops_feedback": meter.feedback,
        "flops_total": meter.total,
        "proxy": proxy_info,
    }
    if proxy_learning:
        out["examples"] = to_state(mixer.end_run(learn=False))
    if keep_mixer:
        out["mixer_state"] = to_state(mixer.state_dict())
    return out
