"""The oracle rules of benchmarks/mixing/frontier_ceiling.py (`CurrentPassRateOracle`) and a smoke run of
the script: uniform runs its full steps, the other arms half of them (not who wins)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "mixing"))

from mixbench.frontier_rl import CurrentPassRateOracle, oracle_score  # noqa: E402

from tests.conftest import wait_s  # noqa: E402


def test_oracle_rules_score_the_true_pass_rate():
    p = np.array([0.0, 1 / 16, 0.1, 0.25, 0.5, 0.9, 1.0])
    pq = oracle_score(p, "pq", (0.2, 0.8), 1 / 16, 8)
    assert pq == pytest.approx(p * (1 - p)) and pq[[0, -1]].tolist() == [0, 0]
    pq2 = oracle_score(p, "pq2", (0.2, 0.8), 1 / 16, 8)
    assert np.argmax(pq2) == 3  # p (1 - p)^2 peaks at 1/3: leans to the problems still failed
    band = oracle_score(p, "band", (0.2, 0.8), 1 / 16, 8)
    assert band.tolist() == [0, 0, 0, 1, 1, 0, 0]
    chance = oracle_score(p, "chance", (0.2, 0.8), 1 / 16, 8)
    assert chance[:2].tolist() == [0, 0] and (chance[2:-1] > 0).all() and chance[-1] == 0
    assert chance[4] == pytest.approx((0.5 - 1 / 16) * 0.5 / (15 / 16))
    nz = oracle_score(p, "nonzero", (0.2, 0.8), 1 / 16, 8)
    assert nz[4] == pytest.approx(1 - 2 * 0.5**8) and nz[[0, -1]].tolist() == [0, 0]
    with pytest.raises(ValueError, match="rule"):
        CurrentPassRateOracle({"a": range(4)}, 2, rule="greedy")
    with pytest.raises(ValueError, match="chance"):
        CurrentPassRateOracle({"a": range(4)}, 2, rule="chance", chance=1.0)


def test_ceiling_quick_runs_uniform_full_and_the_others_half(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "mixing" / "frontier_ceiling.py"), "--quick", "--seeds", "1",
         "--arms", "oracle-current[rule='band',explore=0.25]", "--workers", "1",
         "--out-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=wait_s(300),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "frontier_ceiling_quick.json").read_text())
    summ = res["summary"]
    full = res["config"]["steps"]
    runs = {r["label"]: r for r in res["runs"]}
    assert runs["uniform"]["steps"][-1] == full
    oracle = runs["oracle-current[rule='band',explore=0.25]"]
    assert oracle["steps"][-1] == summ["half"] == full // 2
    # a fixed batch per step: half the steps is half of uniform's rollouts
    assert 2 * oracle["rollouts_at"][-1] == runs["uniform"]["rollouts_at"][-1]
    assert summ["target"] == pytest.approx(runs["uniform"]["pass_rate"][-1], abs=1e-5)
    for a in summ["arms"].values():
        assert 0 <= a["zero_advantage_share"] <= 1 and np.isfinite(a["at_half_mean"])
