"""A Ray node lost mid-stage (issue 56): the build completes, equal to a local one, and re-judges
at most one slice (at most one chunk) per task the node held.

A three-node Ray cluster on this machine (`ray.cluster_utils.Cluster`: a head of `--head-cpus`
CPUs and two worker nodes of `--node-cpus`; the node killed is one the driver is not attached
to), the same real build as
`ray_vs_local.py` (MBPP and CodeContests rows of ../shared/data, every default stage). Once the
row stages have judged `--kill-after` of their rows, that worker node is killed (its raylet and
every worker process on it, no grace). What was lost is read two ways: the tasks that
failed with the node (the driver's warnings name each one's slice: its unit and rows; every row
judged again is in one of them), and the progress the tasks report (a row is reported once
judged, so a stage's rows reported beyond its total were judged twice; counts the counter actor
held, if it was on the lost node, are lost with it). Then the build's shards are compared
with a local build's outside the measured columns.

    OMP_NUM_THREADS=1 nice -n 5 python benchmarks/curating/ray_node_loss.py --limit 12 \
        --out benchmarks/results/ray_node_loss.json
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(HERE))
SHARED = HERE.parent / "shared" / "data"
SOURCES = [
    f"mbpp:{SHARED / 'mbpp.jsonl.gz'}",
    f"codecontests-subset:{SHARED / 'codecontests-subset300.jsonl.gz'}",
]
ROW_STAGES = ("decontam", "amplify", "verify")


def _load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=12, help="rows of each source")
    ap.add_argument("--batch-rows", type=int, default=16)
    ap.add_argument("--chunk-rows", type=int, default=32)
    ap.add_argument("--head-cpus", type=int, default=1)
    ap.add_argument("--node-cpus", type=int, default=1, help="CPUs of each of the two worker nodes")
    ap.add_argument("--kill-after", type=float, default=0.3, help="share of decontam's rows amplify has judged")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()

    import ray
    from ray.cluster_utils import Cluster

    from curation.build import BuildConfig, build
    from curation.commands.build import parse_source_specs
    from tests.curation.reproducible import differences

    cfg = BuildConfig(sources=parse_source_specs(SOURCES, args.limit), batch_rows=args.batch_rows)
    tmp = Path(tempfile.mkdtemp(prefix="ray_node_loss-"))
    result: dict = {"limit": args.limit, "batch_rows": args.batch_rows, "chunk_rows": args.chunk_rows,
                    "head_cpus": args.head_cpus, "node_cpus": args.node_cpus, "load_before": _load()}  # fmt: skip
    try:
        t0 = time.perf_counter()
        build(cfg, tmp / "local", workers=args.head_cpus + 2 * args.node_cpus, write_report=False)
        result["local_wall_s"] = round(time.perf_counter() - t0, 1)

        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": args.head_cpus})
        nodes = [cluster.add_node(num_cpus=args.node_cpus) for _ in range(2)]
        ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
        cluster.wait_for_nodes()
        # all nodes share this host's address, so the driver attaches to any one of them: the node
        # killed is a worker node other than the driver's (whose loss would be the driver's)
        here = ray.get_runtime_context().get_node_id()
        node = next(n for n in nodes if n.unique_id != here)
        result["driver_on"] = "head" if here not in {n.unique_id for n in nodes} else "a worker node"
        done: dict[str, int] = {}
        totals: dict[str, int] = {}
        killed: dict = {}
        lock = threading.Lock()

        def kill() -> None:
            killed["at"] = {k: v for k, v in done.items() if k in ROW_STAGES}
            killed["node_tasks_running"] = _tasks_on(ray, node.unique_id)
            cluster.remove_node(node, allow_graceful=False)
            killed["wall_s"] = round(time.perf_counter() - t1, 1)

        def progress(stage: str, n: int, total: int | None, extra: dict) -> None:
            with lock:
                done[stage] = max(done.get(stage, 0), n)
                if total is not None:
                    totals[stage] = total
                # (a later stage's total is known only at its end: decontam's rows stand for it)
                amp = totals.get("decontam")
                if not killed and amp and stage == "amplify" and n >= args.kill_after * amp and n < amp:
                    killed["pending"] = True
                    threading.Thread(target=kill).start()

        said: list[str] = []  # the driver's warnings: each failed task names its slice's rows

        class Tee:
            def __init__(self, stream) -> None:
                self.stream = stream

            def write(self, text: str) -> int:
                said.extend(line for line in text.splitlines() if "failed (try" in line)
                return self.stream.write(text)

            def flush(self) -> None:
                self.stream.flush()

        sys.stderr = Tee(sys.stderr)
        t1 = time.perf_counter()
        res = build(cfg, tmp / "ray", executor="ray", write_report=False, progress=progress,
                    chunk_rows=args.chunk_rows)  # fmt: skip
        result["ray_wall_s"] = round(time.perf_counter() - t1, 1)
        killed.pop("pending", None)
        result["killed"] = killed
        # progress counts a row once it is judged; the stage's end sets it to its total, so the
        # overshoot is read from the counts heard before the end (`reported`)
        result["stage_rows"] = {s: totals.get(s) for s in ROW_STAGES}
        result["rows_reported"] = {s: done.get(s) for s in ROW_STAGES}
        result["rejudged_rows"] = {s: done.get(s, 0) - (totals.get(s) or 0) for s in ROW_STAGES}
        result["slice_rows"] = _slice_rows(cfg, args)
        sys.stderr = sys.stderr.stream
        failed = [re.search(r"(stages? [^,]+), unit (\d+), rows (\d+)-(\d+)(?: \(\d+ CPUs\))? failed", line) for line in said]
        result["tasks_lost"] = [f"{m[1]}, unit {m[2]}, rows {m[3]}-{m[4]}" for m in failed if m]
        result["rows_in_lost_tasks"] = sum(int(m[4]) - int(m[3]) for m in failed if m)
        result["manifest_counts_output"] = res.manifest["counts"]["output"]
        diff = differences(tmp / "local", tmp / "ray")
        result["shards_equal_local"] = not diff
        result["differences"] = dict(list(diff.items())[:5])
        ray.shutdown()
        cluster.shutdown()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result["load_after"] = _load()
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a") as f:
            f.write(json.dumps(result) + "\n")


def _slice_rows(cfg, args) -> str:
    from curation.pipeline import SLICES_PER_CPU

    return (f"min(chunk_rows {args.chunk_rows}, rows / ({SLICES_PER_CPU} x "
            f"{args.head_cpus + 2 * args.node_cpus} CPUs)), per row stage span")


def _tasks_on(ray, node_id: str) -> int:
    try:
        from ray.util.state import list_tasks

        return sum(1 for t in list_tasks(filters=[("state", "=", "RUNNING")]) if t.node_id == node_id)
    except Exception:
        return -1


if __name__ == "__main__":
    main()
