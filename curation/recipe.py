"""Build recipes: a TOML file that fixes sources and stage parameters, so any build can be repeated.

```toml
[build]                      # shard_rows, batch_rows, stages
shard_rows = 10000

[build.verify]               # a stage's settings, by their names in filters/settings.py
min_tests = 5

[build.decontam]
against = ["humaneval"]

[[source]]                   # in priority order: earlier sources win duplicate clusters
name = "taco-verified"
path = "/data/taco-verified" # optional: a local copy instead of the hub
limit = 1000                 # optional
options = { split = "train" }
```
`[build]` also takes a stage setting by its command-line name (`min_tests = 5`, `buckets = 4`:
`filters.settings.FLAT_SETTINGS`). The resolved recipe (a BuildConfig) is stored in the manifest.
"""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

from curation.build import FLAT_SETTINGS, STAGE_SETTINGS, BuildConfig, SourceSpec
from filters.contracts import UserError

__all__ = ["RECIPES_DIR", "load_recipe", "recipe_path"]

RECIPES_DIR = Path(__file__).parent / "recipes"
_SOURCE_KEYS = {"name", "path", "limit", "options", "priority"}


def recipe_path(name_or_path: str) -> Path:
    """A recipe file: a path, or the name of a shipped recipe (`demo`, `deepcoder`)."""
    p = Path(name_or_path)
    if p.exists():
        return p
    shipped = RECIPES_DIR / f"{name_or_path}.toml"
    if shipped.exists():
        return shipped
    known = ", ".join(sorted(f.stem for f in RECIPES_DIR.glob("*.toml")))
    raise UserError(f"recipe {name_or_path!r} not found; give a TOML path or one of the shipped recipes: {known}")


def load_recipe(name_or_path: str) -> BuildConfig:
    """Parse and check a recipe; every mistake is a UserError naming the key."""
    path = recipe_path(name_or_path)
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: not valid TOML ({e})") from None
    unknown = set(data) - {"build", "source"}
    if unknown:
        raise UserError(f"{path}: unknown table(s) {', '.join(sorted(unknown))}; use [build] and [[source]]")
    settings = dict(data.get("build", {}))
    tables = {name: settings.pop(name) for name in STAGE_SETTINGS if isinstance(settings.get(name), dict)}
    allowed = {"stages", "shard_rows", "batch_rows", *FLAT_SETTINGS}
    bad = set(settings) - allowed
    if bad:
        known = ", ".join(sorted(allowed | {f"[build.{t}]" for t in STAGE_SETTINGS}))
        raise UserError(f"{path}: unknown [build] key(s) {', '.join(sorted(bad))}; known: {known}")
    nested: dict[str, Any] = {}
    for name, values in tables.items():
        settings_class = STAGE_SETTINGS[name]
        known_settings = [f.name for f in fields(settings_class)]
        bad = set(values) - set(known_settings)
        if bad:
            raise UserError(f"{path}: unknown [build.{name}] key(s) {', '.join(sorted(bad))}; known: {', '.join(known_settings)}")
        nested[name] = settings_class(**values)
    sources = []
    raw_sources = data.get("source", [])
    if not raw_sources:
        raise UserError(f"{path}: no [[source]] entries")
    for i, s in enumerate(raw_sources):
        bad = set(s) - _SOURCE_KEYS
        if bad or "name" not in s:
            raise UserError(f"{path}: [[source]] #{i + 1} needs `name` and accepts only {', '.join(sorted(_SOURCE_KEYS))}")
        spath = s.get("path")
        if spath is not None:
            spath = str((path.parent / spath).resolve()) if not Path(spath).is_absolute() else spath
        sources.append((s.get("priority", i), SourceSpec(s["name"], spath, s.get("limit"), dict(s.get("options", {})))))
    ordered = [spec for _, spec in sorted(sources, key=lambda t: t[0])]
    if "prefer" not in settings and "prefer" not in tables.get("dedup", {}):
        settings["prefer"] = [spec.name for spec in ordered]
    try:
        return BuildConfig.with_settings([spec for _, spec in sources], nested).updated(**settings)
    except TypeError as e:
        raise UserError(f"{path}: {e}") from None
