"""A real build locally and on Ray, interleaved on the same cores (issue 56: Ray within 10%).

The same command (MBPP and CodeContests rows from ../shared/data, every default stage) is built
with `--executor local` and `--executor ray`, same `--workers`, alternately (A B A B ...), each in a
fresh process, so that the machine's load (shared, and it swings) falls on both alike. Per build:
wall, `uptime`'s load before and after, and per stage the time from its first progress event to
its last. The Ray child starts Ray itself (a local instance of `--workers` CPUs) and writes Ray's
task timeline, from which it reports per stage the tasks, their summed seconds, and how busy the
CPUs were (summed task seconds / (wall x CPUs)); `ray.init` is timed apart.

Each pair's ratio (Ray wall / local wall) is printed; every build's shards are compared with the
first local build's outside the measured columns (`tests.curation.reproducible.differences`).

    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/curating/ray_vs_local.py --limit 40 --pairs 2 \
        --batch-rows 16 --out benchmarks/results/ray_vs_local.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
SHARED = HERE.parent / "shared" / "data"
SOURCES = [
    f"mbpp:{SHARED / 'mbpp.jsonl.gz'}",
    f"codecontests-subset:{SHARED / 'codecontests-subset300.jsonl.gz'}",
]


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def _tree_cpu_s() -> float:
    import resource

    hz = os.sysconf("SC_CLK_TCK")
    stats = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                stats[int(pid)] = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
    me, tree, grew = os.getpid(), {os.getpid()}, True
    while grew:
        grew = False
        for pid, st in stats.items():
            if pid not in tree and int(st[1]) in tree:
                tree.add(pid)
                grew = True
    live = sum(sum(int(x) for x in stats[p][11:15]) for p in tree if p != me and p in stats) / hz
    own = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return live + sum(r.ru_utime + r.ru_stime for r in own)


def child(args: argparse.Namespace) -> None:
    """One build in this process; prints one JSON line."""
    from curation.build import BuildConfig, build
    from curation.commands.build import parse_source_specs

    cfg = BuildConfig(sources=parse_source_specs(SOURCES, args.limit), batch_rows=args.batch_rows)
    stages: dict[str, list[float]] = {}

    def progress(stage: str, done: int, total: int | None, extra: dict) -> None:
        now = time.perf_counter()
        stages.setdefault(stage, [now, now])[1] = now

    info: dict = {"executor": args.executor}
    t0 = time.perf_counter()
    if args.executor == "ray":
        import ray

        ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
        info["ray_init_s"] = round(time.perf_counter() - t0, 2)
    res = build(cfg, args.child_out, workers=args.workers, executor=args.executor, force=True,
                write_report=False, progress=progress)  # fmt: skip
    info["wall_s"] = round(time.perf_counter() - t0, 2)
    # CPU of the build, every process of it: this one, its children reaped, and its live
    # descendants with what they reaped (a Ray build's raylet, GCS, workers and their sandboxes)
    info["cpu_s"] = round(_tree_cpu_s(), 1)
    info["stages"] = {k: round(v[1] - v[0], 2) for k, v in stages.items()}
    info["problems_in"] = sum(res.manifest["counts"]["input"].values())
    info["problems_out"] = sum(res.manifest["counts"]["output"].values())
    info["stage_in"] = {st["stage"]: sum(st["in"].values()) for st in res.manifest["counts"]["stages"]}
    if args.executor == "ray":
        events = ray.timeline()
        if os.environ.get("RAY_VS_LOCAL_TIMELINE"):
            Path(os.environ["RAY_VS_LOCAL_TIMELINE"]).write_text(json.dumps(events))
        tasks: dict[str, list[float]] = {}
        spans = []
        for e in events:
            if e.get("ph") == "X" and e.get("cat") == "task:execute":
                name = str(e.get("name", ""))
                tasks.setdefault(name, []).append(e["dur"] / 1e6)
                spans.append((e["ts"] / 1e6, (e["ts"] + e["dur"]) / 1e6))
        info["tasks"] = {k: {"n": len(v), "sum_s": round(sum(v), 1), "max_s": round(max(v), 1)}
                         for k, v in tasks.items()}  # fmt: skip
        if spans:
            first, last = min(s for s, _ in spans), max(e for _, e in spans)
            info["task_span_s"] = round(last - first, 1)
            info["busy"] = round(sum(e - s for s, e in spans) / ((last - first) * args.workers), 3)
        info["cpu_s"] = round(_tree_cpu_s(), 1)  # before the Ray processes go
        ray.shutdown()
    print(json.dumps(info))


def run_one(executor: str, out: Path, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, __file__, "--child", "--executor", executor, "--child-out", str(out),
           "--limit", str(args.limit), "--batch-rows", str(args.batch_rows), "--workers", str(args.workers)]  # fmt: skip
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(HERE))
    before = _load()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=HERE)
    if p.returncode != 0:
        raise SystemExit(f"{executor} build failed:\n{p.stderr[-3000:]}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r.update(load_before=before, load_after=_load())
    return r


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=40, help="rows of each source")
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--batch-rows", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--label", default="")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--child-out", type=Path)
    ap.add_argument("--executor", default="local")
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    sys.path.insert(0, str(HERE))
    from tests.curation.reproducible import differences

    tmp = Path(tempfile.mkdtemp(prefix="ray_vs_local-"))
    reference: Path | None = None
    results = []
    try:
        for pair in range(args.pairs):
            walls = {}
            for executor in ("local", "ray"):
                out = tmp / f"{executor}-{pair}"
                r = run_one(executor, out, args)
                if reference is None:
                    reference = out
                else:
                    diff = differences(reference, out)
                    r["differs_from_first_local"] = len(diff)
                    r["differences"] = dict(list(diff.items())[:5])
                r["pair"] = pair
                walls[executor] = r["wall_s"]
                results.append(r)
                print(json.dumps(r), flush=True)
            print(f"pair {pair}: local {walls['local']} s, ray {walls['ray']} s, "
                  f"ray/local {walls['ray'] / walls['local']:.3f}", flush=True)  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a") as f:
            for r in results:
                f.write(json.dumps(dict(r, label=args.label, limit=args.limit,
                                        batch_rows=args.batch_rows, workers=args.workers)) + "\n")  # fmt: skip


if __name__ == "__main__":
    main()
