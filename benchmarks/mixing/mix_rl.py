"""B2: mixers on GRPO (RL with verifiable rewards) over six generated task sources.

A tiny MLP policy is warmed up by supervised learning, then trained with GRPO on problems drawn
through MixedSampler from easy, medium, medium2, hard (too hard to learn yet), noisy (half the
references wrong) and repeated (eight problems) sources. Reports held-out pass rate on the clean
sources, steps to reach the uniform run's final pass rate, and the weight each mixer gave the
noisy and repeated sources. Writes benchmarks/results/mix_rl.json and PNGs.

    .venv/bin/python benchmarks/mixing/mix_rl.py            # full: 45 runs, 5-10 min on 2 cores
    .venv/bin/python benchmarks/mixing/mix_rl.py --quick    # smoke check
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import Bench, bench_main  # noqa: E402
from mixbench.common import MixerSpec  # noqa: E402
from mixbench.paper_acodm import PaperACODM  # noqa: E402
from mixbench.rl import RLConfig, run_rl  # noqa: E402
from mixbench.tasks import CLEAN  # noqa: E402

PAPER = PaperACODM.paper_recipe()
ARMS = {
    "uniform": MixerSpec("uniform", "uniform"),
    "static": MixerSpec("static", "static"),
    "odm": MixerSpec("odm", "odm", signal="adv_abs"),
    "advantage-bandit": MixerSpec("advantage-bandit", "advantage-bandit"),
    "dump": MixerSpec("dump", "dump"),
    "transfer-bandit": MixerSpec("transfer-bandit", "transfer-bandit"),
    # the AC-ODM paper's recipe: one proxy run of a narrower policy (hidden 48: 0.28 of the
    # target's FLOPs per step), online ACODM with its reward and state, the actor frozen on the target
    "acodm-paper": MixerSpec("acodm-paper", "acodm", proxy={"hidden": 48}, **PAPER),
    "acodm-advantage": MixerSpec("acodm-advantage", "acodm", reward="advantage"),
    "acodm-learnability": MixerSpec(
        "acodm-learnability", "acodm", reward="learnability", odm_signal="adv_abs"
    ),
    "acodm-interference": MixerSpec(
        "acodm-interference", "acodm", reward="interference", odm_signal="adv_abs"
    ),
    # earlier rewards (issue 8), not run by default
    "acodm-progress": MixerSpec("acodm-progress", "acodm", reward="progress", odm_signal="adv_abs"),
    "acodm-alignment": MixerSpec(
        "acodm-alignment", "acodm", reward="alignment", odm_signal="adv_abs"
    ),
    "acodm-target": MixerSpec("acodm-target", "acodm", reward="target", odm_signal="adv_abs"),
    "acodm-heldout": MixerSpec("acodm-heldout", "acodm", reward="heldout", odm_signal="adv_abs"),
}
DEFAULT_ARMS = [
    "uniform",
    "static",
    "odm",
    "advantage-bandit",
    "dump",
    "transfer-bandit",
    "acodm-paper",
    "acodm-advantage",
    "acodm-learnability",
    "acodm-interference",
    "acodm-target",
]

BENCH = Bench(
    name="mix_rl",
    doc=__doc__,
    seeds=5,
    make_cfg=RLConfig.make,
    run=run_rl,
    arms=ARMS,
    metric="pass_rate",
    per="pass_rate_source",
    higher_better=True,
    metric_name="pass rate",
    names_key="sources",
    intro="\nB2 GRPO, MLP policy {params:,} params, {steps} steps, {seeds} seeds, sources {names}\n"
    "target = uniform final mean held-out pass rate on {clean}: {target:.4f}; wall {wall:.0f}s",
    per_title="final held-out pass rate per clean source (mean over seeds)",
    curves_ylabel="held-out pass rate (mean over clean sources)",
    curves_title="B2: GRPO over 6 task sources (mean ± sd over seeds)",
    weights_title="B2: sampling weight per source (mean over seeds)",
    default_arms=DEFAULT_ARMS,
    clean=list(CLEAN),
    focus=["noisy", "repeated"],
)


def main(argv: list[str] | None = None) -> dict:
    return bench_main(BENCH, argv)


if __name__ == "__main__":
    main()
