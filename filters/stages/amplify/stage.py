"""The amplify stage: new tests for problems whose tests are few or weak, labelled by their references.

For each problem it mutates the inputs of its own tests (`filters.stages.amplify.inputgen`), runs the reference
solutions that pass the original tests on them in the sandbox (in every language it judges: Python,
and C++ on stdio problems, the fastest labelling first; `filters.stages.verify.labelling`), and keeps an input only if every
such reference runs it cleanly within the limits (returning the types it returns on the
originals; a tree that reads back as its list arguments and stays a search tree where the
originals' do), twice under different hash seeds, and each is
accepted by the judge against the first one's output (the same comparison, checker or converted
assertion the problem is judged with), and the output is small. One output that changes with the
hash seed makes every label of that reference untrusted: the problem keeps its original tests. Kept tests are chosen by
mutants of a reference (`filters.stages.verify.mutants`: AST mutants of a Python one; token mutants of a C++ one
when only C++ references pass and `cpp_mutants` is set): a round keeps the inputs that kill a mutant the suite
let through, and stops when none is left (the target), when a round kills nothing more, or at the
cap on tests; then ordinary kept inputs fill the suite up to `target_tests`.

The stage drops a problem only when its runs take more CPU than `cpu_budget_s` (`too_slow`, with
what they took: a slow problem cannot hold a build). It adds `generated_tests` (each with its seed and the original
test it came from), and says what it did in `amplify_status` (`amplified`, `not_needed`,
`skipped`, `failed`) and `amplify_note`: a reference that is non-deterministic, crashes on every
mutation or prints megabytes leaves the problem with its original tests and the reason, and so
does a statement that accepts several answers ("print any of them"; for call tests, other than
the answer's order, which the `any_order` comparison handles) when only one reference passes.
"""

from __future__ import annotations

import ast
import json
import math
import random
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from filters.contracts import ProblemRow
from filters.judging.judge_style import allows_several_answers, comparison_of, several_valid_answers
from filters.sandbox import RunResult
from filters.sandbox.assert_calls import RESULT_NAME, convert_problem
from filters.sandbox.valuecodec import TreeValue, decode, encode, loads
from filters.settings import CALIBRATION_LIMIT_S, TIME_MARGIN, AmplifyConfig
from filters.stage import Decision
from filters.stages.amplify.inputgen import input_generator, is_search_tree, traversals
from filters.stages.sandboxed import ProblemCost, SandboxedStage, TooSlow
from filters.stages.verify.labelling import (
    disagreement,
    labelling_languages,
    labelling_order,
    labelling_references,
    mutated_reference,
)
from filters.stages.verify.mutants import mutants_of
from filters.tools import python_ast
from filters.tools.threads import thread_map

__all__ = [
    "AmplifyConfig",
    "AmplifyStage",
    "GENERATED_TEST",
    "EXPECTED_NAME",
    "expected_check",
]

#: The name that stands for the reference's value in a generated test's check.
EXPECTED_NAME = "__cm_expected"
#: One generated test: its input and expected output (for converted assert suites also the check
#: and its constants), the seed that made the input and the original test it was mutated from.
GENERATED_TEST = pa.struct(
    [
        ("input", pa.string()),
        ("output", pa.string()),
        ("check", pa.string()),
        ("env", pa.string()),
        ("seed", pa.int64()),
        ("parent", pa.int32()),
    ]
)


# ---- the check of a generated call test (converted assert suites) ----------------------------------
def _has_result(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id == RESULT_NAME for n in ast.walk(node))


class _Swap(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name(EXPECTED_NAME, ast.Load()) if node.id == RESULT_NAME else node


def _on_expected(node: ast.expr) -> ast.expr:
    """The same expression applied to the expected value instead of the result."""
    return _Swap().visit(python_ast.parse(ast.unparse(node), mode="eval").body)


def _is_isclose(node: ast.AST) -> bool:
    f = getattr(node, "func", None)
    return (
        isinstance(node, ast.Call)
        and isinstance(f, ast.Attribute)
        and isinstance(f.value, ast.Name)
        and f.value.id == "math"
        and f.attr == "isclose"
        and len(node.args) == 2
    )


def expected_check(check: str, value: Any) -> str | None:
    """The check of a new test whose expected value is `value`, shaped like an original `check`.

    What the original applies to the result it now applies to the expected value too:
    `sorted(R) == [1, 2]` -> `sorted(R) == sorted(E)`, `abs(R - 0.5) < 1e-6` -> `abs(R - E) < 1e-6`,
    `math.isclose(R, 2.0, rel_tol=...)` -> `math.isclose(R, E, rel_tol=...)`, `R is True` ->
    `R is <the value>` (True, False or None); a bare `R` or `not R` -> `R == E`;
    `is_same_tree(R, tree_node([1, 2]))` -> `is_same_tree(R, E)` (likewise `is_same_list`). A float compared with `==` gets a 1e-9 relative tolerance (another correct
    program may round differently). None when the original's shape does not say what a right
    answer is (`R != 3`, `R in [1, 2]`, `R > 0`): several answers may be right there.
    """
    try:
        root = python_ast.parse(check, mode="eval").body
    except SyntaxError:
        return None
    queue: list[ast.AST] = [root]
    while queue:
        node = queue.pop(0)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = node.left, node.comparators[0]
            op = node.ops[0]
            diff = _abs_difference(left)
            if diff is not None and isinstance(op, (ast.Lt, ast.LtE)) and not _has_result(right):
                if _has_result(diff.left) != _has_result(diff.right):
                    if _has_result(diff.left):
                        diff.right = _on_expected(diff.left)
                    else:
                        diff.left = _on_expected(diff.right)
                    return ast.unparse(root)
            if _has_result(left) != _has_result(right):
                side = left if _has_result(left) else right
                if isinstance(op, ast.Eq):
                    return _equality(side, value)
                other = right if side is left else left
                if isinstance(op, ast.Is) and isinstance(other, ast.Constant):
                    if value is None or type(value) is bool:
                        return f"({ast.unparse(side)}) is {value!r}"
                return None
        if _is_same_shape(node) or _is_isclose(node):
            a, b = node.args  # type: ignore[attr-defined]
            if _has_result(a) != _has_result(b):
                side = a if _has_result(a) else b
                node.args = [side, _on_expected(side)]  # type: ignore[attr-defined]
                return ast.unparse(root)
        if isinstance(node, (ast.BoolOp, ast.UnaryOp, ast.Compare)):
            break  # `R == 1 or R == 2`, `not R == 1`: several answers, or a shape not handled
        queue.extend(ast.iter_child_nodes(node))
    if isinstance(root, ast.Name) and root.id == RESULT_NAME:
        return _equality(root, value)
    if isinstance(root, ast.UnaryOp) and isinstance(root.op, ast.Not):
        if isinstance(root.operand, ast.Name) and root.operand.id == RESULT_NAME:
            return _equality(root.operand, value)
    return None


def _is_same_shape(node: ast.AST) -> bool:
    """`is_same_tree(a, b)` / `is_same_list(a, b)` (LeetCodeDataset's comparison of nodes)."""
    f = getattr(node, "func", None)
    return (
        isinstance(node, ast.Call)
        and isinstance(f, ast.Name)
        and f.id in ("is_same_tree", "is_same_list")
        and len(node.args) == 2
        and not node.keywords
    )


def _abs_difference(node: ast.AST) -> ast.BinOp | None:
    """`d` when `node` is `abs(d)` or `math.fabs(d)` with `d` a subtraction."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return None
    f = node.func
    named = (isinstance(f, ast.Name) and f.id == "abs") or (
        isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "math"
        and f.attr == "fabs"
    )  # fmt: skip
    arg = node.args[0]
    return arg if named and isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Sub) else None


def _generalizes(check: str) -> bool:
    """Whether `expected_check` can shape new tests like this one (`is None` needs a None value)."""
    return any(expected_check(check, v) is not None for v in (0, None))


def _equality(side: ast.expr, value: Any) -> str:
    text = ast.unparse(side)
    if isinstance(side, ast.Name) and type(value) is float and math.isfinite(value):
        return f"math.isclose({text}, {EXPECTED_NAME}, rel_tol=1e-09, abs_tol=1e-09)"
    return f"{text} == {ast.unparse(_on_expected(side))}"


# ---- the stage ----------------------------------------------------------------------------------
@dataclass
class _Outcome:
    status: str
    note: str
    tests: list[dict[str, Any]] = field(default_factory=list)
    killed_before: int | None = None
    killed_after: int | None = None
    mutants: int = 0
    languages: list[str] = field(default_factory=list)  # of the labelling references


@dataclass
class _Job:
    """What labelling new inputs of one problem needs."""

    base: dict[str, Any]  # the problem as judged, without generated tests
    refs: list[tuple[str, str]]  # passing references (source, language); the first one labels
    limit: float  # time limit (s) of a run
    budget_ms: float  # the most CPU a new test may take the labelling reference
    out_cap: int  # the largest output a new test may have
    shapes: set[str] | None  # the types a call's return value had on the original tests
    trips: set[tuple[Any, str]] = field(default_factory=set)  # (argument, order): _round_trips
    cost: ProblemCost = field(default_factory=lambda: ProblemCost(None))  # the problem's CPU here


@dataclass
class _Growth:
    """One problem's search for new tests, round after round: what it has found so far."""

    originals: list[dict[str, Any]]  # the problem's own tests
    alive: list[str]  # the mutants no test kills yet
    judged: int  # the mutants judged (a C++ one that does not compile is not)
    seen: set[str]  # every input known or tried, canonical (`_canonical`)
    chosen: list[dict[str, Any]] = field(default_factory=list)  # new tests that killed a mutant
    spare: list[dict[str, Any]] = field(default_factory=list)  # new tests that killed none
    why: Counter[str] = field(default_factory=Counter)  # why candidates were dropped
    cost: dict[str, float] = field(default_factory=dict)  # input -> slowest reference's CPU ms


def _shape(value: Any, prefix: str = "", out: set[str] | None = None) -> set[str]:
    """The types in a value by position: [[1, 2]] -> {list, list/list, list/list/int}."""
    out = set() if out is None else out
    name = prefix + type(value).__name__
    out.add(name)
    if type(value) in (list, tuple, set, frozenset) and len(out) < 64:
        for x in list(value)[:256]:
            _shape(x, name + "/", out)
    elif type(value) is dict and len(out) < 64:
        for k, v in list(value.items())[:256]:
            _shape(k, name + ":key/", out)
            _shape(v, name + ":value/", out)
    return out


def _value(base: dict[str, Any], text: str) -> Any:
    return loads(text) if base.get("typed_calls") else json.loads(text)


def _arguments(text: str) -> dict[Any, Any]:
    """A converted call's arguments by position and name."""
    raw = json.loads(text)
    args: dict[Any, Any] = {i: decode(a) for i, a in enumerate(raw["args"])}
    args.update({k: decode(v) for k, v in raw["kwargs"].items()})
    return args


def _trips_of(args: dict[Any, Any], value: Any) -> set[tuple[Any, str]]:
    """(argument, order) where the returned tree read in that order is the list argument (a tree
    built from its preorder and postorder gives them back), and ("result", "search tree") where
    the returned tree is one."""
    out: set[tuple[Any, str]] = set()
    if value is None or (type(value) is TreeValue and is_search_tree(value)):
        out.add(("result", "search tree"))
    for k, v in args.items():
        if type(v) is not list:
            continue
        if value is None and not v:
            out.update((k, order) for order in ("preorder", "inorder", "postorder", "level order"))
        elif type(value) is TreeValue:
            out.update((k, order) for order, seq in traversals(value).items() if list(seq) == v)
    return out


def _round_trips(pairs: list[tuple[str, Any]]) -> set[tuple[Any, str]]:
    """What every original (input text, returned value) pair shows: the returned tree, read in
    some order, is a list argument; it is a search tree (with three nodes or more at least once).
    An input on which that fails (a preorder no search tree has, a preorder and a postorder of two
    different trees) is outside the problem's contract."""
    trips: set[tuple[Any, str]] | None = None
    if not any(type(v) is TreeValue and len(v) > 2 for _, v in pairs):
        return set()
    for text, value in pairs:
        if value is not None and type(value) is not TreeValue:
            return set()
        try:
            found = _trips_of(_arguments(text), value)
        except (ValueError, TypeError, KeyError):
            return set()
        trips = found if trips is None else trips & found
    return trips or set()


def _returns_known_types(base: dict[str, Any], text: str, shapes: set[str]) -> bool:
    try:
        return _shape(_value(base, text)) <= shapes
    except (ValueError, TypeError, RecursionError):
        return False


class _Unstable(Exception):
    """The reference's output on a new input changed with the hash seed."""


def _seed_of(seed: int, key: str, round_: int, k: int) -> int:
    return zlib.crc32(f"{seed}:{key}:{round_}:{k}".encode())


#: references that must pass and agree before a several-answers problem without a checker is
#: amplified (two similar programs often return the same one of the valid answers)
SEVERAL_ANSWERS_MIN_REFERENCES = 3


def _canonical(text: str, kind: str) -> str:
    """A test input as its program reads it: a call's arguments as canonical JSON, a stdin text
    without trailing spaces and blank lines at its end (an input equal to a known one up to these
    is no new test)."""
    if kind != "stdio":
        try:
            return json.dumps(json.loads(text), sort_keys=True)
        except ValueError:
            return text
    return "\n".join(line.rstrip() for line in text.rstrip().split("\n"))


class AmplifyStage(SandboxedStage):
    """Add generated tests to problems with few or weak tests (drops only a `too_slow` row).

    min_tests / target_tests: a problem with at least `target_tests` tests whose mutants all die is
    left alone; otherwise the suite grows to at least `target_tests` (when enough valid inputs come
    out) and at most `max_generated` new tests. mutants: AST mutants of the first passing reference
    that guide the choice (a seed of their own, so verify's `test_strength` mutants are others),
    timed against the references (`SandboxedStage.mutant_limit_s`). rounds x candidates: inputs tried per
    problem at most. max_solutions: references that must agree on a new test's output (the
    cheapest labels). max_output_bytes: the largest output a new test may have
    (or twice the largest original one). A problem whose statement accepts several answers and
    that has no checker is amplified only with `SEVERAL_ANSWERS_MIN_REFERENCES` references that
    pass its tests: fewer, even two that agree, may share the one answer a third valid program
    would not give.
    """

    name = "amplify"
    #: whether a mutant was killed can depend on a time limit (TLE), so the scores are measured
    measured_columns = ("mutation_score_original", "mutation_score_amplified", "cpu_s")
    measured_reasons = {
        "mutation_score_original": "a mutant slower than its time limit is killed by the "
        "timeout: which ones are depends on measured times",
        "mutation_score_amplified": "as mutation_score_original",
        "cpu_s": ProblemCost.MEASURED_REASON,
    }
    output_schema = pa.schema(
        [
            pa.field("generated_tests", pa.list_(GENERATED_TEST)),
            pa.field("amplify_status", pa.string()),
            pa.field("amplify_note", pa.string()),
            pa.field("amplify_mutants", pa.int32()),
            # the languages of the references that labelled new inputs, the labeller's first
            pa.field("amplify_languages", pa.list_(pa.string())),
            pa.field("mutation_score_original", pa.float64()),
            pa.field("mutation_score_amplified", pa.float64()),
        ]
    )

    settings_class = AmplifyConfig
    settings: AmplifyConfig

    def judge_rows(self, rows: list[ProblemRow]) -> list[Decision]:
        return thread_map(self._judge_one, [dict(r) for r in rows], min(len(rows), self.sandbox.n_workers))

    def _judge_one(self, row: dict[str, Any]) -> Decision:
        """One problem's decision: amplified (or not) within the stage's CPU budget for a
        problem, else dropped as `too_slow`; `on_problem` hears when it starts and ends."""
        self.problem_event("start", row)
        cost = self.cost()
        try:
            return self._decision(self.amplify(row, cost))
        except TooSlow:
            return Decision.drop("too_slow", **cost.detail(self.name))
        finally:
            self.problem_event("done", row)

    @staticmethod
    def _decision(o: _Outcome) -> Decision:
        return Decision(
                True,
                None,
                {
                    "generated_tests": o.tests,
                    "amplify_status": o.status,
                    "amplify_note": o.note,
                    "amplify_mutants": o.mutants,
                    "amplify_languages": o.languages,
                    "mutation_score_original": (
                        o.killed_before / o.mutants
                        if o.mutants and o.killed_before is not None
                        else None
                    ),
                    "mutation_score_amplified": (
                        o.killed_after / o.mutants
                        if o.mutants and o.killed_after is not None
                        else None
                    ),
                },
            )

    # ---- one problem ----------------------------------------------------------------------------
    def amplify(self, row: dict[str, Any], cost: ProblemCost | None = None) -> _Outcome:
        """Amplify one problem record (its existing `generated_tests` are replaced). `cost`
        counts the CPU of its runs; past its budget, TooSlow (None: counted against no budget)."""
        cost = cost if cost is not None else ProblemCost(None)
        row = dict(row, generated_tests=None, comparison=comparison_of(row))
        base, why = self._judged_originals(row)
        if base is None:
            return _Outcome("skipped", why or "")
        # references in every language the sandbox judges here label the new inputs
        refs = labelling_references(row, base.get("test_type"), self.settings.max_solutions)
        if not refs:
            return _Outcome("skipped", "no reference solution")
        src_limit = row.get("time_limit_s")
        first = self._runs(cost, self.sandbox,
            # (a failing reference stops at its first failure: only the passing ones are used,
            # and one that runs out of time on every test cost its limit times the tests)
            [(base, code, {"time_limit_s": src_limit or CALIBRATION_LIMIT_S, "language": lang,
                           "confirm_timeouts": bool(src_limit), "stop_on_failure": True})
             for code, lang in refs]
        )  # fmt: skip
        passing = [(code, lang, r) for (code, lang), r in zip(refs, first) if r.verdict == "AC"]
        if not passing:
            verdicts = ",".join(r.verdict for r in first)
            return _Outcome("skipped", f"no reference passes the original tests ({verdicts})")
        if not base.get("checker") and len(passing) < SEVERAL_ANSWERS_MIN_REFERENCES:
            # a call test's answer in any order is judged as a multiset (`any_order`); any
            # other freedom ("return any of them") one reference cannot label
            stdio = base["test_type"] == "stdio"
            several = allows_several_answers if stdio else several_valid_answers
            if several(row.get("statement")):
                return _Outcome(
                    "skipped",
                    "the statement accepts several answers and "
                    f"{len(passing)} reference{'s' * (len(passing) > 1)} cannot tell them: "
                    "new inputs need a checker",
                )
        limit = float(src_limit) if src_limit else self._calibrated(passing)
        slowest_ms = max(r.max_test_cpu_ms for _, _, r in passing)
        ordered = labelling_order(passing)
        labeller_ms = ordered[0][2].max_test_cpu_ms
        refs = [(code, lang) for code, lang, _ in ordered]
        mutated = mutated_reference(passing, self._mutated_languages())
        out = self._grow(row, base, refs, limit, mutated, slowest_ms, labeller_ms, cost)
        out.languages = labelling_languages(refs)
        return out

    def _runs(self, cost: ProblemCost, sandbox: Any, jobs: list[Any]) -> list[RunResult]:
        """`sandbox.run_many(jobs)` within the problem's budget (`run_budgeted`): TooSlow when
        a job found it spent (the runs under way then were the last)."""
        results = self.run_budgeted(sandbox, jobs, [cost] * len(jobs))
        if any(r is None for r in results):
            raise TooSlow
        return [r for r in results if r is not None]

    def _mutated_languages(self) -> tuple[str, ...]:
        return ("python", "cpp") if self.settings.cpp_mutants else ("python",)

    def _judged_originals(self, row: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        if row.get("test_type") == "assert":
            converted, why = convert_problem(row)
            if converted is None:
                return None, f"assert suite does not convert to call tests: {why}"
            converted["comparison"] = row["comparison"]
            if not all(_generalizes(t["check"]) for t in converted["tests"]):
                return None, "an assertion does not say what the right answer is (not ==)"
            return converted, None
        if row.get("test_type") not in ("stdio", "call"):
            return None, f"unknown test_type {row.get('test_type')!r}"
        if not row.get("tests"):
            return None, "no tests to mutate"
        return row, None

    def _calibrated(self, passing: list[tuple[str, str, RunResult]]) -> float:
        """max(floor, factor x the slowest passing reference's slowest test): from the fastest,
        a slower reference that must agree on every new test would time out on them."""
        slowest = max(r.max_test_cpu_ms for _, _, r in passing)
        return max(self.settings.time_floor_s, math.ceil(self.settings.time_factor * slowest / 100.0) / 10.0)

    def _grow(
        self,
        row: dict[str, Any],
        base: dict[str, Any],
        refs: list[tuple[str, str]],
        limit: float,
        mutated: tuple[str, str] | None,
        slowest_ms: float,
        labeller_ms: float,
        cost: ProblemCost,
    ) -> _Outcome:
        """`refs`: the passing references (source, language), the labeller first (it labels
        every candidate, the others check what it kept); `mutated`: the reference the mutants come
        from and its language (`mutated_reference`; None: no mutants guide the choice);
        `slowest_ms`: the slowest reference's slowest original test; `labeller_ms`: the
        labeller's own."""
        originals = list(base["tests"])
        alive, judged = self._surviving_mutants(base, mutated, limit, slowest_ms, cost)
        killed_before = judged - len(alive)
        if len(originals) >= self.settings.target_tests and not alive:
            why_not = ("the original tests kill every mutant" if mutated is not None else
                       "no Python reference to mutate, and the original tests reach the target")
            return _Outcome("not_needed", why_not,
                            [], killed_before, killed_before, judged)  # fmt: skip
        try:
            gen = input_generator(base)
        except (ValueError, KeyError, TypeError) as e:
            return _Outcome(
                "skipped", f"inputs cannot be mutated: {e}", [], killed_before, None, judged
            )
        job = self._job(base, refs, limit, labeller_ms, cost)
        kind = base.get("test_type") or "stdio"
        grown = _Growth(originals, alive, judged, {_canonical(t["input"], kind) for t in originals})
        key = str(row.get("problem_id") or row.get("id"))
        m_lang = mutated[1] if mutated is not None else "python"
        for round_ in range(self.settings.rounds):
            cost.check()
            cands = self._candidates(gen, grown, key, round_, kind)
            try:
                tests = self._label(job, cands, grown.why, grown.cost)
            except _Unstable:
                note = ("the reference's output depends on the hash seed (set iteration order); "
                        if refs[0][1] == "python" else "the reference's output changes between runs; "
                        ) + "its labels are not trusted: " + _counts(grown.why)  # fmt: skip
                return _Outcome("failed", note, [], killed_before, killed_before, judged)
            if tests and self._kill(job, grown, tests, m_lang):
                break
        return self._chosen(grown, killed_before)

    def _job(self, base: dict[str, Any], refs: list[tuple[str, str]], limit: float,
             labeller_ms: float, cost: ProblemCost) -> _Job:  # fmt: skip
        originals = list(base["tests"])
        shapes, trips = self._shapes(base, refs[0][0], originals, limit, cost)
        return _Job(
            base,
            refs,
            limit,
            self._budget_ms(labeller_ms),
            max(self.settings.max_output_bytes, 2 * max(len(t.get("output") or "") for t in originals)),
            shapes,
            trips,
            cost=cost,
        )

    def _budget_ms(self, labeller_ms: float) -> float:
        """The most CPU a new input may cost the labeller: `TIME_MARGIN` x its own slowest
        original test, at least the floor's share (`time_floor_s` / `time_factor`). A ratio of
        two runs of one program, on this machine now, which a loaded machine slows alike; and a
        margin, since an input mutated from the slowest original costs about what it does (a
        program that precomputes a table costs the same on every input): against 1x, the
        measurement's noise decided such inputs, and a loaded build kept 15 where an idle one
        kept 19 (issue 42)."""
        s = self.settings
        return max(1000.0 * s.time_floor_s / s.time_factor, TIME_MARGIN * labeller_ms)

    def _surviving_mutants(
        self,
        base: dict[str, Any],
        mutated: tuple[str, str] | None,
        limit: float,
        slowest_ms: float,
        cost: ProblemCost,
    ) -> tuple[list[str], int]:
        """The mutants of `mutated` that the original tests let through, and how many mutants
        were judged (a C++ mutant that does not compile measures nothing)."""
        if mutated is None:
            return [], 0
        m_code, m_lang = mutated
        s = self.settings
        mutants = mutants_of(m_code, m_lang, s.mutants, s.seed + 1, base.get("entry_point"))
        m_limit = self.mutant_limit_s(limit, slowest_ms)
        batch = base.get("test_type") == "call"  # mutants of a reference: trusted, in batches
        alive: list[str] = []
        judged = 0
        # (no `defer_slow` here: on the few original tests, judging a slow test last ran the
        # others first and cost more than it saved, 0.38 against 0.34 s a row on LeetCodeDataset)
        for m, r in zip(mutants, self._runs(cost, self.sandbox,
            [(base, m, {"time_limit_s": m_limit, "stop_on_failure": True, "batch": batch,
                        "batch_call_s": self.mutant_batch_s(slowest_ms), "language": m_lang,
                        "confirm_timeouts": True})
             for m in mutants]
        )):  # fmt: skip
            if r.verdict == "CE":
                continue
            judged += 1
            if r.verdict in ("AC", "SE"):
                alive.append(m)
        return alive, judged

    def _candidates(
        self, gen: Any, grown: _Growth, key: str, round_: int, kind: str
    ) -> list[tuple[str, int, int]]:
        """A round's new inputs (text, seed, the original test it mutates), each unlike every
        input seen: `candidates` of them, or, once the mutants are all dead, only about as many
        as the target still lacks."""
        s = self.settings
        wanted = s.candidates
        if not grown.alive:  # the mutants are all dead: only the tests the target still lacks
            need = s.target_tests - len(grown.originals) - len(grown.chosen) - len(grown.spare)
            wanted = min(s.candidates, 2 * max(1, need))
        cands = []
        for k in range(wanted):
            seed = _seed_of(s.seed, key, round_, k)
            parent = k % len(grown.originals)
            try:
                text = gen.generate(random.Random(seed), parent)
            except (ValueError, TypeError, IndexError, RecursionError):
                text = None
            if text is None or _canonical(text, kind) in grown.seen:
                grown.why["no new input"] += 1
                continue
            grown.seen.add(_canonical(text, kind))
            cands.append((text, seed, parent))
        return cands

    def _kill(self, job: _Job, grown: _Growth, tests: list[dict[str, Any]], m_lang: str) -> bool:
        """Run the living mutants on a round's new tests: a test that kills one is chosen, the
        others are spare. Whether the search ends here: at the cap on new tests, or with the
        target reached when no mutant is left or none died this round (a plateau)."""
        base = job.base
        kills: set[int] = set()
        still = []
        slow_ms = max(grown.cost.get(t["input"], 0.0) for t in tests)
        m_limit = self.mutant_limit_s(job.limit, slow_ms)
        batch = base.get("test_type") == "call"
        runs = self._runs(job.cost, self.sandbox,
            [(base, m, {"time_limit_s": m_limit, "tests": [self._judged_test(base, t) for t in tests],
                        "stop_on_failure": True, "batch": batch,
                        "batch_call_s": self.mutant_batch_s(slow_ms), "language": m_lang,
                        "confirm_timeouts": True})
             for m in grown.alive]
        )  # fmt: skip
        for m, r in zip(grown.alive, runs):
            if r.verdict in ("AC", "SE") or r.first_failure is None:
                still.append(m)
            else:
                kills.add(int(r.first_failure["test"]))
        grown.alive = still
        for i, t in enumerate(tests):
            (grown.chosen if i in kills else grown.spare).append(t)
        total = len(grown.originals) + len(grown.chosen) + len(grown.spare)
        if len(grown.chosen) >= self.settings.max_generated:
            return True
        # no mutant left, or a plateau: the survivors look equivalent to the reference
        return (not grown.alive or not kills) and total >= self.settings.target_tests

    def _chosen(self, grown: _Growth, killed_before: int) -> _Outcome:
        """The new tests: those that killed a mutant (at most `max_generated`), then spare ones
        with new outputs first, up to `target_tests`."""
        originals, judged = grown.originals, grown.judged
        chosen = grown.chosen[: self.settings.max_generated]
        need = max(0, self.settings.target_tests - len(originals) - len(chosen))
        outputs = {t["output"] for t in [*originals, *chosen]}
        spare = sorted(grown.spare, key=lambda t: t["output"] in outputs)  # new outputs first
        chosen.extend(spare[:need])
        killed_after = judged - len(grown.alive)
        if not chosen and spare:
            note = f"{len(spare)} new inputs kill no mutant the original tests let through"
            return _Outcome("not_needed", note, [], killed_before, killed_after, judged)
        if not chosen:
            return _Outcome("failed", "no generated input was kept: " + _counts(grown.why),
                            [], killed_before, killed_before, judged)  # fmt: skip
        chosen.sort(key=lambda t: (t["parent"], t["seed"]))
        note = f"{len(chosen)} tests added; candidates dropped: " + (_counts(grown.why) or "none")
        return _Outcome("amplified", note, chosen, killed_before, killed_after, judged)

    @staticmethod
    def _judged_test(base: dict[str, Any], t: dict[str, Any]) -> dict[str, Any]:
        if base.get("typed_calls"):
            return {
                "input": t["input"],
                "output": t["output"],
                "check": t["check"],
                "env": t["env"],
            }
        return {"input": t["input"], "output": t["output"]}

    def _shapes(
        self, base: dict[str, Any], ref: str, originals: list[dict[str, Any]], limit: float,
        cost: ProblemCost,
    ) -> tuple[set[str] | None, set[tuple[Any, str]]]:
        """The types the reference returns on the original tests (call problems only): a new
        input on which it returns another type (None where it always returned a list: "no
        answer") is most likely outside the problem's contract, where correct programs differ.
        And, for a tree built from list arguments, the orders in which it reads back as one of
        them on every original (`_round_trips`)."""
        if base.get("test_type") != "call":
            return None, set()
        shapes: set[str] = set()
        pairs = []
        # (under the margin: a type missed for a moment's load would drop inputs)
        outs = self.sandbox.outputs(base, ref, [t["input"] for t in originals],
                                    time_limit_s=TIME_MARGIN * limit)  # fmt: skip
        cost.add(sum(o.cpu_ms for o in outs))
        for t, o in zip(originals, outs):
            if o.status == "OK" and o.text is not None:
                try:
                    value = _value(base, o.text)
                    _shape(value, "", shapes)
                except (ValueError, TypeError):
                    continue
                pairs.append((t["input"], value))
        trips = _round_trips(pairs) if base.get("typed_calls") and pairs else set()
        return shapes, trips

    @staticmethod
    def _reads_back(job: _Job, text: str, output: str) -> bool:
        try:
            return job.trips <= _trips_of(_arguments(text), _value(job.base, output))
        except (ValueError, TypeError, KeyError):
            return False

    def _label(
        self,
        job: _Job,
        cands: list[tuple[str, int, int]],
        why: Counter[str],
        cost: dict[str, float],
    ) -> list[dict[str, Any]]:
        """New tests from candidate inputs: the first reference's outputs, kept where it ran
        cleanly and fast enough and returned the types it returns on the originals, its rerun
        under another hash seed and every other reference agree. `cost` gets each kept input's
        CPU ms on the slowest reference."""
        if not cands:
            return []
        base, refs, limit = job.base, job.refs, job.limit
        lab, lab_lang = refs[0]
        outs = self.sandbox.outputs(
            base, lab, [c[0] for c in cands], time_limit_s=limit, language=lab_lang
        )
        job.cost.add(sum(o.cpu_ms for o in outs))
        tests = []
        for (text, seed, parent), o in zip(cands, outs):
            if o.status == "TLE" or (o.status == "OK" and o.cpu_ms > job.budget_ms):
                why["too slow"] += 1  # (past the budget or past the limit: one reason, one count)
            elif o.status != "OK" or o.text is None:
                why[f"reference {o.status}"] += 1
            elif len(o.text) > job.out_cap:
                why["output too large"] += 1
            elif job.shapes is not None and not _returns_known_types(base, o.text, job.shapes):
                why["a type the originals never return"] += 1
            elif job.trips and not self._reads_back(job, text, o.text):
                why["the tree does not read back as its input"] += 1
            else:
                t = self._new_test(base, text, o.text, seed, parent)
                if t is None:
                    why["no check for this value"] += 1
                else:
                    tests.append(t)
                    cost[text] = o.cpu_ms
        # the labeller's rerun and the other references, trusted, in batches (a test that fails in
        # a batch is rerun alone, and that verdict counts: an unstable label never comes from
        # batching); in any language, they must accept the labeller's outputs, under a margin
        # above the limit (a label is not dropped, nor the problem's labels untrusted, because a
        # loaded machine slowed a run down)
        again = "differs under another hash seed" if lab_lang == "python" else "differs when run again"
        checks = [(self.rerun_sandbox, lab, lab_lang, again, True)]
        checks += [(self.sandbox, code, lang, disagreement(lab_lang, lang), True)
                   for code, lang in refs[1:]]  # fmt: skip
        for sb, code, lang, reason, batch in checks:
            if not tests:
                break
            r = sb.run(base, code, time_limit_s=TIME_MARGIN * limit,
                       batch=batch and base["test_type"] == "call",
                       tests=[self._judged_test(base, t) for t in tests], language=lang)  # fmt: skip
            job.cost.add(r.cpu_ms)
            if r.verdict == "SE":
                why["sandbox error"] += len(tests)
                return []
            ok = {x.index for x in r.tests if x.verdict == "AC"}
            for x in r.tests:
                if x.index < len(tests):
                    text = tests[x.index]["input"]
                    cost[text] = max(cost.get(text, 0.0), x.cpu_ms)
            why[reason] += len(tests) - len(ok)
            if sb is not self.sandbox and len(ok) < len(tests):
                raise _Unstable  # one unstable output: no label of this reference is trusted
            tests = [t for i, t in enumerate(tests) if i in ok]
        return tests

    @staticmethod
    def _new_test(
        base: dict[str, Any], text: str, output: str, seed: int, parent: int
    ) -> dict[str, Any] | None:
        test: dict[str, Any] = {"input": text, "output": output, "check": None, "env": None,
                                "seed": seed, "parent": parent}  # fmt: skip
        if base.get("typed_calls"):
            template = base["tests"][parent]
            try:
                value = loads(output)
                check = expected_check(template["check"], value)
                env = json.loads(template.get("env") or "{}")
                env[EXPECTED_NAME] = encode(value)
            except (ValueError, TypeError):
                return None
            if check is None:
                return None
            test.update(check=check, env=json.dumps(env))
        return test


def _counts(c: Counter[str]) -> str:
    return ", ".join(f"{n} {k}" for k, n in c.most_common() if n)
