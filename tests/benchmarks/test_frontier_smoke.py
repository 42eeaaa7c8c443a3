"""Smoke check of benchmarks/mixing/frontier.py: a tiny run on B2's sources counts rollouts right (not who wins)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.conftest import wait_s

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "mixing" / "frontier.py"


def test_frontier_quick_on_b2_counts_every_rollout(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--task", "b2", "--seeds", "1", "--steps", "20", "--set", "prompts=64",
         "--arms", "uniform", "dapo", "frontier", "frontier-scored[signal_noise=1.0]", "--workers", "1",
         "--out-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=wait_s(240),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "rollouts to target" in proc.stdout
    res = json.loads((tmp_path / "frontier_b2_quick.json").read_text())
    cfg, arms = res["config"], res["summary"]["arms"]
    per_step = cfg["prompts"] * cfg["group"]
    # B2's `repeated` source has 8 problems, so batches repeat problems: each draw is still one
    # group of its own, and a sampler that keeps every group generates exactly one batch per step
    for name in ("uniform", "frontier", "frontier-scored[signal_noise=1.0]"):
        assert arms[name]["rollouts_per_step"] == per_step
        assert arms[name]["discarded_share"] == 0
    # the scored arm pays in scoring passes, counted apart from the rollouts; its biased signal
    # still ranks the problems, not perfectly
    scored = arms["frontier-scored[signal_noise=1.0]"]
    assert scored["scored_per_step"] > cfg["prompts"] and arms["frontier"]["scored_per_step"] == 0
    assert 0.3 < scored["signal_spearman"] < 0.99
    assert arms["dapo"]["rollouts_per_step"] >= per_step
    assert 0 < arms["dapo"]["discarded_share"] <= 1
    for a in arms.values():
        assert 0 <= a["zero_advantage_share"] <= 1 and np.isfinite(a["final_mean"])
    assert set(res["prior_quality"]) == {"label", "irt-1", "irt-8", "oracle"}
    assert res["prior_quality"]["oracle"]["spearman_vs_policy_mean"] == 1.0


def test_hardmix_sources_are_mostly_hard_and_fixed() -> None:
    sys.path.insert(0, str(BENCH.parent))
    from mixbench.spread import HARDMIX_MIX, make_problems

    p = make_problems("hardmix", 0, 0.5, 1.0)
    assert p.names == ["intro", "interview", "contest"] and len(p.ref) == 6000
    labels = dict(zip(*np.unique(p.label, return_counts=True)))
    assert labels == {"easy": 1000, "medium": 2700, "hard": 2300}  # copy; add and max; muladd
    contest = p.source == 2
    assert not (p.label[contest] == "easy").any() and HARDMIX_MIX["contest"]["copy"] == 0
    again = make_problems("hardmix", 0, 0.5, 1.0)
    assert (again.tokens == p.tokens).all() and (again.ref == p.ref).all()
