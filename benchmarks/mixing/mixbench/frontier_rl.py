"""GRPO with a problem-level sampler: B2's policy, warm-up and step, with every generated rollout counted.

One training step fills a batch of `prompts` groups (G completions each). Samplers that keep every
group (uniform, frontier) generate one batch per step; filters (DAPO's dynamic sampling, the
pass-rate band, GRESO) draw and generate again until `prompts` groups passed the filter (extra
kept groups are dropped, as DAPO does), at most `max_rounds` times per step. Each step records the
rollouts generated (kept or not), the groups and the zero-advantage groups.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from mixbench.common import MixerSpec, Timer, build_mixer
from mixbench.rl import Policy, RLConfig
from mixbench.spread import Problems, make_problems
from mixbench.tasks import make_eval, warmup_batch
from mixer import grpo_advantages
from mixer.problems import ProblemSampler
from mixer.problems.frontier import FrontierSampler
from mixer.problems.rollout_filters import GRESO, DynamicSampling, PassRateBand

__all__ = [
    "SamplerArm",
    "BiasedReferenceLikelihood",
    "FrontierConfig",
    "warm_policy",
    "grpo_train",
    "run_frontier",
    "SAMPLERS",
    "ORACLE_RULES",
    "oracle_score",
]


#: Oracle rules on the true current pass rate p (see `CurrentPassRateOracle`).
ORACLE_RULES = ("pq", "pq2", "band", "chance", "nonzero")


class CurrentPassRateOracle(FrontierSampler):
    """An upper reference, not a method: draws by the policy's true current pass rate p, computed
    by a forward pass over the source before every draw. No build and no sampler can know it; it
    shows what perfect knowledge of p would buy a sampler that only chooses which problems to draw.

    `rule` scores p: "pq" p (1 - p) (the default, as the frontier's learnability score); "pq2"
    p (1 - p)^2 (leans to the problems still mostly failed, where GRPO's rare successes teach);
    "band" 1 where `band[0] <= p <= band[1]` else 0; "chance" p (1 - p) with the guessing floor
    taken off, (p - c)+ (1 - p) / (1 - c) with c = `chance` (1/16: one of B2's 16 answers), so a
    problem failed at chance level scores 0; "nonzero" 1 - p^G - (1 - p)^G, the probability that a
    group of `group` completions has a non-zero advantage. `explore` (a uniform share) and `power`
    apply as in `FrontierSampler`. (`score="band"` is kept as a synonym of `rule="band"`.)"""

    policy: Policy
    problems: Problems

    def __init__(
        self, *args: Any, rule: str = "pq", chance: float = 1.0 / 16, group: int = 8, **kw: Any
    ) -> None:
        if rule not in ORACLE_RULES:
            raise ValueError(f"unknown oracle rule {rule!r}; choose from {', '.join(ORACLE_RULES)}")
        if not 0.0 <= chance < 1.0:
            raise ValueError(f"chance must be in [0, 1), got {chance}")
        if group < 1:
            raise ValueError(f"group must be >= 1, got {group}")
        super().__init__(*args, **kw)
        self.rule, self.chance, self.group = rule, float(chance), int(group)

    def scores(self, indices: Any) -> np.ndarray:
        idx = np.asarray(indices, dtype=np.int64)
        p = pass_probability(self.policy, self.problems.tokens[idx], self.problems.ref[idx])
        return oracle_score(
            p, "band" if self.score == "band" else self.rule, self.band, self.chance, self.group
        )


class BiasedReferenceLikelihood:
    """The scorer of `FrontierSampler(scorer=...)` in this benchmark: each problem's log-likelihood of
    its reference answer under the policy now (one forward pass, no sampling), plus a fixed offset
    per problem drawn once from N(0, `noise`^2) (nats). An answer here is one token, so with `noise`
    0 it is log p exactly. On real code the likelihood of one reference solution is a biased
    signal of the pass rate: other correct programs exist, references differ in length and style.
    Those biases belong to the problem and persist as the policy trains, which the fixed offset
    stands for; `fresh` > 0 adds noise drawn anew at every call (std `fresh`)."""

    def __init__(
        self, policy: Policy, problems: Problems, noise: float, seed: int, fresh: float = 0.0
    ) -> None:
        self.policy, self.problems = policy, problems
        self.noise, self.fresh = float(noise), float(fresh)
        self.offset = self.noise * np.random.default_rng([seed, 17]).standard_normal(
            len(problems.ref)
        )
        self.rng = np.random.default_rng([seed, 18])

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        p = pass_probability(self.policy, self.problems.tokens[idx], self.problems.ref[idx])
        x = np.log(np.maximum(p, 1e-12)) + self.offset[idx]
        return x + self.fresh * self.rng.standard_normal(x.size) if self.fresh else x


def oracle_score(
    p: np.ndarray, rule: str, band: tuple[float, float], chance: float, group: int
) -> np.ndarray:
    """The oracle's score of true pass rates `p` under `rule` (see `CurrentPassRateOracle`)."""
    if rule == "pq":
        return p * (1.0 - p)
    if rule == "pq2":
        return p * (1.0 - p) ** 2
    if rule == "band":
        return ((p >= band[0]) & (p <= band[1])).astype(np.float64)
    if rule == "chance":
        return np.maximum(p - chance, 0.0) * (1.0 - p) / (1.0 - chance)
    if rule == "nonzero":
        return 1.0 - p**group - (1.0 - p) ** group
    raise ValueError(f"unknown oracle rule {rule!r}")


SAMPLERS = {
    "uniform": ProblemSampler,
    "frontier": FrontierSampler,
    "dapo": DynamicSampling,
    "band": PassRateBand,
    "greso": GRESO,
    "oracle-current": CurrentPassRateOracle,
}


class SamplerArm:
    """A benchmark arm: a problem sampler, the source mixer under it, and the prior it reads."""

    def __init__(
        self,
        label: str,
        sampler: str = "uniform",
        mixer: MixerSpec | None = None,
        prior: str | None = None,
        **kw: Any,
    ) -> None:
        if sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {sampler!r}; choose from {', '.join(SAMPLERS)}")
        if prior is not None and sampler != "frontier":
            raise ValueError("only the frontier sampler reads a prior")
        self.label, self.sampler, self.prior, self.kw = label, sampler, prior, dict(kw)
        self.mixer = mixer or MixerSpec("uniform", "uniform")

    def to_json(self) -> dict:
        return {
            "label": self.label,
            "sampler": self.sampler,
            "mixer": self.mixer.to_json(),
            "prior": self.prior,
            "kw": dict(self.kw),
        }


class FrontierConfig(RLConfig):
    """B2's settings (`RLConfig`) plus the task and the refill cap."""

    @classmethod
    def make(cls, quick: bool, task: str = "spread") -> FrontierConfig:  # type: ignore[override]
        cfg = cls(RLConfig.make(quick))
        cfg.update(task=task, max_rounds=10)  # DAPO's recipe: max_num_gen_batches=10
        return cfg


def warm_policy(
    seed: int,
    cfg: dict,
    emb: int | None = None,
    hidden: int | None = None,
    sl_steps: int | None = None,
) -> Policy:
    """B2's policy after its supervised warm-up (identical to `run_rl`'s at the same seed and sizes)."""
    torch.manual_seed(seed)
    model = Policy(emb or cfg["emb"], hidden or cfg["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["sl_lr"])
    wrng = np.random.default_rng([seed, 3])
    for _ in range(cfg["sl_steps"] if sl_steps is None else sl_steps):
        tok, y = warmup_batch(wrng, cfg["sl_batch"])
        F.cross_entropy(model(torch.from_numpy(tok)), torch.from_numpy(y)).backward()
        opt.step()
        opt.zero_grad()
    return model


@torch.no_grad()
def pass_probability(model: Policy, tokens: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Each problem's probability that one sampled answer equals its reference."""
    probs = F.softmax(model(torch.from_numpy(tokens)), -1)
    return probs.gather(1, torch.from_numpy(ref)[:, None]).squeeze(1).numpy().astype(np.float64)


def grpo_train(
    model: Policy,
    problems: Problems,
    sampler: ProblemSampler,
    cfg: dict,
    seed: int,
    steps: int,
    evalset: dict | None = None,
) -> dict:
    """`steps` GRPO steps drawing through `sampler`; curves and rollout counts (see the module doc)."""
    P, G = cfg["prompts"], cfg["group"]
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    gen = torch.Generator().manual_seed(seed * 7919 + 1)
    tokens, ref = problems.tokens, problems.ref
    t_step, t_sampler = Timer(), Timer()
    rec: dict[str, list] = {k: [] for k in ("rollouts", "groups", "zero_groups", "kept", "rounds")}
    weights: list[list[float]] = []
    curve_steps: list[int] = []
    curve_src: list[list[float]] = []
    curve_rollouts: list[int] = []

    def evaluate(step: int) -> None:
        if evalset is None:
            return
        with torch.no_grad():
            pr = [
                float((model(torch.from_numpy(t)).argmax(1).numpy() == y).mean())
                for t, y in evalset.values()
            ]
        curve_steps.append(step)
        curve_src.append(pr)
        curve_rollouts.append(int(sum(rec["rollouts"])))

    evaluate(0)
    for step in range(1, steps + 1):
        with t_step:
            weights.append([float(x) for x in sampler.mixer.weights()])
            parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
            n_kept = rollouts = groups = zero = rounds = 0
            while n_kept < P and rounds < cfg["max_rounds"]:
                rounds += 1
                with t_sampler:
                    idx = np.asarray(sampler.next_batch(), dtype=np.int64)
                wid = sampler.last_weights_id
                rep = np.repeat(idx, G)
                with torch.no_grad():
                    probs = F.softmax(model(torch.from_numpy(tokens[rep])), -1)
                ans = torch.multinomial(probs, 1, generator=gen).squeeze(1).numpy()
                r = (ans == ref[rep]).astype(np.float64)
                with t_sampler:
                    out = sampler.learn(rep, r, weights_id=wid, group_size=G)
                rollouts += len(r)
                groups += out.n_groups
                zero += int(out.zero_advantage.sum())
                take = np.flatnonzero(out.keep_group)[: P - n_kept]  # DAPO drops the surplus
                if take.size:
                    m = np.isin(out.group_of, take)
                    gid = rounds * 1_000_000 + out.group_of[m]
                    parts.append((rep[m], ans[m], r[m], gid))
                    n_kept += take.size
            rec["rollouts"].append(rollouts)
            rec["groups"].append(groups)
            rec["zero_groups"].append(zero)
            rec["kept"].append(n_kept)
            rec["rounds"].append(rounds)
            if parts:
                rows = np.concatenate([p[0] for p in parts])
                a_np = np.concatenate([p[1] for p in parts])
                r_np = np.concatenate([p[2] for p in parts])
                adv = grpo_advantages(r_np, np.concatenate([p[3] for p in parts]))
                logp = F.log_softmax(model(torch.from_numpy(tokens[rows])), -1)
                logp = logp.gather(1, torch.from_numpy(a_np)[:, None]).squeeze(1)
                (-(torch.from_numpy(adv).float() * logp).mean()).backward()
                opt.step()
                opt.zero_grad()
        if step % cfg["eval_every"] == 0 or step == steps:
            evaluate(step)
    return {
        "steps": curve_steps,
        "pass_rate_source": curve_src,
        "pass_rate": [float(np.mean(x)) for x in curve_src],
        "rollouts_at": curve_rollouts,
        "weights": weights,
        "per_step": rec,
        "time_step_s": t_step.total / steps,
        "time_mixer_s": t_sampler.total / steps,
        "ledger": dict(sampler.ledger),
    }


def build_sampler(
    arm: SamplerArm, problems: Problems, cfg: dict, seed: int, prior: dict | None
) -> ProblemSampler:
    """The arm's sampler over `problems`, its source mixer built as B2 builds mixers."""
    spec = arm.mixer
    n = len(problems.names)
    if spec.policy == "static" and "weights" not in spec.kw:  # by source size, as B2's static
        sizes = np.bincount(problems.source, minlength=n).astype(np.float64)
        spec = MixerSpec(spec.label, "static", weights=sizes / sizes.sum(), **spec.kw)
    mixer = build_mixer(spec, n, problems.names, seed, horizon=cfg["steps"])
    kw = dict(arm.kw)
    kw.pop("signal_noise", None)  # the scorer is set by `run_frontier`, once the policy exists
    kw.pop("signal_fresh", None)
    if arm.sampler == "frontier" and arm.prior is not None:
        if prior is None or arm.prior not in prior:
            raise ValueError(f"arm {arm.label} needs the {arm.prior!r} prior")
        kw["difficulty"] = np.asarray(prior[arm.prior]["difficulty"], dtype=np.float64)
        kw["difficulty_std"] = np.asarray(prior[arm.prior]["difficulty_std"], dtype=np.float64)
    if arm.sampler == "oracle-current":
        kw.setdefault("group", cfg["group"])
    return SAMPLERS[arm.sampler](problems.groups(), cfg["prompts"], mixer=mixer, seed=seed, **kw)


def run_frontier(spec: SamplerArm, seed: int, cfg: dict, prior: dict | None = None) -> dict:
    """One GRPO run of one arm; returns curves (held-out pass rate per clean kind), rollouts, weights."""
    problems = make_problems(cfg["task"], seed, cfg["noise"], cfg["pool_scale"])
    evalset = make_eval(seed, cfg["eval_per_source"])
    model = warm_policy(seed, cfg)
    sampler = build_sampler(spec, problems, cfg, seed, prior)
    if isinstance(sampler, CurrentPassRateOracle):
        sampler.policy, sampler.problems = model, problems
    quality = None
    if "signal_noise" in spec.kw:
        assert isinstance(sampler, FrontierSampler)
        scorer = BiasedReferenceLikelihood(
            model, problems, spec.kw["signal_noise"], seed, spec.kw.get("signal_fresh", 0.0)
        )
        quality = signal_quality(scorer)
        sampler.set_scorer(scorer)
    out = grpo_train(model, problems, sampler, cfg, seed, cfg["steps"], evalset)
    out.update(
        label=spec.label,
        seed=seed,
        names=list(problems.names),
        clean=list(evalset),
        params=sum(p.numel() for p in model.parameters()),
    )
    if quality is not None:
        out["signal_spearman"] = quality
    return out


def signal_quality(scorer: BiasedReferenceLikelihood) -> float:
    """Spearman correlation of the scorer's signal (its fixed offsets, no fresh noise) with the true
    pass rate over the training pool, for the policy after warm-up."""
    probs = scorer.problems
    p = pass_probability(scorer.policy, probs.tokens, probs.ref)
    x = np.log(np.maximum(p, 1e-12)) + scorer.offset
    rank = lambda v: np.argsort(np.argsort(v)).astype(np.float64)  # noqa: E731 - ties are rare
    return float(np.corrcoef(rank(x), rank(p))[0, 1])
