"""Decontamination: drop problems that overlap an evaluation benchmark.

A problem is contaminated by a benchmark problem when (in this order) its statement shares word
n-grams with it (default n = 13, case folded, punctuation skipped) covering at least
`min_coverage` (default half) of the benchmark statement's n-grams, or its whole normalised
statement equals the benchmark's, or it carries the same tests (assert lines with the function
name normalised, or test inputs; at least min(3, all) of the benchmark problem's tests), or one
of its reference solutions equals a benchmark solution up to whitespace and comments.
N-grams found in many benchmark problems are boilerplate and ignored. The coverage rule exists
because contest statements share long stock phrases ("The first line contains two integers n
and m (1 <= n ..."; the "answer modulo 10^9+7 as an irreducible fraction" paragraph): on the
shared data one common 13-gram flagged 107 of 300 CodeContests training problems against the
CodeContests test split, all at most 16% coverage, while real copies cover 60 to 100%.
The benchmark index is built once, at construction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from filters.contracts import ProblemRow
from filters.settings import DecontamConfig
from filters.stage import Decision, RowStage
from filters.stages.decontam.references import BenchmarkProblem, load_benchmark
from filters.stages.dedup.shingles import text_keys, word_ngrams

__all__ = ["DecontamConfig", "DecontamStage", "normalize_test", "normalize_code"]

_WS = re.compile(r"\s+")
_MIN_TEST_CHARS = 16
_MAX_SPAN_CHARS = 1000


_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_CHECK_PARAM = re.compile(r"^\s*def\s+check\s*\(\s*([A-Za-z_]\w*)", re.MULTILINE)
_BUILTINS = frozenset(
    """abs all any bool dict enumerate filter float frozenset int isinstance len list map max min
    print range repr reversed round set sorted str sum tuple type zip isclose math assert not
    check candidate""".split()
)


def _names(test: str, lines: list[str], entry_point: str | None) -> list[str]:
    """Names that stand for the function under test: `candidate`, the entry point, the
    parameter of `check(...)`, and the function most assert lines call first."""
    names = {"candidate"}
    if entry_point:
        names.update(
            n for n in re.split(r"[.()\s]+", entry_point) if n.isidentifier() and n != "Solution"
        )
    names.update(_CHECK_PARAM.findall(test))
    firsts: dict[str, int] = {}
    for line in lines:
        called = [c for c in _CALL.findall(line) if c not in _BUILTINS]
        if called:
            firsts[called[0]] = firsts.get(called[0], 0) + 1
    if firsts:
        names.add(max(sorted(firsts), key=firsts.__getitem__))
    return sorted(names)


def normalize_test(test: str, entry_point: str | None = None) -> list[str]:
    """Comparable keys of one test: each assert line with the tested function renamed to `f`
    and whitespace removed, or the whitespace-folded input itself. Short keys are dropped."""
    if not test:
        return []
    if "assert" in test:
        lines = [s for s in (ln.strip() for ln in test.splitlines()) if s.startswith("assert")]
        pat = re.compile(
            r"\b(" + "|".join(map(re.escape, _names(test, lines, entry_point))) + r")\b"
        )
        keys = (_WS.sub("", pat.sub("f", line)) for line in lines)
        return [k for k in keys if len(k) >= _MIN_TEST_CHARS]
    key = _WS.sub(" ", test).strip()
    return [key] if len(key) >= _MIN_TEST_CHARS else []


def normalize_code(code: str) -> str:
    """Code with blank and comment-only lines dropped and whitespace folded per line."""
    lines = []
    for line in (code or "").splitlines():
        s = _WS.sub(" ", line).strip()
        if s and not s.startswith("#"):
            lines.append(s)
    return "\n".join(lines)


def _row_tests(row: ProblemRow) -> list[str]:
    ep = row.get("entry_point")
    keys: list[str] = []
    for t in row.get("tests") or []:
        if isinstance(t, dict) and t.get("input") is not None:
            keys += normalize_test(str(t["input"]), ep)
    if row.get("test_code"):
        keys += normalize_test(str(row["test_code"]), ep)
    return keys


class DecontamStage(RowStage):
    """Drop problems that overlap the named benchmarks (see module docstring). Made from a
    `DecontamConfig` (`DecontamStage(DecontamConfig(against=["humaneval"]))`; None: the defaults).

    `against`: benchmark names (`humaneval`, `mbpp-test`, `lcb=PATH`), `NAME=PATH` or file
    paths. `ngram`: words per n-gram. `lcb_start`/`lcb_end`: contest_date window for `lcb`.
    `max_df`: an n-gram found in more benchmark problems than this is boilerplate.
    `min_coverage`: the share of a benchmark statement's n-grams a problem must contain (0 = any
    shared n-gram, the classic rule). `problems`: benchmark problems loaded by the caller; a
    benchmark of `against` named by them is not loaded again (a build's bare `lcb`, read from
    the hub by `curation.decontam_hub`).
    """

    name = "decontam"
    output_schema = pa.schema([pa.field("contaminated_by", pa.string())])

    settings_class = DecontamConfig
    settings: DecontamConfig

    def __init__(
        self,
        settings: DecontamConfig | None = None,
        *,
        problems: Sequence[BenchmarkProblem] | None = None,
    ) -> None:
        s = self.settings_from(settings)
        s.against = tuple(str(a) for a in s.against)
        self.settings = s
        probs: list[BenchmarkProblem] = list(problems or [])
        given = {p.benchmark for p in probs}  # loaded by the caller (a build's `lcb`: the hub)
        for spec in s.against:
            if spec.strip() not in given:
                probs += load_benchmark(spec, lcb_start=s.lcb_start, lcb_end=s.lcb_end)
        self.problems = probs
        self._build()

    def benchmark_sizes(self) -> dict[str, int]:
        """How many loaded benchmark problems each benchmark name has (the build's manifest)."""
        sizes: dict[str, int] = {}
        for p in self.problems:
            sizes[p.benchmark] = sizes.get(p.benchmark, 0) + 1
        return sizes

    def config(self) -> dict[str, Any]:
        """The settings, and how many benchmark problems they loaded."""
        return {**super().config(), "benchmark_problems": len(self.problems)}

    def _build(self) -> None:
        probs = self.problems
        statements = [p.statement or "" for p in probs]
        grams, off, _ = word_ngrams(statements, self.settings.ngram)
        owner = np.repeat(np.arange(len(probs), dtype=np.int64), np.diff(off))
        # One entry per (gram, problem), sorted by gram; grams shared by many problems are
        # boilerplate and dropped.
        if len(grams):
            pairs = np.unique(np.stack([grams, owner.astype(np.uint64)], axis=1), axis=0)
        else:
            pairs = np.zeros((0, 2), np.uint64)
        g, inv, df = np.unique(pairs[:, 0], return_inverse=True, return_counts=True)
        keep = df[inv] <= self.settings.max_df
        self._gram_keys = pairs[keep, 0]
        self._gram_owner = pairs[keep, 1].astype(np.int64)
        # distinct indexed n-grams per benchmark problem: the denominator of coverage
        self._gram_total = np.bincount(self._gram_owner, minlength=len(probs)).astype(np.float64)
        keys, ntok = text_keys(statements)
        self._exact: dict[int, int] = {}
        for i, (k, n) in enumerate(zip(keys.tolist(), ntok.tolist())):
            if n:
                self._exact.setdefault(k, i)
        self._tests: dict[str, list[int]] = {}
        self._need = np.zeros(len(probs), dtype=np.int64)
        for i, p in enumerate(probs):
            ks = set()
            for t in p.tests:
                ks.update(normalize_test(t, p.entry_point))
            for k in ks:
                self._tests.setdefault(k, []).append(i)
            self._need[i] = min(3, len(ks))
        self._solutions: dict[str, int] = {}
        for i, p in enumerate(probs):
            for s in p.solutions:
                code = normalize_code(s)
                if code.count("\n") >= 1 or len(code) >= 40:
                    self._solutions.setdefault(code, i)

    def _reason(self, i: int) -> str:
        p = self.problems[i]
        return f"contaminated:{p.benchmark}:{p.id}"

    def _drop(self, i: int, kind: str, span: str) -> Decision:
        p = self.problems[i]
        return Decision.drop(
            self._reason(i),
            matched_span=span[:_MAX_SPAN_CHARS],
            kind=kind,
            benchmark=p.benchmark,
            benchmark_id=p.id,
            contaminated_by=f"{p.benchmark}:{p.id}",
        )

    def _span(self, text: str, hit_grams: np.ndarray) -> str:
        """The statement text covered by the first run of consecutive matching n-grams."""
        ngram = self.settings.ngram
        _, _, t = word_ngrams([text], ngram, spans=True)
        assert t is not None
        ws, we = t.starts[t.word], t.ends[t.word]
        g0 = int(hit_grams[0])
        g1 = g0
        hits = set(hit_grams.tolist())
        while g1 + 1 in hits:
            g1 += 1
        last = min(g1 + ngram - 1, len(ws) - 1)
        return bytes(t.data[ws[g0] : we[last]]).decode("utf-8", "replace")

    def judge_rows(self, rows: list[ProblemRow]) -> list[Decision]:
        if not rows:
            return []
        statements = [r.get("statement") or "" for r in rows]
        grams, off, _ = word_ngrams(statements, self.settings.ngram)
        keys, ntok = text_keys(statements)
        gk = self._gram_keys
        if len(gk) and len(grams):
            lo_pos = np.searchsorted(gk, grams, side="left")
            hi_pos = np.searchsorted(gk, grams, side="right")
            hit = hi_pos > lo_pos
        else:
            lo_pos = hi_pos = np.zeros(len(grams), dtype=np.int64)
            hit = np.zeros(len(grams), dtype=bool)
        out = []
        for j, r in enumerate(rows):
            lo, hi = int(off[j]), int(off[j + 1])
            d = self._judge_ngrams(
                statements[j], keys[j], ntok[j], lo_pos[lo:hi], hi_pos[lo:hi], hit[lo:hi]
            )
            if d is not None:
                out.append(d)
                continue
            if ntok[j] and int(keys[j]) in self._exact:
                out.append(self._drop(self._exact[int(keys[j])], "statement", statements[j]))
                continue
            d = self._judge_tests(r) if self.settings.check_tests else None
            if d is None and self.settings.check_solutions:
                d = self._judge_solutions(r)
            out.append(d or Decision(True, columns={"contaminated_by": None}))
        return out

    def _judge_ngrams(
        self,
        statement: str,
        key: Any,
        ntok: Any,
        lo_pos: np.ndarray,
        hi_pos: np.ndarray,
        hit: np.ndarray,
    ) -> Decision | None:
        """The benchmark problem whose statement this one covers most (ties: most shared n-grams,
        then the exact statement, then the first listed), if the coverage reaches `min_coverage`."""
        h = np.flatnonzero(hit)
        if not len(h):
            return None
        owners = [self._gram_owner[lo_pos[x] : hi_pos[x]] for x in h.tolist()]
        grams_of: dict[int, set[int]] = {}
        for x, o in zip(h.tolist(), owners):
            gram = int(lo_pos[x])  # the position of the gram in the index identifies it
            for i in o.tolist():
                grams_of.setdefault(i, set()).add(gram)
        exact = self._exact.get(int(key)) if ntok else None

        def rank(i: int) -> tuple[float, int, bool, int]:
            shared = len(grams_of[i])
            return (shared / max(self._gram_total[i], 1.0), shared, i == exact, -i)

        owner = max(grams_of, key=rank)
        if rank(owner)[0] < self.settings.min_coverage:
            return None
        same = np.array([x for x, o in zip(h.tolist(), owners) if owner in o.tolist()])
        return self._drop(owner, "ngram", self._span(statement, same))

    def _judge_tests(self, row: ProblemRow) -> Decision | None:
        if not self._tests:
            return None
        counts: dict[int, list[str]] = {}
        for k in set(_row_tests(row)):
            for i in self._tests.get(k, ()):
                counts.setdefault(i, []).append(k)
        best = [i for i, ks in counts.items() if len(ks) >= self._need[i] > 0]
        if not best:
            return None
        i = min(best)
        return self._drop(i, "tests", "\n".join(sorted(counts[i])))

    def _judge_solutions(self, row: ProblemRow) -> Decision | None:
        if not self._solutions:
            return None
        for s in row.get("solutions") or []:
            code = normalize_code(s or "")
            i = self._solutions.get(code)
            if i is not None:
                return self._drop(i, "solution", code)
        return None
