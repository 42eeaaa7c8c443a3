"""`codemix plot-mix LOG` draws a PNG from a mixer's history."""

from __future__ import annotations

from typer.testing import CliRunner

from curation.cli import app
from mixer import ACODM
from mixer.history import load_history
from tests.mixer.streams import run_stream


def test_plot_mix_writes_a_png(tmp_path) -> None:
    m = ACODM(5, seed=0, warmup=5, names=["taco", "lcb", "mbpp", "apps", "cc"])
    run_stream(m, "adv_abs", 1, steps=30)
    log = m.save_history(tmp_path / "mix.jsonl")
    names, recs = load_history(log)
    assert names[0] == "taco" and len(recs) == 30
    res = CliRunner().invoke(app, ["plot-mix", str(log), "--out", str(tmp_path / "w.png")])
    assert res.exit_code == 0, res.output
    png = (tmp_path / "w.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_plot_mix_missing_file_is_a_user_error(tmp_path) -> None:
    res = CliRunner().invoke(app, ["plot-mix", str(tmp_path / "nope.jsonl")])
    assert res.exit_code != 0
