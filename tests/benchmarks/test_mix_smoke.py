"""Smoke checks of the mixer benchmarks: both run in --quick mode and give sane numbers (not who wins)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import wait_s

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "mixing"


def _run(script: str, out: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), "--quick", "--workers", "2", "--out-dir", str(out)],
        capture_output=True,
        text=True,
        timeout=wait_s(600),  # a hang guard: 150 s timed out at load 15 on the shared 2-core machine
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "x uniform" in proc.stdout
    name = script.removesuffix(".py") + "_quick"
    assert (out / f"{name}_curves.png").stat().st_size > 0
    assert (out / f"{name}_weights.png").stat().st_size > 0
    return json.loads((out / f"{name}.json").read_text())


def _check_weights(run: dict, n: int) -> None:
    w = np.array(run["weights"])  # every `weights_every`-th step
    steps = len(run["train_loss" if "train_loss" in run else "train_reward"])
    assert w.shape == (steps // run["weights_every"], n)
    assert (w >= 0).all()
    np.testing.assert_allclose(w.sum(1), 1.0, atol=1e-4)  # the JSON keeps 5 significant digits


def _check_summary(summary: dict, labels: set[str]) -> None:
    assert set(summary["arms"]) == labels
    assert np.isfinite(summary["target"])
    for arm in summary["arms"].values():
        assert arm["time_step_s"] > 0 and arm["time_mixer_s"] >= 0
        assert 0 <= arm["seeds_reaching_target"] <= arm["seeds"]


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mixbench")


def test_mix_lm_quick_runs_and_losses_fall(out_dir: Path) -> None:
    res = _run("mix_lm.py", out_dir)
    names = res["domains"]
    assert len(names) >= 10  # the problems domain is skipped when ../shared/data is absent
    assert {"base64", "hex", "repeated"} <= set(names)
    labels = {a["label"] for a in res["arms"]}
    assert {
        "uniform",
        "static",
        "odm",
        "dump",
        "transfer-bandit",
        "acodm-paper",
        "acodm-interference",
        "acodm-target",
    } <= labels
    for run in res["runs"]:
        val = np.array(run["val_loss"])
        assert np.isfinite(val).all() and np.isfinite(run["val_loss_domain"]).all()
        assert val[-1] < val[0] - 0.3, (
            run["label"],
            val,
        )  # a 256-way byte model starts near ln 256 = 5.55
        assert np.isfinite(run["train_loss"]).all()
        _check_weights(run, len(names))
        _check_compute(run)
    _check_summary(res["summary"], labels)
    paper = [r for r in res["runs"] if r["label"] == "acodm-paper"]
    for run in paper:  # its proxy run is counted: a narrower model, the same schedule
        assert 0.2 < run["proxy"]["flops"] / run["flops_train"] < 1.0
    # a target-aware arm pays for its held-out gradient; uniform pays nothing beyond training
    arms = res["summary"]["arms"]
    assert arms["uniform"]["compute_feedback"] == 0 and arms["acodm-target"]["compute_feedback"] > 0
    assert arms["acodm-paper"]["compute_proxy"] > 0


def test_mix_rl_quick_runs_with_sane_pass_rates(out_dir: Path) -> None:
    res = _run("mix_rl.py", out_dir)
    n = len(res["sources"])
    labels = {a["label"] for a in res["arms"]}
    assert {
        "uniform",
        "static",
        "odm",
        "advantage-bandit",
        "dump",
        "transfer-bandit",
        "acodm-paper",
        "acodm-advantage",
        "acodm-learnability",
    } <= labels
    for run in res["runs"]:
        pr = np.array(run["pass_rate"])
        assert ((pr >= 0) & (pr <= 1)).all()
        assert (
            (np.array(run["pass_rate_source"]) >= 0) & (np.array(run["pass_rate_source"]) <= 1)
        ).all()
        rw = np.array(run["train_reward"])
        assert ((rw >= 0) & (rw <= 1)).all()
        _check_weights(run, n)
        _check_compute(run)
    _check_summary(res["summary"], labels)
    # the supervised warm-up makes the easy source solvable, so pass rates are not stuck at chance
    assert res["summary"]["arms"]["uniform"]["final_per_source_mean"][0] > 0.2


def _check_compute(run: dict) -> None:
    """Training compute is one step's FLOPs per step; the curve only grows."""
    steps = len(run["weights"]) * run["weights_every"]
    assert run["flops_train"] == pytest.approx(run["step_flops"] * steps, rel=1e-3)
    assert (np.diff(run["flops_curve"]) >= 0).all()
    assert run["flops_total"] >= run["flops_train"]


def test_mix_headroom_quick_searches_then_evaluates(out_dir: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCH / "mix_headroom.py"),
            "--quick",
            "--proxy-seeds",
            "1",
            "--seeds",
            "2",
            "--out-dir",
            str(out_dir),
        ],
        capture_output=True,
        text=True,
        timeout=wait_s(600),  # a hang guard: 150 s timed out at load 15 on the shared 2-core machine
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((out_dir / "mix_lm_headroom_quick.json").read_text())
    assert res["chosen"] in res["grid"]
    for w in res["grid"].values():  # nothing on the low-value domains
        assert all(w[res["domains"].index(d)] == 0 for d in res["low_value"])
    assert set(res["evaluation"]["arms"]) == {"uniform", res["chosen"]}


@pytest.mark.parametrize("bench", ["rl", "lm"])
def test_mix_proxy_quick_trains_then_deploys(out_dir: Path, bench: str) -> None:
    name = f"proxy_{bench}"
    args = ["--quick", "--bench", bench, "--proxies", "4", "--snapshots", "2", "--name", name]
    if bench == "lm":
        args += ["--paired", "--proxy-set", "d=32"]
    proc = subprocess.run(
        [sys.executable, str(BENCH / "mix_proxy.py"), *args, "--out-dir", str(out_dir)],
        capture_output=True,
        text=True,
        timeout=wait_s(600),  # a hang guard: 150 s timed out at load 15 on the shared 2-core machine
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((out_dir / f"{name}.json").read_text())
    assert len(res["proxy_trace"]) == 4
    assert (out_dir / f"{name}_curves.png").stat().st_size > 0
    if bench == "lm":  # paired: one seed per round of two runs
        assert [t["seed"] for t in res["proxy_trace"]] == [1000, 1000, 1001, 1001]
    deployed = [k for k in res["summary"]["arms"] if k.startswith("acodm-proxy")]
    assert len(deployed) == 2  # after 2 runs and after 4
    for label in deployed:
        w = np.array(res["deployed_weights_mean"][label])
        assert (w > 0).all() and abs(w.sum() - 1) < 1e-4  # the JSON keeps 5 digits
    # the policy is charged for the proxy runs it learnt from: 4 runs cost twice what 2 did
    arms = res["summary"]["arms"]
    c2, c4 = (arms[next(k for k in deployed if k.startswith(f"acodm-proxy[{n} "))] for n in (2, 4))
    assert c2["compute_proxy"] > 0 and c4["compute_proxy"] == pytest.approx(
        2 * c2["compute_proxy"], rel=0.2
    )
    _check_summary(res["summary"], {"uniform", "static", "odm", *deployed})
    for k in (2, 4):  # the deployed policies, loadable and marked deployed
        state = json.loads((out_dir / f"{name}_state_{k}.json").read_text())
        assert state["policy_name"] == "acodm-proxy"
        assert state["policy_state"]["proxy"]["deployed"] is True
        assert state["policy_state"]["proxy"]["runs"] == k
