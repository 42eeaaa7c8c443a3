"""Speed reward: how fast a correct completion runs, against the problem's reference solutions.

Timing on a shared machine is noisy, so a decision is made only when the difference is larger
than the noise measured in the same call:

- CPU time of the test runs (the sandbox's per-test rusage), not wall time: time spent waiting for
  a busy core is not counted.
- Candidate, references and an empty program run interleaved in a rotating order (E C R, C R E,
  R E C, then reversed), so a slow spell of the machine, and the cost of running first after a
  pause, hit every program alike; the empty program's CPU time (the run's overhead) is taken off.
- Each repeat gives one log ratio per reference; the statistic is their median, and a decision
  needs (a) a one-sided sign test at the given confidence and (b) a median beyond both a minimum
  effect and `noise_k` standard errors of the median (from the MAD of the same ratios). More
  repeats are added, up to `max_repeats`, while a difference looks possible but is not yet sure.
- Graded form: the share of references the candidate beats (a tie counts one half). Binary form:
  1.0 when it is faster, with confidence, than the median reference.
- `measure="instructions"` counts executed instructions instead (perf, else valgrind; see
  `counters`), deterministic, one run each; when no counter works it falls back to CPU time.
- Heavy inputs: a generator hook (`inputs=`) supplies tests big enough for differences to show.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from filters.reward.correctness import CorrectnessConfig, RewardSystemError, as_problem, grade_many
from filters.reward.counters import baseline_code, count_instructions, pick_tool
from filters.reward.pool import shared_sandbox
from filters.sandbox import Sandbox
from filters.tools.languages import programs_in

__all__ = [
    "SpeedConfig",
    "SpeedResult",
    "Decision",
    "decide",
    "speed_reward",
    "speed_many",
    "measure_speed",
    "timing_tests",
]

InputsHook = Callable[[dict[str, Any]], Sequence[dict[str, Any]] | None]
MODES = ("graded", "binary")
_BASE_COUNTS: dict[
    tuple[Any, ...], list[int]
] = {}  # the empty program's counts are deterministic: count once
_FLOOR_MS = 0.2  # below this, a program's own CPU time is lost in the run's overhead
MEASURES = ("cpu", "instructions", "auto", "perf", "valgrind")
#: the empty C++ program: its CPU time is a native run's overhead
_EMPTY_CPP = "int main() {}\n"


@dataclass(frozen=True)
class SpeedConfig:
    """How speed is measured and judged.

    mode: "graded" (share of references beaten) or "binary" (faster than the median reference).
    measure: "cpu"; "instructions" (perf, else valgrind, else cpu); "auto" (perf if it works, else
        cpu: valgrind is too slow to pick silently); "perf" / "valgrind" to force one counter.
    repeats / max_repeats: interleaved rounds first taken / at most (rounds are added 2 at a time).
    confidence: one-sided sign-test level for a decision (0.99 needs at least 7 rounds).
    min_effect: relative difference below which programs tie (0.05 = 5 %).
    noise_k: a decision also needs |median log ratio| > noise_k x its standard error.
    max_refs: reference solutions timed (the first ones of the problem).
    timing_tests: tests timed per run, the longest inputs first (None = all).
    inputs: generator hook -> heavy tests [{"input", "output" or None}] used instead of the problem's.
    instr_min_effect: relative difference below which instruction counts tie.
    subtract_overhead: time an empty program in every round and take its CPU time off each run
        (about 2 ms a test here: without it, small programs all look alike).
    """

    mode: str = "graded"
    measure: str = "cpu"
    repeats: int = 7
    max_repeats: int = 15
    confidence: float = 0.99
    min_effect: float = 0.05
    noise_k: float = 2.0
    max_refs: int = 3
    timing_tests: int | None = 3
    inputs: InputsHook | Sequence[dict[str, Any]] | None = None
    instr_min_effect: float = 0.01
    subtract_overhead: bool = True

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.measure not in MEASURES:
            raise ValueError(f"measure must be one of {MEASURES}, got {self.measure!r}")
        if self.repeats < 1 or self.max_repeats < 1:
            raise ValueError("repeats and max_repeats must be at least 1")
        if not 0.5 < self.confidence < 1.0:
            raise ValueError("confidence must be between 0.5 and 1")


@dataclass
class Decision:
    """Candidate against one reference: outcome "faster" / "slower" / "tie" and the evidence."""

    outcome: str
    ratio: float  # candidate / reference, median over repeats (<1: candidate faster)
    noise: float  # standard error of the median log ratio
    p_value: float
    n: int


@dataclass
class SpeedResult:
    """`reward` in [0, 1]; 0.0 unless the completion is correct; None for a reported sandbox fault."""

    reward: float | None
    correct: bool
    measure: str = "cpu"
    decisions: list[Decision] = field(default_factory=list)
    pooled: Decision | None = None
    candidate_ms: list[float] = field(default_factory=list)
    reference_ms: list[list[float]] = field(default_factory=list)
    overhead_ms: list[float] = field(default_factory=list)
    note: str | None = None


def _binom_tail(k: int, n: int) -> float:
    """P(X >= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n


def decide(
    log_ratios: Sequence[float],
    *,
    confidence: float = 0.99,
    min_effect: float = 0.05,
    noise_k: float = 2.0,
) -> Decision:
    """Faster / slower / tie from paired log(candidate / reference) samples, robustly."""
    d = [x for x in log_ratios if math.isfinite(x)]
    n = len(d)
    if n == 0:
        return Decision("tie", 1.0, math.inf, 1.0, 0)
    m = statistics.median(d)
    mad = statistics.median(abs(x - m) for x in d) * 1.4826
    se = 1.2533 * mad / math.sqrt(n)
    threshold = max(math.log1p(min_effect), noise_k * se)
    alpha = 1.0 - confidence
    p_faster = _binom_tail(sum(x < 0 for x in d), n)
    p_slower = _binom_tail(sum(x > 0 for x in d), n)
    if m < -threshold and p_faster <= alpha:
        return Decision("faster", math.exp(m), se, p_faster, n)
    if m > threshold and p_slower <= alpha:
        return Decision("slower", math.exp(m), se, p_slower, n)
    return Decision("tie", math.exp(m), se, min(p_faster, p_slower), n)


def timing_tests(problem: dict[str, Any], cfg: SpeedConfig) -> list[dict[str, Any]] | None:
    """Tests to time: the hook's heavy inputs, else the problem's longest ones (None: the whole suite)."""
    hook = cfg.inputs
    heavy = hook(problem) if callable(hook) else hook
    if heavy:
        blank = "null" if problem.get("test_type") == "call" else ""
        return [
            {"input": t["input"], "output": blank if t.get("output") is None else t["output"]}
            for t in heavy
        ]
    tests = problem.get("tests") or []
    if problem.get("test_type") == "assert" or not tests:
        return None
    order = sorted(range(len(tests)), key=lambda i: (-len(str(tests[i].get("input", ""))), i))
    keep = order if cfg.timing_tests is None else order[: cfg.timing_tests]
    return [tests[i] for i in sorted(keep)]


def _time_once(
    sb: Sandbox,
    problem: dict[str, Any],
    code: str,
    tests: list[dict[str, Any]] | None,
    unknown_outputs: bool,
    time_limit_s: float | None,
    language: str = "python",
) -> float | None:
    """CPU ms of one run over the timing tests; None when it did not finish cleanly."""
    for _ in range(3):
        r = sb.run(problem, code, tests=tests, time_limit_s=time_limit_s, language=language)
        if r.verdict != "SE":
            break
    else:
        raise RewardSystemError(f"sandbox error while timing: {r.error}")
    ok = ("AC", "WA") if unknown_outputs else ("AC",)
    if r.verdict not in ok:
        return None
    return sum(t.cpu_ms for t in r.tests) if r.tests else r.cpu_ms


@dataclass
class _Race:
    """A program (already judged correct) raced against the problem's reference solutions on the
    timing tests (`tests`; None: the whole suite), by instruction count or by CPU time."""

    sb: Sandbox
    problem: dict[str, Any]
    code: str
    refs: list[str]
    tests: list[dict[str, Any]] | None
    cfg: SpeedConfig

    def by_instructions(self, tool: str) -> SpeedResult | str:
        """Counted by `tool`; a string says why counting failed (the caller falls back to CPU)."""
        sb, problem, cfg = self.sb, self.problem, self.cfg
        tests = self.tests
        inputs = [t["input"] for t in (tests if tests is not None else problem.get("tests") or [])]
        if not inputs:
            return "no inputs to count"
        key = (tool, problem.get("test_type"), problem.get("entry_point"), tuple(inputs))
        cached = _BASE_COUNTS.get(key)
        base = (
            cached
            if cached is not None
            else count_instructions(sb, problem, baseline_code(problem), inputs, tool)
        )
        if cached is None and not isinstance(base, str):
            if len(_BASE_COUNTS) > 256:
                _BASE_COUNTS.clear()
            _BASE_COUNTS[key] = base
        cand = count_instructions(sb, problem, self.code, inputs, tool)
        if isinstance(base, str) or isinstance(cand, str):
            return base if isinstance(base, str) else str(cand)
        b = sum(base)
        c = max(1.0, sum(cand) - b)
        decisions, ref_counts = [], []
        for ref in self.refs:
            rc = count_instructions(sb, problem, ref, inputs, tool)
            if isinstance(rc, str):
                continue
            r = max(1.0, sum(rc) - b)
            ref_counts.append([r])
            decisions.append(_counted(c / r, cfg))
        if not decisions:
            return "no reference could be counted"
        pooled = _counted(c / statistics.median(x[0] for x in ref_counts), cfg)
        return _result(decisions, pooled, f"instructions ({tool})", [c], ref_counts, cfg)

    def by_cpu(self, unknown: bool, time_limit_s: float | None, language: str = "python") -> SpeedResult:
        """Timed by CPU in interleaved rounds (with the empty program's overhead where asked),
        more rounds while a decision is close, up to `max_repeats`. `unknown`: the timing
        inputs have no expected outputs (a wrong answer still counts as a run)."""
        refs, cfg = self.refs, self.cfg
        cand: list[float] = []
        base: list[float] = []
        ref_ms: list[list[float]] = [[] for _ in refs]
        alive = list(range(len(refs)))
        empty = _EMPTY_CPP if language == "cpp" else baseline_code(self.problem)
        first = True
        while True:
            target = cfg.repeats if first else min(max(cfg.repeats, cfg.max_repeats), len(cand) + 2)
            first = False
            while len(cand) < target:
                row = self._round(len(cand), alive, empty, unknown, time_limit_s, language)
                cand_ms = row[-1]
                if cand_ms is None:
                    return SpeedResult(
                        0.0, True, "cpu", note="candidate failed or hit a limit while being timed"
                    )
                cand.append(cand_ms)
                base.append(row.get(-2) or 0.0)
                for j in list(alive):
                    ms = row[j]
                    if ms is None:
                        alive.remove(j)
                    else:
                        ref_ms[j].append(ms)
                if not alive:
                    return SpeedResult(0.0, True, "cpu", note="no reference solution ran cleanly")
            decisions = {j: _decide_pair(cand, ref_ms[j], base, cfg) for j in alive}
            pooled_ref = [statistics.median(ref_ms[j][i] for j in alive) for i in range(len(cand))]
            pooled = _decide_pair(cand, pooled_ref, base, cfg)
            settled = all(
                d.outcome != "tie" or abs(math.log(d.ratio)) < 0.5 * math.log1p(cfg.min_effect)
                for d in [*decisions.values(), pooled]
            )
            if settled or len(cand) >= max(cfg.repeats, cfg.max_repeats):
                break
        out = _result(
            [decisions[j] for j in alive], pooled, "cpu", cand, [ref_ms[j] for j in alive], cfg
        )
        out.overhead_ms = base
        return out

    def _round(
        self, k: int, alive: list[int], empty: str, unknown: bool, time_limit_s: float | None, language: str
    ) -> dict[int, float | None]:
        """Round `k`'s CPU ms (None: the run failed or hit a limit) of -2, the empty program (the
        run's overhead, timed only where it is subtracted), -1, the candidate, and 0.., the
        references still `alive`, in `_round_order`."""
        row: dict[int, float | None] = {}
        for who in _round_order([-2, -1, *alive], k):
            if who == -2 and not self.cfg.subtract_overhead:
                continue
            prog = empty if who == -2 else self.code if who == -1 else self.refs[who]
            loose = who == -2 or unknown  # the empty program's answers are wrong, and that is fine
            row[who] = _time_once(self.sb, self.problem, prog, self.tests, loose, time_limit_s, language)
        return row


def _counted(ratio: float, cfg: SpeedConfig) -> Decision:
    """Faster / slower / tie from one instruction-count ratio (counts do not vary run to run)."""
    eff = math.log1p(cfg.instr_min_effect)
    lr = math.log(ratio)
    return Decision("faster" if lr < -eff else "slower" if lr > eff else "tie", ratio, 0.0, 0.0, 1)


def _result(
    decisions: list[Decision],
    pooled: Decision,
    measure: str,
    cand: list[float],
    refs: list[list[float]],
    cfg: SpeedConfig,
) -> SpeedResult:
    if cfg.mode == "binary":
        reward = 1.0 if pooled.outcome == "faster" else 0.0
    else:
        score = {"faster": 1.0, "tie": 0.5, "slower": 0.0}
        reward = sum(score[d.outcome] for d in decisions) / len(decisions)
    return SpeedResult(reward, True, measure, decisions, pooled, cand, refs)


def _round_order(arms: list[int], k: int) -> list[int]:
    """Round k's running order: rotated, and reversed every other cycle, so that each program takes
    each position (first after a pause, in the middle, last) equally often."""
    rot = k % len(arms)
    order = arms[rot:] + arms[:rot]
    return order[::-1] if (k // len(arms)) % 2 else order


def _decide_pair(
    cand: list[float], ref: list[float], base: list[float], cfg: SpeedConfig
) -> Decision:
    """Paired log ratios of the program's own CPU time (the run's fixed overhead taken off)."""
    lr = []
    for c, r, b in zip(cand, ref, base):
        lr.append(math.log(max(c - b, _FLOOR_MS) / max(r - b, _FLOOR_MS)))
    return decide(lr, confidence=cfg.confidence, min_effect=cfg.min_effect, noise_k=cfg.noise_k)


def _speed_of(
    sb: Sandbox,
    prob: dict[str, Any],
    code: str,
    cfg: SpeedConfig,
    ccfg: CorrectnessConfig,
    language: str = "python",
) -> SpeedResult:
    """Time a program already judged correct against the problem's references in its language
    (a C++ program against C++ references: against Python ones it would always look fast)."""
    refs = [s for s, _ in programs_in(prob, language) if s and s.strip()][: cfg.max_refs]
    if not refs:
        return SpeedResult(
            0.0, True, note=f"the problem has no {language} reference solution to compare with"
        )
    hook = cfg.inputs
    heavy = list(hook(prob) or []) if callable(hook) else hook  # the generator runs once
    tests = timing_tests(prob, replace(cfg, inputs=heavy or None))
    unknown = bool(heavy)
    measure = cfg.measure
    race = _Race(sb, prob, code, refs, tests, cfg)
    try:
        if measure == "cpu" or language != "python":  # (instruction counters run Python programs)
            out = race.by_cpu(unknown, ccfg.time_limit_s, language)
            if measure != "cpu":
                out.note = f"instructions are counted for Python programs only; timed {language} by CPU"
            return out
        tool = pick_tool({"instructions": "auto", "auto": "perf"}.get(measure, measure))
        if tool is not None:
            res = race.by_instructions(tool)
            if isinstance(res, SpeedResult):
                return res
            fallback = f"instruction count failed ({res}); fell back to CPU time"
        else:
            fallback = "no instruction counter works here; fell back to CPU time"
        out = race.by_cpu(unknown, ccfg.time_limit_s)
    except RewardSystemError as e:  # the sandbox failed us: no reward rather than a wrong one
        if ccfg.on_system_error == "raise":
            raise
        return SpeedResult(None, True, note=str(e))
    if measure != "auto":
        out.note = fallback
    return out


def speed_many(
    items: Sequence[tuple[str | dict[str, Any], Any]],
    *,
    sandbox: Sandbox | None = None,
    config: SpeedConfig | None = None,
    correctness: CorrectnessConfig | None = None,
    **options: Any,
) -> list[SpeedResult]:
    """Speed results for many (problem, completion) pairs: graded in parallel, then each correct one
    timed (identical programs of the same problem are timed once), in input order."""
    cfg = replace(config or SpeedConfig(), **options)
    ccfg = correctness or CorrectnessConfig()
    sb = sandbox or shared_sandbox()
    grades = grade_many(items, sandbox=sb, config=ccfg)
    out: list[SpeedResult | None] = [None] * len(items)
    todo: dict[tuple[Any, str, str], list[int]] = {}
    probs: dict[Any, dict[str, Any]] = {}
    for i, ((p, _), g) in enumerate(zip(items, grades)):
        if g.system_error:  # only reaches here with on_system_error="none"
            out[i] = SpeedResult(None, False, note=f"sandbox error: {g.error}")
            continue
        if not g.accepted or g.code is None:
            out[i] = SpeedResult(0.0, False, note=f"not correct ({g.verdict or 'no code'})")
            continue
        pk: Any = p if isinstance(p, str) else id(p)
        if pk not in probs:
            probs[pk] = as_problem(p)
        todo.setdefault((pk, g.code, g.language or "python"), []).append(i)
    keys = list(todo)
    if keys:
        # Timing runs of different programs would share the cores: keep at most half of the workers busy.
        with ThreadPoolExecutor(max(1, min(len(keys), sb.n_workers // 2 or 1))) as ex:
            results = list(ex.map(lambda k: _speed_of(sb, probs[k[0]], k[1], cfg, ccfg, k[2]), keys))
        for k, res in zip(keys, results):
            for i in todo[k]:
                out[i] = replace(res)
    return [r for r in out if r is not None]


def measure_speed(
    problem: str | dict[str, Any],
    completion: Any,
    *,
    sandbox: Sandbox | None = None,
    config: SpeedConfig | None = None,
    correctness: CorrectnessConfig | None = None,
    **options: Any,
) -> SpeedResult:
    """Grade the completion, then (if correct) time it against the references; the full evidence."""
    return speed_many(
        [(problem, completion)], sandbox=sandbox, config=config, correctness=correctness, **options
    )[0]


def speed_reward(
    problem: str | dict[str, Any],
    completion: Any,
    *,
    sandbox: Sandbox | None = None,
    config: SpeedConfig | None = None,
    **options: Any,
) -> float | None:
    """0.0 unless correct; then the graded (default) or binary speed reward (see the module docstring)."""
    return measure_speed(problem, completion, sandbox=sandbox, config=config, **options).reward
