"""The Python examples in docs/sandbox.md run as written."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_sandbox_page_example_runs():
    (block,) = python_blocks(DOCS / "sandbox.md")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "docs/sandbox.md", "exec"), {})
    assert out.getvalue().splitlines()[0] == "AC None"


def test_verify_page_example_runs():
    (block,) = python_blocks(DOCS / "verify.md")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "docs/verify.md", "exec"), {})
    assert out.getvalue().splitlines() == ["amplified True strict"]
