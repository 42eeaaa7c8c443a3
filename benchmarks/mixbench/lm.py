"""B1: train a byte-level LM on several real text domains with one mixer; record validation loss per domain."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from mixbench.common import MixerSpec, Timer, build_mixer
from mixbench.domains import collect_domains
from mixbench.model import ByteLM
from mixer import Feedback, GradientSketch, MixedSampler, ProxyACODM, per_source_mean
from mixer.base import to_state

__all__ = ["LMConfig", "run_lm", "load_corpus", "load_dev"]

DEV_PER_DOMAIN = 32  # development windows per domain (apart from the evaluation windows)
DEV_BATCH = 2  # dev windows per domain in each held-out gradient (`target` reward)
DEV_FIXED = 8  # fixed dev windows per domain whose loss the `heldout` reward follows


class LMConfig(dict):
    """Run settings (a dict so it travels to worker processes and into the JSON as is)."""

    @classmethod
    def make(cls, quick: bool) -> LMConfig:
        if quick:
            return cls(
                steps=24,
                batch=8,
                ctx=64,
                d=64,
                layers=2,
                heads=2,
                lr=3e-3,
                warmup=5,
                eval_every=8,
                val_windows=8,
                cap_bytes=120_000,
                sketch_dim=64,
            )
        return cls(
            steps=200,
            batch=12,
            ctx=128,
            d=144,
            layers=4,
            heads=4,
            lr=2e-3,
            warmup=20,
            eval_every=20,
            val_windows=16,
            cap_bytes=1_000_000,
            sketch_dim=256,
        )


@lru_cache(maxsize=2)
def load_corpus(
    cap_bytes: int, ctx: int, val_windows: int
) -> tuple[list[str], np.ndarray, dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """(names, train chunks (N, ctx+1), source groups, val windows (n_dom, W, ctx+1), on-disk sizes)."""
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
    not overlap the evaluation windows: the held-out data a mixer may look at (not the metric's)."""
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
        if len(picked) < per_domain:
            raise ValueError(f"{d.name}: validation text too short for {per_domain} dev windows")
        out.append(np.stack([d.val[s : s + ctx + 1] for s in picked]))
    return np.stack(out)


def _stable_seed(name: str) -> int:
    return sum(ord(c) * 31**i for i, c in enumerate(name)) % (2**31)


@torch.no_grad()
def _val_losses(model: ByteLM, vals: torch.Tensor) -> list[float]:
    model.eval()
    out = [float(model.row_losses(v).mean()) for v in vals]
    model.train()
    return out


def run_lm(spec: MixerSpec, seed: int, cfg: LMConfig) -> dict:
    """One training run; returns curves, final numbers, weights over time and timings."""
    names, chunks, groups, vals_np, disk = load_corpus(
        cfg["cap_bytes"], cfg["ctx"], cfg["val_windows"]
    )
    n = len(names)
    if spec.policy == "static" and "weights" not in spec.kw:
        spec = MixerSpec(spec.label, "static", weights=disk / disk.sum(), **spec.kw)
    torch.manual_seed(seed)
    model = ByteLM(cfg["d"], cfg["layers"], cfg["heads"], cfg["ctx"])
    params = [p for p in model.parameters()]
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
        MixerSpec(spec.label, spec.policy, **mixer_kw), n, names, seed, horizon=steps
    )
    sampler = MixedSampler(groups, cfg["batch"], mixer=mixer, seed=seed)
    reward_kind = spec.kw.get("reward") if spec.policy == "acodm" else None
    use_sketch = reward_kind in ("alignment", "target")
    sketch = GradientSketch(cfg["sketch_dim"], seed=seed) if use_sketch else None
    dev = None
    if reward_kind in ("target", "heldout"):
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
        return float(np.mean(_val_losses(model, obj)))

    if isinstance(mixer, ProxyACODM):
        mixer.start_run(eval_loss=dev_objective() if proxy_learning else None)
    vals = torch.from_numpy(vals_np.astype(np.int64))
    t_mix, t_sketch, t_step, t_fb = Timer(), Timer(), Timer(), Timer()
    curve_steps, curve_val, curve_dom, weights, train_loss = [], [], [], [], []

    def evaluate(step: int) -> None:
        v = _val_losses(model, vals)
        curve_steps.append(step)
        curve_dom.append(v)
        curve_val.append(float(np.mean(v)))

    evaluate(0)
    for step in range(1, steps + 1):
        with t_step:
            idx = sampler.next_batch()
            src = sampler.last_sources
            with t_mix:
                w = mixer.weights()
            x = torch.from_numpy(chunks[idx].astype(np.int64))
            B = len(idx)
            fb_step = step % fb_every == 0
            if sketch is None or not fb_step:
                rl = model.row_losses(x)
                rl.mean().backward()
                grad_sketch = None
                row_loss = rl.detach().numpy()
            else:
                row_loss = np.zeros(B)
                grad_sketch = np.full((n, cfg["sketch_dim"]), np.nan)
                prev = None
                for s in np.unique(src):
                    m = src == s
                    rl = model.row_losses(x[torch.from_numpy(m)])
                    (rl.sum() / B).backward()
                    row_loss[m] = rl.detach().numpy()
                    with t_sketch:
                        flat = torch.cat([p.grad.reshape(-1) for p in params])
                        part = flat if prev is None else flat - prev  # grad of rl.sum() / B
                        grad_sketch[s] = sketch.project(part) * (B / int(m.sum()))  # of the mean
                        prev = flat.clone()
            target_sketch, dev_loss = None, None
            if dev is not None and fb_step:
                with t_fb:
                    if reward_kind == "target":
                        pick = dev_rng.integers(0, dev.shape[1], size=(n, DEV_BATCH))
                        win = torch.stack([dev[i, pick[i]] for i in range(n)]).reshape(
                            -1, dev.shape[-1]
                        )
                        gd = torch.autograd.grad(model.row_losses(win).mean(), params)
                        target_sketch = sketch.project(gd)
                    else:
                        with torch.no_grad():
                            dev_loss = [
                                float(model.row_losses(dev[i, :DEV_FIXED]).mean()) for i in range(n)
                            ]
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            opt.zero_grad(set_to_none=False)
            sched.step()
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
            )
            with t_mix:
                mixer.update(fb)
        weights.append([float(v) for v in w])
        train_loss.append(float(row_loss.mean()))
        if step % cfg["eval_every"] == 0 or step == steps:
            evaluate(step)
    out = {
        "label": spec.label,
        "seed": seed,
        "names": names,
        "params": model.n_params(),
        "steps": curve_steps,
        "val_loss": curve_val,
        "val_loss_domain": curve_dom,
        "train_loss": train_loss,
        "weights": weights,
        "time_step_s": t_step.total / steps,
        "time_mixer_s": t_mix.total / steps,
        "time_sketch_s": t_sketch.total / steps,
        "time_target_s": t_fb.total / steps,
    }
    if proxy_learning:
        out["examples"] = to_state(mixer.end_run(learn=False))
    return out
