"""B3's frozen inputs: what every full-mode run starts from, stored in the repository, refused when
changed, and never mixed with runs made on other inputs in one summary."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from code_rl.frozen import fingerprint, freeze, load_frozen  # noqa: E402
from code_rl.report import summarize  # noqa: E402


def _inputs(tmp: Path) -> tuple[dict, dict]:
    trl, ckpt = tmp / "cache" / "trl", tmp / "cache" / "model-small" / "step-900"
    (trl / "train").mkdir(parents=True)
    (trl / "train" / "data-00000-of-00001.arrow").write_bytes(b"rows" * 100)
    (trl / "dataset_dict.json").write_text('{"splits": ["train"]}')
    ckpt.mkdir(parents=True)
    (ckpt / "model.safetensors").write_bytes(bytes(range(256)))
    data = {
        "trl": str(trl),
        "times": {"build_s": 1.0},
        "manifest": {"counts": {"output": {"a": 1}}},
    }
    model = {
        "size": "small",
        "checkpoint": str(ckpt),
        "chosen_step": 900,
        "chosen": {"pass1": 0.3},
        "model": {"parameters": 1},
        "wall_s": 2.0,
        "in_band": True,
        "evals": [],
        "loss": [1.0, 0.5],
    }
    return data, model


def test_freeze_round_trip_and_refuses_changed_files(tmp_path: Path) -> None:
    data, model = _inputs(tmp_path)
    dest = tmp_path / "frozen" / "small"
    assert load_frozen(dest) is None
    got = freeze(dest, data, model, {"models": [450]})
    again = load_frozen(dest)
    assert again == got and got["fingerprint"] == fingerprint(dest)
    assert Path(got["model"]["checkpoint"]) == dest / "checkpoint"
    assert (dest / "checkpoint" / "model.safetensors").read_bytes() == bytes(range(256))
    assert got["data"]["manifest"]["counts"]["output"] == {"a": 1}
    assert "loss" not in got["model"]  # the record stays small
    (dest / "checkpoint" / "model.safetensors").write_bytes(b"other weights")
    with pytest.raises(RuntimeError, match="frozen inputs were changed"):
        load_frozen(dest)


def test_summary_leaves_out_runs_on_other_inputs(tmp_path: Path) -> None:
    attempt1 = ROOT / "benchmarks" / "code_rl" / "results" / "full-small-30x8x8-lean"
    for arm, inputs in (("uniform", "aaa"), ("mopps", "bbb")):  # real run files, relabelled
        r = json.loads((attempt1 / arm / "seed0.json").read_text())
        f = tmp_path / "res" / arm / "seed0.json"
        f.parent.mkdir(parents=True)
        f.write_text(json.dumps({**r, "inputs": inputs}))
    data, model = _inputs(tmp_path)
    s = summarize(tmp_path / "res", model, data, {}, inputs="aaa")
    assert s["inputs"] == "aaa" and set(s["arms"]) == {"uniform"}  # mopps ran on other inputs
    both = summarize(tmp_path / "res", model, data, {})
    assert set(both["arms"]) == {"uniform", "mopps"}
