"""What a Ray build ships and holds on its driver as the data grows (issue 56).

A synthetic corpus of cheap problems (a trivial program, three tests, a statement of random
words) is built with the global stages (exact_id, dedup, difficulty; no sandbox stage, so the
engine's own cost is what is measured) on a local Ray instance, by this checkout's code and by
another checkout's (`--baseline`, a checkout of main), each in a fresh process, same machine, same
run. Per build:

- `observed MB`: bytes of the tables the global stages observe on the driver (Arrow nbytes);
- `shipped MB`: bytes of task arguments pickled into tasks plus objects put in the object store
  (`ray.put`), measured by wrapping `ray.remote`'s `.remote(...)` and `ray.put` in the child;
- `driver peak MB`: the driver process's peak RSS (ru_maxrss; Ray's workers are other processes);
- `wall s`, and whether the Ray build's shards equal a local build's (this checkout, `--check`)
  outside the measured columns.

    OMP_NUM_THREADS=1 python benchmarks/curating/ray_scaling.py --sizes 25000,50000,100000,200000 \
        --baseline ../main --check
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
STAGES = ["exact_id", "dedup", "difficulty"]
WORDS = [f"w{i}" for i in range(5000)]


def corpus(path: Path, n: int, seed: int = 0) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(seed)
    rows = []
    for i in range(n):
        words = " ".join(rng.choice(WORDS) for _ in range(24))
        rows.append({
            "id": f"p{i}", "source": "synthetic",
            "statement": f"Read an integer and print it back. {words}",
            "test_type": "stdio",
            "tests": [{"input": f"{i + k}\n", "output": f"{i + k}\n"} for k in range(3)],
            "solutions": ["print(input())"],
        })  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def child(args: argparse.Namespace) -> None:
    """One build in this process, instrumented; prints one JSON line."""
    import inspect

    import ray

    import curation
    from curation.build import BuildConfig, SourceSpec, build

    stats = {"task_bytes": 0, "put_bytes": 0, "observed_bytes": 0, "tasks": 0}

    def size(obj: object) -> int:
        if isinstance(obj, ray.ObjectRef):
            return len(obj.binary())
        return len(ray.cloudpickle.dumps(obj, protocol=5))

    class Counting:
        def __init__(self, rf: object) -> None:
            self.rf = rf

        def remote(self, *a: object, **k: object) -> object:
            stats["tasks"] += 1
            stats["task_bytes"] += sum(size(x) for x in a) + sum(size(x) for x in k.values())
            return self.rf.remote(*a, **k)  # type: ignore[attr-defined]

    real_remote, real_put = ray.remote, ray.put

    def remote(*a: object, **k: object) -> object:
        if len(a) == 1 and not k and callable(a[0]):
            return real_remote(a[0]) if inspect.isclass(a[0]) else Counting(real_remote(a[0]))
        dec = real_remote(*a, **k)
        return lambda obj: dec(obj) if inspect.isclass(obj) else Counting(dec(obj))

    def put(obj: object, **k: object) -> object:
        stats["put_bytes"] += len(ray.cloudpickle.dumps(obj, protocol=5))
        return real_put(obj, **k)

    if args.executor == "ray":
        ray.remote, ray.put = remote, put
    from filters.settings import STAGES as REGISTRY

    for name in STAGES:
        cls = REGISTRY[name].load()
        real = cls.observe

        def observe(self, batch, _real=real):  # type: ignore[no-untyped-def]
            stats["observed_bytes"] += batch.nbytes
            return _real(self, batch)

        cls.observe = observe  # type: ignore[method-assign]
    cfg = BuildConfig(
        sources=[SourceSpec("canonical", args.src)], stages=STAGES, batch_rows=args.batch_rows
    )
    t0 = time.perf_counter()
    build(cfg, args.out, executor=args.executor, workers=args.workers, write_report=False)
    wall = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"code": str(Path(curation.__file__).resolve().parents[1]), "wall_s": round(wall, 1),
                      "driver_peak_mb": round(peak_mb, 1), **stats}))  # fmt: skip


def run_child(
    repo: Path, src: Path, out: Path, executor: str, workers: int, batch_rows: int
) -> dict:
    env = dict(os.environ, PYTHONPATH=str(repo), OMP_NUM_THREADS="1")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--src", str(src), "--out", str(out),
           "--executor", executor, "--workers", str(workers), "--batch-rows", str(batch_rows)]  # fmt: skip
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=repo)
    if p.returncode:
        raise SystemExit(f"{repo} {executor} failed:\n{p.stderr[-3000:]}")
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("{")][-1]
    result = json.loads(line)
    assert Path(result["code"]) == repo.resolve(), (result["code"], repo)
    return result


def same_outside_measured(a: Path, b: Path) -> bool:
    import pyarrow.parquet as pq

    manifest = json.loads((a / "manifest.json").read_text())
    measured = set(manifest.get("measured_columns", []))
    for kind in ("problems", "rejected"):
        ta = pq.ParquetDataset(sorted((a / kind).glob("*.parquet"))).read()
        tb = pq.ParquetDataset(sorted((b / kind).glob("*.parquet"))).read()
        keep = [c for c in ta.column_names if c not in measured]
        if not ta.select(keep).equals(tb.select(keep)):
            return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--src")
    ap.add_argument("--out")
    ap.add_argument("--executor", default="ray")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch-rows", type=int, default=1000)
    ap.add_argument("--sizes", default="25000,50000,100000,200000")
    ap.add_argument("--baseline", help="another checkout (of main, say), run the same way")
    ap.add_argument(
        "--baseline-max", type=int, default=10**9, help="largest size the baseline runs"
    )
    ap.add_argument("--check", action="store_true", help="also a local build; compare its shards")
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory(prefix="ray-scaling-") as tmp:
        for n in [int(s) for s in args.sizes.split(",")]:
            src = corpus(Path(tmp) / f"c{n}.parquet", n)
            runs = [("ours", HERE)] + (
                [("baseline", Path(args.baseline))]
                if args.baseline and n <= args.baseline_max
                else []
            )
            for label, repo in runs:
                out = Path(tmp) / f"{label}-{n}"
                r = run_child(repo, src, out, "ray", args.workers, args.batch_rows)
                row = {"n": n, "code": label, **r}
                if args.check and label == "ours":
                    local = Path(tmp) / f"local-{n}"
                    rl = run_child(repo, src, local, "local", args.workers, args.batch_rows)
                    row["local_wall_s"] = rl["wall_s"]
                    row["local_driver_peak_mb"] = rl["driver_peak_mb"]
                    row["equals_local"] = same_outside_measured(out, local)
                    shutil.rmtree(local, ignore_errors=True)
                print(json.dumps(row), flush=True)
                shutil.rmtree(out, ignore_errors=True)
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
