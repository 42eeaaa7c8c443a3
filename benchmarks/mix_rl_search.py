"""B2: an offline mixture search (RegMix-style) as a reference point for the online mixers.

Trains the B2 policy with N random *fixed* mixtures (Dirichlet(1) draws) on proxy seeds that the
evaluation never uses, fits a ridge regression of the final held-out pass rate on the weights and
their squares, picks the mixture with the best prediction among 100,000 random candidates, and
runs it as a static mixer on the evaluation seeds next to uniform.

    .venv/bin/python benchmarks/mix_rl_search.py --proxies 120 --seeds 10   # about 2 min on 2 idle cores
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.common import MixerSpec, run_jobs  # noqa: E402
from mixbench.report import summarize, table  # noqa: E402
from mixbench.rl import RLConfig, run_rl  # noqa: E402
from mixbench.tasks import SOURCES  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "mix_rl_search.json"
PROXY_SEED0 = 1000  # proxy runs use seeds 1000.. (pools, model init and sampling all differ)


def features(w: np.ndarray) -> np.ndarray:
    return np.concatenate([w, w * w], axis=-1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--proxies", type=int, default=120)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=None)
    args = ap.parse_args()
    cfg = RLConfig.make(False)
    rng = np.random.default_rng(0)
    n = len(SOURCES)
    mixes = rng.dirichlet(np.ones(n), size=args.proxies)
    proxy_jobs = [
        {"spec": MixerSpec(f"proxy{i}", "static", weights=m), "seed": PROXY_SEED0 + i, "cfg": cfg}
        for i, m in enumerate(mixes)
    ]
    proxies = run_jobs(run_rl, proxy_jobs, args.workers, cache=args.cache)
    by_label = {r["label"]: r for r in proxies}
    y = np.array([by_label[f"proxy{i}"]["pass_rate"][-1] for i in range(args.proxies)])
    X = features(mixes)
    lam = 1e-3
    Xc = np.hstack([X, np.ones((len(X), 1))])
    beta = np.linalg.solve(Xc.T @ Xc + lam * np.eye(Xc.shape[1]), Xc.T @ y)
    cand = rng.dirichlet(np.ones(n), size=100_000)
    pred = np.hstack([features(cand), np.ones((len(cand), 1))]) @ beta
    best = cand[int(np.argmax(pred))]
    print(f"proxy final pass rates: min {y.min():.3f} max {y.max():.3f}")
    chosen = ", ".join(f"{k} {v:.3f}" for k, v in zip(SOURCES, best, strict=True))
    print(f"chosen mixture: {chosen}; predicted final pass rate {pred.max():.3f}")
    label = "searched[" + ",".join(f"{x:.3f}" for x in best) + "]"
    arms = [MixerSpec("uniform", "uniform"), MixerSpec(label, "static", weights=best)]
    jobs = [{"spec": a, "seed": s, "cfg": cfg} for s in range(args.seeds) for a in arms]
    runs = run_jobs(run_rl, jobs, args.workers, cache=args.cache)
    summ = summarize(runs, "pass_rate", "pass_rate_source", higher_better=True)
    print(table(summ, "pass rate", list(SOURCES), focus=["noisy", "repeated"]))
    OUT.write_text(
        json.dumps(
            {
                "benchmark": "mix_rl_search",
                "proxies": args.proxies,
                "proxy_mixtures": mixes.tolist(),
                "proxy_final": y.tolist(),
                "chosen": best.tolist(),
                "predicted": float(pred.max()),
                "summary": {
                    k: {kk: vv for kk, vv in v.items() if "curve" not in kk}
                    for k, v in summ["arms"].items()
                },
            },
            indent=1,
        )
    )
    print("wrote", OUT)


if __name__ == "__main__":
    main()
