"""Deduplication across sources: exact keys, MinHash LSH candidates, verified Jaccard, union-find.

Phase 1 (`observe`, per batch) keeps compact state per problem: LSH band hashes, the hashed
shingles (uint32, to verify candidates), an exact key of the normalised statement, a key of the
test set, and what decides the survivor. Phase 2 (`decide`) links exact matches, verifies every
LSH candidate pair with its actual Jaccard similarity, clusters with union-find and picks one
survivor per cluster. Results do not depend on input order or batch size: problems are
re-indexed by `problem_id` before any decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from filters.contracts import ProblemRow
from filters.settings import DedupConfig
from filters.stage import Decision, GlobalStage
from filters.stages.dedup.minhash import band_hashes, jaccard, lsh_params, signatures_from_shingles
from filters.stages.dedup.shingles import analyze, mix64, text_keys

__all__ = ["DedupConfig", "DedupStage", "DedupResult", "find_duplicates", "EMPTY_REASON"]

EMPTY_REASON = "empty_statement"
# A test set smaller than this identifies nothing: two LeetCode problems share exactly
# `assert candidate(n = 5) == 2; assert candidate(n = 10) == 4`.
_MIN_TEST_TOKENS = 10
_MIN_TESTS = 3  # tests, or assert statements in test code


class DedupResult:
    """The clustering of observed problems, indexed by position in `problem_ids` (sorted)."""

    def __init__(
        self,
        problem_ids: list[str],
        survivor: np.ndarray,
        size: np.ndarray,
        sim: np.ndarray,
        kind: list[str],
        empty: set[str],
    ):
        self.problem_ids = problem_ids
        self.survivor = survivor  # index of each problem's cluster survivor
        self.size = size  # cluster size per problem
        self.sim = sim  # Jaccard with the survivor (1.0 for survivors)
        self.kind = kind  # how a dropped problem was linked: near / exact_statement / same_tests
        self.empty = empty
        self.index = {p: i for i, p in enumerate(problem_ids)}
        #: verified near-duplicate links (indices), and counts: candidates, verified, linked
        self.edge_a = np.zeros(0, dtype=np.int64)
        self.edge_b = np.zeros(0, dtype=np.int64)
        self.stats: dict[str, int] = {}

    def clusters(self) -> list[list[str]]:
        """Clusters with more than one member, each sorted, survivor first."""
        groups: dict[int, list[int]] = {}
        for i, s in enumerate(self.survivor.tolist()):
            if self.size[i] > 1:
                groups.setdefault(s, []).append(i)
        out = []
        for s, members in sorted(groups.items()):
            rest = [self.problem_ids[m] for m in members if m != s]
            out.append([self.problem_ids[s], *rest])
        return out

    def decision(self, pid: str) -> Decision:
        if pid in self.empty:
            return Decision.drop(EMPTY_REASON)
        i = self.index.get(pid)
        if i is None:
            raise RuntimeError(f"dedup: problem {pid!r} was not observed before decide()")
        s = int(self.survivor[i])
        spid = self.problem_ids[s]
        size = int(self.size[i])
        if s == i:
            return Decision(True, columns={"dup_cluster": spid, "dup_cluster_size": size})
        j = float(self.sim[i])
        return Decision.drop(
            f"duplicate_of:{spid} (jaccard={j:.2f})",
            duplicate_of=spid,
            jaccard=round(j, 4),
            kind=self.kind[i],
            dup_cluster=spid,
            dup_cluster_size=size,
        )


class _UnionFind:
    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        parent = self.parent
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:  # smaller index becomes the root: deterministic
            if ra < rb:
                self.parent[rb] = ra
            else:
                self.parent[ra] = rb


def _column(batch: pa.Table, name: str) -> pa.ChunkedArray | None:
    return batch.column(name) if name in batch.column_names else None


def _test_keys(batch: pa.Table) -> np.ndarray:
    """Per row: a hash of its test set (order-free) plus its test code; 0 when too small to tell."""
    n = batch.num_rows
    acc = np.zeros(n, dtype=np.uint64)
    ntok = np.zeros(n, dtype=np.int64)
    ncases = np.zeros(n, dtype=np.int64)
    tests = _column(batch, "tests")
    if tests is not None:
        tests = tests.combine_chunks()
        lengths = pc.fill_null(pc.list_value_length(tests), 0).to_numpy(zero_copy_only=False)
        ncases += lengths.astype(np.int64)
        flat = pc.list_flatten(tests)
        if len(flat):
            ki, ni = text_keys(pc.struct_field(flat, "input"))
            ko, no = text_keys(pc.struct_field(flat, "output"))
            with np.errstate(over="ignore"):
                per_test = mix64(mix64(ki) * np.uint64(3) + ko)
            row = np.repeat(np.arange(n, dtype=np.int64), lengths.astype(np.int64))
            np.add.at(acc, row, per_test)
            np.add.at(ntok, row, ni + no)
    code = _column(batch, "test_code")
    if code is not None:
        code = code.combine_chunks()
        kc, nc = text_keys(code)
        if pa.types.is_string(code.type) or pa.types.is_large_string(code.type):
            asserts = pc.fill_null(pc.count_substring(code, "assert"), 0)
            ncases += asserts.to_numpy(zero_copy_only=False).astype(np.int64)
        with np.errstate(over="ignore"):
            acc = acc ^ mix64(kc ^ np.uint64(0x7E57C0DE))
        ntok += nc
    acc = mix64(acc)
    acc[(ntok < _MIN_TEST_TOKENS) | (ncases < _MIN_TESTS)] = 0
    return acc


def _pass_rank(batch: pa.Table) -> np.ndarray:
    """0 = has a passing reference solution, 1 = unknown, 2 = known to have none."""
    n = batch.num_rows
    rank = np.ones(n, dtype=np.int8)
    ver = _column(batch, "verified")
    if ver is not None:
        v = ver.to_pylist()
        rank = np.array([1 if x is None else (0 if x else 2) for x in v], dtype=np.int8)
    ps = _column(batch, "passing_solutions")
    if ps is not None:
        p = ps.to_pylist()
        rank = np.array(
            [r if x is None else (0 if x > 0 else 2) for r, x in zip(rank.tolist(), p)],
            dtype=np.int8,
        )
    return rank


def _tests_total(batch: pa.Table) -> np.ndarray:
    tt = _column(batch, "tests_total")
    if tt is not None:
        vals = tt.to_pylist()
        if all(v is not None for v in vals):
            return np.asarray(vals, dtype=np.int64)
    tests = _column(batch, "tests")
    base = (
        pc.fill_null(pc.list_value_length(tests), 0).to_numpy(zero_copy_only=False).astype(np.int64)
        if tests is not None
        else np.zeros(batch.num_rows, dtype=np.int64)
    )
    if tt is not None:
        vals = tt.to_pylist()
        base = np.array(
            [b if v is None else v for b, v in zip(base.tolist(), vals)], dtype=np.int64
        )
    return base


class DedupStage(GlobalStage):
    """Drop exact and near duplicate problems, keeping one survivor per cluster. Made from a
    `DedupConfig` (`DedupStage(DedupConfig(threshold=0.9))`; None: the defaults).

    `threshold`: Jaccard similarity of code-aware shingle sets at or above which two problems
    are duplicates (every LSH candidate is verified). `prefer`: sources in order of preference
    for the survivor, after "has a passing solution" and "most tests". `use_solutions`: shingle
    the first reference solution together with the statement. `transitive`: drop every member
    of a union-find cluster, even one that matches its survivor only through other members
    (default: such members form clusters of their own, so every drop is verified).
    """

    name = "dedup"
    output_schema = pa.schema(
        [pa.field("dup_cluster", pa.string()), pa.field("dup_cluster_size", pa.int32())]
    )
    settings_class = DedupConfig
    settings: DedupConfig
    #: what `observe` reads: text, source, and the suite and pass counts that pick a cluster's keeper
    observe_columns = ("problem_id", "statement", "solutions", "source", "tests", "test_code",
                       "verified", "passing_solutions", "tests_total")  # fmt: skip

    def __init__(self, settings: DedupConfig | None = None) -> None:
        s = self.settings_from(settings)
        if s.bands is None or s.rows is None:  # stored resolved: the manifest says what ran
            s.bands, s.rows = lsh_params(s.threshold, s.num_perm)
        s.prefer = tuple(str(p) for p in s.prefer)
        self.settings = s
        self._parts: list[dict[str, Any]] = []
        self._empty: set[str] = set()
        self.result: DedupResult | None = None

    # -- phase 1 -------------------------------------------------------------------------------
    def observe(self, batch: pa.Table) -> None:
        if batch.num_rows == 0:
            return
        if "problem_id" not in batch.column_names:
            raise ValueError("dedup needs a problem_id column")
        pids = batch.column("problem_id").to_pylist()
        st = _column(batch, "statement")
        if st is None:
            raise ValueError("dedup needs a statement column")
        s = self.settings
        sh, off, keys = analyze(st.combine_chunks(), s.k)
        nonempty = np.diff(off) > 0  # a statement with any token has at least one shingle
        for i in np.flatnonzero(~nonempty).tolist():
            self._empty.add(pids[i])
        if not nonempty.any():
            return
        if not nonempty.all() or s.use_solutions:
            batch = batch.filter(pa.array(nonempty))
            pids = [p for p, ok in zip(pids, nonempty.tolist()) if ok]
            sh, off, keys = analyze(self._texts(batch), s.k)
        sig = signatures_from_shingles(sh, off, s.num_perm, s.seed)
        assert s.bands is not None and s.rows is not None  # resolved when the stage was made
        src_col = _column(batch, "source")
        sources = src_col.to_pylist() if src_col is not None else [p.split("/", 1)[0] for p in pids]
        rank = {source: i for i, source in enumerate(s.prefer)}
        self._parts.append(
            {
                "pids": pids,
                "bands": band_hashes(sig, s.bands, s.rows),
                "sh": (sh >> np.uint64(32)).astype(np.uint32),
                "counts": np.diff(off),
                "exact": keys,
                "tests": _test_keys(batch),
                "pass": _pass_rank(batch),
                "ntests": _tests_total(batch),
                "src": np.array([rank.get(x or "", len(rank)) for x in sources], dtype=np.int32),
            }
        )

    def _texts(self, batch: pa.Table) -> pa.Array:
        st = pc.fill_null(batch.column("statement").combine_chunks(), "")
        if not self.settings.use_solutions or "solutions" not in batch.column_names:
            return st
        sols = batch.column("solutions").to_pylist()
        first = [(s[0] if s else "") or "" for s in sols]
        return pc.binary_join_element_wise(st, pa.array(first, pa.string()), "\n")

    # -- phase 2 -------------------------------------------------------------------------------
    def decide(self) -> None:
        s = self.settings
        self.result = _cluster(self._parts, self._empty, s.threshold, s.transitive)
        self._parts = []

    def judge_rows(self, rows: list[ProblemRow]) -> list[Decision]:
        if self.result is None:
            raise RuntimeError("dedup: judge_rows() called before decide()")
        return [self.result.decision(str(r.get("problem_id"))) for r in rows]


def _cat(parts: list[dict[str, Any]], key: str) -> np.ndarray:
    return np.concatenate([p[key] for p in parts])


def _group_pairs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs linking equal non-zero keys: each member to its group's first (smallest index)
    and consecutive members."""
    nz = np.flatnonzero(keys != 0)
    order = nz[np.argsort(keys[nz], kind="stable")]
    sk = keys[order]
    same = sk[1:] == sk[:-1]
    if not same.any():
        z = np.zeros(0, dtype=np.int64)
        return z, z
    new_group = np.r_[True, ~same]
    group_first = np.maximum.accumulate(np.where(new_group, np.arange(len(sk)), 0))
    idx = np.flatnonzero(same) + 1
    a = np.concatenate([order[idx - 1], order[group_first[idx]]])
    b = np.concatenate([order[idx], order[idx]])
    return a, b


class _Observed:
    """Every observed problem's state in canonical order (by problem_id), and its shingles."""

    def __init__(self, parts: list[dict[str, Any]]) -> None:
        pids_in = [p for part in parts for p in part["pids"]]
        n = len(pids_in)
        perm = sorted(range(n), key=pids_in.__getitem__)  # canonical order: by problem_id
        perm_a = np.asarray(perm, dtype=np.int64)
        self.n = n
        self.pids = [pids_in[i] for i in perm]
        off_in = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(_cat(parts, "counts"), out=off_in[1:])
        self.bands = _cat(parts, "bands")[perm_a]
        self.exact = _cat(parts, "exact")[perm_a]
        self.tests = _cat(parts, "tests")[perm_a]
        self.prank = _cat(parts, "pass")[perm_a]
        self.ntests = _cat(parts, "ntests")[perm_a]
        self.src = _cat(parts, "src")[perm_a]
        self._sh = _cat(parts, "sh")
        self._starts = off_in[perm_a]
        self._ends = off_in[perm_a + 1]
        self._cache: dict[int, np.ndarray] = {}

    def shingles(self, i: int) -> np.ndarray:
        """Problem i's distinct hashed shingles (sorted)."""
        u = self._cache.get(i)
        if u is None:
            u = np.unique(self._sh[self._starts[i] : self._ends[i]])
            self._cache[i] = u
        return u

    def candidates(self) -> tuple[list[int], list[int]]:
        """The LSH candidate pairs (a < b), each once: problems that share a band."""
        pa_list, pb_list = [], []
        for band in range(self.bands.shape[1]):
            a, b = _group_pairs(self.bands[:, band])
            pa_list.append(np.minimum(a, b))
            pb_list.append(np.maximum(a, b))
        if not pa_list:
            return [], []
        n = self.n
        code = np.unique(np.concatenate(pa_list) * n + np.concatenate(pb_list))
        return (code // n).tolist(), (code % n).tolist()


def _link(
    obs: _Observed, threshold: float, uf: _UnionFind
) -> tuple[list[int], list[int], int, int]:
    """Union exact matches (same normalised statement, same test set) unconditionally, and LSH
    candidates whose Jaccard reaches `threshold`; the verified links, and how many candidates
    there were and were verified."""
    for keys in (obs.exact, obs.tests):
        ea, eb = _group_pairs(keys)
        for a, b in zip(ea.tolist(), eb.tolist()):
            uf.union(a, b)
    cand_a, cand_b = obs.candidates()
    find = uf.find
    edges_a: list[int] = []
    edges_b: list[int] = []
    verified = 0
    for a, b in zip(cand_a, cand_b):
        if a == b or find(a) == find(b):
            continue
        verified += 1
        sa, sb = obs.shingles(a), obs.shingles(b)
        small, large = sorted((len(sa), len(sb)))
        if small < threshold * large:  # Jaccard <= small / large: cannot reach the threshold
            continue
        if jaccard(sa, sb) >= threshold:
            uf.union(a, b)
            edges_a.append(a)
            edges_b.append(b)
    return edges_a, edges_b, len(cand_a), verified


def _split_cluster(
    obs: _Observed,
    members: list[int],
    threshold: float,
    transitive: bool,
    survivor: np.ndarray,
    sim: np.ndarray,
    kind: list[str],
) -> None:
    """One union-find cluster, best survivor first: each member that matches the survivor itself
    is dropped for it; unless `transitive`, the others form clusters of their own, again."""
    exact, tests = obs.exact, obs.tests
    while members:
        s, rest = members[0], []
        for i in members[1:]:
            j = jaccard(obs.shingles(i), obs.shingles(s))
            if exact[i] != 0 and exact[i] == exact[s]:
                k = "exact_statement"
            elif tests[i] != 0 and tests[i] == tests[s]:
                k = "same_tests"
            elif j >= threshold:
                k = "near"
            elif transitive:
                k = "near_transitive"  # linked through other members of the cluster
            else:
                rest.append(i)  # not close enough to this survivor: a cluster of its own
                continue
            survivor[i], sim[i], kind[i] = s, j, k
        members = rest


def _cluster(
    parts: list[dict[str, Any]], empty: set[str], threshold: float, transitive: bool = False
) -> DedupResult:
    """Union-find over exact keys and verified LSH candidates, then one survivor per cluster.

    Unless `transitive`, a member is dropped only when it matches its survivor itself (same
    normalised statement, same tests, or Jaccard >= threshold); members that were linked only
    through others are clustered again among themselves, so every `duplicate_of` is verified.
    """
    if not parts:
        z = np.zeros(0, dtype=np.int64)
        return DedupResult([], z, z, np.zeros(0), [], set(empty))
    obs = _Observed(parts)
    del parts[:]
    n = obs.n
    uf = _UnionFind(n)
    edges_a, edges_b, candidates, verified = _link(obs, threshold, uf)
    roots = np.fromiter((uf.find(i) for i in range(n)), dtype=np.int64, count=n)
    # Survivor: passing solution, most tests, preferred source, smallest problem_id.
    order = np.lexsort((np.arange(n), obs.src, -obs.ntests, obs.prank, roots))
    survivor = np.arange(n, dtype=np.int64)
    sim = np.ones(n, dtype=np.float64)
    kind = [""] * n
    sr = roots[order]
    bounds = np.flatnonzero(np.r_[True, sr[1:] != sr[:-1], True])
    for g in range(len(bounds) - 1):
        lo, hi = int(bounds[g]), int(bounds[g + 1])
        if hi - lo >= 2:
            members = order[lo:hi].tolist()  # best survivor first
            _split_cluster(obs, members, threshold, transitive, survivor, sim, kind)
    size = np.bincount(survivor, minlength=n)[survivor]
    result = DedupResult(obs.pids, survivor, size, sim, kind, set(empty))
    result.edge_a = np.asarray(edges_a, dtype=np.int64)
    result.edge_b = np.asarray(edges_b, dtype=np.int64)
    result.stats = {"problems": n, "candidates": candidates, "verified": verified,
                    "linked": len(edges_a)}  # fmt: skip
    return result


def find_duplicates(
    texts: Sequence[str],
    threshold: float | None = None,
    ids: Sequence[str] | None = None,
    **settings: Any,
) -> list[list[str]]:
    """Clusters (lists of ids, survivor first) of near-duplicate texts: the dedup stage on bare
    text; `threshold` and `settings` are `DedupConfig`'s (None: its threshold)."""
    ids = [str(i) for i in ids] if ids is not None else [f"{i:09d}" for i in range(len(texts))]
    if threshold is not None:
        settings["threshold"] = threshold
    stage = DedupStage(DedupConfig(**settings))
    stage.observe(pa.table({"problem_id": ids, "statement": list(texts)}))
    stage.decide()
    assert stage.result is not None
    return stage.result.clusters()
