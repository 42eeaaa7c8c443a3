"""benchmarks/README.md is the index: it names every script of the folders it describes, each
once, and every folder of benchmarks/; nothing it names is missing."""

from __future__ import annotations

import re
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
FOLDERS = ("curating", "judging", "mixing", "mixing/archive", "house")
INDEX = (BENCH / "README.md").read_text()


def test_every_script_is_in_the_index_and_every_row_is_a_script() -> None:
    scripts = sorted(p.name for f in FOLDERS for p in (BENCH / f).glob("*.py"))
    assert scripts, "no scripts found: the folders moved?"
    missing = [s for s in scripts if f"`{s}`" not in INDEX]
    assert missing == []
    rows = re.findall(r"^\| `(\w+\.py)`", INDEX, flags=re.M)
    assert len(rows) == len(set(rows)), "a script has two rows"
    assert [r for r in rows if r not in scripts and not (BENCH / "code_rl" / r).exists()] == []


def test_every_folder_of_benchmarks_is_described() -> None:
    entries = sorted(p.name for p in BENCH.iterdir() if not p.name.startswith((".", "__")))
    described = {"README.md", "RESULTS.md", "pages", "results"}
    assert [e for e in entries if e not in described and f"[{e}/]({e}/)" not in INDEX] == []
