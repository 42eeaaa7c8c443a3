"""B2 diagnostic: can a run identify each source's marginal value from the mixtures it tries?

Trains the B2 policy under random mixtures (a new Dirichlet(2) draw every 10 steps, no floor),
then regresses each 10-step change of the held-out pass rate on the mean weights of that window
(no intercept: weights sum to one), pooled over seeds, early and late. A mixer that learns from
immediate effects can only be as good as these estimates.

    .venv/bin/python benchmarks/mixing/archive/mix_rl_identify.py --seeds 10

Archived (issue 51): a diagnostic of issue 8's session 2 (why one run's own signals could not
steer ACODM), with a mixer of its own that codemix does not ship; its numbers are in
benchmarks/pages/mixer-training-history.md. It still runs.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # mixing/: mixbench
import mixbench.common as C
import mixbench.rl as R
from mixbench.common import MixerSpec, run_jobs
from mixbench.rl import RLConfig, run_rl

from mixer.policies.base import Mixer


class DirichletWindows(Mixer):
    name = "dirichlet"

    def __init__(self, n, alpha=2.0, every=10, **kw):
        kw.pop("horizon", None)
        super().__init__(n, floor=0.0, **kw)
        self.alpha, self.every = alpha, every
        self._policy = self.rng.dirichlet(np.full(n, alpha))

    def _update(self, fb):
        if self.step % self.every == 0:
            self._policy = self.rng.dirichlet(np.full(self.n_sources, self.alpha))


orig = C.build_mixer


def bm(spec, n, names, seed, **extra):
    if spec.policy == "dirichlet":
        return DirichletWindows(n, seed=seed + 1000, names=list(names), **spec.kw)
    return orig(spec, n, names, seed, **extra)


R.build_mixer = bm
cfg = RLConfig.make(False)
seeds = int(sys.argv[sys.argv.index("--seeds") + 1]) if "--seeds" in sys.argv else 10
jobs = [{"spec": MixerSpec("dir", "dirichlet"), "seed": s, "cfg": cfg} for s in range(seeds)]
runs = run_jobs(run_rl, jobs, 2, log=lambda *_: None)
X, Y, T = [], [], []
for r in runs:
    W = np.array(r["weights"])
    st = r["steps"]
    pr = np.array(r["pass_rate"])
    for k in range(1, len(st)):
        a, b = st[k - 1], st[k]
        X.append(W[a:b].mean(0))
        Y.append(pr[k] - pr[k - 1])
        T.append(b)
X, Y, T = np.array(X), np.array(Y), np.array(T)
names = runs[0]["names"]
out = {
    "benchmark": "mix_rl_identify",
    "seeds": seeds,
    "sources": list(runs[0]["names"]),
    "final_pass_rate": float(np.mean([r["pass_rate"][-1] for r in runs])),
    "windows": {},
}
print("final pass rate (random mixtures):", round(out["final_pass_rate"], 4))
for lo, hi in ((0, 250), (250, 500), (0, 500)):
    m = (T > lo) & (T <= hi)
    beta, res, *_ = np.linalg.lstsq(X[m], Y[m], rcond=None)
    resid = Y[m] - X[m] @ beta
    s2 = resid @ resid / max(m.sum() - X.shape[1], 1)
    cov = s2 * np.linalg.inv(X[m].T @ X[m])
    se = np.sqrt(np.diag(cov))
    out["windows"][f"{lo}-{hi}"] = {"n": int(m.sum()), "beta": beta.tolist(), "se": se.tolist()}
    print(
        f"steps {lo}-{hi} windows {m.sum()}:",
        "  ".join(f"{n}={b * 1e3:+.2f}±{e * 1e3:.2f}" for n, b, e in zip(names, beta, se)),
        "(x1e-3 pass per 10 steps at full weight)",
    )

import json  # noqa: E402

res = Path(__file__).resolve().parents[2] / "results" / "mix_rl_identify.json"
res.write_text(json.dumps(out, indent=1))
print("wrote", res)
