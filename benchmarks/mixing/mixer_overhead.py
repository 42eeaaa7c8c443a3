"""Mixer overhead: time per update for 4 to 256 sources, and as a fraction of a training step.

Runs every policy (and ACODM updating its networks every step and every 4th step, with the AC-ODM
paper's recipe, and deployed: frozen, acting only) on the same synthetic feedback stream (with
gradient sketches and weight norms for the policies that read them), times `mixer.update` and `MixedSampler.next_batch`, and times one
optimizer step of the example's character-level transformer (batch 32, CPU) in the same run.
Writes benchmarks/results/mixer_overhead.json and prints a table.

    .venv/bin/python benchmarks/mixing/mixer_overhead.py [--updates 300] [--sizes 4 16 64 256]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.paper_acodm import PaperACODM  # noqa: E402

from mixer import Feedback, MixedSampler, make_mixer  # noqa: E402

POLICIES: list[tuple[str, str, dict]] = [
    ("uniform", "uniform", {}),
    ("odm", "odm", {}),
    ("advantage-bandit", "advantage-bandit", {}),
    ("dump", "dump", {}),
    ("transfer-bandit", "transfer-bandit", {"sketch": True}),
    ("acodm", "acodm", {}),
    ("acodm (train_every=4)", "acodm", {"train_every": 4}),
    ("acodm, paper recipe", "acodm", {"paper": True, "sketch": True}),
    ("acodm (deployed)", "acodm", {"deployed": True}),
    ("acodm-proxy (deployed)", "acodm-proxy", {"deployed": True}),
]
SKETCH_DIM = 64
N_NORMS = 3


def _stream(n: int, steps: int, seed: int = 0, sketch: bool = False) -> list[Feedback]:
    """Random feedback; with `sketch`, also per-source gradient sketches and weight norms."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        counts = rng.multinomial(64, np.ones(n) / n)
        seen = counts > 0
        extra = {}
        g = None
        if sketch:
            g = np.where(seen[:, None], rng.standard_normal((n, SKETCH_DIM)), np.nan)
            extra["param_norms"] = list(1.0 + rng.random(N_NORMS))
        out.append(
            Feedback(
                counts=counts,
                loss=np.where(seen, 2 + rng.random(n), np.nan),
                reward=np.where(seen, rng.random(n), np.nan),
                adv_abs=np.where(seen, rng.random(n), np.nan),
                pass_rate=np.where(seen, rng.random(n), np.nan),
                grad_sketch=g,
                extra=extra,
            )
        )
    return out


def time_updates(name: str, kw: dict, n: int, updates: int) -> dict:
    kw = dict(kw)
    deployed = kw.pop("deployed", False)
    fbs = _stream(n, updates + 50, sketch=kw.pop("sketch", False))
    if kw.pop("paper", False):  # archived out of mixer/ (benchmarks/mixing/mixbench/paper_acodm.py)
        m = PaperACODM(n, seed=0, warmup=10, n_norms=N_NORMS, **PaperACODM.paper_recipe(), **kw)
    else:
        m = make_mixer(name, n, seed=0, **({"warmup": 10} if name == "acodm" else {}), **kw)
    if deployed:  # a proxy-trained policy in the target run: acting only, learning done
        m.deploy()
        if name == "acodm-proxy":
            m.start_run()
    for fb in fbs[:50]:
        m.update(fb)
    ts = np.empty(updates)
    cpu = np.empty(updates)
    for i, fb in enumerate(fbs[50:]):
        c = time.process_time()
        t = time.perf_counter()
        m.update(fb)
        ts[i] = time.perf_counter() - t
        cpu[i] = time.process_time() - c
    return {
        "median_us": float(np.median(ts) * 1e6),
        "p10_us": float(np.percentile(ts, 10) * 1e6),
        "p90_us": float(np.percentile(ts, 90) * 1e6),
        "cpu_us": float(np.mean(cpu) * 1e6),
    }


def time_sampler(n: int, draws: int = 300) -> float:
    groups = {f"s{i}": np.arange(i * 1000, (i + 1) * 1000) for i in range(n)}
    s = MixedSampler(groups, batch_size=64, seed=0)
    ts = []
    for _ in range(draws):
        t = time.perf_counter()
        s.next_batch()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1e6)


def time_train_step(steps: int = 15) -> tuple[float, float]:
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
    from train_with_mixer import SEQ, TinyLM, sample_loss

    torch.manual_seed(0)
    model = TinyLM()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randint(0, 40, (32, SEQ + 1))
    ts, cpu = [], []
    for _ in range(steps + 3):
        c = time.process_time()
        t = time.perf_counter()
        loss = sample_loss(model, x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        ts.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return float(np.median(ts[3:]) * 1e6), float(np.median(cpu[3:]) * 1e6)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--updates", type=int, default=300)
    ap.add_argument("--sizes", type=int, nargs="+", default=[4, 16, 64, 256])
    args = ap.parse_args()
    step_us, step_cpu_us = time_train_step()
    rows = []
    for n in args.sizes:
        samp = time_sampler(n)
        for label, name, kw in POLICIES:
            r = time_updates(name, kw, n, args.updates)
            r.update(
                policy=label,
                n_sources=n,
                sampler_us=samp,
                fraction_of_step=(r["median_us"] + samp) / step_us,
                cpu_fraction_of_step=r["cpu_us"] / step_cpu_us,
            )
            rows.append(r)
    result = {
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, {platform.python_version()}, numpy {np.__version__}",
        "train_step_us": step_us,
        "train_step_cpu_us": step_cpu_us,
        "loadavg": list(os.getloadavg()),
        "train_step": "examples/train_with_mixer.py TinyLM (2-layer d=64 transformer), batch 32 x 48 chars, CPU",
        "rows": rows,
    }
    out = Path(__file__).resolve().parents[1] / "results" / "mixer_overhead.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(
        f"training step (baseline): {step_us / 1000:.1f} ms wall, {step_cpu_us / 1000:.1f} ms CPU "
        f"[{result['train_step']}], load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'policy':24s} {'n':>4s} {'update us':>10s} {'p90 us':>8s} {'sampler us':>10s} {'% of step':>9s} {'x uniform':>9s}"
    )
    base = {r["n_sources"]: r["median_us"] for r in rows if r["policy"] == "uniform"}
    for r in rows:
        print(
            f"{r['policy']:24s} {r['n_sources']:4d} {r['median_us']:10.1f} {r['p90_us']:8.1f} "
            f"{r['sampler_us']:10.1f} {100 * r['fraction_of_step']:8.3f}% {100 * r['cpu_fraction_of_step']:6.3f}% "
            f"{r['median_us'] / base[r['n_sources']]:9.1f}"
        )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
