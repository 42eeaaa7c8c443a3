"""C++ token mutants: one token changed, only in code `main` reaches, never a comment, string,
preprocessor line, template bracket or stream operator; and verify measures a problem whose
only passing references are C++ by them (before, such a problem was kept unmeasured)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from curation.record_files import records_to_table
from curation.schema import normalize_record
from filters.sandbox import Sandbox
from filters.settings import VerifyConfig
from filters.stages.verify.cpp_mutants import cpp_mutation_sites, cpp_tokens, generate_cpp_mutants
from filters.stages.verify.mutants import mutants_of
from filters.stages.verify.stage import VerifyStage
from tests.conftest import SHARED_DATA

REFS = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "codecontests_cpp_refs.json"
needs_gpp = pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler")


def refs() -> dict[str, str]:
    return json.loads(REFS.read_text())["solutions"]


def test_each_mutant_of_a_real_reference_changes_one_token():
    for pid, code in refs().items():
        before = cpp_tokens(code)
        mutants = generate_cpp_mutants(code, n=8, seed=0)
        assert mutants, pid
        assert len(set(mutants)) == len(mutants) and code not in mutants
        for m in mutants:
            after = cpp_tokens(m)
            assert len(after) == len(before), (pid, m)
            changed = [(a, b) for a, b in zip(before, after) if a[1] != b[1]]
            assert len(changed) == 1, (pid, changed)
            (kind, old, _), (_, new, _) = changed[0]
            assert kind in ("op", "ident", "number") and old not in ("<<", ">>"), (pid, old, new)


PROGRAM = r"""#include <bits/stdc++.h>
#define LIMIT 100 + 1
using namespace std;
// a comment with a < b and 1 + 2
int unused_helper(int a) { return a < 3 ? a + 1 : a - 1; }
long long twice(long long x) { return x * 2; }
int main() {
    vector<pair<int, int>> v;
    map<int, vector<int>> m;
    int n;
    cin >> n;
    string s = "1 + 2 < 3";
    char c = '+';
    for (int i = 0; i < n; i++) v.push_back({i, i});
    cout << twice(n) << s << c << (int)v.size() << endl;
}
"""


def test_comments_strings_preprocessor_templates_streams_and_unused_code_are_left_alone():
    sites = cpp_mutation_sites(PROGRAM)
    offsets = {o for o, _, _ in sites}
    line_of = {o: PROGRAM.count("\n", 0, o) for o in offsets}
    lines = PROGRAM.splitlines()
    touched = {lines[line_of[o]].strip() for o in offsets}
    # main and the function it names (twice), nothing else
    assert touched == {
        "long long twice(long long x) { return x * 2; }",
        "for (int i = 0; i < n; i++) v.push_back({i, i});",
    }, touched
    changes = sorted((old, new) for _, old, new in sites)
    assert ("<", "<=") in changes and ("++", "--") in changes and ("*", "+") in changes
    assert ("2", "3") in changes and ("0", "1") in changes
    assert all(old not in ("<<", ">>") for old, _ in changes)


def test_unary_minus_pointer_declarators_and_keywords_are_not_binary_operators():
    code = "int main() { int *p = 0; int x = -1; return (x) - 2; }"
    ops = [(old, new) for _, old, new in cpp_mutation_sites(code) if old in "*-"]
    assert ops == [("-", "+")], ops  # the `-` after `)`; not `*p` nor `-1`


def test_mutants_of_picks_the_language():
    assert mutants_of("def f(a):\n    return a + 1\n", "python", 3, focus="f")
    cpp = "int main() { int a = 1; return a + 1; }"
    assert mutants_of(cpp, "cpp", 3) == generate_cpp_mutants(cpp, 3)
    assert mutants_of("class Main {}", "java", 3) == []


CPP_ADD = (
    "#include <cstdio>\n"
    'int main() { long long a, b; scanf("%lld %lld", &a, &b); printf("%lld\\n", a + b); }\n'
)


def add_problem(pid: str, pairs: list[tuple[int, int]]) -> dict:
    return normalize_record(
        {
            "id": pid,
            "source": "t",
            "statement": "add two numbers",
            "test_type": "stdio",
            "tests": [{"input": f"{a} {b}\n", "output": f"{a + b}\n"} for a, b in pairs],
            "solutions": [CPP_ADD],
            "solution_languages": ["cpp"],
        }
    )


@needs_gpp
def test_a_cpp_only_problem_with_weak_tests_is_dropped_by_its_mutants():
    weak = add_problem("weak", [(k, 0) for k in range(1, 6)])  # b = 0: a - b passes too
    strong = add_problem("strong", [(1, 2), (3, 4), (0, 5), (9, -19), (7, 7)])
    with Sandbox(workers=2) as sb:
        result = VerifyStage(VerifyConfig(min_tests=5), sandbox=sb).process(records_to_table([weak, strong]))
    kept = {r["id"] for r in result.kept.to_pylist()}
    dropped = {r["id"]: r["reject_reason"] for r in result.dropped.to_pylist()}
    assert kept == {"strong"} and dropped == {"weak": "weak_tests"}
    detail = json.loads(result.dropped.to_pylist()[0]["reject_detail"])
    assert detail["mutation_score"] == 0.0 and detail["mutants"] >= 1


@needs_gpp
@pytest.mark.skipif(not SHARED_DATA.is_dir(), reason="needs ../shared/data")
def test_real_codecontests_problems_judged_by_cpp_alone_are_measured_by_cpp_mutants():
    by_id = refs()
    rows = []
    with gzip.open(SHARED_DATA / "codecontests-subset300.jsonl.gz", "rt") as f:
        for line in f:
            row = json.loads(line)
            if row["id"] in by_id:
                rows.append(
                    normalize_record(
                        {
                            "id": row["id"],
                            "source": "codecontests",
                            "statement": row.get("statement") or row["id"],
                            "test_type": "stdio",
                            "tests": row["tests"],
                            "solutions": [by_id[row["id"]]],
                            "solution_languages": ["cpp"],
                        }
                    )
                )
    rows = sorted(rows, key=lambda r: r["id"])[:4]
    assert len(rows) == 4
    with Sandbox(workers=2) as sb:
        result = VerifyStage(VerifyConfig(min_tests=5, mutants=6), sandbox=sb).process(records_to_table(rows))
    kept = result.kept.to_pylist()
    # their full CodeContests suites kill the mutants: kept, with a strength measured by them
    assert len(kept) >= 3, [(r["id"], r["reject_reason"]) for r in result.dropped.to_pylist()]
    for r in kept:
        assert r["passing_languages"] == ["cpp"]
        assert r["test_strength"] is not None and r["test_strength"] >= 0.5, r["id"]
