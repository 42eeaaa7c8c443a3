"""Exact, typed plain data across the sandbox boundary (stdlib only: the worker loads this file too).

JSON alone loses Python types that an `assert` can tell apart: a tuple becomes a list, a set
cannot be written, an int dict key becomes a string. Here every value is written as JSON with a
one-key tag for the types JSON lacks:

    None, bool, int (<= 256 bits), finite float, str, list   -> themselves
    tuple {"t": [...]}   set {"s": [...]}   frozenset {"f": [...]}   dict {"d": [[k, v], ...]}
    big int {"x": "<hex>"}   nan/inf {"F": "nan" | "inf" | "-inf"}   complex {"c": [re, im]}
    bytes {"b": "<hex>"}   bytearray {"y": "<hex>"}

`encode` accepts only those types. An instance of a subclass (a namedtuple, a Counter, an
IntEnum, numpy.float64) is written as its builtin base value, read through the base type's own
methods, so an overridden `__eq__`, `__iter__`, `__repr__` or `items` plays no part; a numpy
scalar (numpy.int64) as its Python value. Anything else (a generator, a numpy array, an instance
of the program's own class) is refused. `decode`
accepts only well-formed tagged JSON and builds exact builtin objects. A program can still write
anything it likes to its result channel: safety comes from the parent comparing plain values it
decoded itself against expected values the program never saw, not from the encoder.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_DEPTH", "encode", "decode", "dumps", "loads", "Unencodable", "distinct_hashes"]

MAX_DEPTH = 200
_SMALL_INT_BITS = 256


def distinct_hashes(items: list) -> list:
    """`items`, after checking that no hash is shared by more than 8 different values.

    Building a set of n different values with one hash (ints that are multiples of 2**61 - 1, say)
    takes n**2 steps: a program could stall the judge with one 32 MB result. Real data has
    (nearly) distinct hashes for different values (equal values are fine); ValueError otherwise,
    TypeError if a value is unhashable.
    """
    if len(items) > 8:
        buckets: dict[int, list] = {}
        for x in items:
            same = buckets.setdefault(hash(x), [])
            if x not in same:
                same.append(x)
                if len(same) > 8:
                    raise ValueError("too many different values with one hash")
    return items


class Unencodable(TypeError):
    """A value that is not plain data (or nests deeper than MAX_DEPTH)."""


def _encode_float(v: float):
    if math.isfinite(v):
        return v
    return {"F": "nan" if v != v else ("inf" if v > 0 else "-inf")}


def encode(value, depth: int = 0):
    """A JSON-ready form of `value` that `decode` turns back into an equal, exactly typed value."""
    if depth > MAX_DEPTH:
        raise Unencodable(f"nested deeper than {MAX_DEPTH}")
    t = type(value)
    d = depth + 1
    if value is None or t is bool or t is str:
        return value
    if t is int:
        return value if value.bit_length() <= _SMALL_INT_BITS else {"x": format(value, "x")}
    if t is float:
        return _encode_float(value)
    if t is list:
        return [encode(x, d) for x in list.__iter__(value)]
    if t is tuple:
        return {"t": [encode(x, d) for x in tuple.__iter__(value)]}
    if t is dict:
        return {"d": [[encode(k, d), encode(v, d)] for k, v in dict.items(value)]}
    if t is set:
        return {"s": [encode(x, d) for x in set.__iter__(value)]}
    if t is frozenset:
        return {"f": [encode(x, d) for x in frozenset.__iter__(value)]}
    if t is complex:
        return {"c": [_encode_float(value.real), _encode_float(value.imag)]}
    if t is bytes:
        return {"b": bytes.hex(value)}
    if t is bytearray:
        return {"y": bytearray.hex(value)}
    # Subclasses: the builtin base value, read through the base type's own methods.
    for base, read in _BASES:
        if isinstance(value, base):
            return encode(read(value), depth)
    # A numpy scalar (numpy.int64 from np.sum) compares like its Python value in an assert.
    if t.__module__ == "numpy" and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        item = value.item()
        if type(item) in (bool, int, float, complex, str, bytes):
            return encode(item, depth)
    raise Unencodable(f"{t.__name__} is not plain data")


#: builtin base type -> how to read a subclass instance's base value through the base's own methods
_BASES: tuple[tuple[type, Callable[[Any], Any]], ...] = (
    (int, int.__int__),
    (float, float.__float__),
    (str, str.__str__),
    (bytes, lambda v: bytes(memoryview(v))),
    (bytearray, lambda v: bytearray(memoryview(v))),
    (list, lambda v: list(list.__iter__(v))),
    (tuple, lambda v: tuple(tuple.__iter__(v))),
    (dict, lambda v: dict(dict.items(v))),
    (frozenset, lambda v: frozenset(frozenset.__iter__(v))),
    (set, lambda v: set(set.__iter__(v))),
    (complex, lambda v: complex(complex.real.__get__(v), complex.imag.__get__(v))),
)


def _decode_float(obj) -> float:
    if type(obj) is float or type(obj) is int:
        return float(obj)
    if type(obj) is dict and len(obj) == 1 and obj.get("F") in ("nan", "inf", "-inf"):
        return float(obj["F"])
    raise ValueError("bad float")


def _items(body, depth: int) -> list:
    if type(body) is not list:
        raise ValueError("a tagged container must hold a list")
    return [decode(x, depth) for x in body]


def decode(obj, depth: int = 0):
    """The exactly typed value of `encode`'s output; ValueError for anything malformed."""
    if depth > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH}")
    t = type(obj)
    d = depth + 1
    if obj is None or t is bool or t is int or t is str:
        return obj
    if t is float:
        if not math.isfinite(obj):
            raise ValueError("non-finite float must be tagged")
        return obj
    if t is list:
        return [decode(x, d) for x in obj]
    if t is not dict or len(obj) != 1:
        raise ValueError("an object must have exactly one tag")
    ((tag, body),) = obj.items()
    try:
        if tag == "t":
            return tuple(_items(body, d))
        if tag == "s":
            return set(distinct_hashes(_items(body, d)))
        if tag == "f":
            return frozenset(distinct_hashes(_items(body, d)))
        if tag == "d":
            if type(body) is not list:
                raise ValueError("bad dict")
            pairs = []
            for pair in body:
                if type(pair) is not list or len(pair) != 2:
                    raise ValueError("bad dict item")
                pairs.append((decode(pair[0], d), decode(pair[1], d)))
            distinct_hashes([k for k, _ in pairs])
            return dict(pairs)
        if tag == "x" and type(body) is str:
            return int(body, 16)
        if tag == "F":
            return _decode_float(obj)
        if tag == "c" and type(body) is list and len(body) == 2:
            return complex(_decode_float(body[0]), _decode_float(body[1]))
        if tag == "b" and type(body) is str:
            return bytes.fromhex(body)
        if tag == "y" and type(body) is str:
            return bytearray.fromhex(body)
    except TypeError as e:  # an unhashable set member or dict key
        raise ValueError(str(e)) from None
    raise ValueError(f"unknown tag {tag!r}")


def dumps(value) -> str:
    """`encode` as JSON text."""
    return json.dumps(encode(value), allow_nan=False, separators=(",", ":"))


def loads(text: str):
    """`decode` of JSON text; ValueError for anything malformed (also too deep or too big)."""
    try:
        return decode(json.loads(text))
    except RecursionError:
        raise ValueError("nested too deep") from None
