"""Smoke check of benchmarks/mixing/trl_refill_overhead.py: both arms run in the real TRL trainer and the
record splits each step into TRL's rounds and the refill's own work (not how fast)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import wait_s

pytest.importorskip("trl")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "mixing" / "trl_refill_overhead.py"


def test_trl_refill_overhead_runs_both_arms(tmp_path: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--steps", "1", "--tokens", "4", "--prompts", "2",
         "--group", "4", "--out-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=wait_s(300), env=env,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    rec = json.loads((tmp_path / "trl_refill_overhead.json").read_text())
    refill, plain, iters2 = rec["arms"]  # the third: DynamicSampling with num_iterations=2
    assert iters2["num_iterations"] == 2 and 0 <= iters2["beyond_generation_share"] < 1
    assert plain["rounds_mean"] == 1 and plain["rollouts"]["rounds"] == 2  # warm-up + 1 timed
    assert refill["rollouts"]["rollouts"] > refill["rollouts"]["trained_rollouts"] == 2 * 2 * 4
    for arm in (refill, plain):
        (step,) = arm["steps"]
        assert 0 <= step["refill_s"] < step["wall_s"] and step["trl_generate_and_score_s"] > 0
