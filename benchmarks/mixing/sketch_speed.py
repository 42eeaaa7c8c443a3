"""GradientSketch: projection time with the hash cache (ours) against regenerating hashes per call
(the previous behaviour, `cache_coords=0`), in the same run, on gradients of several sizes.

    .venv/bin/python benchmarks/mixing/sketch_speed.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mixer import GradientSketch  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "results" / "sketch_speed.json"


def per_call_ms(sketch: GradientSketch, grad: torch.Tensor, repeats: int) -> float:
    sketch.project(grad)  # warm: fills the cache when there is one
    t = time.perf_counter()
    for _ in range(repeats):
        sketch.project(grad)
    return (time.perf_counter() - t) / repeats * 1e3


def main() -> None:
    torch.set_num_threads(1)
    rows = []
    for d in (40_000, 1_058_400, 8_000_000):
        g = torch.randn(d)
        reps = max(3, int(2e7 // d))
        base = per_call_ms(GradientSketch(256, seed=0, cache_coords=0), g, reps)
        ours = per_call_ms(GradientSketch(256, seed=0), g, reps)
        same = bool(
            torch.allclose(
                torch.from_numpy(GradientSketch(256, seed=0, cache_coords=0).project(g)),
                torch.from_numpy(GradientSketch(256, seed=0).project(g)),
                atol=1e-3,
            )
        )
        rows.append(
            {
                "coords": d,
                "regenerate_ms": base,
                "cached_ms": ours,
                "speedup": base / ours,
                "same_projection": same,
            }
        )
        print(
            f"d={d:>9,}  regenerate {base:8.2f} ms  cached {ours:7.2f} ms  x{base / ours:5.1f}  same={same}"
        )
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps({"benchmark": "sketch_speed", "rows": rows}, indent=1))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
