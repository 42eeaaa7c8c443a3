"""GRPO on B3, two ways with the same reward function, samplers and mixers:

- `run_trl`: TRL's `GRPOTrainer` through `mixer.adapters.trl.MixerGRPOTrainer` (the sampler
  draws each generation batch, `trl_correctness_reward` grades it, the trainer feeds the sampler;
  a sampler that drops groups is refilled by the trainer, up to `refill_rounds` rounds);
- `run_lean`: the same step written out (sample `group` completions per drawn prompt, grade them
  with `trl_correctness_reward`, `sampler.update`, TRL's loss: group-scaled advantages, the
  "dapo" token-mean loss, `beta=0`, one iteration, AdamW with a linear decay, gradient clip 1),
  which also runs the samplers that drop groups (DAPO) with their refill loop, as verl does.

Both evaluate held-out pass@1 every `eval_every` steps (and a second held-out set when given:
B3 v3's held-out families) and record the sampler's ledger (every
generated rollout, discarded ones included), generated tokens, scoring tokens (prompt and
reference tokens of every problem the scorer scored), the sandbox's CPU seconds, CPU seconds per
phase, and per step (`Trace`) the source weights, draws and zero-advantage groups per source.

B3 v2's settings (`RunConfig`): a short linear warm-up then a constant rate, and no optimizer step
on a batch with no informative group (`skip_empty`: with Adam, an empty batch still moves the
weights by the momentum; B3 collapsed on such steps).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch

from code_rl.oracle import OracleSampler, TopBOracle
from code_rl.rollout import PhaseClock, evaluate, grade, prompt_ids, sample, sandbox_cpu_s
from mixer import PROBLEM_SAMPLERS, FrontierSampler, GroupOutcome, ProblemSampler, make_mixer
from mixer.problems.scorers import ReferenceLikelihood, dataset_references

__all__ = [
    "RunConfig",
    "Arm",
    "make_sampler",
    "run_lean",
    "run_trl",
    "lr_factor",
    "ranking_pass_rates",
    "offline_filter",
    "with_prior",
]


@dataclass(frozen=True)
class RunConfig:
    steps: int = 40
    prompts: int = 16  # prompts per generation batch (one optimizer step each)
    group: int = 8  # completions per prompt
    lr: float = 3e-4
    warmup: int = 0  # steps of linear warm-up of the learning rate
    schedule: str = "linear"  # after the warm-up: "linear" decay to 0 at `steps`, or "constant"
    skip_empty: bool = False  # no optimizer step on a batch with no informative group
    max_new_tokens: int = 64
    eval_every: int = 10
    eval_samples: int = 4
    final_samples: int | None = (
        None  # samples per problem at the last evaluation, if not eval_samples
    )
    target: tuple[str, ...] = ()  # sources of the target metric (micro pass@1), if any
    refill_rounds: int = 10  # DAPO's max_num_gen_batches
    # B3 v2's loop attempt 2: a step draws rounds of `prompts` prompts, keeps only informative
    # groups, until it holds `fill` of them (at most `refill_rounds` rounds); 0: every drawn group
    # is kept and one round makes a step (samplers that drop groups refill to `prompts`)
    fill: int = 0
    # B3 v2's loop attempt 3: with `rollouts` > 0 a run ends once it has generated that many
    # rollouts (`steps` is then a cap), evaluated each time it passes another `rollouts / 8`;
    # so an arm that needs fewer rollouts a step takes more steps, on the same budget
    rollouts: int = 0
    quality_at: tuple[int, ...] = ()  # steps at which to measure the scorer's quality
    quality_problems: int = 48
    quality_samples: int = 16
    device: str = "cpu"


def lr_factor(cfg: RunConfig, step: int) -> float:
    """The learning rate's multiplier after `step` scheduler steps: a linear warm-up over
    `cfg.warmup` steps, then constant or a linear decay to 0 at `cfg.steps`."""
    warm = min(1.0, (step + 1) / cfg.warmup) if cfg.warmup else 1.0
    if cfg.schedule == "constant":
        return warm
    if cfg.schedule != "linear":
        raise ValueError(f"schedule must be 'linear' or 'constant', got {cfg.schedule!r}")
    return warm * max(0.0, 1 - step / cfg.steps)


class SkipEmptyAdamW(torch.optim.AdamW):
    """AdamW that takes no step when every gradient is zero: a GRPO batch with no informative
    group (all its advantages are zero). Plain AdamW would still move every weight by its momentum.
    `skipped` counts the steps not taken."""

    skipped = 0

    @torch.no_grad()
    def step(self, closure: Any = None) -> Any:
        params = [p for g in self.param_groups for p in g["params"]]
        if all(p.grad is None or not bool(p.grad.any()) for p in params):
            self.skipped += 1
            return None
        return super().step(closure)


@dataclass(frozen=True)
class Arm:
    """A problem sampler (`problems`, a name of `mixer.PROBLEM_SAMPLERS` or "oracle", with
    `problem_kw`) under a source mixer (`mixer`, with `mixer_kw`; "static-size" is static weights
    by source size); `scorer` sets the policy's reference likelihood on a FrontierSampler.
    `default`: `FrontierSampler.from_dataset(train, batch_size)` with nothing else (the seed and
    the run's length aside): the default sampling stack, whatever it holds at this commit."""

    name: str
    problems: str = "uniform"
    mixer: str = "uniform"
    scorer: bool = False
    problem_kw: dict[str, Any] = field(default_factory=dict)
    mixer_kw: dict[str, Any] = field(default_factory=dict)
    default: bool = False
    # the offline pass-rate filter (issue 53): train only on problems whose pass rate in the
    # ranking's rollouts (other models' attempts, as `codemix rank` reads them) lies in this
    # window, what `codemix rank --keep-pass-rate` keeps; `offline_filter` applies it
    keep_pass_rate: tuple[float, float] | None = None


#: with a rollout budget, the oracle probes each time it has generated this many more rollouts
#: (the first loop's 25 steps of 16 x 8)
ORACLE_PROBE_ROLLOUTS = 3200


def sampler_horizon(cfg: RunConfig) -> int:
    """The sampler updates a run makes (the horizon every adapter passes): one per step, or with a
    rollout budget one per round of `prompts` x `group` rollouts."""
    return cfg.rollouts // (cfg.prompts * cfg.group) if cfg.rollouts else cfg.steps


def make_sampler(arm: Arm, train: Any, cfg: RunConfig, seed: int) -> ProblemSampler:
    horizon = sampler_horizon(cfg)
    if arm.default:  # the default stack; `problem_kw` only for its ablations (no prior)
        return FrontierSampler.from_dataset(
            train, cfg.prompts, seed=seed, num_steps=horizon, **arm.problem_kw
        )
    names = sorted(set(train["source"]))
    kw = dict(arm.mixer_kw)
    policy = arm.mixer
    if policy == "static-size":
        sizes = np.array([sum(1 for s in train["source"] if s == n) for n in names], dtype=float)
        policy, kw = "static", {"weights": sizes / sizes.sum(), **kw}
    mixer = make_mixer(policy, len(names), names=names, seed=seed, **kw)
    oracles = {"oracle": OracleSampler, "oracle-topb": TopBOracle}
    cls = oracles.get(arm.problems) or PROBLEM_SAMPLERS.lookup(arm.problems)
    extra: dict[str, Any] = {}
    if cls is FrontierSampler:
        has = any(d is not None for d in train["difficulty"])
        extra = {} if has else {"difficulty_column": None, "std_column": None}
    return cls.from_dataset(
        train,
        cfg.prompts,
        mixer=mixer,
        seed=seed,
        num_steps=horizon,
        **{**extra, **arm.problem_kw},
    )


def ranking_pass_rates(rollouts: Any) -> dict[str, float]:
    """Each problem's pass rate pooled over every model of a rollouts file (the JSONL `codemix
    rank --rollouts` reads: `problem_id`, `model`, `passed`, `attempts` a line)."""
    import json
    from pathlib import Path

    passed: dict[str, int] = {}
    attempts: dict[str, int] = {}
    for line in Path(rollouts).read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            pid = str(r["problem_id"])
            passed[pid] = passed.get(pid, 0) + int(r["passed"])
            attempts[pid] = attempts.get(pid, 0) + int(r["attempts"])
    return {k: passed[k] / attempts[k] for k in attempts if attempts[k]}


def offline_filter(train: Any, rates: dict[str, float], window: tuple[float, float]) -> Any:
    """The rows of `train` whose ranking pass rate lies in `window` (inclusive; a problem the
    ranking never attempted is kept, as `codemix rank` keeps it): DAPO's usual offline filter."""
    lo, hi = window
    keep = [
        i for i, pid in enumerate(train["problem_id"]) if pid not in rates or lo <= rates[pid] <= hi
    ]
    if not keep:
        raise ValueError(f"the offline filter {window} keeps no train problem")
    return train.select(keep)


def with_prior(train: Any, prior: dict[str, list[float]]) -> Any:
    """`train` with its difficulty columns (`difficulty`, `difficulty_std`, `difficulty_bucket`)
    replaced by `prior` (problem id -> [difficulty, std, bucket]; B3 v3's prior from other
    models), each column keeping its type; every other column and the rows are unchanged. A
    problem the prior does not hold is refused."""
    missing = [p for p in train["problem_id"] if p not in prior]
    # a selection of rows is flattened in memory: add_column would flatten it into a cache file
    # beside the dataset's own files, and those are frozen inputs (their fingerprint would change)
    train = train.flatten_indices(keep_in_memory=True)
    if missing:
        raise ValueError(
            f"the prior holds no difficulty for {len(missing)} problems: {missing[:3]}"
        )
    for j, col in enumerate(("difficulty", "difficulty_std", "difficulty_bucket")):
        if col not in train.column_names:
            continue
        feature = train.features[col]
        kind = int if col == "difficulty_bucket" else float
        vals = [kind(prior[p][j]) for p in train["problem_id"]]
        if getattr(feature, "dtype", None) == "string":
            vals = [str(v) for v in vals]  # type: ignore[misc]
        train = train.remove_columns(col).add_column(col, vals, feature=feature)
    return train


class CountingScorer:
    """A scorer that counts the tokens of every forward pass it makes (prompt + reference)."""

    def __init__(self, inner: ReferenceLikelihood, tokenizer: Any) -> None:
        self.inner = inner
        self.lengths = np.array(
            [
                len(p if isinstance(p, list) else tokenizer(p)["input_ids"])
                + (len(tokenizer(r, add_special_tokens=False)["input_ids"]) if r else 0)
                for p, r in zip(inner.prompts, inner.references, strict=True)
            ]
        )
        self.tokens = 0

    def __call__(self, indices: np.ndarray) -> np.ndarray:
        self.tokens += int(self.lengths[np.asarray(indices, dtype=np.int64)].sum())
        return self.inner(indices)


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks with ties given their average rank."""
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    r[order] = np.arange(len(x), dtype=float)
    for v in np.unique(x):
        tie = x == v
        r[tie] = r[tie].mean()
    return r


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ok = np.isfinite(a) & np.isfinite(b)
    ra, rb = _ranks(a[ok]), _ranks(b[ok])
    if ok.sum() < 3 or np.ptp(ra) == 0 or np.ptp(rb) == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])


def _auroc(score: np.ndarray, label: np.ndarray) -> float:
    ok = np.isfinite(score)
    pos, neg = score[ok & label], score[ok & ~label]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def scorer_quality(model: Any, tok: Any, train: Any, cfg: RunConfig, seed: int) -> dict[str, Any]:
    """Reference log-likelihood (mean per token and summed) against the empirical pass rate of
    `quality_samples` completions, on a fixed sample of train problems: Spearman, and AUROC for
    "solved at least once" and for "pass rate >= 0.5"."""
    rng = np.random.default_rng(1234)
    idx = np.sort(rng.choice(len(train), size=min(cfg.quality_problems, len(train)), replace=False))
    rows = train.select(idx.tolist())
    torch.manual_seed(seed + 777)
    ids = prompt_ids(tok, rows["prompt"])
    texts, _ = sample(model, tok, ids, cfg.quality_samples, cfg.max_new_tokens)
    gt = [g for g in rows["ground_truth"] for _ in range(cfg.quality_samples)]
    p = np.nan_to_num(grade(gt, texts), nan=0.0).reshape(len(idx), -1).mean(axis=1)
    refs = dataset_references(rows)
    mean_ll = ReferenceLikelihood(model, tok, ids, refs)(np.arange(len(idx)))
    n_tok = np.array([len(tok(r, add_special_tokens=False)["input_ids"]) for r in refs])
    sum_ll = mean_ll * n_tok
    out: dict[str, Any] = {
        "problems": len(idx),
        "mean_pass": float(p.mean()),
        # per problem, so that the quality inside each source can be read too
        "rows": {
            "source": list(rows["source"]),
            "pass": p.tolist(),
            "mean_ll": mean_ll.tolist(),
            "sum_ll": sum_ll.tolist(),
        },
    }
    for name, ll in (("mean", mean_ll), ("sum", sum_ll)):
        out[name] = {
            "spearman": spearman(ll, p),
            "auroc_solved": _auroc(ll, p > 0),
            "auroc_half": _auroc(ll, p >= 0.5),
        }
    return out


def _grpo_loss(
    model: Any, seqs: list[tuple[list[int], list[int]]], adv: np.ndarray, dev: str
) -> Any:
    """TRL's GRPO loss at beta=0 and one iteration ("dapo": the sum over completion tokens of
    -advantage * log p, over the number of completion tokens). A completion with advantage 0 adds
    nothing but its tokens to the denominator, so only the others go through the model (the same
    loss and gradient, at the cost of the informative groups alone)."""
    n_tokens = sum(len(c) for _, c in seqs)
    live = [k for k in range(len(seqs)) if adv[k] != 0] or [0]  # [0]: a zero loss, as TRL's
    seqs, adv = [seqs[k] for k in live], np.asarray(adv)[live]
    width = max(len(p) + len(c) for p, c in seqs)
    pad = 0
    ids = torch.full((len(seqs), width), pad, dtype=torch.long)
    mask = torch.zeros_like(ids)
    comp = torch.zeros((len(seqs), width - 1), dtype=torch.float32)
    a = torch.zeros((len(seqs), 1), dtype=torch.float32)
    for k, (p, c) in enumerate(seqs):
        s = p + c
        off = width - len(s)  # left padding, as generation sees it
        ids[k, off:] = torch.tensor(s)
        mask[k, off:] = 1
        comp[k, off + len(p) - 1 : width - 1] = 1.0
        a[k, 0] = float(adv[k])
    pos = (mask.cumsum(1) - 1).clamp(min=0)
    logits = model(
        input_ids=ids.to(dev), attention_mask=mask.to(dev), position_ids=pos.to(dev)
    ).logits
    logp = torch.log_softmax(logits[:, :-1].float(), dim=-1).gather(
        -1, ids[:, 1:].to(dev)[..., None]
    )
    logp = logp.squeeze(-1)
    comp, a = comp.to(dev), a.to(dev)
    return -(a * logp * comp).sum() / max(n_tokens, 1)


def _advantages(rewards: np.ndarray, group: int) -> np.ndarray:
    r = np.nan_to_num(rewards, nan=0.0).reshape(-1, group)
    std = r.std(axis=1, ddof=1, keepdims=True) if group > 1 else np.zeros((len(r), 1))
    return ((r - r.mean(axis=1, keepdims=True)) / (std + 1e-4)).reshape(-1)


class _Recorder:
    """The run's curve: held-out pass@1 and the cost so far at each evaluation."""

    def __init__(
        self,
        model: Any,
        tok: Any,
        held_out: Any,
        train: Any,
        cfg: RunConfig,
        seed: int,
        clock: PhaseClock,
        families: Any = None,
    ) -> None:
        self.model, self.tok, self.held_out, self.train = model, tok, held_out, train
        self.families = families
        self.cfg, self.seed, self.clock = cfg, seed, clock
        self.curve: list[dict[str, Any]] = []
        self.quality: list[dict[str, Any]] = []
        self.cpu0 = sandbox_cpu_s()
        self.t0 = time.perf_counter()
        self.eval_s = 0.0
        self.next_eval = 0  # with a rollout budget: the rollouts at which the next evaluation falls

    def point(
        self,
        step: int,
        sampler: ProblemSampler,
        gen_tokens: int,
        score_tokens: int,
        final: bool | None = None,
    ) -> None:
        t = time.perf_counter()
        cfg = self.cfg
        final = step == cfg.steps if final is None else final
        if cfg.rollouts:  # an evaluation each time the run passes another eighth of its budget
            due = final or int(sampler.ledger["rollouts"]) >= self.next_eval
        else:
            due = final or step % cfg.eval_every == 0
        with self.clock("evaluation"):
            if step in cfg.quality_at:
                q = scorer_quality(self.model, self.tok, self.train, cfg, self.seed)
                self.quality.append({"step": step, **q})
            if due:
                if cfg.rollouts:
                    done = int(sampler.ledger["rollouts"])
                    self.next_eval = (done // (cfg.rollouts // 8) + 1) * (cfg.rollouts // 8)
                last = final and cfg.final_samples is not None
                n = cfg.final_samples if last else cfg.eval_samples
                ev = evaluate(
                    self.model,
                    self.tok,
                    self.held_out,
                    n=n,
                    seed=self.seed + step,
                    target=cfg.target,
                )
                ev.pop("per_problem")
                if self.families is not None:
                    ev.update(self._families(n, step))
                self.curve.append(
                    {
                        "step": step,
                        "samples": n,
                        **ev,
                        **{k: int(v) for k, v in sampler.ledger.items()},
                        "generated_tokens": int(gen_tokens),
                        "scoring_tokens": int(score_tokens),
                        "sandbox_cpu_s": sandbox_cpu_s() - self.cpu0,
                        "wall_s": time.perf_counter() - self.t0 - self.eval_s,
                    }
                )
                metric = ev.get("pass1_target", ev["pass1"])
                print(
                    f"  step {step}: pass@1 {metric:.3f}, rollouts {sampler.ledger['rollouts']}, "
                    f"{time.perf_counter() - self.t0:.0f} s",
                    flush=True,
                )
        self.eval_s += time.perf_counter() - t

    def _families(self, n: int, step: int) -> dict[str, Any]:
        """The second held-out set (B3 v3: families no training problem comes from), evaluated
        as the first (`n` samples a problem) on a forked random state: the run's training and
        its first held-out set are the same as without it. `pass1_families`: the mean over its
        problems."""
        devices = [] if str(self.cfg.device) == "cpu" else None
        with torch.random.fork_rng(devices=devices):
            ev = evaluate(self.model, self.tok, self.families, n=n, seed=self.seed + step)
        return {"pass1_families": ev["pass1_micro"], "families_per_source": ev["per_source"]}


class Trace:
    """Per step: the source weights that drew the batch, the groups drawn and the zero-advantage
    groups per source (refills included), the informative groups trained on, the rollouts
    generated and whether the optimizer stepped; and how often each train problem was drawn."""

    COLUMNS = ("weights", "draws", "zero_advantage", "informative", "rollouts", "updated")

    def __init__(self, sampler: ProblemSampler, n_rows: int) -> None:
        self.names = list(sampler.names)
        self.cols: dict[str, list[Any]] = {k: [] for k in self.COLUMNS}
        self.per_problem = np.zeros(n_rows, dtype=np.int64)
        self._open: dict[str, Any] = {}

    def begin(self, sampler: ProblemSampler) -> None:
        n = len(self.names)
        self._open = {
            "weights": [round(float(w), 4) for w in sampler.mixer.weights()],
            "draws": np.zeros(n, dtype=np.int64),
            "zero_advantage": np.zeros(n, dtype=np.int64),
            "rollouts": 0,
        }

    def add(self, out: GroupOutcome, rollouts: int) -> None:
        o = self._open
        np.add.at(o["draws"], out.sources, 1)
        np.add.at(o["zero_advantage"], out.sources[out.zero_advantage], 1)
        np.add.at(self.per_problem, out.problems, 1)
        o["rollouts"] += int(rollouts)

    def end(self, informative: int, updated: bool) -> None:
        o = self._open
        for k in ("weights", "rollouts"):
            self.cols[k].append(o[k])
        for k in ("draws", "zero_advantage"):
            self.cols[k].append(o[k].tolist())
        self.cols["informative"].append(int(informative))
        self.cols["updated"].append(bool(updated))

    def record(self) -> dict[str, Any]:
        return {"sources": self.names, **self.cols, "draws_per_problem": self.per_problem.tolist()}


def probe_pass_rates(
    model: Any, tok: Any, ids: list[list[int]], gts: list[str], n: int, max_new_tokens: int
) -> tuple[np.ndarray, int]:
    """The oracle's probe: `n` completions of every train problem with the current policy;
    returns each problem's pass rate and the tokens generated (not charged to the arm)."""
    texts, toks = sample(model, tok, ids, n, max_new_tokens)
    r = np.nan_to_num(grade([g for g in gts for _ in range(n)], texts), nan=0.0)
    return r.reshape(len(ids), n).mean(axis=1), sum(len(t) for t in toks)


def _probe_due(cfg: RunConfig, sampler: OracleSampler, step: int, next_probe: int) -> bool:
    """Whether the oracle probes before this step: every ORACLE_PROBE_ROLLOUTS generated rollouts
    with a rollout budget, else every `sampler.every` steps."""
    if cfg.rollouts:
        return int(sampler.ledger["rollouts"]) >= next_probe
    return (step - 1) % sampler.every == 0


def run_lean(
    model: Any,
    tok: Any,
    train: Any,
    held_out: Any,
    arm: Arm,
    cfg: RunConfig,
    seed: int,
    families: Any = None,
) -> dict[str, Any]:
    """One GRPO run of `arm` from `model` (trained in place); `families`: a second held-out set,
    evaluated beside `held_out` at every evaluation (`_Recorder._families`)."""
    torch.manual_seed(seed)
    dev = cfg.device
    model.to(dev)
    clock = PhaseClock()
    sampler = make_sampler(arm, train, cfg, seed)
    scorer = None
    if arm.scorer:
        scorer = CountingScorer(ReferenceLikelihood.from_dataset(model, tok, train), tok)
        assert isinstance(sampler, FrontierSampler)
        sampler.set_scorer(scorer)
    ids = prompt_ids(tok, train["prompt"])
    gts = list(train["ground_truth"])
    opt_cls = SkipEmptyAdamW if cfg.skip_empty else torch.optim.AdamW
    opt = opt_cls(model.parameters(), lr=cfg.lr, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(cfg, s))
    rec = _Recorder(model, tok, held_out, train, cfg, seed, clock, families)
    trace = Trace(sampler, len(train))
    gen_tokens = 0
    probe = {"rollouts": 0, "tokens": 0}
    G = cfg.group
    rec.point(0, sampler, 0, 0)
    next_probe = 0  # with a rollout budget the oracle probes every ORACLE_PROBE_ROLLOUTS rollouts
    for step in range(1, cfg.steps + 1):
        if isinstance(sampler, OracleSampler) and _probe_due(cfg, sampler, step, next_probe):
            next_probe += ORACLE_PROBE_ROLLOUTS
            model.eval()
            with clock("probe"):
                rates, n_tok = probe_pass_rates(
                    model, tok, ids, gts, sampler.samples, cfg.max_new_tokens
                )
            sampler.set_pass_rates(rates, step - 1)
            probe["rollouts"] += len(ids) * sampler.samples
            probe["tokens"] += n_tok
        trace.begin(sampler)
        # (problem, completion ids x G, rewards, zero advantage)
        kept: list[tuple[int, list[list[int]], np.ndarray, bool]] = []
        for _ in range(cfg.refill_rounds):
            if isinstance(sampler, TopBOracle):  # fresh probes of what it may draw, uncharged
                model.eval()
                sampler.begin_round()
                while len(cands := sampler.candidates()):
                    with clock("probe"):
                        rates, n_tok = probe_pass_rates(
                            model,
                            tok,
                            [ids[i] for i in cands],
                            [gts[i] for i in cands],
                            sampler.samples,
                            cfg.max_new_tokens,
                        )
                    sampler.record(cands, rates)
                    probe["rollouts"] += len(cands) * sampler.samples
                    probe["tokens"] += n_tok
                sampler.choose()
            with clock("sampler"):
                batch = sampler.next_batch()
            model.eval()
            with clock("generation"):
                texts, toks = sample(model, tok, [ids[i] for i in batch], G, cfg.max_new_tokens)
            gen_tokens += sum(len(t) for t in toks)
            problems = np.repeat(np.asarray(batch, dtype=np.int64), G)
            with clock("grading"):
                rewards = grade([gts[i] for i in problems], texts)
            with clock("sampler"):
                out = sampler.learn(
                    problems, rewards, weights_id=sampler.last_weights_id, group_size=G
                )
            trace.add(out, len(texts))
            for g in np.flatnonzero(out.keep_group):
                if cfg.fill and out.zero_advantage[g]:
                    continue  # the fill loop trains on informative groups only
                kept.append(
                    (
                        int(batch[g]),
                        toks[g * G : (g + 1) * G],
                        rewards[g * G : (g + 1) * G],
                        bool(out.zero_advantage[g]),
                    )
                )
            if cfg.fill:
                if len(kept) >= cfg.fill:
                    break
            elif len(kept) >= cfg.prompts or not sampler.drops_groups:
                break
        kept = kept[: cfg.fill or cfg.prompts]
        informative = sum(1 for k in kept if not k[3])
        updated = bool(kept) and (informative > 0 or not cfg.skip_empty)
        if updated:
            with clock("update"):
                model.train()
                seqs = [(ids[p], c) for p, cs, _, _ in kept for c in cs]
                adv = np.concatenate([_advantages(r, G) for _, _, r, _ in kept])
                loss = _grpo_loss(model, seqs, adv, dev)
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
        sched.step()
        trace.end(informative, updated)
        model.eval()
        spent = cfg.rollouts and int(sampler.ledger["rollouts"]) >= cfg.rollouts
        final = bool(spent) or step == cfg.steps
        rec.point(step, sampler, gen_tokens, scorer.tokens if scorer else 0, final=final)
        if spent:
            break
    out_rec: dict[str, Any] = {
        "curve": rec.curve,
        "quality": rec.quality,
        "loop": "lean",
        "weights": sampler.mixer.weights().tolist(),
        "trace": trace.record(),
        "phases": clock.record(),
    }
    if isinstance(sampler, OracleSampler | TopBOracle):
        out_rec["probe"] = {**probe, "points": sampler.probes}
    if isinstance(sampler, TopBOracle):
        s = sampler
        out_rec["probe"]["settings"] = {"pool": s.pool, "samples": s.samples,
                                        "enough": s.enough, "most": s.most}  # fmt: skip
    return out_rec


def run_trl(
    model: Any,
    tok: Any,
    train: Any,
    held_out: Any,
    arm: Arm,
    cfg: RunConfig,
    seed: int,
    out_dir: str,
    families: Any = None,
) -> dict[str, Any]:
    """One GRPO run of `arm` through `MixerGRPOTrainer` (TRL), evaluated by a callback (and on
    `families`, a second held-out set, as `run_lean`).

    The fill loop (`cfg.fill`) is the trainer's own refill: a sampler that drops groups (DAPO's
    `DynamicSampling`) keeps `cfg.prompts` = `cfg.fill` informative groups a step, drawn a
    generation batch of `cfg.prompts` at a time for at most `cfg.refill_rounds` rounds: run_lean's
    fill loop with the uniform arm."""
    from transformers import TrainerCallback
    from trl import GRPOConfig

    from filters.reward import trl_correctness_reward
    from mixer.adapters.trl import MixerGRPOTrainer

    sampler = make_sampler(arm, train, cfg, seed)
    if cfg.fill and (cfg.fill != cfg.prompts or not sampler.drops_groups):
        raise ValueError(
            "the fill loop in TRL is the trainer's refill of a sampler that drops groups: "
            f"fill ({cfg.fill}) must equal prompts ({cfg.prompts}) and the arm drop groups (dapo)"
        )
    clock = PhaseClock()
    args = GRPOConfig(
        output_dir=out_dir,
        max_steps=cfg.steps,
        per_device_train_batch_size=cfg.prompts * cfg.group,
        num_generations=cfg.group,
        generation_batch_size=cfg.prompts * cfg.group,
        max_completion_length=cfg.max_new_tokens,
        temperature=1.0,
        learning_rate=cfg.lr,
        weight_decay=0.0,
        lr_scheduler_type="linear",
        max_grad_norm=1.0,
        beta=0.0,
        loss_type="dapo",
        scale_rewards="group",
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=cfg.device == "cpu",
        seed=seed,
        dataloader_num_workers=0,
        disable_tqdm=True,
        bf16=False,
    )
    state = {"tokens": 0}

    def correctness(completion_ids: Any = None, **kw: Any) -> list[float | None]:
        """`trl_correctness_reward`, counting the tokens TRL generated."""
        state["tokens"] += sum(len(c) for c in completion_ids or [])
        with clock("grading"):
            return trl_correctness_reward(completion_ids=completion_ids, **kw)

    # B3 v2's schedule and its rule of no step on an empty batch (TRL steps on every batch; an
    # optimizer that skips all-zero gradients is the same rule); B3's runs used TRL's own
    optimizers: tuple[Any, Any] = (None, None)
    if cfg.skip_empty:
        opt = SkipEmptyAdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)
        optimizers = (opt, torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_factor(cfg, s)))
    trainer = MixerGRPOTrainer(
        model=model,
        reward_funcs=[correctness],
        args=args,
        train_dataset=train,
        processing_class=tok,
        sampler=sampler,
        optimizers=optimizers,
        refill_rounds=cfg.refill_rounds,  # short after them: train on the kept groups, as run_lean
        refill_backoff=False,  # run_lean's fill loop takes refill_rounds rounds every step
    )
    trace = Trace(sampler, len(train))
    learn = sampler.learn

    def traced_learn(rows: Any, rewards: Any, **kw: Any) -> Any:
        """The sampler's `learn`, as the trainer calls it, with each step's draws traced."""
        trace.begin(sampler)
        out = learn(rows, rewards, **kw)
        trace.add(out, len(np.asarray(rewards).reshape(-1)))
        trace.end(int((out.keep_group & ~out.zero_advantage).sum()), True)
        return out

    sampler.learn = traced_learn  # type: ignore[method-assign]
    scorer = None
    if arm.scorer:
        scorer = CountingScorer(trainer.reference_scorer(), tok)
        assert isinstance(sampler, FrontierSampler)
        sampler.set_scorer(scorer)
    rec = _Recorder(trainer.model, tok, held_out, train, cfg, seed, clock, families)

    class Eval(TrainerCallback):
        def on_step_end(self, args, st, control, **kw):  # noqa: ANN001, ANN202, ARG002
            m = trainer.model
            was = m.training
            m.eval()
            step = int(st.global_step)
            # with a rollout budget the run ends at the step that spends it, as run_lean does
            spent = bool(cfg.rollouts) and int(sampler.ledger["rollouts"]) >= cfg.rollouts
            final = spent or step == cfg.steps
            rec.point(step, sampler, state["tokens"], scorer.tokens if scorer else 0, final=final)
            if spent:
                control.should_training_stop = True
            m.train(was)

    rec.point(0, sampler, 0, 0)
    trainer.add_callback(Eval())
    with clock("trainer"):  # generation, grading and updates inside TRL (grading also apart)
        trainer.train()
    if cfg.skip_empty:  # which steps the optimizer skipped is known only in total
        trace.cols["updated"] = [None] * len(trace.cols["updated"])
    return {
        "curve": rec.curve,
        "quality": rec.quality,
        "loop": "trl",
        "weights": sampler.mixer.weights().tolist(),
        "trace": trace.record(),
        "phases": clock.record(),
        "optimizer_skipped": getattr(optimizers[0], "skipped", None),
    }


def config_dict(cfg: RunConfig) -> dict[str, Any]:
    return asdict(cfg)
