"""A build killed with SIGKILL at any point and resumed gives the same shards and manifest."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from curation.record_files import write_jsonl

LIGHT = ["--skip", "verify", "--skip", "dedup", "--skip", "difficulty"]


def corpus(path: Path, n: int = 60) -> Path:
    write_jsonl(
        [
            {
                "id": f"p{i:03d}",
                "source": "toy" if i % 3 else "other",
                "statement": f"Print {i} times {i}.",
                "test_type": "stdio",
                "tests": [{"input": "", "output": f"{i * i}\n"}],
                "solutions": [f"print({i} * {i})"],
            }
            for i in range(n)
        ]
        + [{"id": "broken", "source": "toy", "statement": "?", "test_type": "stdio", "tests": "nope"}],
        path,
    )
    return path


def command(src: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "curation.cli", "build", "--source", str(src), "--out", str(out),
            "--batch-rows", "2", "--shard-rows", "7", "--log-json", *LIGHT]


def run_and_kill(cmd: list[str], after_events: int) -> bool:
    """Start a build and SIGKILL it after `after_events` progress lines; True if it was killed."""
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    seen = 0
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith("{") and json.loads(line).get("event") == "progress":
            seen += 1
            if seen >= after_events:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                return True
    proc.wait()
    return False


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    d = tmp_path_factory.mktemp("ref")
    src = corpus(d / "toy.jsonl")
    subprocess.run(command(src, d / "out"), check=True, capture_output=True)
    return src, json.loads((d / "out" / "manifest.json").read_text())


@pytest.mark.parametrize("after_events", [1, 17, 44])
def test_sigkill_then_resume_matches_uninterrupted(tmp_path, reference, after_events):
    src, ref_manifest = reference
    out = tmp_path / "out"
    killed = run_and_kill(command(src, out), after_events)
    assert killed, "the build finished before it could be killed; raise the corpus size"
    assert not (out / "manifest.json").exists()
    subprocess.run(command(src, out), check=True, capture_output=True)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["config"]["sources"][0]["path"] = ref_manifest["config"]["sources"][0]["path"]
    assert manifest == ref_manifest
