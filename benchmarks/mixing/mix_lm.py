"""B1: mixers on a byte-level code model's pretraining over 13 real text domains of uneven value.

The domains (`mixbench/domains.py`): four code domains (the target: B1's metric is their mean
validation loss), six auxiliary text domains, three low-value ones (base64 and hex blobs, one
small text repeated). Runs each arm (uniform, static by corpus size, ODM, DUMP, the transfer
bandit, the AC-ODM paper's recipe with its proxy run, online ACODM) for several seeds, writes
benchmarks/results/mix_lm.json plus curve and weight PNGs, and prints a table with each arm's
steps and total compute (proxy runs and feedback passes included) to reach the uniform run's
final target loss. `benchmarks/mixing/mix_headroom.py` shows the headroom a fixed mixture has.

    .venv/bin/python benchmarks/mixing/mix_lm.py --seeds 5 --cache /tmp/mb/lm   # full: 35 runs
    .venv/bin/python benchmarks/mixing/mix_lm.py --quick                         # smoke check, < 2 min
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mixbench.cli import Bench, bench_main  # noqa: E402
from mixbench.common import MixerSpec  # noqa: E402
from mixbench.lm import LMConfig, run_lm  # noqa: E402
from mixbench.paper_acodm import PaperACODM  # noqa: E402

PAPER = PaperACODM.paper_recipe()
ARMS = {
    "uniform": MixerSpec("uniform", "uniform"),
    "static": MixerSpec("static", "static"),
    "odm": MixerSpec("odm", "odm", signal="loss"),
    # B1 has no advantages: DUMP and the transfer bandit read the training loss instead
    "dump": MixerSpec("dump", "dump", signal="loss"),
    "transfer-bandit": MixerSpec("transfer-bandit", "transfer-bandit", signal="loss"),
    # the AC-ODM paper's recipe: one proxy run of a narrower model (d=32: 0.31 of the target's
    # FLOPs per step), online ACODM with its reward and state, the actor frozen on the target
    "acodm-paper": MixerSpec("acodm-paper", "acodm", proxy={"d": 32}, **PAPER),
    "acodm-interference": MixerSpec("acodm-interference", "acodm", reward="interference"),
    # told what training should improve: each domain's gradient projected on the gradient of the
    # code domains' held-out loss (8 development windows, every 4th step: 1/8 of a step's FLOPs)
    "acodm-target": MixerSpec("acodm-target", "acodm", reward="target", feedback_every=4),
    # earlier rewards (issue 8), not run by default
    "acodm-progress": MixerSpec("acodm-progress", "acodm", reward="progress"),
    "acodm-alignment": MixerSpec("acodm-alignment", "acodm", reward="alignment"),
    "acodm-heldout": MixerSpec("acodm-heldout", "acodm", reward="heldout"),
}
DEFAULT_ARMS = [
    "uniform",
    "static",
    "odm",
    "dump",
    "transfer-bandit",
    "acodm-paper",
    "acodm-interference",
    "acodm-target",
]

BENCH = Bench(
    name="mix_lm",
    doc=__doc__,
    seeds=5,
    make_cfg=LMConfig.make,
    run=run_lm,
    arms=ARMS,
    default_arms=DEFAULT_ARMS,
    metric="val_loss",
    per="val_loss_domain",
    higher_better=False,
    metric_name="val loss",
    names_key="domains",
    intro="\nB1 byte LM, {params:,} params, {steps} steps, {seeds} seeds, domains {names}\n"
    "target = uniform final mean validation loss of the code domains {target:.4f} nats/byte; "
    "wall {wall:.0f}s",
    per_title="final validation loss per domain (mean over seeds)",
    curves_ylabel="validation loss (mean over the code domains, nats/byte)",
    curves_title="B1: byte LM over 13 text domains, loss on the code domains (mean ± sd over seeds)",
    weights_title="B1: sampling weight per domain (mean over seeds)",
)


def main(argv: list[str] | None = None) -> dict:
    return bench_main(BENCH, argv)


if __name__ == "__main__":
    main()
