"""An offline mixture search (RegMix-style) as a reference point for the online mixers.

Trains B1 (`--bench lm`) or B2 (`--bench rl`) with N random *fixed* mixtures (Dirichlet(1) draws)
on proxy seeds that the evaluation never uses, fits a ridge regression of the final metric on the
weights and their squares, picks the mixture with the best prediction among 100,000 random
candidates, and runs it as a static mixer on the evaluation seeds next to uniform; its total
compute to target includes every proxy run of the search.

    .venv/bin/python benchmarks/mixing/archive/mix_search.py --bench rl --proxies 120 --seeds 10
    .venv/bin/python benchmarks/mixing/archive/mix_search.py --bench lm --proxies 40 --seeds 5

(about 2 and 20 minutes on 2 idle cores). Archived (issue 51): offline search is not something
codemix ships, only the reference issue 8's session 3 measured `ProxyACODM` against; its numbers
are in benchmarks/pages/mixer-training-history.md. It still runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # mixing/: mixbench

from mixbench.common import MixerSpec, run_jobs  # noqa: E402
from mixbench.lm import LMConfig, load_corpus, run_lm  # noqa: E402
from mixbench.report import summarize, table  # noqa: E402
from mixbench.rl import RLConfig, run_rl  # noqa: E402
from mixbench.tasks import SOURCES  # noqa: E402

RESULTS = Path(__file__).resolve().parents[2] / "results"
PROXY_SEED0 = 1000  # proxy runs use seeds 1000.. (pools, model init and sampling all differ)


def features(w: np.ndarray) -> np.ndarray:
    return np.concatenate([w, w * w], axis=-1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", choices=["rl", "lm"], default="rl")
    ap.add_argument("--proxies", type=int, default=120)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=None)
    args = ap.parse_args()
    if args.bench == "rl":
        cfg, run, names = RLConfig.make(False), run_rl, list(SOURCES)
        metric, per_source, sign = "pass_rate", "pass_rate_source", 1.0
    else:
        cfg, run = LMConfig.make(False), run_lm
        names = load_corpus(cfg["cap_bytes"], cfg["ctx"], cfg["val_windows"])[0]
        metric, per_source, sign = "val_loss", "val_loss_domain", -1.0
    rng = np.random.default_rng(0)
    n = len(names)
    mixes = rng.dirichlet(np.ones(n), size=args.proxies)
    proxy_jobs = [
        {"spec": MixerSpec(f"proxy{i}", "static", weights=m), "seed": PROXY_SEED0 + i, "cfg": cfg}
        for i, m in enumerate(mixes)
    ]
    proxies = run_jobs(run, proxy_jobs, args.workers, cache=args.cache)
    by_label = {r["label"]: r for r in proxies}
    y = np.array([by_label[f"proxy{i}"][metric][-1] for i in range(args.proxies)])
    X = features(mixes)
    lam = 1e-3
    Xc = np.hstack([X, np.ones((len(X), 1))])
    beta = np.linalg.solve(Xc.T @ Xc + lam * np.eye(Xc.shape[1]), Xc.T @ y)
    cand = rng.dirichlet(np.ones(n), size=100_000)
    pred = np.hstack([features(cand), np.ones((len(cand), 1))]) @ beta
    pick = int(np.argmax(sign * pred))
    best = cand[pick]
    print(f"proxy final {metric}: min {y.min():.3f} max {y.max():.3f}")
    chosen = ", ".join(f"{k} {v:.3f}" for k, v in zip(names, best, strict=True))
    print(f"chosen mixture: {chosen}; predicted final {metric} {pred[pick]:.3f}")
    label = "searched[" + ",".join(f"{x:.3f}" for x in best) + "]"
    arms = [MixerSpec("uniform", "uniform"), MixerSpec(label, "static", weights=best)]
    jobs = [{"spec": a, "seed": s, "cfg": cfg} for s in range(args.seeds) for a in arms]
    runs = run_jobs(run, jobs, args.workers, cache=args.cache)
    spent = float(sum(r.get("flops_total", np.nan) for r in proxies))
    for r in runs:  # the searched mixture is charged for every proxy run of the search
        if r["label"] == label:
            r["proxy"] = {"flops": spent, "runs": args.proxies}
    summ = summarize(runs, metric, per_source, higher_better=sign > 0)
    focus = ["noisy", "repeated"] if args.bench == "rl" else None
    print(table(summ, metric, names, focus=focus))
    out = RESULTS / f"mix_{args.bench}_search.json"
    out.write_text(
        json.dumps(
            {
                "benchmark": f"mix_{args.bench}_search",
                "names": names,
                "proxies": args.proxies,
                "proxy_mixtures": mixes.tolist(),
                "proxy_final": y.tolist(),
                "chosen": best.tolist(),
                "predicted": float(pred[pick]),
                "summary": {
                    k: {kk: vv for kk, vv in v.items() if "curve" not in kk}
                    for k, v in summ["arms"].items()
                },
            },
            indent=1,
        )
    )
    print("wrote", out)


if __name__ == "__main__":
    main()
