"""B3's inputs, frozen in the repository: the ranked TRL export and the chosen pre-trained
checkpoint that every arm starts from, with the records of how they were made.

The grid runs in parts across sessions while codemix changes (a build's kept problems move when
verify or amplify do; pre-training on CPU is not bitwise repeatable across machines), so the inputs
of the runs are stored once, here, and every run file names their fingerprint. A summary counts
only the runs made on the inputs it reads, so two sets of inputs never mix in one table.

An overlay (`freeze_overlay`, B3 v3) adds files to another frozen folder without copying it: its
record names the base folder and the base's fingerprint, its own fingerprint covers its files and
the base's, and loading it loads (and checks) the base first.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

__all__ = ["freeze", "freeze_overlay", "load_frozen", "fingerprint"]

RECORD = "inputs.json"


def fingerprint(root: Path) -> str:
    """A short hash of every file under `root` (names and bytes), in name order."""
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob("*") if p.is_file() and p.name != RECORD):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def freeze(
    dest: Path,
    data: dict[str, Any],
    model_rec: dict[str, Any],
    rank_rec: dict[str, Any] | None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Copy the export and the chosen checkpoint into `dest`, with their records (and `extra`,
    e.g. B3 v2's measured start); returns the frozen inputs as `load_frozen` reads them."""
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    shutil.copytree(data["trl"], tmp / "trl")
    ckpt = Path(model_rec["checkpoint"])
    shutil.copytree(ckpt, tmp / "checkpoint", ignore=shutil.ignore_patterns("*.tmp"))
    rec = {
        "fingerprint": fingerprint(tmp),
        "build": {"counts": data["manifest"]["counts"], "times": data["times"]},
        "pretrain": {k: v for k, v in model_rec.items() if k != "loss"},
        "difficulty": rank_rec,
        **(extra or {}),
    }
    rec["pretrain"]["checkpoint_name"] = ckpt.name
    (tmp / RECORD).write_text(json.dumps(rec, indent=1, default=str))
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    return load_frozen(dest)  # type: ignore[return-value]


def _overlay_fingerprint(own: str, base: str) -> str:
    return hashlib.sha256(f"{base}+{own}".encode()).hexdigest()[:12]


def freeze_overlay(
    dest: Path, base: Path, files: dict[str, Path], record: dict[str, Any]
) -> dict[str, Any]:
    """Freeze `files` (name in `dest` -> a file or folder to copy) as an overlay of the frozen
    inputs in `base` (same parent folder), with `record`; returns the inputs as `load_frozen`
    reads them (the base's, with the overlay's files and record added)."""
    inputs = load_frozen(base)
    if inputs is None:
        raise RuntimeError(f"{base}: no frozen inputs to lay an overlay on")
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, src in files.items():
        if src.is_dir():
            shutil.copytree(src, tmp / name)
        else:
            shutil.copyfile(src, tmp / name)
    own = fingerprint(tmp)
    rec = {
        "fingerprint": _overlay_fingerprint(own, inputs["fingerprint"]),
        "own_fingerprint": own,
        "base": {"folder": base.name, "fingerprint": inputs["fingerprint"]},
        **record,
    }
    (tmp / RECORD).write_text(json.dumps(rec, indent=1, default=str))
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    return load_frozen(dest)  # type: ignore[return-value]


def load_frozen(dest: Path) -> dict[str, Any] | None:
    """The frozen inputs (`data` and `model` records as the benchmark uses them, their
    `fingerprint`, and the whole `record`), or None when `dest` holds none. Refuses inputs whose
    files changed."""
    path = dest / RECORD
    if not path.exists():
        return None
    rec = json.loads(path.read_text())
    now = fingerprint(dest)
    if "base" in rec:  # an overlay: the base's inputs, checked, with this folder's files
        return _load_overlay(dest, rec, now)
    if now != rec["fingerprint"]:
        raise RuntimeError(
            f"{dest}: its files hash to {now}, its record says {rec['fingerprint']}: the frozen "
            "inputs were changed; restore them (git checkout) or freeze again (--refreeze)"
        )
    model = dict(rec["pretrain"], checkpoint=str(dest / "checkpoint"))
    data = {
        "trl": str(dest / "trl"),
        "times": rec["build"]["times"],
        "manifest": {"counts": rec["build"]["counts"]},
    }
    return {
        "fingerprint": rec["fingerprint"],
        "data": data,
        "model": model,
        "rank": rec["difficulty"],
        "record": rec,
    }


def _load_overlay(dest: Path, rec: dict[str, Any], own: str) -> dict[str, Any]:
    """An overlay's inputs: the base's (`load_frozen` of the folder its record names, whose
    fingerprint must be the one recorded), with `files` (name -> path in `dest`) and the record
    merged (the overlay's keys over the base's; `start` merged key by key)."""
    base = load_frozen(dest.parent / rec["base"]["folder"])
    if base is None or base["fingerprint"] != rec["base"]["fingerprint"]:
        got = None if base is None else base["fingerprint"]
        raise RuntimeError(
            f"{dest}: an overlay of {rec['base']['folder']} {rec['base']['fingerprint']}, which "
            f"now holds {got}: restore it (git checkout) or freeze the overlay again"
        )
    if own != rec["own_fingerprint"]:
        raise RuntimeError(
            f"{dest}: its files hash to {own}, its record says {rec['own_fingerprint']}: the "
            "frozen inputs were changed; restore them (git checkout) or freeze again"
        )
    merged = {**base["record"], **rec}
    merged["start"] = {**base["record"].get("start", {}), **rec.get("start", {})}
    files = {p.name: str(p) for p in sorted(dest.iterdir()) if p.name != RECORD}
    return {
        "fingerprint": rec["fingerprint"],
        "data": {**base["data"], "files": files},
        "model": base["model"],
        "rank": rec.get("difficulty", base["rank"]),
        "record": merged,
    }
