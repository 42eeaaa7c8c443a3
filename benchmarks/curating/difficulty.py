"""Difficulty benchmark: IRT recovery on simulated attempts, feature model on the shared data.

    .venv/bin/python benchmarks/curating/difficulty.py [--quick]

1. IRT: problems with known logit difficulties, models with known abilities (and
   discriminations for 2PL data), binomial attempts. Baseline: rank problems by their raw mean
   pass rate. Ours: the 1PL / 2PL fit. Reports Spearman against the truth and the coverage of the
   68/90/95% intervals from `difficulty_std`, also when each problem is attempted by only two of
   the four models (raw pass rates are then confounded by who attempted).
2. Feature model on ../shared/data (LeetCodeDataset Easy/Medium/Hard, CodeContests subset
   problem index): 5-fold held-out Spearman against the label prior; baselines are single
   features (statement length, reference solution length).
Writes benchmarks/results/difficulty.json and prints tables.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from filters.stages.difficulty import (  # noqa: E402
    cross_val_predict,
    fit_irt,
    label_prior,
    problem_features,
    spearman,
)

DATA = ROOT.parent / "shared" / "data"
THETA = np.array([-1.5, -0.5, 0.5, 1.5])
DISC = np.array([0.6, 0.9, 1.2, 1.5])


def simulate(rng, n_problems: int, attempts: int, two_pl: bool, sparse: bool):
    b = rng.normal(0.0, 1.5, n_problems)
    m = len(THETA)
    if sparse:  # each problem is attempted by two random models
        pairs = np.array([rng.choice(m, 2, replace=False) for _ in range(n_problems)])
        pi, mi = np.repeat(np.arange(n_problems), 2), pairs.reshape(-1)
        n = np.full(len(pi), attempts // 2)
    else:
        pi, mi = np.repeat(np.arange(n_problems), m), np.tile(np.arange(m), n_problems)
        n = np.full(len(pi), attempts // m)
        n[mi < attempts % m] += 1
    a = DISC if two_pl else np.ones(m)
    p = 1.0 / (1.0 + np.exp(-a[mi] * (THETA[mi] - b[pi])))
    return b, pi, mi, rng.binomial(n, p), n


def irt_bench(quick: bool) -> list[dict]:
    rows = []
    n_problems = 500 if quick else 2000
    for data_2pl in (False, True):
        for sparse in (False, True):
            for attempts in (10, 20, 50, 100):
                rng = np.random.default_rng(attempts + 7 * sparse + 13 * data_2pl)
                b, pi, mi, k, n = simulate(rng, n_problems, attempts, data_2pl, sparse)
                raw = -(np.bincount(pi, weights=k, minlength=n_problems) / np.bincount(pi, weights=n, minlength=n_problems))
                for fit_2pl in (False, True):
                    t = time.perf_counter()
                    fit = fit_irt(pi, mi, k, n, n_problems, len(THETA), prior_mean=0.0, prior_std=1.5, two_pl=fit_2pl)
                    secs = time.perf_counter() - t
                    z = np.abs(fit.b - b) / fit.b_std
                    rows.append({
                        "data": "2PL" if data_2pl else "1PL", "attempts_by": "2 of 4 models" if sparse else "all 4 models",
                        "attempts": attempts, "fit": "2PL" if fit_2pl else "1PL", "problems": n_problems,
                        "spearman_raw_pass_rate": round(spearman(raw, b), 4),
                        "spearman_irt": round(spearman(fit.b, b), 4),
                        "cover68": round(float(np.mean(z <= 1.0)), 3),
                        "cover90": round(float(np.mean(z <= 1.645)), 3),
                        "cover95": round(float(np.mean(z <= 1.96)), 3),
                        "seconds": round(secs, 3),
                    })
    return rows


def _lit(v):
    return ast.literal_eval(v) if isinstance(v, str) else v


def shared_rows() -> list[dict]:
    rows = []
    with gzip.open(DATA / "LeetCodeDataset-v0.2.0-train.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            meta = _lit(r["meta"])
            rows.append({"source": "leetcode", "statement": r["query"], "solutions": [r["completion"]],
                         "tags": meta.get("tags") or [], "difficulty_label": meta["difficulty"]})
    with gzip.open(DATA / "codecontests-subset300.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            rows.append({"source": "codecontests", "statement": r["statement"], "solutions": [r["solution"]],
                         "tags": _lit(r["tags"]) or [], "tests": _lit(r["tests"]) or [],
                         "difficulty_label": None if r["difficulty"] is None else str(r["difficulty"])})
    return rows


def feature_bench() -> dict:
    rows = [r for r in shared_rows() if label_prior(r["difficulty_label"], r["source"]) is not None]
    feats = [problem_features(r) for r in rows]
    tags = [r["tags"] for r in rows]
    y = np.array([label_prior(r["difficulty_label"], r["source"]).difficulty for r in rows])
    src = np.array([r["source"] for r in rows])
    out: dict = {"rows": {s: int((src == s).sum()) for s in ("leetcode", "codecontests")}}
    label_means = {}
    for s, labels in (("leetcode", ["Easy", "Medium", "Hard"]), ("codecontests", [str(v) for v in range(8, 16)])):
        label_means[s] = {lab: round(float(label_prior(lab, s).difficulty), 4) for lab in labels}
    out["label_prior"] = label_means
    t = time.perf_counter()
    pred, rho = cross_val_predict(feats, tags, y)
    out["pooled_fit_seconds"] = round(time.perf_counter() - t, 3)
    res = {"pooled fit": {"all": round(rho, 4)}}
    for s in ("leetcode", "codecontests"):
        m = src == s
        res["pooled fit"][s] = round(spearman(pred[m], y[m]), 4)
        idx = np.where(m)[0]
        _, r2 = cross_val_predict([feats[i] for i in idx], [tags[i] for i in idx], y[m])
        res.setdefault("per-source fit", {})[s] = round(r2, 4)
        for base in ("log_statement_chars", "log_solution_chars", "max_loop_depth"):
            x = np.array([feats[i][base] for i in idx])
            res.setdefault(f"baseline {base}", {})[s] = round(spearman(x, y[m]), 4)
    for base in ("log_statement_chars", "log_solution_chars", "max_loop_depth"):
        res[f"baseline {base}"]["all"] = round(spearman(np.array([f[base] for f in feats]), y), 4)
    out["heldout_spearman"] = res
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="500 simulated problems instead of 2000")
    args = ap.parse_args()
    result: dict = {"machine": f"{platform.machine()} {platform.processor() or ''} python {platform.python_version()}".strip()}
    result["irt"] = irt_bench(args.quick)
    print(f"{'data':4} {'attempted by':13} {'att':>4} {'fit':4} {'raw rho':>8} {'irt rho':>8} {'ratio':>6} {'cov68':>6} {'cov90':>6} {'cov95':>6} {'sec':>6}")
    for r in result["irt"]:
        print(f"{r['data']:4} {r['attempts_by']:13} {r['attempts']:>4} {r['fit']:4} {r['spearman_raw_pass_rate']:8.4f} {r['spearman_irt']:8.4f} "
              f"{r['spearman_irt'] / r['spearman_raw_pass_rate']:6.3f} {r['cover68']:6.3f} {r['cover90']:6.3f} {r['cover95']:6.3f} {r['seconds']:6.2f}")
    if (DATA / "LeetCodeDataset-v0.2.0-train.jsonl.gz").exists():
        result["features"] = feature_bench()
        print("\nfeature model, 5-fold held-out Spearman against the label prior")
        print(f"{'model':32} {'all':>7} {'leetcode':>9} {'codecontests':>13}")
        for name, v in result["features"]["heldout_spearman"].items():
            print(f"{name:32} {v.get('all', float('nan')):7.4f} {v['leetcode']:9.4f} {v['codecontests']:13.4f}")
        print("label prior:", json.dumps(result["features"]["label_prior"]))
    # --quick writes into the ignored results/quick/, leaving the tracked numbers as they were
    out = ROOT / "benchmarks" / "results" / ("quick" if args.quick else "") / "difficulty.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
