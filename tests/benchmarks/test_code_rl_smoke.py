"""Smoke check of benchmarks/code_rl/bench.py (B3): the real build, a model pre-trained here, GRPO
through the lean loop and through TRL's trainer; the ledgers count every rollout (not who wins)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# The benchmark's model and its TRL loop need the trl extra (TRL, transformers, tokenizers, psutil):
# without it the test skips, as the README says tests of an extra do.
for _module in ("psutil", "transformers", "tokenizers", "trl"):
    pytest.importorskip(_module, reason="needs the trl extra: pip install -e '.[trl]'")

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "code_rl" / "bench.py"


def _run(*args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--smoke", *args], capture_output=True, text=True, timeout=240
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_code_rl_smoke_builds_trains_and_counts(tmp_path: Path) -> None:
    cache, results = tmp_path / "cache", tmp_path / "results"
    common = ("--cache", str(cache), "--results", str(results))
    _run(*common, "--loop", "both", "--arms", "uniform", "frontier-scored", "dapo")
    manifest = json.loads((cache / "smoke" / "build" / "manifest.json").read_text())
    assert len(manifest["counts"]["output"]) == 6  # every source survived the real build
    root = results / "smoke-tiny-2x2x2-lean"
    summary = json.loads((root / "summary.json").read_text())
    assert summary["model"]["model"]["parameters"] > 100_000
    arms = summary["arms"]
    # two steps of 2 prompts x 2 completions; DAPO regenerates until its groups are informative
    assert arms["uniform"]["rollouts"] == 8 and arms["uniform"]["scoring_tokens"] == 0
    assert (
        arms["frontier-scored"]["rollouts"] == 8 and arms["frontier-scored"]["scoring_tokens"] > 0
    )
    assert arms["dapo"]["rollouts"] >= 8
    run = json.loads((root / "uniform" / "seed0.json").read_text())
    assert [p["step"] for p in run["curve"]] == [0, 2]
    assert run["curve"][-1]["generated_tokens"] > 0 and run["curve"][-1]["sandbox_cpu_s"] >= 0
    assert set(run["quality"][0]) >= {"mean", "sum", "mean_pass"}
    # the same samplers through TRL's GRPOTrainer, DAPO refilled by the trainer
    trl = json.loads((results / "smoke-tiny-2x2x2-trl" / "summary.json").read_text())["arms"]
    assert trl["uniform"]["loop"] == "trl" and trl["uniform"]["rollouts"] == 8
    assert trl["frontier-scored"]["scoring_tokens"] > 0
    assert trl["dapo"]["loop"] == "trl" and trl["dapo"]["rollouts"] >= 8
