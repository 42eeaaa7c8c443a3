"""Every documented example script runs (briefly) and does what its docstring says it prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(script: str, args: list[str], cwd: Path) -> str:
    """Run an example script to completion; its stdout."""
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=cwd,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--policy", "acodm", "--reward", "heldout"],
        ["--policy", "acodm", "--reward", "target"],
        ["--policy", "odm"],
    ],
)
def test_train_with_mixer_runs(args: list[str], tmp_path: Path) -> None:
    hist = tmp_path / "h.jsonl"
    out = run_example(
        "train_with_mixer.py",
        [*args, "--steps", "30", "--batch", "16", "--history", str(hist)],
        tmp_path,
    )
    assert "held-out loss per source" in out and "mixer overhead" in out
    lines = hist.read_text().splitlines()
    assert len(lines) == 31  # a header, then one line per step


def test_proxy_mixer_trains_on_proxies_then_deploys(tmp_path: Path) -> None:
    policy = tmp_path / "p.pt"
    out = run_example(
        "proxy_mixer.py",
        ["--proxy-runs", "3", "--steps", "8", "--policy-file", str(policy)],
        tmp_path,
    )
    assert out.count("proxy run ") == 3
    assert "weights used:" in out and "'proxy-trained'" in out
    import torch

    from mixer import ProxyACODM

    m = ProxyACODM(4, horizon=8)
    m.load_state_dict(torch.load(policy, weights_only=True))
    assert m.deployed and m.runs == 3
