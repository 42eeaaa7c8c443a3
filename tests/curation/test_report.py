"""The build report: every plot whose data exists is written, and the page renders in a browser."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from curation.cli import app
from curation.record_files import write_jsonl
from tests.conftest import wait_s

runner = CliRunner()


def _toy_build(tmp_path: Path) -> Path:
    rows = [
        {
            "id": f"t{i}",
            "source": "toy" if i % 2 else "other",
            "statement": f"Print {i}.",
            "test_type": "stdio",
            "tests": [{"input": "", "output": f"{i}\n"}],
            "solutions": [f"print({i})"],
        }
        for i in range(8)
    ] + [{"id": "x", "source": "toy", "statement": "bad", "test_type": "nope"}]
    write_jsonl(rows, tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    r = runner.invoke(
        app,
        [
            "build",
            "--source",
            str(tmp_path / "toy.jsonl"),
            "--out",
            str(out),
            "--skip",
            "verify",
            "--skip",
            "dedup",
            "--skip",
            "difficulty",
        ],
    )
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
    cmd = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1200,2400",
        "--virtual-time-budget=3000",
    ]
    dom = subprocess.run(
        [*cmd, "--dump-dom", (out / "report" / "index.html").as_uri()],
        capture_output=True,
        text=True,
        timeout=wait_s(120),
    )
    assert "codemix build report" in dom.stdout
    n_images = len(re.findall(r"<img ", (out / "report" / "index.html").read_text()))
    # the page's own load handler counts images that failed to decode
    assert f'data-images="{n_images}"' in dom.stdout and 'data-broken-images="0"' in dom.stdout
    subprocess.run(
        [*cmd, f"--screenshot={shot}", (out / "report" / "index.html").as_uri()],
        capture_output=True,
        timeout=wait_s(120),
    )
    assert shot.exists() and shot.stat().st_size > 10_000


def _axes_of(monkeypatch, out: Path) -> dict[str, object]:
    """Rewrite the report, keeping each plot's figure (file name -> figure) instead of closing it."""
    import curation.report as report

    figures: dict[str, object] = {}

    def keep(plt, fig, path: Path) -> None:
        fig.tight_layout()
        fig.canvas.draw()
        figures[path.name] = fig

    monkeypatch.setattr(report, "_save", keep)
    report.write_report(out)
    return figures


def _visible_ticks(axis) -> list[float]:
    lo, hi = sorted(axis.get_view_interval())
    return [t for t in axis.get_majorticklocs() if lo <= t <= hi]


def test_integer_quantities_on_integer_axes(tmp_path, monkeypatch):
    rows = [
        {"id": f"t{i}", "source": "toy" if i % 2 else "other", "statement": f"Print the number {i} and stop.",
         "test_type": "stdio", "tests": [{"input": "", "output": f"{i}\n"}] * (1 + i % 3), "solutions": [f"print({i})"]}
        for i in range(6)
    ] + [{"id": "x", "source": "toy", "statement": "bad", "test_type": "nope"}]  # fmt: skip
    write_jsonl(rows, tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    r = runner.invoke(app, ["build", "--source", str(tmp_path / "toy.jsonl"), "--out", str(out), "--min-tests", "1",
                            "--workers", "2", "--skip", "difficulty"])  # fmt: skip
    assert r.exit_code == 0, r.output
    figs = _axes_of(monkeypatch, out)
    for name, axis in (
        ("tests.png", "xaxis"),
        ("tests.png", "yaxis"),
        ("funnel.png", "yaxis"),
        ("reasons.png", "xaxis"),
    ):
        ticks = _visible_ticks(getattr(figs[name].axes[0], axis))
        assert ticks and all(float(t).is_integer() for t in ticks), (name, axis, ticks)


def test_the_funnel_legend_never_covers_bars(tmp_path, monkeypatch):
    """Worst case: every stage keeps every row, so bars fill the plot and no corner is free."""
    import curation.report as report

    figures = {}

    def keep(plt, fig, path: Path) -> None:
        fig.tight_layout()
        fig.canvas.draw()
        figures[path.name] = fig

    monkeypatch.setattr(report, "_save", keep)
    sizes = {"codecontests-subset": 300, "leetcodedataset": 1890, "mbpp": 974, "humaneval": 164}
    stages = [{"stage": s, "kept": dict(sizes), "dropped": {}, "reasons": {}}
              for s in ("schema", "exact_id", "decontam", "verify", "dedup", "difficulty")]  # fmt: skip
    manifest = {"counts": {"input": dict(sizes), "output": dict(sizes), "stages": stages}}
    assert report.PLOTS["funnel.png"][1](tmp_path, manifest, tmp_path / "funnel.png")
    fig = figures["funnel.png"]
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    assert len(ax.patches) == 4 * 7
    assert not any(legend.overlaps(bar.get_window_extent(renderer)) for bar in ax.patches)
    assert legend.x1 <= fig.bbox.x1  # and it is on the figure, not cut off


def test_reasons_have_a_source_column_and_stages_agree_with_the_funnel(tmp_path):
    import json

    out = _toy_build(tmp_path)
    page = (out / "report" / "index.html").read_text()
    assert "<th>stage</th><th>reason</th><th>source</th><th>rows</th>" in page
    assert "<tr><td>schema</td><td>malformed</td><td>toy</td><td>1</td>" in page
    m = json.loads((out / "manifest.json").read_text())
    funnel = [s["stage"] for s in m["counts"]["stages"]]
    assert funnel == ["schema", *m["config"]["stages"]] == ["schema", "exact_id", "decontam"]
    assert "Stages run: schema, exact_id, decontam" in page


def test_the_difficulty_view_says_when_a_bucket_is_one_tied_value(tmp_path):
    """Labels tie many problems: equal-count buckets then split one value across buckets."""
    from curation.report import difficulty_buckets

    rows = [
        {"id": f"t{i}", "source": "toy", "statement": f"Print the number {i} on one line, then stop.",
         "test_type": "stdio", "tests": [{"input": "", "output": f"{i}\n"}] * 5, "solutions": [f"print({i})"],
         "difficulty_label": "easy" if i < 6 else "hard"}
        for i in range(8)
    ]  # fmt: skip
    write_jsonl(rows, tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    r = runner.invoke(app, ["build", "--source", str(tmp_path / "toy.jsonl"), "--out", str(out), "--buckets", "4",
                            "--skip", "verify", "--skip", "dedup"])  # fmt: skip
    assert r.exit_code == 0, r.output
    buckets = difficulty_buckets(out)
    assert [b["problems"] for b in buckets] == [2, 2, 2, 2]
    assert buckets[0]["note"] == "one tied value (0.074); shares values with buckets 1, 2"
    assert buckets[3]["distinct"] == 1 and "shares" not in buckets[3]["note"]
    page = (out / "report" / "index.html").read_text()
    assert "one tied value (0.074)" in page and "equal-count quantiles" in page
    r = runner.invoke(app, ["info", str(out)])
    assert "one tied value (0.074); shares values with buckets 1, 2" in r.output


@pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")
def test_the_report_counts_kept_problems_per_judge(tmp_path):
    """Issue 54: verify's `checker_kind` (and a standard checker's name) counted in the report."""
    from curation.report import checker_counts

    tests = [{"input": f"{i}\n", "output": f"{2 * i}\n"} for i in range(1, 6)]
    rows = [
        {"id": f"t{i}", "source": "toy", "statement": f"Print twice the number, problem {i}.",
         "test_type": "stdio", "tests": tests, "solutions": ["print(2 * int(input()))"],
         "incorrect_solutions": ["print(int(input()))"], "checker": checker}
        for i, checker in enumerate([None, "wcmp", "ncmp"])
    ]  # fmt: skip
    write_jsonl(rows, tmp_path / "toy.jsonl")
    out = tmp_path / "out"
    r = runner.invoke(app, ["build", "--source", str(tmp_path / "toy.jsonl"), "--out", str(out),
                            "--skip", "amplify", "--skip", "dedup", "--skip", "difficulty",
                            "--mutants", "0", "--workers", "2"])  # fmt: skip
    assert r.exit_code == 0, r.output
    assert checker_counts(out) == {"none": 1, "standard": 2, "standard:ncmp": 1, "standard:wcmp": 1}
    page = (out / "report" / "index.html").read_text()
    assert "<h2>Judges of kept problems</h2>" in page and "<td>standard:wcmp</td><td>1</td>" in page
