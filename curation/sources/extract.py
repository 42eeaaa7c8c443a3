"""Pull Python code out of model-style answers: fenced blocks, possibly with prose around them."""

from __future__ import annotations

import re

from filters.tools import python_ast

__all__ = ["extract_code"]

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)(?:\n[ \t]*```|\Z)", re.DOTALL)
_PY_TAGS = {"python", "python3", "py", "py3", "python2"}


def _parses(code: str) -> bool:
    try:
        python_ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def extract_code(text: str | None, language: str = "python") -> str | None:
    """The code of `text`: the longest fenced block tagged with `language`, else the longest untagged one.

    Without any fence, the text itself when it parses as Python (for `language="python"`).
    None when no code is found (prose only, or a block in another language).
    """
    tags = _PY_TAGS if language == "python" else {language.lower()}
    if not text or not text.strip():
        return None
    blocks = [(tag.lower(), body) for tag, body in _FENCE.findall(text)]
    if blocks:
        tagged = [b for t, b in blocks if t in tags]
        untagged = [b for t, b in blocks if not t]
        pool = tagged or untagged
        if not pool:
            return None
        code = max(pool, key=len).strip("\n")
        return code + "\n" if code.strip() else None
    return text if language == "python" and _parses(text) else None
