"""Find the program in a model completion: the last fenced Python block, else the whole text if it is code.

Handles ```python / ```py / ```python3 / untagged fences, ~~~ fences, an unterminated last fence (a
truncated generation), several blocks (the last Python one wins: models show examples, then answer),
chat-style completions (lists of messages) and prose without code (None).
"""

from __future__ import annotations

import ast
import re
from typing import Any

from filters.tools import python_ast

__all__ = [
    "extract_code",
    "extract_program",
    "completion_text",
    "looks_like_code",
    "looks_like_cpp",
]

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n`]*$")
_PYTHON_TAGS = {"python", "py", "python3", "py3", "pycon", "python2", "sage", "pypy", "pypy3"}
_CPP_TAGS = {"cpp", "c++", "cc", "cxx", "cpp17", "c++17", "gnu++17", "cpp20", "c++20", "cplusplus"}
#: a fence's tag -> the language the sandbox judges it in
_LANGUAGE_OF_TAG = {**{t: "python" for t in _PYTHON_TAGS}, **{t: "cpp" for t in _CPP_TAGS}}
_CPP_MAIN = re.compile(r"\bint\s+main\s*\(")
_TRIVIAL = (
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.Tuple,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.BoolOp,
)


def completion_text(completion: Any) -> str:
    """The assistant's text: a string as is; a chat completion's (list of messages) assistant contents joined."""
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return completion_text(completion.get("content"))
    if isinstance(completion, (list, tuple)):
        parts = []
        for m in completion:
            if isinstance(m, dict):
                if m.get("role", "assistant") != "assistant":
                    continue
                content = m.get("content")
                if isinstance(content, list):  # content blocks: [{"type": "text", "text": ...}]
                    content = "".join(b.get("text", "") for b in content if isinstance(b, dict))
                parts.append(content or "")
            else:
                parts.append(str(m))
        return "\n".join(parts)
    return str(completion)


def _blocks(text: str) -> list[tuple[str, str]]:
    """(language tag, body) of every fenced block, in order; an unterminated fence runs to the end."""
    out: list[tuple[str, str]] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, tag = m.group(1), m.group(2).lower()
        body: list[str] = []
        i += 1
        while i < len(lines):
            close = _FENCE.match(lines[i])
            if (
                close
                and close.group(1)[0] == fence[0]
                and len(close.group(1)) >= len(fence)
                and not close.group(2)
            ):
                break
            body.append(lines[i])
            i += 1
        out.append((tag, "\n".join(body)))
        i += 1
    return out


def looks_like_code(text: str) -> bool:
    """True when `text` parses as Python and does something (prose like `Yes` parses too, but is no program)."""
    src = text.strip()
    if not src:
        return False
    try:
        tree = python_ast.parse(src)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return any(not (isinstance(s, ast.Expr) and isinstance(s.value, _TRIVIAL)) for s in tree.body)


def extract_code(completion: Any) -> str | None:
    """The program to judge, or None when the completion holds no code.

    The last block tagged as Python wins; without one, the last untagged block that parses as Python;
    without fences, the whole text when it is a program. Blocks in other languages are never taken.
    """
    text = completion_text(completion)
    if not text.strip():
        return None
    blocks = _blocks(text)
    if blocks:
        tagged = [b for t, b in blocks if t in _PYTHON_TAGS and b.strip()]
        if tagged:
            return tagged[-1].strip("\n") + "\n"
        untagged = [b for t, b in blocks if not t and looks_like_code(b)]
        if untagged:
            return untagged[-1].strip("\n") + "\n"
        return None
    return text.strip("\n") + "\n" if looks_like_code(text) else None


def looks_like_cpp(text: str) -> bool:
    """True when `text` reads as a whole C++ program: it defines `int main(`."""
    return bool(_CPP_MAIN.search(text))


def _looks_like(text: str, language: str) -> bool:
    return looks_like_cpp(text) if language == "cpp" else looks_like_code(text)


def extract_program(completion: Any, language: str | None = None) -> tuple[str, str] | None:
    """(the program to judge, its language: "python" or "cpp"), or None without code.

    The fence says the language: the last block tagged in `language` (the one the prompt asked
    for; None: Python) wins, else the last block tagged in any judged language; without one, the
    last untagged block that reads as a program in `language`; without fences, the whole text
    when it is one. Blocks in other languages (```java, ```text) are never taken.
    """
    want = language or "python"
    text = completion_text(completion)
    if not text.strip():
        return None
    blocks = _blocks(text)
    if not blocks:
        return (text.strip("\n") + "\n", want) if _looks_like(text, want) else None
    tagged = [(_LANGUAGE_OF_TAG[t], b) for t, b in blocks if t in _LANGUAGE_OF_TAG and b.strip()]
    for lang, body in reversed(tagged):
        if lang == want:
            return body.strip("\n") + "\n", lang
    if tagged:
        lang, body = tagged[-1]
        return body.strip("\n") + "\n", lang
    untagged = [b for t, b in blocks if not t and _looks_like(b, want)]
    if untagged:
        return untagged[-1].strip("\n") + "\n", want
    return None
