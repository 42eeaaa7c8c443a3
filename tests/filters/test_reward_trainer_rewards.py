"""Reward functions for verl and TRL: exact signatures, real export rows, called the way the trainers call them."""

from __future__ import annotations

import importlib.util
import inspect
import os
import subprocess
import sys

import pytest

from curation.export import trl_row, verl_row
from filters.reward import (
    compute_score,
    compute_score_batch,
    make_trl_reward,
    trainer_rewards,
    trl_correctness_reward,
)
from filters.reward.pool import close_shared_sandbox, shared_sandbox

ROW = {
    "problem_id": "demo/add",
    "id": "add",
    "source": "demo",
    "statement": "Add two numbers.",
    "starter_code": None,
    "language": "python",
    "test_type": "stdio",
    "entry_point": None,
    "tests": [{"input": "1 2\n", "output": "3\n"}, {"input": "5 7\n", "output": "12\n"}],
    "test_code": None,
    "checker": None,
    "time_limit_s": 2.0,
    "memory_limit_mb": 256,
    "solutions": ["a, b = map(int, input().split())\nprint(a + b)\n"],
    "difficulty": 0.2,
    "difficulty_bucket": "easy",
}
GOOD = "Sum them.\n```python\na, b = map(int, input().split())\nprint(a + b)\n```"
BAD = "```python\nprint(3)\n```"
VERL_PARAMS = ["data_source", "solution_str", "ground_truth", "extra_info"]


@pytest.fixture(scope="module", autouse=True)
def small_pool():
    old = os.environ.get("CODEMIX_REWARD_WORKERS")
    os.environ["CODEMIX_REWARD_WORKERS"] = "2"
    close_shared_sandbox()
    yield
    close_shared_sandbox()
    if old is None:
        os.environ.pop("CODEMIX_REWARD_WORKERS", None)
    else:
        os.environ["CODEMIX_REWARD_WORKERS"] = old


def test_verl_signature_matches_default_compute_score():
    params = list(inspect.signature(compute_score).parameters)
    assert params[:4] == VERL_PARAMS
    assert inspect.signature(compute_score).parameters["extra_info"].default is None
    try:  # the real one, when verl is installed
        from verl.utils.reward_score import default_compute_score
    except ImportError:
        return
    assert list(inspect.signature(default_compute_score).parameters)[:4] == VERL_PARAMS


def _verl_call(fn, row, response):
    """As verl's NaiveRewardManager / reward loop does: keywords, extra_info augmented, extra kwargs."""
    extra_info = dict(row["extra_info"], num_turns=None, rollout_reward_scores={})
    return fn(
        data_source=row["data_source"],
        solution_str=response,
        ground_truth=row["reward_model"]["ground_truth"],
        extra_info=extra_info,
    )


def test_verl_compute_score_on_an_exported_row():
    row = verl_row(ROW, "train", 0)
    good = _verl_call(compute_score, row, GOOD)
    bad = _verl_call(compute_score, row, BAD)
    none = _verl_call(compute_score, row, "I don't know")
    assert good["score"] == 1.0 and good["acc"] == 1.0 and good["system_error"] == 0.0
    assert bad["score"] == 0.0 and bad["pass_frac"] == 0.5
    assert none["score"] == 0.0 and none["has_code"] == 0.0
    assert set(good) == set(bad) == set(none)  # verl stacks reward_extra_info per key
    # reward_kwargs from the config, and keywords verl adds itself, are accepted
    partial = compute_score(
        row["data_source"],
        BAD,
        row["reward_model"]["ground_truth"],
        row["extra_info"],
        partial=True,
        format_penalty=0.1,
        reward_router_address=None,
    )
    assert partial["score"] == 0.5


def test_verl_loads_the_function_from_its_file_path():
    """verl's custom_reward_function.path loads a file as a module; the adapter works loaded that way."""
    try:
        from verl.utils.import_utils import load_extern_object
    except ImportError:
        spec = importlib.util.spec_from_file_location("custom_module", trainer_rewards.__file__)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        fn = mod.compute_score
    else:
        fn = load_extern_object(trainer_rewards.__file__, "compute_score")
    assert _verl_call(fn, verl_row(ROW, "train", 0), GOOD)["score"] == 1.0


def test_verl_batch_and_speed_weight():
    rows = [verl_row(ROW, "train", i) for i in range(4)]
    out = compute_score_batch(
        data_sources=[r["data_source"] for r in rows],
        solution_strs=[GOOD, BAD, GOOD, "x"],
        ground_truths=[r["reward_model"]["ground_truth"] for r in rows],
        extra_infos=[r["extra_info"] for r in rows],
    )
    assert [o["score"] for o in out] == [1.0, 0.0, 1.0, 0.0]
    timed = compute_score(
        rows[0]["data_source"],
        GOOD,
        rows[0]["reward_model"]["ground_truth"],
        speed_weight=0.5,
        speed_max_repeats=5,
    )
    assert 1.0 <= timed["score"] <= 1.5 and timed["speed"] in (0.0, 0.5, 1.0)


def test_trl_reward_called_like_the_trainer():
    """The exact keywords TRL's GRPOTrainer._calculate_rewards passes (prompts, completions, completion_ids,
    every dataset column, trainer_state, log_extra, log_metric)."""
    rows = [trl_row(ROW, "train", 0)] * 3
    completions = [[{"role": "assistant", "content": c}] for c in (GOOD, BAD, "no code")]
    kwargs = {
        k: [r[k] for r in rows]
        for k in rows[0]
        if k not in ("prompt", "completion", "completion_ids")
    }
    out = trl_correctness_reward(
        prompts=[r["prompt"] for r in rows],
        completions=completions,
        completion_ids=[[1, 2]] * 3,
        trainer_state=None,
        log_extra=None,
        log_metric=None,
        **kwargs,
    )
    assert out == [1.0, 0.0, 0.0]
    penalised = make_trl_reward("correctness", name="fmt")(
        prompts=None, completions=["no code"], ground_truth=[rows[0]["ground_truth"]]
    )
    assert penalised == [0.0] and make_trl_reward("speed").__name__ == "codemix_speed"


def test_trl_real_dispatch():
    """Through TRL's own GRPOTrainer._calculate_rewards (None -> NaN, columns as keywords)."""
    pytest.importorskip("trl")
    torch = pytest.importorskip("torch")
    from accelerate import Accelerator
    from transformers import TrainerState
    from trl import GRPOTrainer

    from filters.reward.correctness import CorrectnessConfig
    from filters.reward.speed import SpeedConfig

    broken = dict(
        ROW, test_type="assert", entry_point="f", test_code="def check(c):\n    assert (\n"
    )
    rows = [trl_row(ROW, "train", 0), trl_row(ROW, "train", 0), trl_row(broken, "train", 1)]
    trainer = GRPOTrainer.__new__(GRPOTrainer)
    trainer.accelerator = Accelerator(cpu=True)
    trainer.args = type("Args", (), {"report_to": []})()
    trainer.state = TrainerState()
    speed = make_trl_reward("speed", speed=SpeedConfig(max_repeats=5))
    trainer.reward_funcs = [trl_correctness_reward, speed]
    trainer.reward_processing_classes = [None, None]
    trainer.reward_func_names = [f.__name__ for f in trainer.reward_funcs]
    trainer.environments = None
    trainer._log_completion_extra = lambda *a, **k: None
    trainer._log_metric = lambda *a, **k: None
    completions = [[{"role": "assistant", "content": c}] for c in (GOOD, BAD, GOOD)]
    rewards = trainer._calculate_rewards(rows, [r["prompt"] for r in rows], completions, [[1]] * 3)
    assert rewards.shape == (3, 2)
    assert (
        rewards[0, 0].item() == 1.0 and rewards[1, 0].item() == 0.0 and rewards[1, 1].item() == 0.0
    )
    assert 0.0 <= rewards[0, 1].item() <= 1.0
    assert torch.isnan(rewards[2]).all()  # a sandbox fault is unscorable, not a zero
    assert isinstance(CorrectnessConfig(), CorrectnessConfig)


def test_shared_pool_is_per_process_and_restarts_after_close():
    a = shared_sandbox()
    assert shared_sandbox() is a
    close_shared_sandbox()
    b = shared_sandbox()
    assert b is not a and b.n_workers == 2
    code = (
        "import os, sys\nfrom filters.reward import compute_score\n"
        f"gt = {verl_row(ROW, 'train', 0)['reward_model']['ground_truth']!r}\n"
        "good = 'a, b = map(int, input().split())\\nprint(a + b)'\n"
        "print(compute_score('demo', good, gt)['score'], flush=True)\n"  # the parent's pool starts
        "pid = os.fork()\n"
        "if pid == 0:\n"  # the child grades with a pool of its own, then exits normally
        "    sys.exit(0 if compute_score('demo', 'print(3)', gt)['score'] == 0.0 else 1)\n"
        "_, st = os.waitpid(pid, 0)\nprint(os.waitstatus_to_exitcode(st))\n"
        "from filters.reward import shared_sandbox\n"
        "print(all(w.alive() for w in shared_sandbox()._all), compute_score('demo', good, gt)['score'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, CODEMIX_REWARD_WORKERS="1"),
    )
    assert out.stdout.split() == ["1.0", "0", "True", "1.0"], out.stderr[-2000:]


def test_a_sandbox_fault_while_timing_scores_like_any_system_error():
    """With on_system_error="none" and a speed weight, a fault while timing a correct completion
    (SpeedResult.reward None) scores 0.0 with system_error=1.0 and the same keys as every sample,
    as compute_score documents; it used to raise TypeError (float * None) inside verl."""
    from filters.reward.correctness import Grade
    from filters.reward.speed import SpeedResult
    from filters.reward.trainer_rewards import _verl_dicts

    ok = Grade(1.0, True, "AC", tests_passed=2, tests_total=2)
    faulted, timed = _verl_dicts(
        [ok, ok], [SpeedResult(None, True, note="SE"), SpeedResult(0.5, True)], 0.5
    )
    assert faulted["score"] == 0.0 and faulted["system_error"] == 1.0 and faulted["speed"] == 0.0
    assert timed["score"] == 1.25 and timed["system_error"] == 0.0
    assert faulted.keys() == timed.keys()
