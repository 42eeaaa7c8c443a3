"""Stream the elements of a JSON array file (TACO-verified's 2 GB `taco_verified.json`).

`json.load` would hold the whole file and every decoded row at once. This reads the text in
chunks and decodes one element at a time, so memory stays at about one row plus one chunk. A
syntax error ends the file with one RecordError saying where (the rest cannot be resynchronised).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TextIO

from curation.schema import RecordError, big_ints

__all__ = ["iter_json_array", "CHUNK_CHARS"]

CHUNK_CHARS = 1 << 20
_WS = " \t\n\r"
_NUMBER_CHARS = set("0123456789.eE+-")


class _Buffer:
    """Text read so far from `stream`, minus what was consumed (`base` counts dropped chars)."""

    def __init__(self, stream: TextIO, chunk: int):
        self.stream, self.chunk = stream, chunk
        self.text, self.pos, self.base, self.eof = "", 0, 0, False

    def more(self, at_least: int = 0) -> bool:
        """Read another chunk (at least `at_least` chars if the file has them); False at EOF."""
        if self.eof:
            return False
        if self.pos > self.chunk:  # drop the consumed prefix now and then
            self.base += self.pos
            self.text, self.pos = self.text[self.pos :], 0
        want = max(self.chunk, at_least)
        got = self.stream.read(want)
        if not got:
            self.eof = True
            return False
        self.text += got
        return True

    def skip_ws(self) -> str:
        """The next non-whitespace character ('' at EOF), not consumed."""
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in _WS:
                self.pos += 1
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ""


def _incomplete(e: json.JSONDecodeError, buf: _Buffer) -> bool:
    """Whether the error may only mean the element runs past the text read so far."""
    return e.msg.startswith("Unterminated string") or e.pos >= len(buf.text) - 6


def _may_go_on(value: Any, text: str, end: int) -> bool:
    """Whether a decoded number may continue in text not read yet ("3" of "3.25")."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    return all(ch in _NUMBER_CHARS for ch in text[end : end + 64])


def iter_json_array(stream: TextIO, name: str, chunk: int = CHUNK_CHARS) -> Iterator[Any]:
    """The elements of the JSON array in `stream`, one at a time; a RecordError ends a broken file."""
    decoder = json.JSONDecoder()
    buf = _Buffer(stream, chunk)

    def broken(what: str, at: int | None = None) -> RecordError:
        where = buf.base + (buf.pos if at is None else at)
        return RecordError(
            "json",
            f"{name}: {what} at character {where}; the rest of the file is skipped",
            where={"file": name, "character": where},
        )

    c = buf.skip_ws()
    if c == "\ufeff":  # a byte-order mark
        buf.pos += 1
        c = buf.skip_ws()
    if c != "[":
        yield broken("not a JSON array (expected '[')")
        return
    buf.pos += 1
    if buf.skip_ws() == "]":
        return
    while True:
        while True:  # decode one element, reading more text while it may be cut off
            try:
                with big_ints():
                    value, end = decoder.raw_decode(buf.text, buf.pos)
            except json.JSONDecodeError as e:
                if _incomplete(e, buf) and buf.more(len(buf.text) - buf.pos):
                    continue
                yield broken(f"invalid JSON ({e.msg})", e.pos)
                return
            except ValueError as e:  # an integer past BIG_INT_DIGITS
                yield broken(str(e))
                return
            if _may_go_on(value, buf.text, end) and buf.more():
                continue
            break
        buf.pos = end
        yield value
        c = buf.skip_ws()
        if c == ",":
            buf.pos += 1
            buf.skip_ws()
            continue
        if c == "]":
            buf.pos += 1
            if buf.skip_ws():
                yield broken("text after the closing ']'")
            return
        yield broken("expected ',' or ']' after an element" if c else "the array is not closed")
        return
