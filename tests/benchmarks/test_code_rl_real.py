"""B3 v3's path to a real model (`benchmarks/code_rl/real.py`, issue 53) on CPU: a tiny random Llama
with a tokenizer trained here (a Hugging Face folder like any other, no network), a tiny export of
real problems (MBPP and HumanEval from ../shared/data through `codemix build`, ranked by `codemix
rank` from a rollouts file, exported for TRL). The step-0 probe's counts add up, its grading is the
sandbox's verdict, and the arms run through `MixerGRPOTrainer` for the steps asked. Needs the trl
extra and ../shared/data; skips without them."""

from __future__ import annotations

import json
import subprocess
import sys
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import SHARED_DATA, wait_s

for _module in ("psutil", "transformers", "tokenizers", "trl", "datasets"):
    pytest.importorskip(_module, reason="needs the trl extra: pip install -e '.[trl]'")
if (
    not (SHARED_DATA / "mbpp.jsonl.gz").exists()
    or not (SHARED_DATA / "HumanEval.jsonl.gz").exists()
):
    pytest.skip("../shared/data is absent", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "benchmarks" / "code_rl" / "real.py"
sys.path.insert(0, str(ROOT / "benchmarks"))

from code_rl import real  # noqa: E402

WRONG = "def _nothing():\n    return None\n"  # defines nothing the tests call: fails every test


def _codemix(*args: str) -> None:
    cmd = [str(Path(sys.executable).with_name("codemix")), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=wait_s(300))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _solution(ground_truth: str) -> str:
    return json.loads(ground_truth)["solutions"][0]


def _as_completion(program: str) -> str:
    return f"Here it is.\n```python\n{program}\n```\n"


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six MBPP and six HumanEval problems built for real (verified in the sandbox), ranked by
    `codemix rank` from a rollouts file of two other "models" (their attempts: each problem's
    reference and a wrong program, graded by the sandbox, in proportions that differ by problem),
    exported for TRL with a held-out split."""
    tmp = tmp_path_factory.mktemp("real-export")
    build, trl = tmp / "build", tmp / "trl"
    _codemix("build", "--source", f"mbpp:{SHARED_DATA / 'mbpp.jsonl.gz'}",
             "--source", f"humaneval:{SHARED_DATA / 'HumanEval.jsonl.gz'}", "--limit", "6",
             "--no-decontaminate", "--skip", "amplify", "--skip", "dedup", "--skip", "difficulty",
             "--min-tests", "1", "--out", str(build), "-j", "2")  # fmt: skip
    _codemix("export", str(build), "--format", "trl", "--out", str(trl))
    from datasets import load_from_disk

    rows = load_from_disk(str(trl))["train"]
    # what two other models passed: k of 4 attempts, graded (reference k times, a wrong program 4-k)
    lines = []
    for i, (pid, gt) in enumerate(zip(rows["problem_id"], rows["ground_truth"], strict=True)):
        for m, k in (("other-a", i % 5), ("other-b", (i * 3) % 5)):
            k = min(k, 4)
            comps = [_as_completion(_solution(gt))] * k + [_as_completion(WRONG)] * (4 - k)
            passed = int(real.grade_matrix(rows.select([i]), comps, 4).sum())
            lines.append({"problem_id": pid, "model": m, "passed": passed, "attempts": 4})
    rollouts = tmp / "rollouts.jsonl"
    rollouts.write_text("".join(json.dumps(r) + "\n" for r in lines))
    _codemix("rank", str(build), "--rollouts", str(rollouts))
    import shutil

    shutil.rmtree(trl)
    _codemix("export", str(build), "--format", "trl", "--out", str(trl), "--split", "test=0.25")
    return trl


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory, export: Path) -> Path:
    """A 2-layer Llama with random weights and a byte-level BPE tokenizer of 300 tokens trained on
    the export's prompts, saved as a Hugging Face folder (`save_pretrained`)."""
    import torch
    from code_rl.model import build_tokenizer
    from datasets import load_from_disk
    from transformers import LlamaConfig, LlamaForCausalLM

    rows = load_from_disk(str(export))["train"]
    tok = build_tokenizer([m["content"] for p in rows["prompt"] for m in p], vocab=300)
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                      max_position_embeddings=2048, bos_token_id=tok.bos_token_id,
                      eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)  # fmt: skip
    folder = tmp_path_factory.mktemp("tiny-llama")
    LlamaForCausalLM(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def test_the_probe_grades_as_the_sandbox_does(export: Path) -> None:
    """A problem's reference program passes and a wrong one fails, fenced as a chat model writes."""
    from datasets import load_from_disk

    rows = load_from_disk(str(export))["train"]
    for i in (0, len(rows) - 1):
        one = rows.select([i])
        ref = _solution(one["ground_truth"][0])
        got = real.grade_matrix(one, [_as_completion(ref), _as_completion(WRONG)], 2)
        assert got.tolist() == [[True, False]], one["problem_id"][0]


def test_the_probe_report_counts_the_pool(export: Path) -> None:
    """Graded completions with a known number passing per problem: the live pool, all-pass and
    all-fail add up per source and overall, the zero-advantage share is the chance that a group
    drawn from them is all pass or all fail, and the Spearman is the prior's against the rates."""
    from datasets import load_from_disk

    rows = load_from_disk(str(export))["train"]
    n, group = 4, 2
    want = [i % (n + 1) for i in range(len(rows))]  # 0..4 passing of 4
    comps = []
    for k, gt in zip(want, rows["ground_truth"], strict=True):
        comps += [_as_completion(_solution(gt))] * k + [_as_completion(WRONG)] * (n - k)
    passed = real.grade_matrix(rows, comps, n)
    assert passed.sum(axis=1).tolist() == want
    rep = real.probe_report(list(rows["source"]), list(rows["difficulty"]), passed, group)
    k = np.array(want)
    assert rep["problems"] == len(rows) == rep["all_pass"] + rep["all_fail"] + rep["live"]
    assert rep["all_pass"] == int((k == n).sum()) and rep["all_fail"] == int((k == 0).sum())
    per = rep["per_source"]
    assert set(per) == {"mbpp", "humaneval"}
    for key in ("problems", "all_pass", "all_fail", "live"):
        assert sum(v[key] for v in per.values()) == rep[key]
    zero = [(comb(int(x), group) + comb(n - int(x), group)) / comb(n, group) for x in k]
    assert rep["zero_advantage"] == pytest.approx(np.mean(zero), abs=1e-4)
    src = np.array(rows["source"])
    by_source = [np.mean([z for z, s in zip(zero, src, strict=True) if s == name]) for name in per]
    assert rep["zero_advantage_over_sources"] == pytest.approx(np.mean(by_source), abs=1e-4)
    assert rep["pass_rate"] == pytest.approx(k.mean() / n, abs=1e-4)
    # the prior: `codemix rank`'s difficulty, every problem ranked; its Spearman against the rates
    diff = np.array(rows["difficulty"], dtype=float)
    assert np.isfinite(diff).all() and rep["with_prior"] == len(rows)
    assert rep["spearman_prior"] == pytest.approx(_spearman(diff, k / n), abs=1e-3)
    for name in per:
        m = src == name
        assert per[name]["spearman_prior"] == pytest.approx(_spearman(diff[m], k[m] / n), abs=1e-3)
    # harder by the prior, fewer passes here: the two other models' passes were set so
    assert rep["spearman_prior"] < 0


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson's correlation of average ranks (pandas' ranking, ties shared)."""
    import pandas as pd

    return float(np.corrcoef(pd.Series(a).rank().to_numpy(), pd.Series(b).rank().to_numpy())[0, 1])


def _real(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, str(REAL), *args], capture_output=True, text=True,
                          timeout=wait_s(400), env={**__import__("os").environ, "OMP_NUM_THREADS": "1"})  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done


def test_probe_and_arms_run_a_hugging_face_folder(
    export: Path, tiny_model: Path, tmp_path: Path
) -> None:
    """The commands a GPU runs, on CPU: the probe of every train problem, then three arms through
    `MixerGRPOTrainer` for the steps asked, every rollout in the sampler's ledger."""
    from datasets import load_from_disk

    train = load_from_disk(str(export))["train"]
    out = tmp_path / "probe.json"
    _real("probe", "--model", str(tiny_model), "--export", str(export), "--samples", "4",
          "--group", "2", "--max-new-tokens", "12", "--out", str(out))  # fmt: skip
    rep = json.loads(out.read_text())
    assert rep["problems"] == len(train) and rep["samples"] == 4
    assert rep["all_pass"] + rep["all_fail"] + rep["live"] == len(train)
    assert sum(v["problems"] for v in rep["per_source"].values()) == len(train)
    assert len(rep["per_problem_pass_rate"]) == len(train) and rep["generated_tokens"] > 0
    assert rep["problem_ids"] == list(train["problem_id"])
    runs = tmp_path / "runs"
    steps, prompts, group = 3, 2, 2
    _real("run", "--model", str(tiny_model), "--export", str(export), "--arms", "uniform",
          "acodm", "stack", "--seeds", "0", "--steps", str(steps), "--prompts", str(prompts),
          "--group", str(group), "--max-new-tokens", "12", "--eval-every", "3", "--eval-samples",
          "1", "--final-samples", "1", "--lr", "1e-3", "--out", str(runs))  # fmt: skip
    for arm in ("uniform", "acodm", "stack"):
        run: dict[str, Any] = json.loads((runs / arm / "seed0.json").read_text())
        assert run["loop"] == "trl" and run["arm"] == arm
        assert [p["step"] for p in run["curve"]] == [0, steps]
        assert run["curve"][-1]["rollouts"] == steps * prompts * group
        trace = run["trace"]
        assert [sum(d) for d in trace["draws"]] == [prompts] * steps
        assert all(abs(sum(w) - 1) < 1e-6 for w in trace["weights"])
    # ACODM's weights move as it hears the groups (every group fails here: a random model)
    w = np.array(json.loads((runs / "acodm" / "seed0.json").read_text())["trace"]["weights"])
    assert np.ptp(w, axis=0).max() > 0
