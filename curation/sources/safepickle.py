"""Decode LiveCodeBench's compressed private tests without running code from the pickle.

`pickle.loads` on downloaded data can run arbitrary code; this unpickler resolves no globals
except `_codecs.encode` (how protocol 2 writes bytes) and accepts only plain data.
"""

from __future__ import annotations

import base64
import binascii
import io
import pickle
import zlib
from typing import Any

__all__ = ["UnsafePickleError", "safe_loads", "decode_lcb_blob"]

_MAX_BYTES = 1 << 30  # decompressed size cap (zip-bomb guard)
_ALLOWED_GLOBALS = {("_codecs", "encode")}


class UnsafePickleError(ValueError):
    """The pickle references code or holds a type other than plain data."""


class _Restricted(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED_GLOBALS:
            import _codecs

            return _codecs.encode
        raise UnsafePickleError(f"pickle references {module}.{name}, which is not allowed")


def _check_plain(obj: Any, depth: int = 0) -> None:
    if depth > 100:
        raise UnsafePickleError("pickle nests too deeply")
    if obj is None or isinstance(obj, (str, bytes, bool, int, float)):
        return
    if isinstance(obj, list):
        for x in obj:
            _check_plain(x, depth + 1)
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            _check_plain(k, depth + 1)
            _check_plain(v, depth + 1)
        return
    raise UnsafePickleError(f"pickle holds a {type(obj).__name__}; only plain data is allowed")


def safe_loads(data: bytes) -> Any:
    """Unpickle `data` admitting only str, bytes, list, dict, numbers and None."""
    try:
        obj = _Restricted(io.BytesIO(data)).load()
    except UnsafePickleError:
        raise
    except Exception as e:  # truncated or corrupt pickles raise many types
        raise UnsafePickleError(f"not a valid pickle: {e}") from None
    _check_plain(obj)
    return obj


def decode_lcb_blob(text: str) -> Any:
    """base64 -> zlib -> restricted pickle; raises UnsafePickleError on anything else."""
    try:
        raw = base64.b64decode(text, validate=False)
        d = zlib.decompressobj()
        data = d.decompress(raw, _MAX_BYTES)
        if d.unconsumed_tail:
            raise UnsafePickleError("decompressed data exceeds 1 GiB")
    except (binascii.Error, zlib.error, ValueError) as e:
        if isinstance(e, UnsafePickleError):
            raise
        raise UnsafePickleError(f"not base64/zlib data: {e}") from None
    return safe_loads(data)
