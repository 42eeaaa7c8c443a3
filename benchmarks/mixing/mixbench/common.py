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
from mixer.policies.acodm import N_FEATURES

__all__ = [
    "MixerSpec",
    "build_mixer",
    "PROXY_SEED0",
    "split_proxy",
    "deploy_from_proxy",
    "feedback_needs",
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


def build_mixer(
    spec: MixerSpec, n_sources: int, names: Sequence[str], seed: int, **extra: Any
) -> Mixer:
    """The mixer of one arm for one seed (extra keywords, e.g. `horizon`, go in when the policy
    takes them: `n_norms`, the weight matrices the trainer sends norms of, only to an arm that
    reads the paper's state)."""
    from mixbench.paper_acodm import PaperACODM, wants_paper

    kw = dict(spec.kw)
    paper = spec.policy == "acodm" and wants_paper(
        kw
    )  # a variant archived out of mixer/ (issue 52)
    if spec.policy in ("acodm", "acodm-proxy"):
        for k, v in extra.items():
            if k != "n_norms" or paper:
                kw.setdefault(k, v)
    if spec.policy == "acodm" and "features" in kw:
        return FeatureMaskedACODM(n_sources, seed=seed, names=list(names), **kw)
    if paper:
        return PaperACODM(n_sources, seed=seed, names=list(names), **kw)
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


PROXY_SEED0 = 1000  # proxy runs use seeds 1000+ (other data order, initialisation, samples)


def split_proxy(spec: MixerSpec) -> tuple[MixerSpec, dict | None]:
    """An arm's spec without its `proxy` settings, and those settings (None: no proxy run).

    `proxy={...}` on an ACODM arm means the AC-ODM paper's recipe: first one proxy run (the same
    schedule, the run settings overridden by these, e.g. a narrower model) in which the mixer
    learns online, then its policy frozen (`ACODM.deploy`) drives the target run."""
    kw = dict(spec.kw)
    proxy = kw.pop("proxy", None)
    if proxy is not None and spec.policy != "acodm":
        raise ValueError(f"arm {spec.label}: proxy runs are for acodm arms, not {spec.policy}")
    return MixerSpec(spec.label, spec.policy, **kw), proxy


def deploy_from_proxy(
    run: Callable[..., dict], spec: MixerSpec, seed: int, cfg: dict, proxy: dict
) -> tuple[dict, dict]:
    """Run the proxy of `spec` (seed PROXY_SEED0 + seed, `cfg` overridden by `proxy`) and return
    its learnt mixer state and a summary of the run (its compute, final metric and weights)."""
    unknown = set(proxy) - set(cfg)
    if unknown:
        raise ValueError(f"unknown proxy settings {sorted(unknown)}; settings are {sorted(cfg)}")
    pcfg = type(cfg)({**cfg, **proxy})
    res = run(spec, PROXY_SEED0 + seed, pcfg, keep_mixer=True)
    summary = {
        "seed": PROXY_SEED0 + seed,
        "settings": dict(proxy),
        "flops": res["flops_total"],
        "params": res["params"],
        "weights_mean": np.mean(res["weights"], axis=0).tolist(),
    }
    return res["mixer_state"], summary


def feedback_needs(spec: MixerSpec) -> dict[str, bool]:
    """What a mixer arm needs from the trainer beyond losses, rewards and advantages."""
    kw = spec.kw
    acodm = spec.policy == "acodm"
    reward = kw.get("reward", "advantage") if acodm else None
    return {
        "sketch": (acodm and reward in ("alignment", "target", "interference"))
        or spec.policy == "transfer-bandit",
        "target": acodm and reward == "target",
        "dev": acodm and reward == "heldout",
        "norms": acodm and kw.get("state") == "paper",
    }


def _init_worker() -> None:
    import torch

    torch.set_num_threads(1)
    os.environ["OMP_NUM_THREADS"] = "1"


_DATA_VERSION = hashlib.sha1(
    b"".join(
        (Path(__file__).parent / f).read_bytes() for f in ("domains.py", "tasks.py", "model.py")
    )
).hexdigest()[:12]


def _key(job: dict) -> str:
    """The cache key of a run: arm, seed and config, the source of the data and model definitions
    (`_DATA_VERSION`), and whether ../shared/data was there (B1 drops its `problems` domain
    without it, so the two must never share a cached run)."""
    from mixbench.domains import SHARED_DATA

    key = {"spec": job["spec"].to_json(), "seed": job["seed"], "cfg": dict(job["cfg"])}
    key["data"] = _DATA_VERSION  # a run on other domains, tasks or model is another run
    if not SHARED_DATA.is_dir():
        key["shared_data"] = "absent"
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
