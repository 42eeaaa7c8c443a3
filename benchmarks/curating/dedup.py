"""Dedup benchmark: signatures/s, end-to-end dedup time, peak memory, recall and precision.

Ours (filters.stages.dedup.stage / filters.stages.dedup.minhash) against `datasketch` and `rensa` (installed for this
benchmark only: `pip install datasketch rensa`), on the statements of ../shared/data scaled up
with realistic edits (reworded phrases, renamed variables, reordered examples, small noise)
plus new texts spliced from sentences of different problems.

    python benchmarks/curating/dedup.py                 # 10^5 and 10^6 (about 10 minutes)
    python benchmarks/curating/dedup.py --sizes 20000   # quick

Every measurement runs in a fresh process (peak RSS is per process); the corpus is generated
once per size into an Arrow file under --workdir. Writes benchmarks/results/dedup.json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "benchmarks" / "results" / "dedup.json"
THRESHOLD = 0.8
NUM_PERM = 128
BATCH = 10_000
REPEAT = 3

# ---------------------------------------------------------------------------------- corpus


def base_statements() -> list[str]:
    out: list[str] = []
    files = [
        ("LeetCodeDataset-v0.2.0-train.jsonl.gz", "query"),
        ("mbpp.jsonl.gz", "text"),
        ("HumanEval.jsonl.gz", "prompt"),
        ("codecontests-subset300.jsonl.gz", "statement"),
    ]
    for name, field in files:
        with gzip.open(DATA / name, "rt") as f:
            out += [json.loads(line)[field] for line in f]
    return out


_PHRASES = [
    ("Given ", "You are given "),
    ("given ", "provided "),
    ("Return ", "Output "),
    ("return ", "output "),
    ("find ", "compute "),
    ("the number of ", "how many "),
    ("array", "list"),
    ("integer", "whole number"),
    ("Write a function to", "Create a function that will"),
    ("Write a python function to", "Implement a Python function to"),
    ("string", "text"),
    ("each ", "every "),
    ("the maximum", "the largest"),
    ("the minimum", "the smallest"),
    ("Print ", "Output "),
    ("Note that", "Observe that"),
    ("positive", "strictly positive"),
]
_NEW_NAMES = [
    "arr",
    "xs",
    "vals",
    "data",
    "seq",
    "items",
    "lst",
    "nums2",
    "k2",
    "m_val",
    "cnt",
    "res",
]
_IDENT = re.compile(r"\b([a-z]+_[a-z_]+|[a-z]+[A-Z]\w*|[b-z])\b")
_EXAMPLE = re.compile(r"(?=Example \d)")


def edit(text: str, rnd: random.Random) -> str:
    """A realistic near-copy: rephrase, rename variables, reorder examples, small noise."""
    for a, b in _PHRASES:
        if a in text and rnd.random() < 0.3:
            text = text.replace(a, b, 1)
    names = sorted(set(_IDENT.findall(text)))
    if names and rnd.random() < 0.7:
        picked = rnd.sample(names, min(len(names), rnd.randint(1, 3)))
        mapping = {n: rnd.choice(_NEW_NAMES) + str(rnd.randint(0, 9)) for n in picked}
        text = _IDENT.sub(lambda m: mapping.get(m.group(1), m.group(1)), text)
    parts = _EXAMPLE.split(text)
    if len(parts) > 2 and rnd.random() < 0.5:
        head, examples = parts[0], parts[1:]
        tail = ""
        last = examples[-1]
        cut = last.find("Constraints")
        if cut > 0:
            examples[-1], tail = last[:cut], last[cut:]
        rnd.shuffle(examples)
        text = head + "".join(examples) + tail
    words = text.split(" ")
    for _ in range(rnd.randint(0, 2)):
        if len(words) > 10:
            i = rnd.randrange(len(words))
            if rnd.random() < 0.5:
                del words[i]
            else:
                words.insert(i, words[i])
    return " ".join(words)


def splice(bases: list[str], rnd: random.Random) -> str:
    """A new text made of sentences from three different problems."""
    sentences: list[str] = []
    for _ in range(3):
        sentences += re.split(r"(?<=[.!?])\s+", rnd.choice(bases))[:6]
    rnd.shuffle(sentences)
    return " ".join(sentences[: rnd.randint(4, 9)])


def make_corpus(n: int, seed: int = 0) -> tuple[list[str], list[int]]:
    """`n` texts: every base once, 30% edited copies of bases, the rest spliced; group = base id
    for copies and bases, -1 for spliced texts."""
    rnd = random.Random(seed)
    bases = base_statements()
    texts, groups = [], []
    for i, b in enumerate(bases[: min(len(bases), n)]):
        texts.append(b)
        groups.append(i)
    n_copies = int(0.3 * n)
    while len(texts) < n:
        if len(texts) < len(bases) + n_copies:
            g = rnd.randrange(len(bases))
            texts.append(edit(bases[g], rnd))
            groups.append(g)
        else:
            texts.append(splice(bases, rnd))
            groups.append(-1)
    order = list(range(n))
    rnd.shuffle(order)
    return [texts[i] for i in order], [groups[i] for i in order]


def corpus_file(n: int, workdir: Path) -> Path:
    path = workdir / f"dedup_corpus_{n}.arrow"
    if not path.exists():
        t0 = time.perf_counter()
        texts, groups = make_corpus(n)
        table = pa.table({"text": pa.array(texts, pa.large_string()), "group": groups})
        tmp = path.with_suffix(".tmp")
        with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as w:
            w.write_table(table)
        tmp.rename(path)
        print(f"  corpus {n:,}: {time.perf_counter() - t0:.0f} s to generate", flush=True)
    return path


def load_corpus(path: Path) -> pa.Table:
    with pa.memory_map(str(path)) as src:
        return pa.ipc.open_file(src).read_all()


# ---------------------------------------------------------------------------------- workers


def _rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _UF:
    def __init__(self, n: int):
        self.p = list(range(n))

    def find(self, x: int) -> int:
        p = self.p
        while p[x] != x:
            p[x] = p[p[x]]
            x = p[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.p[max(ra, rb)] = min(ra, rb)


def worker(method: str, path: Path, repeat: int = 1) -> dict[str, Any]:
    """Run one method; signature methods repeat and keep the fastest run (shared machine)."""
    best: dict[str, Any] | None = None
    for _ in range(repeat if method.startswith(("sig_", "sketch_")) else 1):
        r = _worker_once(method, path)
        if best is None or r["cpu_s"] < best["cpu_s"]:
            best = r
    assert best is not None
    return best


def _worker_once(method: str, path: Path) -> dict[str, Any]:
    table = load_corpus(path)
    col = table.column("text").combine_chunks()
    n = len(col)
    need_list = method.startswith(
        ("sig_rensa", "sig_datasketch", "dedup_rensa", "dedup_datasketch")
    )
    texts = col.to_pylist() if need_list else None
    base_mib = _rss_mib()
    t0 = time.perf_counter()
    c0 = time.process_time()
    extra: dict[str, Any] = {}
    if method == "sig_ours":
        from filters.stages.dedup.minhash import minhash_signatures

        for i in range(0, n, BATCH):
            minhash_signatures(col.slice(i, BATCH), NUM_PERM)
    elif method == "sig_rensa":
        import rensa

        for i in range(0, n, BATCH):
            toks = [t.split() for t in texts[i : i + BATCH]]
            rensa.RMinHash.digest_matrix_from_token_sets(toks, NUM_PERM, 42)
    elif method == "sig_datasketch":
        from datasketch import MinHash

        for i in range(0, n, BATCH):
            MinHash.bulk(
                [[w.encode() for w in t.split()] for t in texts[i : i + BATCH]], num_perm=NUM_PERM
            )
    elif method in ("sketch_ours", "sketch_rensa"):
        from filters.stages.dedup.shingles import shingle_hashes

        parts = [shingle_hashes(col.slice(i, BATCH)) for i in range(0, n, BATCH)]
        t0 = time.perf_counter()
        c0 = time.process_time()
        if method == "sketch_ours":
            from filters.stages.dedup.minhash import signatures_from_shingles

            for sh, off in parts:
                signatures_from_shingles(sh, off, NUM_PERM)
        else:
            import rensa

            for sh, off in parts:
                rensa.RMinHash.digest_matrix_from_flat_token_hashes(
                    sh, off.astype(np.uint64), NUM_PERM, 42
                )
    elif method == "dedup_ours":
        from filters.settings import DedupConfig
        from filters.stages.dedup.stage import DedupStage

        stage = DedupStage(DedupConfig(threshold=THRESHOLD, num_perm=NUM_PERM))
        ids = pa.array([f"{i:08d}" for i in range(n)])
        t0 = time.perf_counter()
        c0 = time.process_time()
        for i in range(0, n, BATCH):
            stage.observe(
                pa.table({"problem_id": ids.slice(i, BATCH), "statement": col.slice(i, BATCH)})
            )
        t_obs = time.perf_counter() - t0
        stage.decide()
        res = stage.result
        extra = {
            "observe_s": t_obs,
            "decide_s": time.perf_counter() - t0 - t_obs,
            "kept": int((res.survivor == np.arange(len(res.survivor))).sum()),
            "candidates": res.stats.get("candidates"),
            "verified": res.stats.get("verified"),
        }
    elif method == "dedup_rensa":
        import rensa

        lsh = rensa.RMinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, num_bands=16)
        uf = _UF(n)
        for i in range(0, n, BATCH):
            mhs = rensa.RMinHash.from_token_sets(
                [t.split() for t in texts[i : i + BATCH]], NUM_PERM, 42
            )
            lsh.insert_many(mhs, start_key=i)
        for i in range(0, n, BATCH):
            mhs = rensa.RMinHash.from_token_sets(
                [t.split() for t in texts[i : i + BATCH]], NUM_PERM, 42
            )
            for j, cands in enumerate(lsh.query_all(mhs)):
                for c in cands:
                    uf.union(i + j, c)
        extra = {"kept": sum(1 for i in range(n) if uf.find(i) == i)}
    elif method == "dedup_datasketch":
        from datasketch import MinHash, MinHashLSH

        lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
        uf = _UF(n)
        mhs = []
        for i in range(0, n, BATCH):
            mhs += MinHash.bulk(
                [[w.encode() for w in t.split()] for t in texts[i : i + BATCH]], num_perm=NUM_PERM
            )
        with lsh.insertion_session() as s:
            for i, m in enumerate(mhs):
                s.insert(i, m, check_duplication=False)
        for i, m in enumerate(mhs):
            for c in lsh.query(m):
                uf.union(i, c)
        extra = {"kept": sum(1 for i in range(n) if uf.find(i) == i)}
    else:
        raise SystemExit(f"unknown method {method}")
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {
        "method": method,
        "n": n,
        "wall_s": wall,
        "cpu_s": cpu,
        "per_s": n / wall,
        "peak_mib": _rss_mib(),
        "base_mib": base_mib,
        **extra,
    }


def run_worker(method: str, path: Path, timeout: float) -> dict[str, Any] | None:
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        method,
        "--corpus",
        str(path),
        "--repeat",
        str(REPEAT),
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        out = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        print(f"    {method}: over {timeout:.0f} s, skipped", flush=True)
        return None
    if out.returncode != 0:
        print(f"    {method}: failed\n{out.stderr[-2000:]}", flush=True)
        return None
    res = json.loads(out.stdout.strip().splitlines()[-1])
    print(
        f"    {method:18s} {res['wall_s']:8.1f} s wall {res['cpu_s']:8.1f} s cpu "
        f"{res['n'] / res['cpu_s']:>10,.0f}/cpu-s  peak {res['peak_mib']:,.0f} MiB",
        flush=True,
    )
    return res


# ---------------------------------------------------------------------------------- quality


def quality(sample: int = 3000) -> dict[str, Any]:
    """Recall/precision against exact all-pairs Jaccard (our shingles) on a sample rich in
    near duplicates: ours (verified), rensa and datasketch (LSH candidates, same shingles)."""
    from scipy import sparse

    from filters.settings import DedupConfig
    from filters.stages.dedup.shingles import shingle_hashes
    from filters.stages.dedup.stage import DedupStage

    texts, groups = make_corpus(max(sample * 4, 20_000), seed=1)
    rnd = random.Random(3)
    by_group: dict[int, list[int]] = {}
    for i, g in enumerate(groups):
        by_group.setdefault(g, []).append(i)
    chosen: list[int] = []
    for g in rnd.sample(sorted(k for k in by_group if k >= 0), 400):
        chosen += by_group[g][:8]
    chosen += rnd.sample(by_group[-1], max(0, sample - len(chosen)))
    chosen = sorted(set(chosen))[:sample]
    sub = [texts[i] for i in chosen]
    n = len(sub)
    sh, off = shingle_hashes(sub)
    uniq, inv = np.unique(sh, return_inverse=True)
    rows = np.repeat(np.arange(n), np.diff(off))
    m = sparse.csr_matrix((np.ones(len(sh), np.float32), (rows, inv)), shape=(n, len(uniq)))
    m.data[:] = 1
    m.sum_duplicates()
    m.data[:] = 1
    inter = (m @ m.T).toarray()
    size = np.asarray(m.sum(axis=1)).ravel()
    jac = inter / np.maximum(size[:, None] + size[None, :] - inter, 1)
    iu = np.triu_indices(n, 1)
    truth = {(int(a), int(b)) for a, b, j in zip(iu[0], iu[1], jac[iu]) if j >= THRESHOLD}

    def score(pairs: set[tuple[int, int]]) -> dict[str, float]:
        tp = len(pairs & truth)
        return {
            "pairs": len(pairs),
            "recall": tp / max(len(truth), 1),
            "precision": tp / max(len(pairs), 1),
        }

    def outcome(survivor: np.ndarray) -> dict[str, float]:
        """What a dedup leaves: recall = true pairs (J >= t) not both kept; precision =
        dropped texts whose named survivor is a true duplicate of them."""
        kept = survivor == np.arange(n)
        resolved = sum(1 for a, b in truth if not (kept[a] and kept[b]))
        dropped = np.flatnonzero(~kept)
        ok = jac[dropped, survivor[dropped]] >= THRESHOLD
        return {
            "kept": int(kept.sum()),
            "recall": resolved / max(len(truth), 1),
            "precision": float(ok.mean()) if len(dropped) else 1.0,
        }

    def union_survivors(pairs: set[tuple[int, int]]) -> np.ndarray:
        uf = _UF(n)
        for a, b in sorted(pairs):
            uf.union(a, b)
        return np.array([uf.find(i) for i in range(n)], dtype=np.int64)

    out: dict[str, Any] = {"sample": n, "true_pairs": len(truth)}
    stage = DedupStage(DedupConfig(threshold=THRESHOLD, num_perm=NUM_PERM))
    ids = [f"{i:06d}" for i in range(n)]
    stage.observe(pa.table({"problem_id": ids, "statement": sub}))
    stage.decide()
    res = stage.result
    edges = {(min(a, b), max(a, b)) for a, b in zip(res.edge_a.tolist(), res.edge_b.tolist())}
    same = set()
    for c in res.clusters():
        idx = sorted(int(p) for p in c)
        same |= {(a, b) for k, a in enumerate(idx) for b in idx[k + 1 :]}
    out["ours_edges"] = score(edges)  # verified links: a spanning forest, not every pair
    out["ours_clusters"] = score(same)  # every pair inside a cluster (transitive)
    dropped = np.flatnonzero(res.survivor != np.arange(len(res.survivor)))
    out["ours_outcome"] = outcome(np.asarray(res.survivor, dtype=np.int64))
    out["ours_dropped"] = {  # each dropped problem against the survivor its reason names
        "dropped": len(dropped),
        "precision": float(np.mean(res.sim[dropped] >= THRESHOLD)) if len(dropped) else 1.0,
        "min_jaccard": float(res.sim[dropped].min()) if len(dropped) else 1.0,
    }
    toks = [[int(x).to_bytes(8, "little") for x in sh[off[i] : off[i + 1]]] for i in range(n)]
    try:
        import rensa

        mhs = rensa.RMinHash.from_token_sets(toks, NUM_PERM, 42)
        lsh = rensa.RMinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, num_bands=16)
        lsh.insert_many(mhs)
        pairs = {
            (min(i, c), max(i, c)) for i, cs in enumerate(lsh.query_all(mhs)) for c in cs if c != i
        }
        out["rensa_candidates"] = score(pairs)
        out["rensa_outcome"] = outcome(union_survivors(pairs))
    except ImportError:
        pass
    try:
        from datasketch import MinHash, MinHashLSH

        mhs = MinHash.bulk(toks, num_perm=NUM_PERM)
        lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
        for i, mh in enumerate(mhs):
            lsh.insert(i, mh)
        pairs = {
            (min(i, c), max(i, c)) for i, mh in enumerate(mhs) for c in lsh.query(mh) if c != i
        }
        out["datasketch_candidates"] = score(pairs)
        out["datasketch_outcome"] = outcome(union_survivors(pairs))
    except ImportError:
        pass
    return out


# ---------------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--workdir", default="/tmp/codemix-dedup-bench")
    ap.add_argument("--timeout", type=float, default=900.0, help="per measurement, seconds")
    ap.add_argument("--sample", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=3, help="runs per signature measurement")
    ap.add_argument("--methods", help="comma-separated subset, e.g. dedup_ours,sig_ours")
    ap.add_argument("--merge", action="store_true", help="add to benchmarks/results/dedup.json")
    ap.add_argument("--no-quality", action="store_true")
    ap.add_argument("--worker")
    ap.add_argument("--corpus")
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, Path(args.corpus), args.repeat)))
        return
    global REPEAT
    REPEAT = args.repeat
    if not DATA.is_dir():
        raise SystemExit(f"{DATA} is absent: this benchmark needs ../shared/data")
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "machine": f"{os.cpu_count()} cores, shared with other jobs",
        "threshold": THRESHOLD,
        "num_perm": NUM_PERM,
        "sizes": {},
    }
    if args.merge and RESULTS.exists():  # keep what earlier runs measured
        old = json.loads(RESULTS.read_text())
        results["sizes"] = old.get("sizes", {})
        if "quality" in old:
            results["quality"] = old["quality"]
    for n in [int(s) for s in args.sizes.split(",") if s]:
        print(f"n = {n:,}", flush=True)
        path = corpus_file(n, workdir)
        methods = ["sig_ours", "sig_rensa", "sketch_ours", "sketch_rensa"]
        methods += ["dedup_ours", "dedup_rensa"]
        if n <= 200_000:
            methods += ["sig_datasketch", "dedup_datasketch"]
        if args.methods:
            methods = [m for m in methods if m in args.methods.split(",")]
        size = results["sizes"].setdefault(str(n), {})
        for m in methods:
            size[m] = run_worker(m, path, args.timeout)
    if not args.no_quality:
        print("quality (sample, exact all-pairs Jaccard)", flush=True)
        results["quality"] = quality(args.sample)
        print(json.dumps(results["quality"], indent=1))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1, default=str))
    print(f"wrote {RESULTS}")
    print_table(results)


def print_table(results: dict[str, Any]) -> None:
    """Per size: wall and CPU seconds, rate per CPU-second, peak RSS, and how many times more
    CPU each method needs than ours (> 1: ours is faster)."""
    for n, res in results["sizes"].items():
        print(f"\nn = {int(n):,}")
        head = f"{'method':18s} {'wall s':>8s} {'cpu s':>8s} {'per cpu-s':>10s} {'peak MiB':>9s}"
        print(head + f" {'cpu vs ours':>11s}")
        for kind in ("sig", "sketch", "dedup"):
            ours = res.get(f"{kind}_ours")
            for m, r in res.items():
                if r is None or not m.startswith(kind + "_"):
                    continue
                ratio = (r["cpu_s"] / ours["cpu_s"]) if ours else float("nan")
                per = r["n"] / r["cpu_s"]
                print(
                    f"{m:18s} {r['wall_s']:8.1f} {r['cpu_s']:8.1f} {per:10,.0f} "
                    f"{r['peak_mib']:9,.0f} {ratio:10.2f}x"
                )


if __name__ == "__main__":
    main()
