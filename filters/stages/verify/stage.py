"""The verify stage: run every reference solution against the tests, keep problems one passes.

A problem is judged as `filters.judging.judged.judged_problem` makes it (its tests plus generated ones)
under its comparison (`comparison` column: the statement's stated float error or YES/NO in any
case, the tokens whatever the line breaks for contest stdio, else strict), exactly as the rewards
judge it. When no reference passes but they fail only by
wrong answers that say the tests hold one valid answer of several (the references disagree among
themselves, or the statement accepts any valid answer), the problem is `needs_checker` rather
than `no_passing_solution`. Then measure the tests: known-incorrect solutions and mutants of a
passing reference are run too (a mutant slower than 3x the slowest reference, at least 0.25 s, is
killed by its timeout); `test_strength` is the fraction rejected; a suite that accepts a
known-incorrect solution, or without any, kills fewer than `min_mutation_score` of the mutants,
is dropped as `weak_tests`. Time limits come from the source, else are calibrated from the slowest
passing reference.
"""

from __future__ import annotations

import json
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from filters.compare import Comparison
from filters.contracts import ProblemRow
from filters.judging.judge_style import allows_several_answers, comparison_of
from filters.judging.judged import count_tests, judged_problem
from filters.sandbox import RunResult, Sandbox
from filters.sandbox.assert_calls import convert_problem
from filters.sandbox.checkers import checker_kind
from filters.settings import CALIBRATION_LIMIT_S, TIME_MARGIN, VerifyConfig
from filters.stage import Decision
from filters.stages.sandboxed import Job, ProblemCost, SandboxedStage
from filters.stages.verify.labelling import mutated_reference
from filters.stages.verify.mutants import mutants_of
from filters.stages.verify.standard_choice import choose as choose_standard
from filters.tools.languages import judged_programs

__all__ = [
    "VerifyConfig",
    "VerifyStage",
    "count_tests",
    "calibrated_time_limit",
    "reward_isolation",
    "DEFAULT_MIN_MUTATION_SCORE",
]

#: A suite that kills fewer of a reference's mutants than this is `weak_tests` (when the problem
#: has no known-incorrect solution to decide it); see docs/verify.md for the measurements behind it.
#: (Its home is `VerifyConfig.min_mutation_score`, in filters/settings.py.)
DEFAULT_MIN_MUTATION_SCORE = VerifyConfig.min_mutation_score


def calibrated_time_limit(
    ref: RunResult, floor_s: float = 1.0, factor: float = 3.0, whole_run: bool = False
) -> float:
    """max(floor, factor x the reference's slowest test CPU time), rounded up to 0.1 s.

    `whole_run`: the tests ran in one process (`assert` suites), so the limit covers the whole run.
    """
    per_test_ms = ref.cpu_ms if whole_run else ref.max_test_cpu_ms
    return max(floor_s, math.ceil(factor * per_test_ms / 100.0) / 10.0)


@dataclass
class _Row:
    index: int
    problem: dict[str, Any]  # as judged: with its generated tests and its comparison
    solutions: list[str]
    row: dict[str, Any]  # the record itself
    first: list[RunResult] | None = None
    limit: float | None = None
    limit_source: str | None = None
    decision: Decision | None = None
    #: the language of each of `solutions` ("python", "cpp")
    languages: list[str] = field(default_factory=list)
    #: the reference whose mutants measure the tests, and its language: the first passing Python
    #: one in the record's order, else the first passing C++ one (`labelling.mutated_reference`)
    mutated: tuple[str, str] | None = None
    #: a standard checker verify chose for it (`_choose_checkers`): {checker, why, ...}
    chosen: dict[str, Any] | None = None
    #: the CPU the row's runs took in this stage, against its budget
    cost: ProblemCost = field(default_factory=lambda: ProblemCost(None))

    def opts(self, k: int, **more: Any) -> dict[str, Any]:
        """`run` options of solution k: its language, and `more`."""
        return {"language": self.languages[k] if k < len(self.languages) else "python", **more}

    @property
    def batched(self) -> bool:
        """Whether the references' reruns and their mutants run their calls in batches
        (`Sandbox.run(batch=True)`: a test that fails in a batch is rerun alone, and that verdict
        counts); the first pass (the time limit is calibrated on it) and known-incorrect
        solutions never do."""
        return self.problem.get("test_type") == "call"


def _slowest_ms(r: _Row) -> float:
    """The slowest passing reference's slowest test, CPU ms (its whole run for an assert suite,
    whose tests run in one process; 0 without one)."""
    whole_run = r.problem.get("test_type") == "assert"
    return max(
        (x.cpu_ms if whole_run else x.max_test_cpu_ms for x in r.first or [] if x.verdict == "AC"),
        default=0.0,
    )


def reward_isolation(problem: dict[str, Any]) -> str:
    """How a correctness reward will grade this problem by default: `separate` (stdio and call
    tests: compared outside the program), `converted` (an assert suite that converts to call
    tests) or `in-process` (an assert suite that does not: a completion could fake a pass;
    `assert_policy="refuse"` skips such problems)."""
    if problem.get("test_type") != "assert":
        return "separate"
    if problem.get("generated_tests"):
        return "converted"  # generated tests exist only for suites that convert
    converted, _ = convert_problem(problem)
    return "converted" if converted is not None else "in-process"


class VerifyStage(SandboxedStage):
    """Judge reference solutions in a sandbox; keep problems with a passing, stable solution.

    workers: sandbox workers (default: the CPUs available); min_tests: fewer tests -> `too_few_tests`;
    repeats: runs of each passing solution (a failure on rerun -> `flaky`); hash_check: the reruns
    use another str hash seed, so an expected output that follows set iteration order (one valid
    order of many, which a correct completion need not reproduce) is `flaky` too; mutants: mutants of a
    passing reference used for `test_strength` (0 disables); min_mutation_score: without a
    known-incorrect solution, a suite killing fewer of those mutants is `weak_tests` (0 disables);
    time_floor_s / time_factor: the calibrated limit max(floor, factor x reference); max_solutions:
    references judged per problem; keep_incomplete_tests: judge problems whose source says it left
    out some of their tests (`tests_complete` false, e.g. open-r1/codeforces) instead of dropping
    them as `incomplete_tests`.
    """

    name = "verify"
    #: Runtimes and what follows from them (a calibrated limit; mutants that time out) vary by run.
    measured_columns = ("ref_cpu_ms", "time_limit_s", "test_strength", "cpu_s")
    measured_reasons = {
        "ref_cpu_ms": "the fastest reference's CPU time, measured",
        "time_limit_s": "calibrated from the slowest reference's measured CPU time where the "
        "source gives no limit",
        "test_strength": "a mutant slower than its time limit is killed by the timeout: which "
        "ones are depends on measured times",
        "cpu_s": ProblemCost.MEASURED_REASON,
    }
    output_schema = pa.schema(
        [
            pa.field("verified", pa.bool_()),
            pa.field("passing_solutions", pa.int32()),
            pa.field("tests_total", pa.int32()),
            pa.field("ref_cpu_ms", pa.float64()),
            pa.field("test_strength", pa.float64()),
            pa.field("time_limit_s", pa.float64()),
            pa.field("time_limit_source", pa.string()),
            pa.field("solution_verdicts", pa.list_(pa.string())),
            pa.field("reward_isolation", pa.string()),
            pa.field("comparison", pa.string()),
            # the language of each judged reference (as `solution_verdicts`), and the languages
            # with a reference that passed
            pa.field("verdict_languages", pa.list_(pa.string())),
            pa.field("passing_languages", pa.list_(pa.string())),
            # the judge the problem was verified with (`checker_kind`: none, python, testlib,
            # standard), the record's own or a standard checker verify chose from the evidence
            # (`checker_choice`: JSON, why)
            pa.field("checker", pa.string()),
            pa.field("checker_kind", pa.string()),
            pa.field("checker_choice", pa.string()),
        ]
    )

    settings_class = VerifyConfig
    settings: VerifyConfig

    def reruns_on_next_hash_seed(self) -> bool:
        return self.settings.hash_check

    def environment(self) -> dict[str, Any]:
        """The isolation actually in force (namespaces, uid, limits), for the manifest."""
        return {"isolation": self.sandbox.isolation_report()}

    # ---- judging ------------------------------------------------------------------------------
    def judge_rows(self, rows: list[ProblemRow]) -> list[Decision]:
        """Every row's decision: the rows' runs go phase by phase (first pass, reruns, strength),
        all rows' runs of a phase together; a row is done (`on_problem`) once its decision is
        final, and a row whose runs take more than `cpu_budget_s` is `too_slow`."""
        todo: list[_Row] = []
        every: list[_Row] = []
        for record in rows:
            self.problem_event("start", record)
        for i, record in enumerate(rows):
            row: dict[str, Any] = dict(record)  # the judging helpers take any mapping of a problem
            row["comparison"] = comparison_of(row)
            try:
                problem = judged_problem(row)
            except ValueError as e:
                problem = row
                bad: str | None = str(e)
            else:
                bad = None
            refs = judged_programs(row, self.settings.max_solutions)
            r = _Row(i, problem, [c for c, _ in refs], row, languages=[lang for _, lang in refs],
                     cost=self.cost())  # fmt: skip
            every.append(r)
            n = count_tests(row)
            if bad is not None:
                r.decision = Decision.drop("bad_generated_tests", error=bad, tests_total=n)
            elif n == 0:
                r.decision = Decision.drop("no_tests", tests_total=0)
            elif row.get("tests_complete") is False and not self.settings.keep_incomplete_tests:
                r.decision = Decision.drop("incomplete_tests", tests_total=n)
            elif n < self.settings.min_tests:
                r.decision = Decision.drop(
                    "too_few_tests", tests_total=n, min_tests=self.settings.min_tests
                )
            elif not r.solutions:
                r.decision = Decision.drop(
                    "no_passing_solution",
                    tests_total=n,
                    solution_verdicts=[],
                    note="no reference solutions",
                )
            else:
                todo.append(r)
        self._done([r for r in every if r.decision is not None])
        self._first_pass(todo)
        self._choose_checkers([r for r in todo if r.decision is not None])
        self._recheck_failures([r for r in todo if r.decision is not None])
        self._done([r for r in todo if r.decision is not None])
        todo = [r for r in todo if r.decision is None]
        ref = self._repeat(todo)
        self._done([r for r in todo if r.decision is not None])
        todo = [r for r in todo if r.decision is None]
        self._strength(todo, ref)
        return [r.decision for r in every]  # type: ignore[misc]

    def _done(self, rows: list[_Row]) -> None:
        for r in rows:
            self.problem_event("done", r.row)

    def _first_pass(self, todo: list[_Row]) -> None:
        jobs: list[tuple[dict[str, Any], str, dict[str, Any]]] = []
        for r in todo:
            src = r.problem.get("time_limit_s")
            limit = src or CALIBRATION_LIMIT_S
            # one child a test: the calibrated limit and `ref_cpu_ms` come from these runs (a
            # call's CPU inside a batch is measured otherwise, to the scheduler's tick); a timeout
            # under the source's limit is confirmed (under the calibration's ceiling it is none
            # of a moment's load). A reference stops at its first failure: a failing one's other
            # tests matter only where it answers wrongly (`_full_wrong_answers`), and a reference
            # that runs out of time on every test cost a stage its limit times the tests
            # (1238_e_keyboard_purchase: 10 x 10 s, issue 58)
            jobs.extend(
                (r.problem, code, r.opts(k, time_limit_s=limit, confirm_timeouts=bool(src),
                                         stop_on_failure=True))
                for k, code in enumerate(r.solutions)
            )  # fmt: skip
        costs = [r.cost for r in todo for _ in r.solutions]
        results = iter(self.run_budgeted(self.sandbox, jobs, costs))
        for r in todo:
            first = [next(results) for _ in r.solutions]
            if any(x is None for x in first):  # (a row its runs finished is decided as always)
                r.decision = Decision.drop("too_slow", **r.cost.detail(self.name))
                continue
            r.first = [x for x in first if x is not None]
        self._full_wrong_answers([r for r in todo if r.decision is None])
        for r in todo:
            if r.decision is not None or r.first is None:
                continue
            verdicts = [x.verdict for x in r.first]
            passing = [x for x in r.first if x.verdict == "AC"]
            if not passing:
                reason = "sandbox_error" if "SE" in verdicts else "no_passing_solution"
                evidence = None if reason == "sandbox_error" else self._several_answers(r)
                bad = next((x for x in r.first if x.verdict != "AC"), None)
                detail: dict[str, Any] = {}
                if evidence:
                    reason, detail = "needs_checker", {"evidence": evidence}
                r.decision = Decision.drop(
                    reason,
                    solution_verdicts=verdicts,
                    tests_total=count_tests(r.row),
                    first_failure=bad.first_failure if bad else None,
                    error=bad.error if bad else None,
                    **detail,
                )
                continue
            self._set_limit(r, passing)

    def _full_wrong_answers(self, rows: list[_Row]) -> None:
        """Where no reference passes and the problem has no checker, each reference that answered
        wrongly is run on every test (the first pass stopped at its first failure): which tests
        each one passes says whether the tests hold one valid answer of several
        (`_several_answers`)."""
        jobs, owners = [], []
        for r in rows:
            if r.problem.get("checker") or any(x.verdict == "AC" for x in r.first or []):
                continue
            src = r.problem.get("time_limit_s")
            for k, x in enumerate(r.first or []):
                if x.verdict == "WA":
                    opts = r.opts(k, time_limit_s=src or CALIBRATION_LIMIT_S, confirm_timeouts=bool(src))
                    jobs.append((r.problem, r.solutions[k], opts))
                    owners.append((r, k))
        for (r, k), res in zip(owners, self.sandbox.run_many(jobs) if jobs else []):
            r.cost.add(res.cpu_ms)
            assert r.first is not None
            r.first[k] = res

    def _set_limit(self, r: _Row, passing: list[RunResult]) -> None:
        """A row's time limit: its source's, else calibrated from the slowest passing reference,
        so that every one passes under it; among the Python ones when one passes: a limit made
        from a C++ one would time out the Python completions the rewards grade against it."""
        src = r.problem.get("time_limit_s")
        if src:
            r.limit, r.limit_source = float(src), "source"
            return
        whole_run = r.problem.get("test_type") == "assert"
        python = [x for k, x in enumerate(r.first or []) if x.verdict == "AC"
                  and r.opts(k)["language"] == "python"]  # fmt: skip
        slowest = max(python or passing, key=lambda x: x.cpu_ms if whole_run else x.max_test_cpu_ms)
        r.limit = calibrated_time_limit(
            slowest, self.settings.time_floor_s, self.settings.time_factor, whole_run=whole_run
        )
        r.limit_source = "calibrated"

    @staticmethod
    def _several_answers(r: _Row) -> str | None:
        """Why the tests of a problem no reference passes look like one valid answer of several
        (None when nothing says so, or when the problem has a checker to decide it).

        Only references that fail by wrong answers alone count: a crash or a timeout is a broken
        reference, not another answer. Disagreement: two or more such references, and each test
        is passed by one of them. Statement: it accepts any valid answer, and one of them fails
        only by wrong answers.
        """
        if r.problem.get("checker") or not r.first:
            return None
        clean = [
            x
            for x in r.first
            if x.verdict == "WA" and all(t.verdict in ("AC", "WA") for t in x.tests)
        ]
        if not clean:
            return None
        if len(clean) >= 2:
            n = max(len(x.tests) for x in clean)
            passed = {t.index for x in clean for t in x.tests if t.verdict == "AC"}
            if len(passed) == n:
                return f"references disagree: {len(clean)} fail different tests by wrong answers"
        if allows_several_answers(r.problem.get("statement")):
            return "the statement accepts any valid answer; the reference's answer differs from the test's"
        return None

    def _choose_checkers(self, failed: list[_Row]) -> None:
        """A stdio problem without a checker that no reference passes, whose references fail by
        wrong answers only: their outputs on every test, and the strictest standard checker that
        accepts each of them against every answer and every other reference's output
        (`standard_choice.choose`; never looser than the error the statement states). The problem
        is judged again with that checker, compiled from testlib; kept with it (`checker`,
        `checker_choice`) when every one of those references passes there, else dropped as
        before."""
        rows = []
        for r in failed:
            assert r.decision is not None
            if (r.decision.reason not in ("needs_checker", "no_passing_solution")
                    or r.problem.get("checker") or r.problem.get("test_type") != "stdio"):  # fmt: skip
                continue
            clean = [k for k, x in enumerate(r.first or []) if x.verdict == "WA"
                     and all(t.verdict in ("AC", "WA") for t in x.tests)]  # fmt: skip
            if clean:
                rows.append((r, clean))
        if not rows:
            return
        inputs = {r.index: [t["input"] for t in r.problem.get("tests") or []] for r, _ in rows}

        def outputs_of(job: tuple[_Row, int]) -> list[Any]:
            r, k = job
            limit = r.problem.get("time_limit_s") or CALIBRATION_LIMIT_S
            return self.sandbox.outputs(r.problem, r.solutions[k], inputs[r.index],
                                        time_limit_s=limit, language=r.opts(k)["language"])  # fmt: skip

        jobs = [(r, k) for r, clean in rows for k in clean]
        with ThreadPoolExecutor(max(1, self.sandbox.n_workers)) as pool:
            outs = dict(zip([(r.index, k) for r, k in jobs], pool.map(outputs_of, jobs)))
        again: list[_Row] = []
        for r, clean in rows:
            got = [outs[r.index, k] for k in clean]
            if any(o.status != "OK" or not isinstance(o.text, str) for g in got for o in g):
                continue
            answers = [t["output"] for t in r.problem.get("tests") or []]
            stated = Comparison.parse(r.problem.get("comparison")).tolerance
            found = choose_standard(answers, [[o.text or "" for o in g] for g in got], stated,
                                    r.problem.get("statement"))  # fmt: skip
            if found is None:
                continue
            name, why = found
            r.chosen = {"checker": name, "why": why, "references": clean,
                        "was": r.decision.reason if r.decision else None}  # fmt: skip
            r.problem = dict(r.problem, checker=name)
            r.row = dict(r.row, checker=name)
            again.append(r)
        if not again:
            return
        before = {r.index: r.decision for r in again}
        for r in again:
            r.decision = None
        self._first_pass(again)
        for r in again:
            assert r.chosen is not None
            missed = [k for k in r.chosen["references"] if (r.first or [])[k].verdict != "AC"]
            if r.decision is None and not missed:
                continue
            # the compiled checker does not accept them all: dropped as before, with the attempt
            old = before[r.index]
            assert old is not None
            detail = dict(old.detail or {}, standard_checker_tried=r.chosen["checker"],
                          standard_checker_rejected=missed)  # fmt: skip
            r.decision = Decision.drop(old.reason or "no_passing_solution", **detail)
            r.problem = {k: v for k, v in r.problem.items() if k != "checker"}
            r.chosen = None

    def _recheck_failures(self, failed: list[_Row]) -> None:
        """A problem no reference passes, rerun under the next hash seed: if a reference passes
        there, its expected output follows set iteration order (`flaky`, as a rerun would show)."""
        if not self.settings.hash_check:
            return
        jobs, owners = [], []
        for r in failed:
            assert r.decision is not None
            if r.decision.reason not in ("no_passing_solution", "needs_checker"):
                continue
            for k, res in enumerate(r.first or []):
                if res.verdict == "WA":
                    src = r.problem.get("time_limit_s")
                    limit = src or CALIBRATION_LIMIT_S
                    jobs.append((r.problem, r.solutions[k], r.opts(k, time_limit_s=limit)))
                    owners.append((r, k))
        for (r, k), res in zip(owners, self.rerun_sandbox.run_many(jobs) if jobs else []):
            r.cost.add(res.cpu_ms)
            if res.verdict == "AC" and r.decision is not None and r.decision.reason != "flaky":
                first = (r.first or [])[k]
                r.decision = Decision.drop(
                    "flaky",
                    flaky=[
                        {
                            "solution": k,
                            "verdicts": [first.verdict, res.verdict],
                            "first_failure": first.first_failure,
                            "rerun_hash_seed": self.rerun_sandbox.hash_seed,
                        }
                    ],
                    solution_verdicts=[x.verdict for x in r.first or []],
                    note="fails under the default hash seed and passes under the next one: the "
                    "expected output follows set iteration order",
                )

    def _repeat(self, todo: list[_Row]) -> dict[int, tuple[str, float]]:
        """Rerun passing references; returns row index -> (fastest reference, its min CPU ms)."""
        best: dict[int, tuple[str, float]] = {}
        runs: dict[int, list[list[RunResult]]] = {}
        jobs = []
        owners = []
        for r in todo:
            assert r.first is not None
            for k, res in enumerate(r.first):
                if res.verdict == "AC":
                    runs.setdefault(r.index, []).append([res])
                    for _ in range(max(1, self.settings.repeats) - 1):
                        opts = r.opts(k, time_limit_s=r.limit, batch=r.batched)
                        jobs.append((r.problem, r.solutions[k], opts))
                        owners.append((r.index, len(runs[r.index]) - 1, k))
        rerun = self.rerun_sandbox if jobs else self.sandbox
        by_index = {r.index: r for r in todo}
        costs = [by_index[idx].cost for idx, _, _ in owners]
        done = self.run_budgeted(rerun, jobs, costs)
        skipped = {owners[i][0] for i, x in enumerate(done) if x is None}
        ran = [i for i, x in enumerate(done) if x is not None]
        results = self._confirm_timeouts(
            rerun, [jobs[i] for i in ran], [done[i] for i in ran],  # type: ignore[misc]
            [costs[i] for i in ran],
        )
        for i, res in zip(ran, results):
            idx, slot, _k = owners[i]
            runs[idx][slot].append(res)
        for r in todo:
            if r.index in skipped:
                r.decision = Decision.drop("too_slow", **r.cost.detail(self.name))
                continue
            fastest = self._after_reruns(r, runs.get(r.index, []), rerun.hash_seed)
            if fastest is not None:
                best[r.index] = fastest
        return best

    @staticmethod
    def _confirm_timeouts(
        sb: Sandbox,
        jobs: list[tuple[dict[str, Any], str, dict[str, Any]]],
        results: list[RunResult],
        costs: list[ProblemCost],
    ) -> list[RunResult]:
        """The reruns, each that ran out of time run once more under `TIME_MARGIN` x its limit,
        whose verdict then counts: a rerun asks whether the output is stable, and a reference
        that passed once under the limit and runs out of it again only on a loaded machine (a
        source's limit close to its time) is not `flaky`; one that loops, or answers otherwise,
        still is."""
        again = [i for i, r in enumerate(results) if r.verdict == "TLE"]
        if not again:
            return results
        out = list(results)
        confirm = []
        for i in again:
            problem, code, opts = jobs[i]
            confirm.append((problem, code, dict(opts, time_limit_s=TIME_MARGIN * opts["time_limit_s"])))
        for i, r in zip(again, sb.run_many(confirm)):
            costs[i].add(r.cpu_ms)
            out[i] = r
        return out

    @staticmethod
    def _after_reruns(
        r: _Row, runs: list[list[RunResult]], hash_seed: int
    ) -> tuple[str, float] | None:
        """A row after the reruns of its passing references (`runs`: each one's series):
        `flaky` when one failed a rerun (under `hash_seed`), else its fastest reference and that
        one's CPU ms; and the reference its mutants come from (`r.mutated`)."""
        flaky = []
        fastest: tuple[str, float] | None = None
        stable: list[tuple[str, str, None]] = []  # passing on every run, in the record's order
        ac_codes = [k for k, res in enumerate(r.first or []) if res.verdict == "AC"]
        for slot, series in enumerate(runs):
            k = ac_codes[slot]
            if any(x.verdict not in ("AC", "SE") for x in series):
                first_failure = next(x.first_failure for x in series if x.verdict != "AC")
                flaky.append({"solution": k, "verdicts": [x.verdict for x in series],
                              "first_failure": first_failure, "rerun_hash_seed": hash_seed})  # fmt: skip
                continue
            # (a batched rerun's CPU is not a run's alone: the first run's then)
            cpu = series[0].cpu_ms if r.batched else min(
                x.cpu_ms for x in series if x.verdict == "AC"
            )
            if fastest is None or cpu < fastest[1]:
                fastest = (r.solutions[k], cpu)
            stable.append((r.solutions[k], r.opts(k)["language"], None))
        # not the fastest: which of two references of about the same speed is faster changes
        # from run to run, and with it the mutants and `test_strength` (27 of 100
        # LeetCodeDataset rows between two runs of the same code)
        r.mutated = mutated_reference(stable)  # every language mutants are made in
        if flaky:
            r.decision = Decision.drop(
                "flaky", flaky=flaky, solution_verdicts=[x.verdict for x in r.first or []]
            )
            return None
        return fastest

    def _strength(self, todo: list[_Row], ref: dict[int, tuple[str, float]]) -> None:
        """Run each row's known-incorrect solutions and its reference's mutants, and decide it:
        `weak_tests`, or kept with its columns (`ref`: row index -> its fastest reference)."""
        jobs: list[Job] = []
        owners: list[tuple[_Row, str, int]] = []
        for r in todo:
            for kind, k, job in self._strength_jobs(r):
                jobs.append(job)
                owners.append((r, kind, k))
        per_row: dict[int, list[tuple[str, int, RunResult | None]]] = {r.index: [] for r in todo}
        left = {r.index: 0 for r in todo}
        for r, _, _ in owners:
            left[r.index] += 1
        lock = threading.Lock()

        def decide(r: _Row) -> None:
            runs = per_row[r.index]
            if any(x is None for _, _, x in runs):
                r.decision = Decision.drop("too_slow", **r.cost.detail(self.name))
            else:
                r.decision = self._strength_decision(r, runs, ref)  # type: ignore[arg-type]
            self.problem_event("done", r.row)

        def ended(i: int, res: RunResult | None) -> None:
            r, kind, k = owners[i]
            with lock:
                per_row[r.index].append((kind, k, res))
                left[r.index] -= 1
                last = left[r.index] == 0
            if last:  # the row's decision is final as its last run ends
                per_row[r.index].sort(key=lambda x: (x[0] != "incorrect", x[1]))
                decide(r)

        for r in todo:
            if not left[r.index]:
                decide(r)
        self.run_budgeted(self.sandbox, jobs, [r.cost for r, _, _ in owners], ended)

    def _strength_jobs(
        self, r: _Row
    ) -> list[tuple[str, int, tuple[dict[str, Any], str, dict[str, Any]]]]:
        """(kind, k, job) of a row's known-incorrect solutions, then of its reference's mutants
        (of the first passing Python reference, else of the first C++ one)."""
        jobs: list[tuple[str, int, tuple[dict[str, Any], str, dict[str, Any]]]] = []
        wrong = judged_programs(r.row, self.settings.max_solutions, "incorrect_solutions")
        code, mutant_lang = r.mutated or (None, "python")
        muts = (
            mutants_of(
                code,
                mutant_lang,
                self.settings.mutants,
                self.settings.seed,
                r.problem.get("entry_point"),
            )
            if self.settings.mutants > 0 and code is not None
            else []
        )
        # a timeout (a known-incorrect solution's, a mutant's) counts only when it repeats
        # (`confirm_timeouts`): which are rejected decides `weak_tests`
        for k, (c, lang) in enumerate(wrong):
            opts = {"time_limit_s": r.limit, "stop_on_failure": True, "language": lang,
                    "confirm_timeouts": True}  # fmt: skip
            jobs.append(("incorrect", k, (r.problem, c, opts)))
        # a mutant slower than `time_factor` x the slowest reference (and the floor) is
        # killed by its timeout (`mutant_limit_s`). Mutants of a reference are trusted: in
        # batches, a call past a budget set by the references' time reruns alone under the
        # mutant's limit, after the other tests (a failure in a batch is always confirmed by a
        # fresh child): only killed or not counts here
        assert r.limit is not None  # set for every row the first pass passed
        slowest = _slowest_ms(r)
        budget = self.mutant_batch_s(slowest)
        m_limit = self.mutant_limit_s(r.limit, slowest)
        for k, m in enumerate(muts):
            opts = {"time_limit_s": m_limit, "stop_on_failure": True, "language": mutant_lang,
                    "batch": r.batched, "batch_call_s": budget, "defer_slow": True,
                    "confirm_timeouts": True}  # fmt: skip
            jobs.append(("mutant", k, (r.problem, m, opts)))
        if r.problem.get("checker") and r.problem.get("test_type") == "stdio":
            # a checker is trusted only if it rejects an empty output and the input echoed
            for k, code in enumerate(_CHECKER_PROBES.values()):
                jobs.append(("probe", k, (r.problem, code, {"time_limit_s": r.limit})))
        return jobs

    def _strength_decision(
        self, r: _Row, runs: list[tuple[str, int, RunResult]], ref: dict[int, tuple[str, float]]
    ) -> Decision:
        """A row's fate from its strength runs: `weak_tests` when its suite accepts a
        known-incorrect solution or, without any, kills too few mutants; else kept, with the
        CPU ms of its fastest reference (`ref`)."""
        bad = self._bad_checker(r, [(k, x) for kind, k, x in runs if kind == "probe"])
        if bad is not None:
            return bad
        runs = [(kind, k, x) for kind, k, x in runs if kind != "probe"]
        # a harness fault says nothing of the tests, nor a token mutant that does not compile
        judged = [
            (kind, k, x)
            for kind, k, x in runs
            if x.verdict != "SE" and not (kind == "mutant" and x.verdict == "CE")
        ]
        rejected = sum(x.verdict != "AC" for _, _, x in judged)
        strength = rejected / len(judged) if judged else None
        accepted_wrong = [k for kind, k, x in judged if kind == "incorrect" and x.verdict == "AC"]
        has_incorrect = any(kind == "incorrect" for kind, _, _ in judged)
        mutant_runs = [x for kind, _, x in judged if kind == "mutant"]
        score = (
            sum(x.verdict != "AC" for x in mutant_runs) / len(mutant_runs) if mutant_runs else None
        )
        verdicts = [x.verdict for x in r.first or []]
        n_tests = count_tests(r.row)
        drop_weak = self.settings.drop_weak
        if accepted_wrong and drop_weak:
            return Decision.drop(
                "weak_tests",
                accepted_incorrect=accepted_wrong,
                test_strength=strength,
                solution_verdicts=verdicts,
                tests_total=n_tests,
            )
        min_score = self.settings.min_mutation_score
        if drop_weak and not has_incorrect and score is not None and score < min_score:
            return Decision.drop(
                "weak_tests",
                mutation_score=score,
                min_mutation_score=min_score,
                mutants=len(mutant_runs),
                test_strength=strength,
                solution_verdicts=verdicts,
                tests_total=n_tests,
            )
        return Decision(True, None, _verified_columns(r, strength, ref[r.index][1]))


    @staticmethod
    def _bad_checker(r: _Row, probes: list[tuple[int, RunResult]]) -> Decision | None:
        """`bad_checker` when the problem's checker accepts an empty output or the input echoed
        on every test (unless that is every test's answer)."""
        tests = r.problem.get("tests") or []
        for k, x in probes:
            what = list(_CHECKER_PROBES)[k]
            same = all((t["output"].split() == ([] if what == "empty output" else
                        t["input"].split())) for t in tests)  # fmt: skip
            if x.verdict == "AC" and not same:
                return Decision.drop(
                    "bad_checker",
                    why=f"the checker accepts an {what} on every test",
                    checker_kind=checker_kind(r.problem.get("checker")),
                    solution_verdicts=[x.verdict for x in r.first or []],
                    tests_total=count_tests(r.row),
                )
        return None


#: programs a trusted checker must reject (`VerifyStage._bad_checker`)
_CHECKER_PROBES = {
    "empty output": "pass\n",
    "input echoed": "import sys\nsys.stdout.write(sys.stdin.read())\n",
}


def _verified_columns(r: _Row, strength: float | None, ref_ms: float) -> dict[str, Any]:
    """The columns of a row verify keeps: `ref_ms`, its fastest reference's CPU ms."""
    verdicts = [x.verdict for x in r.first or []]
    languages = [r.opts(k)["language"] for k in range(len(verdicts))]
    return {
        "verified": True,
        "passing_solutions": sum(v == "AC" for v in verdicts),
        "tests_total": count_tests(r.row),
        "ref_cpu_ms": ref_ms,
        "test_strength": strength,
        "time_limit_s": r.limit,
        "time_limit_source": r.limit_source,
        "solution_verdicts": verdicts,
        "reward_isolation": reward_isolation(r.row),
        "comparison": r.problem.get("comparison"),
        "verdict_languages": languages,
        "passing_languages": sorted({lang for lang, v in zip(languages, verdicts) if v == "AC"}),
        "checker": r.problem.get("checker"),
        "checker_kind": checker_kind(r.problem.get("checker")) or "none",
        "checker_choice": json.dumps(r.chosen) if r.chosen else None,
    }
