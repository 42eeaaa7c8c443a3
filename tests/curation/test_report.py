"""The build report: every plot whose data exists is written, and the page renders in a browser."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.schema import write_jsonl

runner = CliRunner()


def _toy_build(tmp_path: Path) -> Path:
    rows = [
        {"id": f"t{i}", "source": "toy" if i % 2 else "other", "statement": f"Print {i}.", "test_type": "stdio",
         "tests": [{"input": "", "output": f"{i}\n"}], "solutions": [f"print({i})"]}
        for i in range(8)
    ] + [{"id": "x", "source": "toy", "statement": "bad", "test_type": "nope"}]
    write_jsonl(rows, tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    r = runner.invoke(app, ["build", "--source", str(tmp_path / "toy.jsonl"), "--out", str(out),
                            "--skip", "verify", "--skip", "dedup", "--skip", "difficulty"])
    assert r.exit_code == 0, r.output
    return out


def test_report_links_only_existing_plots(tmp_path):
    out = _toy_build(tmp_path)
    page = (out / "report" / "index.html").read_text()
    images = re.findall(r'<img src="([^"]+)"', page)
    assert "funnel.png" in images and "reasons.png" in images
    for name in images:
        assert (out / "report" / name).stat().st_size > 1000
    assert "malformed" in page and "<b>8</b>" in page


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no headless Chromium on this machine")


def test_report_renders_in_headless_chromium(tmp_path):
    browser = chromium()
    out = _toy_build(tmp_path)
    shot = tmp_path / "report.png"
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1200,2400", "--virtual-time-budget=3000"]
    dom = subprocess.run([*cmd, "--dump-dom", (out / "report" / "index.html").as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert "codemix build report" in dom.stdout
    n_images = len(re.findall(r"<img ", (out / "report" / "index.html").read_text()))
    # the page's own load handler counts images that failed to decode
    assert f'data-images="{n_images}"' in dom.stdout and 'data-broken-images="0"' in dom.stdout
    subprocess.run([*cmd, f"--screenshot={shot}", (out / "report" / "index.html").as_uri()],
                   capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 10_000
