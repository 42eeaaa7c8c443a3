"""The shared command line of mix_lm.py and mix_rl.py: arms, seeds, workers, outputs."""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

from mixbench.common import MixerSpec

__all__ = ["parse_arm", "base_parser", "RESULTS"]

RESULTS = Path(__file__).resolve().parents[1] / "results"


def parse_arm(text: str, defaults: dict[str, MixerSpec]) -> MixerSpec:
    """`name` from `defaults`, optionally with overrides: `acodm-advantage[sigma=0.1,warmup=0]`."""
    name, _, rest = text.partition("[")
    if name not in defaults:
        sys.exit(
            f"unknown arm {name!r}; choose from {', '.join(defaults)} (overrides as name[key=value,...])"
        )
    base = defaults[name]
    kw = dict(base.kw)
    if rest:
        if not rest.endswith("]"):
            sys.exit(f"bad arm {text!r}: overrides go as name[key=value,...]")
        try:
            call = ast.parse(f"f({rest[:-1]})", mode="eval").body
            assert isinstance(call, ast.Call) and not call.args
            for k in call.keywords:
                kw[k.arg] = ast.literal_eval(k.value)
        except (SyntaxError, ValueError, AssertionError):
            sys.exit(
                f"bad arm {text!r}: overrides go as name[key=value,...] with Python literal values"
            )
    return MixerSpec(text, base.policy, **kw)


def base_parser(description: str, seeds: int) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument(
        "--quick", action="store_true", help="tiny settings for a smoke check (well under a minute)"
    )
    p.add_argument(
        "--seeds", type=int, default=None, help=f"seeds per arm (default {seeds}; 2 with --quick)"
    )
    p.add_argument(
        "--workers", type=int, default=2, help="parallel processes, one torch thread each"
    )
    p.add_argument(
        "--first-seed", type=int, default=0, help="first seed (fresh seeds to confirm a choice)"
    )
    p.add_argument("--steps", type=int, default=None, help="override the number of training steps")
    p.add_argument(
        "--arms",
        nargs="+",
        default=None,
        help="arms to run (default: all); name[key=value,...] overrides constructor args",
    )
    p.add_argument(
        "--name",
        default=None,
        help="output name under benchmarks/results (default mix_lm / mix_rl; quick adds _quick)",
    )
    p.add_argument("--out-dir", type=Path, default=RESULTS)
    p.add_argument("--no-plots", action="store_true")
    p.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="keep each finished run here and reuse it on a rerun",
    )
    return p


def stamp() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
