"""B1's text domains, found on any Linux machine with Python, split train/validation by a hash of each document.

B1 trains a code model, so its domains are of three kinds of value, as in a web-scale mixture:
  - useful, the target (`TARGET`): source code, `python`, `c_headers`, `perl`, `shell`; B1's
    metric is their mean validation loss;
  - auxiliary (`AUXILIARY`): text that may transfer to code but is not what the model is for:
    `man`, `info` (documentation), `prose` (licences and copyright notices), `config` (/etc),
    `locales` (glibc locale sources), `problems` (coding-problem statements from ../shared/data);
  - low value (`LOW_VALUE`): `base64` and `hex` (binary executables encoded as text, as blobs
    embedded in web pages: nothing a language model can carry to code) and `repeated` (one
    small text repeated a thousand times: learnt in a few passes, then worth nothing).
A domain with no documents on this machine is skipped.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import json
import sys
import sysconfig
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

__all__ = ["DOMAINS", "TARGET", "AUXILIARY", "LOW_VALUE", "Domain", "collect_domains"]

SHARED_DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data"
_STDLIB = Path(sysconfig.get_paths()["stdlib"])
# the repeated domain's text: the interpreter's licence (English, not code), or a common one
REPEATED_FILES = (
    _STDLIB / "LICENSE.txt",
    Path("/usr/share/common-licenses/Apache-2.0"),
    Path("/usr/share/common-licenses/GPL-3"),
)
REPEATED_BYTES = 6_000
REPEATED_COPIES = 1_000
BLOB_BYTES = 32_768  # the first 32 KB of a binary make one base64 / hex document
_BIN_DIRS = ("/usr/bin", "/usr/sbin", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu")


def _h(key: str) -> int:
    return int.from_bytes(hashlib.sha1(key.encode()).digest()[:8], "big")


def _head(path: Path, n: int) -> bytes:
    try:
        with path.open("rb") as f:
            return f.read(n)
    except OSError:
        return b""


def _python() -> Iterator[Path]:
    for p in _STDLIB.rglob("*.py"):
        if "site-packages" not in p.parts and "dist-packages" not in p.parts:
            yield p


def _c_headers() -> Iterator[Path]:
    yield from Path("/usr/include").rglob("*.h")


def _man() -> Iterator[Path]:
    for sec in sorted(Path("/usr/share/man").glob("man[1-8]")):
        yield from sec.glob("*.gz")


def _info() -> Iterator[Path]:
    yield from Path("/usr/share/info").glob("*.gz")


def _prose() -> Iterator[Path]:
    lic = Path("/usr/share/common-licenses")
    if lic.is_dir():
        yield from (p for p in lic.iterdir() if p.is_file())
    yield from Path("/usr/share/doc").glob("*/copyright")


def _perl() -> Iterator[Path]:
    for root in ("/usr/share/perl", "/usr/share/perl5", "/usr/lib/x86_64-linux-gnu/perl-base"):
        yield from Path(root).rglob("*.pm")


def _is_script(path: Path) -> bool:
    head = _head(path, 64)
    return head.startswith(b"#!") and b"sh" in head.split(b"\n", 1)[0]


def _shell() -> Iterator[Path]:
    for d in ("/usr/bin", "/usr/sbin", "/etc"):
        root = Path(d)
        files = root.rglob("*") if d == "/etc" else root.glob("*")
        for p in files:
            if p.is_file() and not p.is_symlink() and _is_script(p):
                yield p


def _config() -> Iterator[Path]:
    for p in Path("/etc").rglob("*"):
        if not p.is_file() or p.is_symlink() or _is_script(p):
            continue
        head = _head(p, 4096)
        if head and b"\0" not in head:
            try:
                head.decode("utf-8")
            except UnicodeDecodeError:
                continue
            yield p


def _locales() -> Iterator[Path]:
    yield from (p for p in Path("/usr/share/i18n/locales").glob("*") if p.is_file())


def _problems() -> Iterator[Path]:
    for name in (
        "LeetCodeDataset-v0.2.0-train.jsonl.gz",
        "codecontests-subset300.jsonl.gz",
        "mbpp.jsonl.gz",
    ):
        p = SHARED_DATA / name
        if p.exists():
            yield p


def _binaries() -> list[Path]:
    """ELF executables and libraries (the running interpreter at least, so none is missing)."""
    found = {Path(sys.executable).resolve()}
    for d in _BIN_DIRS:
        root = Path(d)
        if root.is_dir():
            for p in root.iterdir():
                if p.is_file() and not p.is_symlink() and _head(p, 4) == b"\x7fELF":
                    found.add(p)
    return sorted(found)


def _base64() -> Iterator[Path]:
    yield from (p for p in _binaries() if _h("blob:" + str(p)) % 2 == 0)


def _hex() -> Iterator[Path]:
    yield from (p for p in _binaries() if _h("blob:" + str(p)) % 2 == 1)


def _repeated() -> Iterator[Path]:
    yield from [p for p in REPEATED_FILES if p.is_file()][:1]


def _read(path: Path) -> bytes:
    if path.suffix == ".gz":
        with gzip.open(path, "rb") as f:
            return f.read()
    return path.read_bytes()


def _problem_texts(path: Path) -> Iterator[tuple[str, bytes]]:
    """One (key, statement) per problem: LeetCode `query`, CodeContests `statement`, MBPP `text`."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            text = rec.get("query") or rec.get("statement") or rec.get("text")
            if text:
                yield (
                    f"{path.name}:{rec.get('task_id') or rec.get('id')}",
                    text.encode("utf-8", "replace"),
                )


def _encode_blob(name: str, data: bytes) -> bytes:
    if name == "base64":
        return base64.encodebytes(data)
    hexed = binascii.hexlify(data)
    return b"\n".join(hexed[i : i + 64] for i in range(0, len(hexed), 64)) + b"\n"


def _docs(name: str, paths: list[Path]) -> Iterator[tuple[str, bytes]]:
    """(key, text) of each document of a domain, in the order of `paths`."""
    for p in paths:
        if name == "problems":
            yield from _problem_texts(p)
            continue
        try:
            if name in ("base64", "hex"):
                yield str(p), _encode_blob(name, _head(p, BLOB_BYTES))
            elif name == "repeated":
                yield str(p), _read(p)[:REPEATED_BYTES]
            else:
                yield str(p), _read(p)
        except OSError:
            continue


def _corpus_bytes(name: str, paths: list[Path]) -> int:
    """The domain's size as a corpus (what static-by-size mixes by): bytes on disk for text
    domains, the encoded size of every blob, and every copy of the repeated text."""
    if name in ("base64", "hex"):
        raw = sum(min(p.stat().st_size, BLOB_BYTES) for p in paths)
        return raw * 4 // 3 if name == "base64" else raw * 2
    if name == "repeated":
        return REPEATED_BYTES * REPEATED_COPIES if paths else 0
    return sum(p.stat().st_size for p in paths)


DOMAINS: dict[str, Callable[[], Iterator[Path]]] = {
    "python": _python,
    "c_headers": _c_headers,
    "man": _man,
    "prose": _prose,
    "perl": _perl,
    "shell": _shell,
    "config": _config,
    "info": _info,
    "locales": _locales,
    "problems": _problems,
    "base64": _base64,
    "hex": _hex,
    "repeated": _repeated,
}
TARGET = ("python", "c_headers", "perl", "shell")
LOW_VALUE = ("base64", "hex", "repeated")
AUXILIARY = tuple(d for d in DOMAINS if d not in TARGET + LOW_VALUE)


class Domain:
    """One domain: train and validation byte arrays and its size as a corpus."""

    def __init__(
        self, name: str, train: np.ndarray, val: np.ndarray, disk_bytes: int, files: int
    ) -> None:
        self.name, self.train, self.val, self.disk_bytes, self.files = (
            name,
            train,
            val,
            disk_bytes,
            files,
        )


def collect_domains(
    cap_bytes: int, val_share: float = 0.1, names: list[str] | None = None
) -> list[Domain]:
    """Each domain's documents in hash order; a document goes to validation when its hash says so.

    Reads until `cap_bytes` of train text (and `val_share` of that for validation) are gathered; a
    domain with no documents here (e.g. ../shared/data absent) is skipped. The repeated domain is
    its one text over and over, in training and validation alike (there is nothing else to hold out).
    """
    out: list[Domain] = []
    for name in names or list(DOMAINS):
        paths = sorted(DOMAINS[name](), key=lambda p: _h(str(p)))
        if not paths:
            continue
        disk = _corpus_bytes(name, paths)
        val_cap = int(cap_bytes * val_share)
        if name == "repeated":
            text = next(_docs(name, paths))[1] + b"\n\n"
            reps = -(-(cap_bytes + val_cap) // len(text))
            whole = np.frombuffer(text * reps, dtype=np.uint8)
            out.append(Domain(name, whole[:cap_bytes], whole[:val_cap], disk, 1))
            continue
        tr: list[bytes] = []
        va: list[bytes] = []
        ntr = nva = 0
        items = _docs(name, paths)
        if name == "problems":
            items = iter(sorted(items, key=lambda kv: _h(kv[0])))
        for key, data in items:
            if not data:
                continue
            is_val = (_h("split:" + key) % 1000) < val_share * 1000
            if is_val and nva < val_cap:
                va.append(data + b"\n\n")
                nva += len(data) + 2
            elif not is_val and ntr < cap_bytes:
                tr.append(data + b"\n\n")
                ntr += len(data) + 2
            if ntr >= cap_bytes and nva >= val_cap:
                break
        if ntr == 0 or nva == 0:
            continue
        train = np.frombuffer(b"".join(tr)[:cap_bytes], dtype=np.uint8)
        val = np.frombuffer(b"".join(va)[:val_cap], dtype=np.uint8)
        out.append(Domain(name, train, val, disk, len(paths)))
    return out
