"""Running many (mixer, seed) jobs in parallel processes, building mixers by config name, timing."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from mixer import ACODM, Mixer, make_mixer
from mixer.acodm import N_FEATURES

__all__ = [
    "MixerSpec",
    "build_mixer",
    "count_cached",
    "run_jobs",
    "machine",
    "mixer_version",
    "Timer",
]


class MixerSpec:
    """A benchmark arm: a label, a policy name for `make_mixer`, and constructor keywords."""

    def __init__(self, label: str, policy: str, **kw: Any) -> None:
        self.label, self.policy, self.kw = label, policy, dict(kw)

    def to_json(self) -> dict:
        return {
            "label": self.label,
            "policy": self.policy,
            "kw": {k: _plain(v) for k, v in self.kw.items()},
        }


def _plain(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v


class FeatureMaskedACODM(ACODM):
    """Ablation only: ACODM whose actor and critic see just the state columns in `features`."""

    def __init__(self, n_sources: int, features: Sequence[int] = (), **kw: Any) -> None:
        self._keep = np.zeros(N_FEATURES, dtype=bool)
        self._keep[list(features)] = True
        super().__init__(n_sources, **kw)

    def _features(self) -> np.ndarray:
        return np.where(self._keep, super()._features(), 0.0)


class LearnabilityACODM(ACODM):
    """Prototype (proposed for mixer/acodm.py): ACODM whose per-source reward is p(1 - p) of the
    source's pass rate in the step, i.e. how far the source is from solved and from hopeless."""

    def __init__(self, n_sources: int, **kw: Any) -> None:
        kw["reward"] = "advantage"
        super().__init__(n_sources, **kw)
        self.reward_kind = "learnability"

    def _coefficients(self, fb: Any, *_: Any) -> tuple[np.ndarray, float]:
        p = fb.pass_rate
        return p * (1.0 - p), 0.0


def build_mixer(
    spec: MixerSpec, n_sources: int, names: Sequence[str], seed: int, **extra: Any
) -> Mixer:
    """The mixer of one arm for one seed (extra keywords, e.g. `horizon`, go in when the policy takes them)."""
    kw = dict(spec.kw)
    if spec.policy in ("acodm", "acodm-proxy"):
        for k, v in extra.items():
            kw.setdefault(k, v)
    if spec.policy == "acodm":
        if kw.get("reward") == "learnability":
            return LearnabilityACODM(n_sources, seed=seed, names=list(names), **kw)
        if "features" in kw:
            return FeatureMaskedACODM(n_sources, seed=seed, names=list(names), **kw)
    if spec.policy == "acodm-proxy":  # a saved policy comes as policy_file (with its sha)
        kw.pop("state_sha", None)
        state = kw.pop("state", None)  # the policy learnt so far, while proxy runs train it
        noise_seed = int(kw.pop("noise_seed", 0))
        mixer = make_mixer(spec.policy, n_sources, seed=seed, names=list(names), **kw)
        if state is not None:  # this run explores with its own noise
            mixer.load_state_dict(state)
            mixer.rng = np.random.default_rng([seed, 99, noise_seed])
        return mixer
    return make_mixer(spec.policy, n_sources, seed=seed, names=list(names), **kw)


def _init_worker() -> None:
    import torch

    torch.set_num_threads(1)
    os.environ["OMP_NUM_THREADS"] = "1"


def _key(job: dict) -> str:
    """The cache key of a run: arm, seed and config, and whether ../shared/data was there (B1
    drops its `problems` domain without it, so the two must never share a cached run)."""
    from mixbench.domains import SHARED_DATA

    key = {"spec": job["spec"].to_json(), "seed": job["seed"], "cfg": dict(job["cfg"])}
    if not SHARED_DATA.is_dir():
        key["data"] = "without ../shared/data"  # absent from older keys, which all had it
    return hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


def count_cached(jobs: list[dict], cache: Path | None) -> int:
    """How many of `jobs` already have a finished run in `cache`."""
    return sum((cache / f"{_key(j)}.json").exists() for j in jobs) if cache else 0


def run_jobs(
    fn: Callable[..., dict],
    jobs: list[dict],
    workers: int,
    log: Callable[[str], None] = print,
    cache: Path | None = None,
) -> list[dict]:
    """Run `fn(**job)` for every job, `workers` processes at a time (in-process when workers <= 1).

    With `cache`, each finished run is written there at once and a rerun reuses runs with the same
    arm, seed and config (so an interrupted benchmark resumes instead of starting over). The runs
    come back in the order of `jobs`, whatever order they finished in.
    """
    out: list[dict | None] = [None] * len(jobs)
    todo: list[int] = []
    for k, job in enumerate(jobs):
        f = cache / f"{_key(job)}.json" if cache else None
        if f is not None and f.exists():
            out[k] = json.loads(f.read_text())
        else:
            todo.append(k)
    if len(todo) < len(jobs):
        log(f"reusing {len(jobs) - len(todo)} cached runs from {cache}")
    t0 = time.perf_counter()

    def done(i: int, k: int, res: dict) -> None:
        out[k] = res
        job = jobs[k]
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
            (cache / f"{_key(job)}.json").write_text(json.dumps(res))
        log(
            f"[{i + 1}/{len(todo)}] {job['spec'].label} seed {job['seed']} done ({time.perf_counter() - t0:.0f}s)"
        )

    if workers <= 1:
        _init_worker()
        for i, k in enumerate(todo):
            done(i, k, fn(**jobs[k]))
    else:
        with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker) as ex:
            futs = {ex.submit(fn, **jobs[k]): k for k in todo}
            for i, f in enumerate(as_completed(futs)):
                done(i, futs[f], f.result())
    return out  # type: ignore[return-value]


def mixer_version() -> dict[str, str]:
    """sha256 (first 12 hex) of each mixer/*.py, since the mixer changed while these benchmarks ran."""
    import mixer

    root = Path(mixer.__file__).parent
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:12] for p in sorted(root.glob("*.py"))
    }


def machine() -> dict:
    """What the numbers were measured on (and which mixer source)."""
    import torch

    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return {
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "loadavg_at_start": [round(x, 2) for x in load],
        "mixer_sha256": mixer_version(),
    }


class Timer:
    """Accumulates seconds spent in `with timer:` blocks."""

    def __init__(self) -> None:
        self.total = 0.0

    def __enter__(self) -> Timer:
        self._t = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.total += time.perf_counter() - self._t
