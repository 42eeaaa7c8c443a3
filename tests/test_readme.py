"""Every command in the README's tour runs (typer's habit: test each documented example)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from curation.cli import app
from tests.conftest import SHARED_DATA

README = Path(__file__).resolve().parents[1] / "README.md"
runner = CliRunner()


def tour() -> list[tuple[str, str]]:
    """(command, tag) for each `codemix` line of the tour block; tag is '', 'shared' or 'hub'."""
    text = README.read_text()
    block = text[text.index("## A tour of the commands"):]
    block = block[block.index("```bash") + 7: block.index("```", block.index("```bash") + 7)]
    lines = []
    for line in block.strip().splitlines():
        cmd, _, comment = line.partition("#")
        tag = comment.strip() if comment.strip() in ("shared", "hub") else ""
        lines.append((cmd.strip(), tag))
    return lines


def test_the_tour_is_found():
    cmds = tour()
    assert len(cmds) >= 10 and all(c.startswith("codemix ") for c, _ in cmds)


def test_the_tour_runs_in_order(tmp_path, monkeypatch):
    monkeypatch.chdir(README.parent)
    for cmd, tag in tour():
        if tag == "hub":
            continue  # no hub here; the loader's offline behaviour is tested in test_sources_registry
        if tag == "shared" and not SHARED_DATA.is_dir():
            continue
        args = [re.sub(r"^out/", f"{tmp_path}/out/", a) for a in shlex.split(cmd)[1:]]
        r = runner.invoke(app, args)
        assert r.exit_code == 0, f"{cmd}\n{r.output}"
