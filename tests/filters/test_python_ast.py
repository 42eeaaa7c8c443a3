"""Every parse of Python source in codemix goes through `filters.tools.python_ast.parse`, whose lock
keeps two threads from sharing CPython 3.11's AST conversion counter (a `SystemError` in verify's
sandbox threads otherwise)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from filters.tools import python_ast

REPO = Path(__file__).resolve().parents[2]


def test_no_module_parses_around_the_lock():
    bare = re.compile(r"(?<![\w.])ast\.parse\(")
    offenders = [
        f"{path.relative_to(REPO)}:{i}"
        for pkg in ("curation", "filters", "mixer")
        for path in sorted((REPO / pkg).rglob("*.py"))
        if path.name != "python_ast.py"
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if bare.search(line)
    ]
    assert offenders == [], offenders


def test_a_parse_waits_for_the_one_in_progress():
    done = threading.Event()
    with python_ast._PARSING:  # another thread's parse in progress
        t = threading.Thread(target=lambda: (python_ast.parse("x = 1"), done.set()))
        t.start()
        assert not done.wait(0.2)
    t.join(5)
    assert done.is_set()
    assert isinstance(python_ast.parse("1 + 2", mode="eval").body, python_ast.ast.BinOp)
