"""Two processes (torch.distributed, gloo, CPU) training with `MixerGRPOTrainer` and a scored
`FrontierSampler`: every rank holds the same mixer and sampler after every generation batch, the
ranks' rows together are exactly the batch drawn, and a run resumed on two ranks repeats the
uninterrupted one; the same with `DynamicSampling`, whose batches the trainer refills. The runs
themselves are `tests/mixer/trl_ranks.py` (one launch for all four)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import wait_s

pytest.importorskip("trl")

SCRIPT = Path(__file__).with_name("trl_ranks.py")
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


RUNS = ("full", "resumed", "dapo-full", "dapo-resumed", "code-full", "code-resumed")


@pytest.fixture(scope="module")
def runs(demo_trl, tmp_path_factory) -> dict[str, list[dict]]:
    """The four runs' records on both ranks, from one launch of two processes."""
    return _launch(demo_trl[1], tmp_path_factory.mktemp("ranks"))


def _launch(export: Path, out: Path) -> dict[str, list[dict]]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "ACCELERATE_USE_CPU": "true"}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
           "--master_addr", "127.0.0.1", "--master_port", str(_free_port()),
           str(SCRIPT), str(export), str(out)]  # fmt: skip
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=wait_s(600), env=env, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-3000:]
    return {
        run: [json.loads((out / run / f"rank{r}.json").read_text()) for r in (0, 1)] for run in RUNS
    }


def test_two_ranks_hold_one_mixer_and_split_one_drawn_batch_and_resume_exactly(runs):
    ranks = runs["full"]
    r0, r1 = ranks
    assert r0["draws"] == r1["draws"]  # the same draws on both ranks
    drawn = {d["weights_id"]: d["rows"] for d in r0["draws"]}
    assert len(r0["steps"]) == len(r1["steps"]) == 4
    for a, b in zip(r0["steps"], r1["steps"], strict=True):
        # after every generation batch: identical mixer and sampler (its pass-rate model fitted
        # on the scorer's signal included) and the same count of scored prompts
        assert (a["mixer"], a["sampler"], a["scored"]) == (b["mixer"], b["sampler"], b["scored"])
        assert a["weights_id"] == b["weights_id"]
        together = a["local_rows"] + b["local_rows"]
        assert sorted(together) == sorted(r for r in drawn[a["weights_id"]] for _ in range(2))
    assert r0["steps"][-1]["scored"] > 0
    # resumed on two ranks from the checkpoint after step 2: steps 3 and 4 as in the full run:
    # the same rows from the same draws, the same mixer, the same sampler position and ledger.
    # What the sampler fitted on the scorer's signals is as exact as the policy it reads, and
    # the trainer's own resume does not restore the policy bit for bit: only where the policy
    # agrees must that part agree too.
    resumed = runs["resumed"]
    for full, again in zip(ranks, resumed, strict=True):
        assert again["draws"] == full["draws"][len(full["draws"]) - len(again["draws"]) :]
        for a, b in zip(full["steps"][2:], again["steps"], strict=True):
            keys = ("weights_id", "local_rows", "mixer", "weights", "scored", "draw_state")
            assert {k: a[k] for k in keys} == {k: b[k] for k in keys}
            if a["policy"] == b["policy"]:
                assert a["sampler"] == b["sampler"]


def _chosen(heard: list, prompts: int, group: int) -> list[int]:
    """The rows of the batch a refill makes from these rounds: the first `prompts` kept groups."""
    kept = [rows[g * group] for _, rows, keep in heard for g, k in enumerate(keep) if k]
    return sorted(r for r in kept[:prompts] for _ in range(group))


def test_two_ranks_refill_one_batch_from_the_same_rounds_and_resume_exactly(runs):
    """DynamicSampling on two ranks: the same draws and the same rounds heard on both, identical
    mixer and sampler after every round, and the two ranks' trained rows together are the first
    kept groups of the rounds of that batch (rows of one rank's rounds reach the other); a resumed
    run repeats the rest."""
    r0, r1 = runs["dapo-full"]
    assert r0["draws"] == r1["draws"] and r0["heard"] == r1["heard"]
    assert (
        r0["rollouts"] == r1["rollouts"]
        and r0["rollouts"]["rounds"] > r0["rollouts"]["generation_batches"]
    )
    for a, b in zip(r0["steps"], r1["steps"], strict=True):
        assert (a["mixer"], a["sampler"]) == (b["mixer"], b["sampler"])
    kind = r0["kind"]
    start = moved = 0
    for a, b in zip(r0["batches"], r1["batches"], strict=True):
        assert a["heard"] == b["heard"]
        heard = r0["heard"][start : a["heard"]]
        start = a["heard"]
        assert sorted(a["rows"] + b["rows"]) == _chosen(heard, 4, 2)
        assert all(kind[r] == 2 for r in a["rows"] + b["rows"])  # informative problems only
        assert all(x != 0 for x in a["advantages"] + b["advantages"])
        # groups trained on another rank than the one that generated them (4 rows a rank)
        kept = [g for _, _, keep in heard for g, k in enumerate(keep) if k][:4]
        moved += sum(g * 2 // 4 != j * 2 // 4 for j, g in enumerate(kept))
    assert moved  # rows crossed between ranks
    for full, again in zip(runs["dapo-full"], runs["dapo-resumed"], strict=True):
        assert again["draws"] == full["draws"][len(full["draws"]) - len(again["draws"]) :]
        assert again["heard"] == full["heard"][len(full["heard"]) - len(again["heard"]) :]
        assert [x["rows"] for x in again["batches"]] == [x["rows"] for x in full["batches"][2:]]
        assert again["rollouts"] == full["rollouts"]
        assert again["steps"][-1]["sampler"] == full["steps"][-1]["sampler"]


def test_two_ranks_resume_a_run_graded_on_its_completions_exactly(runs):
    """DynamicSampling on B3's small code model, graded by codemix's correctness reward (each rank
    generates and grades its own rows): resumed on two ranks from checkpoint-2, every rank
    generates the same completions as in the uninterrupted run, so the sampler hears the same
    rounds with the same rewards and ends with the same ledger and state. Generation after a
    resume was once shifted by the seed the train loader's new iterator drew."""
    r0, r1 = runs["code-full"]
    assert r0["heard"] == r1["heard"] and r0["rewards"] == r1["rewards"]
    rewards = [x for round_ in r0["rewards"] for x in round_]
    assert 0 < sum(rewards) < len(rewards)  # the reward tells completions apart
    assert r0["rollouts"]["rounds"] > r0["rollouts"]["generation_batches"]
    assert r0["graded"] != r1["graded"]  # each rank generates its own rows
    for full, again in zip(runs["code-full"], runs["code-resumed"], strict=True):
        n = len(again["heard"])
        assert n >= 2
        assert again["heard"] == full["heard"][-n:] and again["rewards"] == full["rewards"][-n:]
        assert again["graded"] == full["graded"][len(full["graded"]) - len(again["graded"]) :]
        assert again["ledger"] == full["ledger"] and again["rollouts"] == full["rollouts"]
        assert again["steps"][-1]["sampler"] == full["steps"][-1]["sampler"]
