"""Code-aware tokens and shingles, hashed in bulk with numpy over a batch's UTF-8 bytes.

A token is a run of word characters (ASCII letters, digits, `_`, any non-ASCII byte) or one
punctuation/operator character, so `a[i+1]` and `a[i-1]` differ and digits are kept.
ASCII letters are case folded and U+00A0 counts as a space; other Unicode is compared as is
(no NFKC: it costs more than the whole rest of the tokenizer).
Identifiers that look like code (single letters other than the article "a", snake_case,
camelCase, names with digits or a leading `_`, a name directly followed by `(` or `[`,
followed by `=`, or alone in brackets or as a first argument; and then every occurrence of such a name in the same text) become one
placeholder token, so renaming a variable does not change the shingles; plain
words, numbers, keywords and common builtins stay themselves.
Hashes are stable across runs, machines and batch sizes (no Python `hash`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from filters.settings import DedupConfig

__all__ = [
    "DEFAULT_K",
    "normalize_text",
    "code_tokens",
    "token_hashes",
    "shingle_hashes",
    "code_shingles",
    "text_keys",
    "word_ngrams",
    "analyze",
    "mix64",
]

#: tokens per code-aware shingle: the dedup stage's setting, `filters.settings.DedupConfig.k`
DEFAULT_K: int = DedupConfig().k
_KEEP_WORDS = """and as assert break class continue def del elif else except false finally for
from global if import in is lambda none nonlocal not or pass raise return true try while with
yield self abs all any bin bool chr dict divmod enumerate filter float int input isinstance len
list map max min ord pow print range reversed round set sorted str sum tuple zip optional math
sys os re collections heapq itertools functools bisect string typing solution""".split()
_WS = re.compile(r"\s+")

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_PRIME = np.uint64(0x100000001B3)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_PLACEHOLDER = np.uint64(0x5A17C0DE5A17C0DE)

# Byte classes.
_CLS = np.zeros(256, dtype=np.uint8)  # 0 space, 1 word, 2 punct
_CLS[:] = 2
for _c in b" \t\n\r\x0b\x0c\x00":
    _CLS[_c] = 0
for _c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_":
    _CLS[_c] = 1
_CLS[0x80:] = 1
_LOWER = np.arange(256, dtype=np.uint8)
_LOWER[ord("A") : ord("Z") + 1] += 32
_IS_UPPER = np.zeros(256, dtype=bool)
_IS_UPPER[ord("A") : ord("Z") + 1] = True
_IS_LOWER = np.zeros(256, dtype=bool)
_IS_LOWER[ord("a") : ord("z") + 1] = True
_IS_ALPHA_US = _IS_UPPER | _IS_LOWER
_IS_ALPHA_US[ord("_")] = True
_US_DIGIT = np.zeros(256, dtype=bool)
_US_DIGIT[ord("_")] = True
_US_DIGIT[ord("0") : ord("9") + 1] = True
_OPEN = np.zeros(256, dtype=bool)
_OPEN[ord("(")] = True
_OPEN[ord("[")] = True
_CLOSE_SEP = np.zeros(256, dtype=bool)
_CLOSE_SEP[[ord(")"), ord("]"), ord(",")]] = True


def mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a fast, well-mixed bijection on uint64 arrays."""
    with np.errstate(over="ignore"):
        z = x + _GOLD
        z = (z ^ (z >> _S30)) * _M1
        z = (z ^ (z >> _S27)) * _M2
        return z ^ (z >> _S31)


def normalize_text(text: str | None) -> str:
    """Unicode NFKC, case folded, whitespace collapsed: the key for exact-duplicate hashing."""
    if not text:
        return ""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def _as_array(texts: Sequence[str | None] | pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    if not isinstance(texts, pa.Array):
        texts = pa.array(list(texts), type=pa.string())
    if not (pa.types.is_string(texts.type) or pa.types.is_large_string(texts.type)):
        texts = texts.cast(pa.large_string())  # null-typed (all missing) or string views
    arr = pc.fill_null(texts, "")
    return arr.cast(pa.large_string())


@dataclass
class _Tokens:
    data: np.ndarray  # uint8, the batch's (normalised) bytes
    starts: np.ndarray  # int64 byte offset of each token
    ends: np.ndarray  # int64 exclusive end of each token
    offsets: np.ndarray  # int64 token offsets per text
    hashes: np.ndarray  # uint64 per token (placeholder for code-like identifiers)
    code_like: np.ndarray  # bool per token
    raw: np.ndarray  # uint64 per token, identifiers kept (for exact keys)
    word: np.ndarray  # bool per token: a word or number, not punctuation


# Per-byte flags: 1 underscore or digit, 2 lowercase, 4 uppercase.
_FLAGS = (_US_DIGIT * 1 | _IS_LOWER * 2 | _IS_UPPER * 4).astype(np.uint8)
_CHUNK_BYTES = 1 << 21
# Indexed by 3 * class(byte i) + class(byte i - 1): does byte i start a token; does byte i - 1 end one.
_START_T = np.array([(c == 2) or (c == 1 and p != 1) for c in range(3) for p in range(3)])
_END_T = np.array([(p == 2) or (p == 1 and c != 1) for c in range(3) for p in range(3)])
_SLOT_MASK = np.uint64((1 << 22) - 1)
_BITMAP = np.zeros(1 << 22, dtype=bool)  # scratch, all False between uses
_MASKS = np.array([(1 << (8 * i)) - 1 for i in range(9)], dtype=np.uint64)
_B1 = np.uint64(0x0101010101010101)
_B2 = np.uint64(0x0202020202020202)
_B4 = np.uint64(0x0404040404040404)


def _words_at(buf: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The 8 bytes of `buf` starting at each position, as little-endian uint64 (buf padded)."""
    view = np.ndarray(shape=(len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))
    return view[pos]


def _scan_chunk(
    data: np.ndarray, roff: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tokens of a run of whole texts: starts, ends, per-text counts, hashes, code-like flags,
    hashes before placeholders, and which tokens are words."""
    nb = len(data)
    cls = _CLS[data]
    nbsp = np.flatnonzero(data[:-1] == 0xC2)
    nbsp = nbsp[data[nbsp + 1] == 0xA0]  # U+00A0 is a space
    cls[nbsp] = 0
    cls[nbsp + 1] = 0
    # Token starts and ends from the classes of each pair of adjacent bytes.
    pair = cls[1:] * np.uint8(3)
    pair += cls[:-1]
    start_mask = np.empty(nb, dtype=bool)
    start_mask[0] = cls[0] != 0
    start_mask[1:] = _START_T[pair]
    end_mask = np.empty(nb, dtype=bool)  # byte i is the last byte of a token
    end_mask[-1] = cls[-1] != 0
    end_mask[:-1] = _END_T[pair]
    row_first = roff[:-1][roff[1:] > roff[:-1]]
    start_mask[row_first] = cls[row_first] != 0
    row_last = roff[1:][roff[1:] > roff[:-1]] - 1
    end_mask[row_last] = cls[row_last] != 0
    starts = np.flatnonzero(start_mask)
    ends = np.flatnonzero(end_mask) + 1
    if len(starts) == 0:
        z = np.zeros(0, dtype=np.int64)
        zh = np.zeros(0, np.uint64)
        return z, z, np.zeros(len(roff) - 1, np.int64), zh, np.zeros(0, bool), zh, np.zeros(0, bool)
    counts = np.diff(np.searchsorted(starts, roff))
    lens = ends - starts
    # Each token's bytes, 8 at a time, read as little-endian words: lowercased for the hash,
    # byte flags for the code-likeness tests.
    low = np.zeros(nb + 8, dtype=np.uint8)
    low[:nb] = _LOWER[data]
    fl = np.zeros(nb + 8, dtype=np.uint8)
    fl[:nb] = _FLAGS[data]
    mask = _MASKS[np.minimum(lens, 8)]
    h = _words_at(low, starts) & mask
    agg = _words_at(fl, starts) & mask
    tail = agg & ~np.uint64(0xFF)
    longer = np.flatnonzero(lens > 8)
    off = 8
    with np.errstate(over="ignore"):
        while len(longer):
            rem = lens[longer] - off
            m = _MASKS[np.minimum(rem, 8)]
            h[longer] = h[longer] * _PRIME + (_words_at(low, starts[longer] + off) & m)
            w = _words_at(fl, starts[longer] + off) & m
            agg[longer] |= w
            tail[longer] |= w
            off += 8
            longer = longer[rem > 8]
        h = h * _M1 + lens.astype(np.uint64) * _M2  # equality is all tokens need; shingles mix
    first = data[starts]
    tokflags_usd = (agg & _B1) != 0
    camel = ((tail & _B4) != 0) & ((agg & _B2) != 0)  # myVar, getX: an upper after the start
    after = data[np.minimum(ends, nb - 1)]
    text_end = np.repeat(roff[1:], counts)
    callee = (ends < text_end) & _OPEN[after]
    single = (lens == 1) & (first != ord("a")) & (first != ord("A"))
    assigned = np.zeros(len(starts), dtype=bool)  # followed by "=" (not "==")
    assigned[:-1] = (first[1:] == ord("=")) & (data[np.minimum(starts[1:] + 1, nb - 1)] != ord("="))
    argument = np.zeros(len(starts), dtype=bool)  # f(x), f(x, ...), a[x]
    argument[1:-1] = _OPEN[first[:-2]] & _CLOSE_SEP[first[2:]]
    named = _IS_ALPHA_US[first]
    code_like = named & (tokflags_usd | camel | callee | single | assigned | argument)
    raw = h
    if code_like.any():
        # A name used as code once is code everywhere in its text.
        tok_doc = np.repeat(np.arange(len(counts), dtype=np.uint64), counts)
        with np.errstate(over="ignore"):
            key = h ^ (tok_doc * _GOLD)
        code_keys = np.unique(key[code_like])
        # A bitmap filters the candidates cheaply; survivors are checked exactly.
        slot = (code_keys & _SLOT_MASK).astype(np.intp)
        _BITMAP[slot] = True
        cand = np.flatnonzero(named & ~code_like)
        cand = cand[_BITMAP[(key[cand] & _SLOT_MASK).astype(np.intp)]]
        _BITMAP[slot] = False
        pos = np.minimum(np.searchsorted(code_keys, key[cand]), len(code_keys) - 1)
        code_like[cand[code_keys[pos] == key[cand]]] = True
        idx = np.flatnonzero(code_like)
        keep = np.isin(h[idx], _keep_hashes())
        code_like[idx[keep]] = False
        h = h.copy()
        h[code_like] = _PLACEHOLDER
    return starts, ends, counts, h, code_like, raw, _CLS[first] == 1


def _scan(texts: Sequence[str | None] | pa.Array | pa.ChunkedArray, spans: bool = True) -> _Tokens:
    arr = _as_array(texts)
    n = len(arr)
    bufs = arr.buffers()
    roff = np.frombuffer(bufs[1], dtype=np.int64)[arr.offset : arr.offset + n + 1]
    data = (
        np.frombuffer(bufs[2], dtype=np.uint8)[roff[0] : roff[-1]]
        if bufs[2]
        else np.zeros(0, np.uint8)
    )
    roff = roff - roff[0]
    parts = []
    lo = 0
    while lo < n:
        hi = int(np.searchsorted(roff, roff[lo] + _CHUNK_BYTES, side="right")) - 1
        hi = min(max(hi, lo + 1), n)
        b0, b1 = int(roff[lo]), int(roff[hi])
        if b1 > b0:
            s, e, c, h, cl, raw, w = _scan_chunk(data[b0:b1], roff[lo : hi + 1] - b0)
            if spans:
                parts.append((s + b0, e + b0, c, h, cl, raw, w))
            else:
                parts.append((s[:0], e[:0], c, h, cl, raw, w))
        else:
            z, zh, zb = np.zeros(0, np.int64), np.zeros(0, np.uint64), np.zeros(0, bool)
            parts.append((z, z, np.zeros(hi - lo, np.int64), zh, zb, zh, zb))
        lo = hi
    if not parts:
        z, zh, zb = np.zeros(0, np.int64), np.zeros(0, np.uint64), np.zeros(0, bool)
        return _Tokens(data, z, z, np.zeros(1, np.int64), zh, zb, zh, zb)
    starts, ends, counts, h, cl, raw, w = (np.concatenate(x) for x in zip(*parts))
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return _Tokens(data, starts, ends, offsets, h, cl, raw, w)


_KEEP_HASHES: np.ndarray | None = None


def _keep_hashes() -> np.ndarray:
    """Sorted hashes of the words that never become placeholders."""
    global _KEEP_HASHES
    if _KEEP_HASHES is None:
        data = np.frombuffer(" ".join(_KEEP_WORDS).encode(), dtype=np.uint8)
        _KEEP_HASHES = np.zeros(0, dtype=np.uint64)  # no placeholders while hashing them
        h = _scan_chunk(data, np.array([0, len(data)], dtype=np.int64))[3]
        _KEEP_HASHES = np.sort(h)
    return _KEEP_HASHES


def token_hashes(
    texts: Sequence[str | None] | pa.Array | pa.ChunkedArray,
) -> tuple[np.ndarray, np.ndarray]:
    """Hash the code-aware tokens of many texts at once.

    Returns `(hashes, offsets)`: a flat uint64 array of token hashes and int64 offsets, text `i`
    owning `hashes[offsets[i]:offsets[i+1]]`.
    """
    t = _scan(texts, spans=False)
    return t.hashes, t.offsets


def _sequence_keys(raw: np.ndarray, toff: np.ndarray) -> np.ndarray:
    """One uint64 per text from its token sequence; 0 for a text without tokens."""
    n = len(toff) - 1
    counts = np.diff(toff)
    keys = np.zeros(n, dtype=np.uint64)
    if len(raw) == 0:
        return keys
    local = np.arange(len(raw), dtype=np.int64) - np.repeat(toff[:-1], counts)
    with np.errstate(over="ignore"):
        v = mix64(raw ^ mix64(local.astype(np.uint64)))
    csum = np.zeros(len(v) + 1, dtype=np.uint64)
    np.cumsum(v, out=csum[1:])  # sums per text by differences (wrapping is fine)
    with np.errstate(over="ignore"):
        keys = csum[toff[1:]] - csum[toff[:-1]]
    keys = mix64(keys + counts.astype(np.uint64))
    keys[counts == 0] = 0
    return keys


def text_keys(
    texts: Sequence[str | None] | pa.Array | pa.ChunkedArray,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact-match keys: a hash of each text's token sequence (case and whitespace folded,
    identifiers kept) and its token count. Texts without tokens get key 0."""
    t = _scan(texts, spans=False)
    return _sequence_keys(t.raw, t.offsets), np.diff(t.offsets)


def analyze(
    texts: Sequence[str | None] | pa.Array | pa.ChunkedArray, k: int = DEFAULT_K
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One pass for dedup: `(shingles, offsets, exact_keys)`, as `shingle_hashes` and `text_keys`."""
    t = _scan(texts, spans=False)
    sh, off = _shingle(t.hashes, t.offsets, k, t.raw)
    return sh, off, _sequence_keys(t.raw, t.offsets)


def word_ngrams(
    texts: Sequence[str | None] | pa.Array | pa.ChunkedArray, n: int = 13, spans: bool = False
) -> tuple[np.ndarray, np.ndarray, _Tokens | None]:
    """Hashes of every run of `n` consecutive words (punctuation skipped, case folded, names
    kept), per text; a text with fewer than `n` words gets one n-gram of all of them.
    Returns `(hashes, offsets, tokens)`, `tokens` (for locating spans) only when `spans`."""
    t = _scan(texts, spans=spans)
    w = t.word
    wc = np.bincount(
        np.repeat(np.arange(len(t.offsets) - 1), np.diff(t.offsets))[w],
        minlength=len(t.offsets) - 1,
    )
    woff = np.zeros(len(t.offsets), dtype=np.int64)
    np.cumsum(wc, out=woff[1:])
    raw = t.raw[w]
    sh, off = _shingle(raw, woff, n, raw)
    return sh, off, t if spans else None


def shingle_hashes(
    texts: Sequence[str | None] | pa.Array | pa.ChunkedArray, k: int = DEFAULT_K
) -> tuple[np.ndarray, np.ndarray]:
    """Hashes of every run of `k` consecutive tokens, per text, computed for a whole batch.

    A text with fewer than `k` (but some) tokens gets one shingle of all its tokens, names kept
    as they are, so short texts stay distinct instead of collapsing to the empty set or to
    placeholders. Returns `(hashes, offsets)` like
    `token_hashes`; shingles inside one text may repeat.
    """
    t = _scan(texts, spans=False)
    return _shingle(t.hashes, t.offsets, k, t.raw)


def _shingle(
    h: np.ndarray, toff: np.ndarray, k: int, raw: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    ndoc = len(toff) - 1
    ntok = np.diff(toff)
    m = max(len(h) - k + 1, 0)
    acc = np.zeros(m, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for t in range(k):
            acc = (acc ^ h[t : t + m]) * _M1 + np.uint64(t + 1)
    # Window j is valid when it ends inside the text it starts in.
    nwin = np.maximum(ntok - k + 1, 0)
    valid = np.ones(len(h), dtype=bool)
    for t in range(1, k):
        pos = toff[1:] - t
        valid[pos[pos >= toff[:-1]]] = False
    full = acc[valid[:m]]
    short = np.flatnonzero((ntok > 0) & (ntok < k))
    if len(short):
        sacc = np.zeros(len(short), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for t in range(k):
                idx = toff[short] + t
                part = np.where(t < ntok[short], raw[np.minimum(idx, len(raw) - 1)], np.uint64(0))
                sacc = (sacc ^ part) * _M1 + np.uint64(t + 1)
        counts = nwin.copy()
        counts[short] = 1
        out = np.empty(int(counts.sum()), dtype=np.uint64)
        offsets = np.zeros(ndoc + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        is_short = np.zeros(ndoc, dtype=bool)
        is_short[short] = True
        long_mask = np.repeat(~is_short, counts)
        out[long_mask] = full
        out[offsets[short]] = sacc
    else:
        out = full
        offsets = np.zeros(ndoc + 1, dtype=np.int64)
        np.cumsum(nwin, out=offsets[1:])
    return mix64(out), offsets


def code_shingles(text: str | None, k: int = DEFAULT_K) -> np.ndarray:
    """Sorted unique uint64 shingle hashes of one text (empty for an empty text)."""
    sh, _ = shingle_hashes([text or ""], k)
    return np.unique(sh)


def code_tokens(text: str | None) -> list[str]:
    """The tokens of one text as strings, code-like identifiers shown as `<id>`: for reading and tests."""
    t = _scan([text or ""])
    out = []
    for s, e, c in zip(t.starts, t.ends, t.code_like):
        out.append("<id>" if c else bytes(_LOWER[t.data[s:e]]).decode("utf-8", "replace"))
    return out
