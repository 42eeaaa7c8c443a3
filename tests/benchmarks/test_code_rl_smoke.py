"""Smoke check of benchmarks/code_rl/bench.py (B3 v2): the real build of B3 v2's first problems,
ranked by the model frozen in the repository (what `--quick` does on a fresh clone: nothing from a
cache), GRPO through the lean loop and TRL's trainer, and a model pre-trained here; the ledgers
and traces count every rollout (not who wins). Needs the trl extra (transformers, psutil)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import wait_s

# The benchmark's model and its TRL loop need the trl extra (TRL, transformers, tokenizers, psutil):
# without it the test skips, as the README says tests of an extra do.
for _module in ("psutil", "transformers", "tokenizers", "trl"):
    pytest.importorskip(_module, reason="needs the trl extra: pip install -e '.[trl]'")

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "code_rl" / "bench.py"


def _run(*args: str, tmpdir: Path | None = None) -> str:
    env = None if tmpdir is None else {**os.environ, "TMPDIR": str(tmpdir)}
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--smoke", *args],
        capture_output=True,
        text=True,
        timeout=wait_s(280),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_code_rl_smoke_builds_trains_and_counts(tmp_path: Path) -> None:
    cache, results = tmp_path / "cache", tmp_path / "results"
    common = ("--cache", str(cache), "--results", str(results))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    out = _run(*common, "--loop", "both", "--arms", "uniform", "frontier-scored", "dapo", "oracle",
               tmpdir=scratch)  # fmt: skip
    assert not list(scratch.glob("b3-trl-*"))  # TRL's scratch output folders are removed
    manifest = json.loads((cache / "smoke" / "build" / "manifest.json").read_text())
    assert len(manifest["counts"]["output"]) == 7  # every source survived the real build
    ranked = json.loads((cache / "smoke" / "difficulty.json").read_text())
    assert ranked["models"] == ["checkpoint"]  # the frozen model, nothing from a cache
    root = results / "smoke-small-2x2x2-lean"
    summary = json.loads((root / "summary-dev.json").read_text())
    arms = summary["arms"]
    # two steps of 2 prompts x 2 completions; DAPO regenerates until its groups are informative
    assert arms["uniform"]["rollouts"] == 8 and arms["uniform"]["scoring_tokens"] == 0
    assert arms["frontier-scored"]["rollouts"] == 8
    assert arms["frontier-scored"]["scoring_tokens"] > 0
    assert arms["dapo"]["rollouts"] >= 8
    # the oracle's probes (every train problem, uncharged) are counted apart from its rollouts
    assert arms["oracle"]["rollouts"] == 8 and arms["oracle"]["probe_rollouts"] > 0
    run = json.loads((root / "uniform" / "seed0.json").read_text())
    assert [p["step"] for p in run["curve"]] == [0, 2]
    assert run["curve"][-1]["generated_tokens"] > 0 and run["curve"][-1]["sandbox_cpu_s"] >= 0
    assert "pass1_target" in run["curve"][-1]
    assert set(run["quality"][0]) >= {"mean", "sum", "mean_pass"}
    trace = run["trace"]
    assert len(trace["sources"]) == 7 and len(trace["draws"]) == 2
    assert [sum(d) for d in trace["draws"]] == [2, 2] and sum(trace["rollouts"]) == 8
    assert sum(trace["draws_per_problem"]) == 4
    assert all(abs(sum(w) - 1) < 1e-3 for w in trace["weights"])
    assert {"generation", "grading", "update", "evaluation"} <= set(run["phases"]["cpu_s"]) or (
        not any(trace["updated"])  # a step with no informative group has no update phase
    )
    # the same samplers through TRL's GRPOTrainer, DAPO refilled by the trainer; the oracle refused
    trl = json.loads((results / "smoke-small-2x2x2-trl" / "summary-dev.json").read_text())["arms"]
    assert trl["uniform"]["loop"] == "trl" and trl["uniform"]["rollouts"] == 8
    assert trl["frontier-scored"]["scoring_tokens"] > 0
    assert trl["dapo"]["loop"] == "trl" and trl["dapo"]["rollouts"] >= 8
    assert "oracle" not in trl and "trl oracle: skipped" in out
    # what the run cost, in CPU seconds (issue 53: counted, not wall): this process, its finished
    # subprocesses (the build, export, rank) and the live sandbox, each counted once
    cost = json.loads((results / "smoke-cost.json").read_text())
    parts = cost["cpu_s"]
    assert parts["process"] > 0 and parts["children"] > 0 and parts["sandbox"] >= 0
    assert parts["total"] == pytest.approx(
        parts["process"] + parts["children"] + parts["sandbox"], abs=0.02
    )
    assert "smoke: " in out and " CPU-s (this process " in out
    # loop attempts 2 and 3 (b3v2.md, sections 5 and 7): each step trains on `--fill` informative
    # groups, drawn --prompts at a time, every generated rollout counted, until the run has
    # generated --rollouts (then evaluated once more)
    _run(*common, "--fill", "2", "--rollouts", "96", "--arms", "uniform", "oracle")
    root = results / "smoke-small-r96x4x2-fill2-lean"
    filled = json.loads((root / "uniform" / "seed0.json").read_text())
    ends = [p["rollouts"] for p in filled["curve"]]
    assert ends[-1] >= 96 > ends[-2] and filled["config"]["rollouts"] == 96
    oracle = json.loads((root / "oracle" / "seed0.json").read_text())
    assert oracle["curve"][-1]["rollouts"] >= 96 and oracle["probe"]["rollouts"] > 0
    ft = filled["trace"]
    assert filled["config"]["fill"] == 2 and filled["config"]["prompts"] == 4
    assert all(r % 8 == 0 for r in ft["rollouts"])  # whole rounds of 4 prompts x 2 completions
    assert (
        all(i <= 2 for i in ft["informative"])
        and sum(ft["rollouts"]) == filled["curve"][-1]["rollouts"]
    )
    assert [sum(d) * 2 for d in ft["draws"]] == ft["rollouts"]
    # the same fill loop through TRL: DAPO's sampler refilled by MixerGRPOTrainer, the run ended
    # at the step that spends its rollouts; any other arm is refused
    _run(
        *common,
        "--loop",
        "trl",
        "--fill",
        "2",
        "--prompts",
        "2",
        "--rollouts",
        "96",
        "--arms",
        "dapo",
    )
    trl_fill = json.loads(
        (results / "smoke-small-r96x2x2-fill2-trl" / "dapo" / "seed0.json").read_text()
    )
    ends = [p["rollouts"] for p in trl_fill["curve"]]
    assert trl_fill["loop"] == "trl" and ends[-1] >= 96 > ends[-2]
    assert trl_fill["curve"][-1]["step"] < trl_fill["config"]["steps"]
    refused = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--smoke",
            *common,
            "--loop",
            "trl",
            "--fill",
            "2",
            "--arms",
            "uniform",
        ],
        capture_output=True,
        text=True,
        timeout=wait_s(120),
    )
    assert refused.returncode != 0 and "--arms dapo" in refused.stderr
    # a model pre-trained here instead of the frozen one
    _run(*common, "--size", "tiny", "--arms", "uniform")
    tiny = json.loads((results / "smoke-tiny-2x2x2-lean" / "summary-dev.json").read_text())
    assert tiny["arms"]["uniform"]["rollouts"] == 8
    assert (
        json.loads((cache / "smoke" / "model-tiny" / "pretrain.json").read_text())["tasks"] == "v2"
    )
