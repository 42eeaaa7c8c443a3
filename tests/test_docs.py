"""The Python examples in docs/ run as written (the objects a block calls "yours" are supplied)."""

from __future__ import annotations

import contextlib
import io
import re
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import torch

DOCS = Path(__file__).resolve().parents[1] / "docs"

#: Blocks not run here, each with the reason (a substring of the block identifies it).
NOT_RUN = {
    "Qwen/Qwen2.5-Coder-1.5B-Instruct": "downloads a model from the Hugging Face hub; the same "
    "MixerGRPOTrainer and TRL rewards run in tests/mixer/test_adapter_trl.py",
    "mixer.start_run(eval_loss=heldout_loss(model))": "pseudo-code of a proxy training "
    "(`...train...`); ProxyACODM's loop runs in tests/mixer/test_proxy.py",
}


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def _run(block: str, name: str, namespace: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, name, "exec"), namespace)
    return out.getvalue()


def test_sandbox_page_example_runs():
    block, cpp = python_blocks(DOCS / "sandbox.md")
    assert _run(block, "docs/sandbox.md", {}).splitlines()[0] == "AC None"
    if shutil.which("g++"):
        assert _run(cpp, "docs/sandbox.md", {}).splitlines() == ["AC 2 0.0", "CE"]


def test_verify_page_example_runs():
    block, languages = python_blocks(DOCS / "verify.md")
    assert _run(block, "docs/verify.md", {}).splitlines() == ["amplified True strict"]
    if shutil.which("g++"):
        out = _run(languages, "docs/verify.md", {}).splitlines()
        assert out == ["['WA', 'AC'] ['python', 'cpp'] ['cpp']"]


def _yours(tmp_path: Path) -> dict:
    """What the mixer page's blocks call "yours": a model, its per-sample loss, an optimizer, a
    mixer with one step's feedback, and a curated build's shards in ./OUT."""
    from mixer import Feedback, make_mixer

    (tmp_path / "OUT" / "problems").mkdir(parents=True)
    rng = np.random.default_rng(0)
    table = pa.table(
        {
            "problem_id": [f"p{i}" for i in range(96)],
            "source": [["taco", "lcb", "mbpp"][i % 3] for i in range(96)],
            "difficulty_bucket": [i % 4 for i in range(96)],
            "x": rng.normal(size=96).tolist(),
        }
    )
    pq.write_table(table, tmp_path / "OUT" / "problems" / "part-0.parquet")
    model = torch.nn.Linear(1, 1)

    def per_sample_loss(model, rows):
        x = torch.tensor(rows.column("x").to_pylist(), dtype=torch.float32)[:, None]
        return (model(x).squeeze(-1) - 2 * x.squeeze(-1)) ** 2

    return {
        "model": model,
        "opt": torch.optim.SGD(model.parameters(), lr=0.01),
        "per_sample_loss": per_sample_loss,
        "mixer": make_mixer("acodm", 3, names=["lcb", "mbpp", "taco"]),
        "feedback": Feedback(counts=[4, 2, 2], adv_abs=[0.3, 0.1, 0.5]),
    }


def test_mixer_page_examples_run(tmp_path, monkeypatch):
    from mixer import POLICIES

    monkeypatch.setattr(POLICIES, "_classes", dict(POLICIES._classes))  # "Adding a policy" adds one
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(DOCS / "mixer.md")
    ran = 0
    for block in blocks:
        if any(marker in block for marker in NOT_RUN):
            continue
        ns = _yours(tmp_path / f"b{ran}")
        monkeypatch.chdir(tmp_path / f"b{ran}")
        _run(block, "docs/mixer.md", ns)
        ran += 1
        if "from_shards" in block:  # the quick start trained and fed the mixer every step
            assert len(ns["sampler"].mixer.history) == len(ns["sampler"])
            assert (tmp_path / f"b{ran - 1}" / "mix.jsonl").is_file()
    assert ran == len(blocks) - 1


def test_rewards_page_examples_run():
    problem = {
        "id": "add",
        "source": "docs",
        "statement": "Print the sum of two integers.",
        "language": "python",
        "test_type": "stdio",
        "tests": [{"input": f"{a} {b}\n", "output": f"{a + b}\n"} for a, b in [(1, 2), (5, 7)]],
        "solutions": ["a, b = map(int, input().split())\nprint(a + b)\n"],
    }
    completion = "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
    blocks = python_blocks(DOCS / "rewards.md")
    runnable = [b for b in blocks if not any(m in b for m in NOT_RUN)]
    assert len(runnable) == len(blocks) - 1
    for block in runnable:
        ns = {"problem": problem, "completion": completion}
        _run(block, "docs/rewards.md", ns)


def test_pipeline_page_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (block,) = python_blocks(DOCS / "pipeline.md")
    printed = _run(block, "docs/pipeline.md", {}).splitlines()
    page = (DOCS / "pipeline.md").read_text()
    for line in printed:  # the page says what the example prints
        assert f"`{line}`" in page, line
    assert printed[1] == "[10, 46] {'toy': 2}"
    assert (tmp_path / "out/toy/rejected/short_statement-00000.parquet").is_file()


def test_adding_a_source_page_example_runs(tmp_path, monkeypatch):
    from curation.sources import SOURCES

    monkeypatch.chdir(tmp_path)
    (block,) = python_blocks(DOCS / "adding-a-source.md")
    try:
        printed = _run(block, "docs/adding-a-source.md", {})
    finally:
        SOURCES.pop("judgeset", None)
    after = (DOCS / "adding-a-source.md").read_text().split("prints the two records", 1)[1]
    shown = after.split("```\n", 2)[1]  # the output block the page shows after the example
    assert printed == shown
