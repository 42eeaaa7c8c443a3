"""B1: mixers on byte-level language-model training over five real text domains.

Runs every arm (Uniform, Static by domain size, ODM, ACODM with each reward signal that applies)
for several seeds, writes benchmarks/results/mix_lm.json plus curve and weight PNGs, and prints a
table with each arm's steps to reach the uniform run's final validation loss.

    .venv/bin/python benchmarks/mix_lm.py            # full: 21 runs, about 7 min idle, 25-30 min at load 6-13
    .venv/bin/python benchmarks/mix_lm.py --quick    # smoke check
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import Bench, bench_main  # noqa: E402
from mixbench.common import MixerSpec  # noqa: E402
from mixbench.lm import LMConfig, run_lm  # noqa: E402

ARMS = {
    "uniform": MixerSpec("uniform", "uniform"),
    "static": MixerSpec("static", "static"),
    "odm": MixerSpec("odm", "odm", signal="loss"),
    "acodm-progress": MixerSpec("acodm-progress", "acodm", reward="progress"),
    "acodm-alignment": MixerSpec("acodm-alignment", "acodm", reward="alignment"),
    "acodm-target": MixerSpec("acodm-target", "acodm", reward="target"),
    "acodm-heldout": MixerSpec("acodm-heldout", "acodm", reward="heldout"),
}

BENCH = Bench(
    name="mix_lm",
    doc=__doc__,
    seeds=3,
    make_cfg=LMConfig.make,
    run=run_lm,
    arms=ARMS,
    metric="val_loss",
    per="val_loss_domain",
    higher_better=False,
    metric_name="val loss",
    names_key="domains",
    intro="\nB1 byte LM, {params:,} params, {steps} steps, {seeds} seeds, domains {names}\n"
    "target = uniform final mean validation loss {target:.4f} nats/byte; wall {wall:.0f}s",
    per_title="final validation loss per domain (mean over seeds)",
    curves_ylabel="validation loss (mean over domains, nats/byte)",
    curves_title="B1: byte LM over 5 text domains (mean ± sd over seeds)",
    weights_title="B1: sampling weight per domain (mean over seeds)",
)


def main(argv: list[str] | None = None) -> dict:
    return bench_main(BENCH, argv)


if __name__ == "__main__":
    main()
