"""Real text domains found on any Linux machine with Python, split train/validation by a hash of the path."""

from __future__ import annotations

import gzip
import hashlib
import json
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import numpy as np

__all__ = ["DOMAINS", "Domain", "collect_domains"]

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def _h(key: str) -> int:
    return int.from_bytes(hashlib.sha1(key.encode()).digest()[:8], "big")


def _python() -> Iterator[Path]:
    for p in Path(sysconfig.get_paths()["stdlib"]).rglob("*.py"):
        if "site-packages" not in p.parts and "dist-packages" not in p.parts:
            yield p


def _c_headers() -> Iterator[Path]:
    yield from Path("/usr/include").rglob("*.h")


def _man() -> Iterator[Path]:
    for sec in sorted(Path("/usr/share/man").glob("man[1-8]")):
        yield from sec.glob("*.gz")


def _prose() -> Iterator[Path]:
    lic = Path("/usr/share/common-licenses")
    if lic.is_dir():
        yield from (p for p in lic.iterdir() if p.is_file())
    yield from Path("/usr/share/doc").glob("*/copyright")


def _problems() -> Iterator[Path]:
    for name in (
        "LeetCodeDataset-v0.2.0-train.jsonl.gz",
        "codecontests-subset300.jsonl.gz",
        "mbpp.jsonl.gz",
    ):
        p = SHARED_DATA / name
        if p.exists():
            yield p


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


def _docs(name: str, paths: list[Path]) -> Iterator[tuple[str, bytes]]:
    """(key, text) of each document of a domain, in the order of `paths`."""
    for p in paths:
        if name == "problems":
            yield from _problem_texts(p)
        else:
            try:
                yield str(p), _read(p)
            except OSError:
                continue


DOMAINS: dict[str, object] = {
    "python": _python,
    "c_headers": _c_headers,
    "man": _man,
    "prose": _prose,
    "problems": _problems,
}


class Domain:
    """One domain: train and validation byte arrays and the on-disk size of everything found."""

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
    domain with no documents here (e.g. ../shared/data absent) is skipped.
    """
    out: list[Domain] = []
    for name in names or list(DOMAINS):
        paths = sorted(DOMAINS[name](), key=lambda p: _h(str(p)))  # type: ignore[operator]
        disk = sum(p.stat().st_size for p in paths)
        tr: list[bytes] = []
        va: list[bytes] = []
        ntr = nva = 0
        val_cap = int(cap_bytes * val_share)
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
