"""Why B3 v3's first oracle failed gate (b), and what a round must probe (b3v3.md section 5,
amendment 2). Development data only: the frozen policy's step-0 probe (`results/v3-prior/
policy-probe.json`, 16 samples a train problem) and the gate runs of `oracle-topb` on development
seeds 0 and 1 (moved to `results/attempts/v3-oracle-topb-pool32/`).

1. From the gate runs: each step's zero-advantage share, split by whether every probe round of
   the step found at least B live problems, and by quarter of the run (the policy sharpens: fewer
   problems stay live).
2. A simulation of one round (a problem's true pass rate p; a probe of `samples` completions is
   binomial; a group of G is dead when all G agree): true rates drawn from a Beta posterior around
   each problem's step-0 probe, sharpened in logit space to the live counts the runs saw, and each
   probing rule's zero-advantage share and probe rollouts a round. It ignores that the policy
   changes inside a run, so it reads the rules' order and cost, not the runs' levels (it puts
   the first oracle at 0.41-0.48 where the runs' late quarters measured 0.52-0.62).

    python benchmarks/code_rl/oracle_sim.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
PROBE = HERE / "results" / "v3-prior" / "policy-probe.json"
RUNS = HERE / "results" / "attempts" / "v3-oracle-topb-pool32"
B, G = 4, 8
#: (pool, samples, enough, most): the first oracle is (32, 4, 1, 32); amendment 2's (32, 4, 8, 256)
RULES = [(32, 4, 1, 32), (32, 4, 4, 256), (32, 4, 8, 256), (32, 4, 12, 512), (128, 4, 1, 128),
         (32, 8, 8, 256)]  # fmt: skip


def gate_runs() -> None:
    for path in sorted(RUNS.glob("seed*.json")):
        run = json.loads(path.read_text())
        trace, points = run["trace"], run["probe"]["points"]
        i, ok, bad = 0, [0, 0], [0, 0]
        draws = np.array([sum(x) for x in trace["draws"]])
        dead = np.array([sum(x) for x in trace["zero_advantage"]])
        for d, z, r in zip(draws, dead, trace["rollouts"], strict=True):
            n = r // (B * G)
            lives = [p["live"] for p in points[i : i + n]]
            i += n
            acc = ok if min(lives) >= B else bad
            acc[0], acc[1] = acc[0] + z, acc[1] + d
        q = len(draws) // 4
        quarters = [dead[k * q : (k + 1) * q].sum() / draws[k * q : (k + 1) * q].sum() for k in range(4)]
        live = np.array([p["live"] for p in points])
        m = len(live) // 4
        print(
            f"{path.stem}: zero-advantage {dead.sum() / draws.sum():.3f}; steps whose rounds all "
            f"found >= {B} live {ok[0] / ok[1]:.3f}, others {bad[0] / bad[1]:.3f}; by quarter "
            + " ".join(f"{x:.3f}" for x in quarters)
            + "; live of 32 by quarter "
            + " ".join(f"{live[k * m : (k + 1) * m].mean():.2f}" for k in range(4))
        )


def simulate(p: np.ndarray, rule: tuple[int, int, int, int], rng: np.random.Generator,
             rounds: int = 3000) -> tuple[float, float]:  # fmt: skip
    pool, samples, enough, most = rule
    dead = probes = 0
    for _ in range(rounds):
        order = rng.permutation(len(p))
        cands: list[int] = []
        rates: list[float] = []
        while not cands or (sum(0 < x < 1 for x in rates) < enough and len(cands) < most):
            c = order[len(cands) : len(cands) + min(pool, most - len(cands))]
            cands += c.tolist()
            rates += (rng.binomial(samples, p[c]) / samples).tolist()
        r, cs = np.array(rates), np.array(cands)
        info = r * (1 - r)
        chosen = cs[np.lexsort((rng.random(len(cs)), -info))[:B]]
        k = rng.binomial(G, p[chosen])
        dead += int(((k == 0) | (k == G)).sum())
        probes += len(cands) * samples
    return dead / (rounds * B), probes / rounds


def main() -> None:
    gate_runs()
    probe = json.loads(PROBE.read_text())
    k = np.round(np.array(probe["per_problem_pass_rate"]) * probe["samples"])
    rng = np.random.default_rng(1)
    q0 = np.clip(rng.beta(k + 0.3, probe["samples"] - k + 0.3), 1e-4, 1 - 1e-4)
    logit = np.log(q0 / (1 - q0))
    print("simulated rounds: rule (pool, samples, enough, most) -> zero-advantage, probes a round")
    for sharpen in (1.0, 1.5, 2.0, 2.5):
        p = 1 / (1 + np.exp(-logit * sharpen))
        live = float(np.mean(1 - p**4 - (1 - p) ** 4) * 32)
        cells = [simulate(p, rule, np.random.default_rng(0)) for rule in RULES]
        print(f"sharpened x{sharpen} (live of 32 at 4 samples {live:.2f}): "
              + "; ".join(f"{r} {z:.3f} {n:.0f}" for r, (z, n) in zip(RULES, cells, strict=True)))  # fmt: skip


if __name__ == "__main__":
    main()
