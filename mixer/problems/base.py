"""Problem-level sampling: a source mixer says how many problems per source, a `ProblemSampler` says
which, learns from each group's rewards, and counts the rollouts (generated, zero-advantage, discarded).

`ProblemSampler` itself draws uniformly inside each source (a seeded permutation per epoch, as
`MixedSampler` does) and keeps every group: the plain baseline. Subclasses choose problems
(`_take`), learn from outcomes (`_observe`) or drop groups after rollout (`_keep`).

Every problem sampler takes the build's difficulty as a prior (`difficulty=`, `from_dataset`; see
`mixer.problems.prior`): it hands the source mixer each source's expected learnability
(`Mixer.set_prior`), and a subclass that models problems starts its model from it
(`_prior_changed`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

import numpy as np

from mixer.feedback import WeightsId, feedback_from_rewards, grpo_advantages, per_source_mean
from mixer.policies.base import Mixer, from_state, to_state
from mixer.problems.prior import DifficultyPrior
from mixer.sampler import MixedSampler, _group_ids_of

__all__ = ["GroupOutcome", "ProblemSampler", "group_rewards"]

#: Rewards that differ by less than this are equal (a group of equal rewards has zero advantage).
REWARD_TOL = 1e-9

LEDGER_KEYS = (
    "rollouts",  # completions reported (every one generated, kept or not)
    "groups",  # groups reported
    "zero_advantage_groups",  # groups whose rewards were all equal (or fewer than two)
    "discarded_rollouts",  # completions in groups the sampler told the trainer to drop
    "skipped_prompts",  # prompts passed over before rollout (GRESO-style skipping; no cost)
    "scored_prompts",  # prompts given to a scorer before drawing (a forward pass each; no rollout)
    "updates",  # observe() calls
)

#: The group size (completions per prompt) a prior's learnability is computed for: a trainer's
#: usual G; the learnability of a source barely changes between 4 and 16.
PRIOR_GROUP_SIZE = 8


@dataclass
class GroupOutcome:
    """What one batch of rollouts said, per group (one prompt's completions) and per completion."""

    problems: np.ndarray  # global problem index of each group
    sources: np.ndarray  # source id of each group
    mean: np.ndarray  # mean reward of each group on [0, 1] (NaN when no finite reward)
    attempts: np.ndarray  # finite rewards in each group
    zero_advantage: np.ndarray  # bool per group: fewer than two finite rewards, or all equal
    keep_group: np.ndarray  # bool per group: train on it
    group_of: np.ndarray  # group number of each completion
    keep: np.ndarray  # bool per completion: train on it (its group is kept)

    @property
    def n_groups(self) -> int:
        return int(len(self.problems))


def group_rewards(
    problems: np.ndarray, rewards: np.ndarray, group_ids: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group: (problem, successes, attempts, zero_advantage), and each completion's group.

    `rewards` are on [0, 1] with NaN for a completion that got no reward (a sandbox fault is not
    a failure). Groups are `group_ids` when given, else the problem index. Successes are the sum
    of the finite rewards, so partial credit counts as a fractional success.
    """
    keys = problems if group_ids is None else group_ids
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    g = len(first)
    gprob = problems[first]
    if group_ids is not None and (gprob[inv] != problems).any():
        raise ValueError("a group (group_ids / group_size) holds completions of different problems")
    ok = np.isfinite(rewards)
    att = np.bincount(inv[ok], minlength=g).astype(np.float64)
    succ = np.bincount(inv[ok], weights=rewards[ok], minlength=g)
    hi = np.full(g, -np.inf)
    lo = np.full(g, np.inf)
    np.maximum.at(hi, inv[ok], rewards[ok])
    np.minimum.at(lo, inv[ok], rewards[ok])
    zero = (att < 2) | (hi - lo <= REWARD_TOL)
    return gprob, succ, att, zero, inv


class ProblemSampler(MixedSampler):
    """A `MixedSampler` that also hears each group's rewards, per problem.

    Draw with `next_batch()` (or iterate); after generating `G` completions per prompt, call
    `update(problems, rewards, weights_id=sampler.last_weights_id)` with one problem index and one
    reward per completion: it returns a `GroupOutcome` (which completions to train on), updates the
    sampler's own state from the problems actually drawn in that batch, and feeds the source mixer
    (`feedback_from_rewards`, credited to `weights_id`). `observe(...)` does the same without
    touching the mixer, for a trainer that already feeds it.

    Rewards must lie in `reward_range` (default [0, 1]); they are rescaled to [0, 1], and any value
    in between is partial credit. NaN (no reward: a sandbox fault) is left out of every count but
    the rollouts generated. `ledger` counts rollouts, groups, zero-advantage groups, discarded
    rollouts and skipped prompts; it is part of `state_dict()`.

    `difficulty` / `difficulty_std` (one value per global index, NaN where unknown; codemix's
    [0, 1] scale, or item-response logits with `difficulty_scale="logit"`) and `never_solved`
    are the build's prior (`set_prior`); `from_dataset` reads them from the dataset's columns.
    """

    #: whether `from_dataset` refuses a dataset without the difficulty columns it names
    prior_columns_required: ClassVar[bool] = False

    def __init__(
        self,
        groups: Mapping[str, Sequence[int] | np.ndarray],
        batch_size: int,
        mixer: Mixer | str | None = None,
        seed: int = 0,
        exhaust: str = "recycle",
        num_steps: int | None = None,
        mixer_kwargs: Mapping[str, Any] | None = None,
        reward_range: tuple[float, float] = (0.0, 1.0),
        difficulty: Sequence[float] | np.ndarray | None = None,
        difficulty_std: Sequence[float] | np.ndarray | None = None,
        difficulty_scale: str = "unit",
        never_solved: Sequence[bool] | np.ndarray | None = None,
    ) -> None:
        if difficulty_scale not in ("unit", "logit"):
            raise ValueError(
                f"difficulty_scale must be 'unit' or 'logit', got {difficulty_scale!r}"
            )
        super().__init__(
            groups,
            batch_size,
            mixer=mixer,
            seed=seed,
            exhaust=exhaust,
            num_steps=num_steps,
            mixer_kwargs=mixer_kwargs,
        )
        self.difficulty_scale = difficulty_scale
        lo, hi = (float(x) for x in reward_range)
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise ValueError(
                f"reward_range must be (low, high) with low < high, got {reward_range}"
            )
        self.reward_range = (lo, hi)
        self.ledger: dict[str, int] = dict.fromkeys(LEDGER_KEYS, 0)
        self.last_problems = np.zeros(0, dtype=np.int64)
        self._batches: dict[int, np.ndarray] = {}
        n = max(int(g.max()) for g in self.groups) + 1
        self._source_lookup = np.full(n, -1, dtype=np.int64)
        for s, g in enumerate(self.groups):
            if (self._source_lookup[g] >= 0).any():
                raise ValueError(f"source {self.names[s]!r} shares problems with another source")
            self._source_lookup[g] = s
        self.prior: DifficultyPrior | None = None
        if difficulty is not None:  # a subclass with a model of its own calls set_prior itself
            self.set_prior(difficulty, difficulty_std, never_solved)

    # ---- the prior --------------------------------------------------------------------------
    def set_prior(
        self,
        difficulty: Sequence[float] | np.ndarray | None,
        difficulty_std: Sequence[float] | np.ndarray | None = None,
        never_solved: Sequence[bool] | np.ndarray | None = None,
    ) -> None:
        """(Re)start from the build's difficulty per global index (NaN where unknown; None: no
        prior): the sampler's own model restarts from it (`_prior_changed`) and the source mixer
        gets each source's expected learnability (`Mixer.set_prior`). Before the first rollouts."""
        if self.ledger["updates"]:
            raise RuntimeError(
                "set_prior after rollouts were observed would discard what was learnt"
            )
        n = len(self._source_lookup)
        prior = None
        if difficulty is not None:
            d = np.asarray(difficulty, dtype=np.float64).reshape(-1)
            if d.shape[0] < n:
                raise ValueError(
                    f"difficulty needs a value for every global index (at least {n}), got "
                    f"{d.shape[0]}"
                )
            kw = self._prior_kwargs()
            if self.difficulty_scale == "unit":
                prior = DifficultyPrior.from_unit(d, difficulty_std, never_solved, **kw)
            else:
                prior = DifficultyPrior.from_logit(d, difficulty_std, **kw)
            if not prior.known.any():
                prior = None
        self.prior = prior
        self._prior_changed()
        start = self.source_prior()
        if start is not None:
            self.mixer.set_prior(*start)

    def _prior_kwargs(self) -> dict[str, Any]:
        """Keywords for `DifficultyPrior` (a subclass with its own spread passes it here)."""
        return {}

    def _prior_changed(self) -> None:  # noqa: B027 - optional hook
        """Restart what the sampler learns from `self.prior` (None: no prior)."""

    def source_prior(self) -> tuple[np.ndarray, np.ndarray] | None:
        """What the prior says to the source mixer (None without one): per source, the expected
        share of informative groups among this sampler's draws from it, and the weights to start
        from (here: problems drawn uniformly inside a source, weights proportional to that)."""
        if self.prior is None:
            return None
        learnability = self.prior.source_learnability(self.groups, PRIOR_GROUP_SIZE)
        if learnability is None:
            return None
        return learnability, learnability

    @classmethod
    def from_dataset(
        cls,
        dataset: Any,
        batch_size: int,
        group_by: str = "source",
        difficulty_column: str | None = "difficulty",
        std_column: str | None = "difficulty_std",
        **kw: Any,
    ) -> ProblemSampler:
        """Sources from a column of the dataset the trainer reads (`MixedSampler.from_dataset`),
        with the prior read from `difficulty_column` / `std_column` (and a `never_solved` column)
        where the dataset has them (None: no prior; a named column must exist where the class sets
        `prior_columns_required`). Global index = row."""
        from filters.contracts import UserError
        from mixer.rows import dataset_column

        for col in (difficulty_column, std_column) if cls.prior_columns_required else ():
            if col and dataset_column(dataset, col) is None:
                raise UserError(
                    f"the dataset has no column {col!r} (pass difficulty_column=None to "
                    "sample without a prior)"
                )
        sampler = cast("ProblemSampler", super().from_dataset(dataset, batch_size, group_by, **kw))
        if difficulty_column is not None and dataset_column(dataset, difficulty_column) is not None:
            cls._read_prior(sampler, dataset, difficulty_column, std_column)
        return sampler

    @staticmethod
    def _read_prior(
        sampler: ProblemSampler, dataset: Any, difficulty_column: str, std_column: str | None
    ) -> None:
        from filters.contracts import UserError
        from mixer.problems.prior import floats_of
        from mixer.rows import dataset_column

        d = floats_of(dataset_column(dataset, difficulty_column) or [], difficulty_column)
        std = dataset_column(dataset, std_column) if std_column else None
        sd = None if std is None or std_column is None else floats_of(std, std_column)
        never = dataset_column(dataset, "never_solved")
        ns = None if never is None else np.array([bool(x) for x in never])
        try:
            sampler.set_prior(d, sd, ns)
        except ValueError as e:
            raise UserError(str(e)) from None

    # ---- drawing ----------------------------------------------------------------------------
    def next_batch(self) -> list[int]:
        """The next batch of problems (global indices); `last_weights_id` names the weights that drew it."""
        idx = super().next_batch()
        self.last_problems = np.asarray(idx, dtype=np.int64)
        if self.last_weights_id is not None:
            self._batches[self.last_weights_id] = self.last_problems
            while len(self._batches) > self.mixer.max_pending:
                del self._batches[next(iter(self._batches))]
        return idx

    # ---- feedback ---------------------------------------------------------------------------
    def _rewards01(self, rewards: Sequence[float] | np.ndarray) -> np.ndarray:
        r = np.asarray(rewards, dtype=np.float64).reshape(-1)
        lo, hi = self.reward_range
        fin = np.isfinite(r)
        bad = fin & ((r < lo - REWARD_TOL) | (r > hi + REWARD_TOL))
        if bad.any():
            raise ValueError(
                f"rewards must lie in reward_range [{lo:g}, {hi:g}] (NaN for no reward); got "
                f"{r[bad][:3].tolist()}; pass reward_range=(low, high) for another scale"
            )
        out = np.full(r.shape, np.nan)
        out[fin] = np.clip((r[fin] - lo) / (hi - lo), 0.0, 1.0)
        return out

    def observe(
        self,
        problems: Sequence[int] | np.ndarray,
        rewards: Sequence[float] | np.ndarray,
        weights_id: WeightsId | None = None,
        group_ids: Sequence[object] | np.ndarray | None = None,
        group_size: int | None = None,
    ) -> GroupOutcome:
        """Learn from one batch's rollouts: `problems[i]` is the global problem index of completion i,
        `rewards[i]` its reward; returns which completions to train on. The mixer is not updated.

        Groups (the completions of one prompt): `group_ids` per completion (e.g. verl's `uid`), or
        `group_size` G for the usual layout where each prompt's G completions are consecutive;
        without either, the completions of one problem form one group (a problem drawn twice in
        one batch then counts as one larger group). With `weights_id` (an id, or `{id: examples}`
        for rollouts of several draws), the problems must be ones drawn in the batches of those ids
        (a loader that prefetched must not report one batch's rewards as another's).
        """
        p = np.asarray(problems).reshape(-1)
        if p.size and not np.issubdtype(p.dtype, np.integer):
            raise ValueError(f"problems must be integer row indices, got dtype {p.dtype}")
        p = p.astype(np.int64)
        r = self._rewards01(rewards)
        if p.shape != r.shape:
            raise ValueError(
                f"{p.size} problems for {r.size} rewards; give one of each per completion"
            )
        if p.size and (
            p.min() < 0 or p.max() >= len(self._source_lookup) or (self._source_lookup[p] < 0).any()
        ):
            raise ValueError("problems holds indices that belong to no source of this sampler")
        ids = (
            []
            if weights_id is None
            else [int(k) for k in weights_id]
            if isinstance(weights_id, Mapping)
            else [int(weights_id)]
        )
        known = [self._batches[k] for k in ids if k in self._batches]
        if known and len(known) == len(ids):
            drawn = np.concatenate(known)
            stray = np.setdiff1d(p, drawn)
            if stray.size:
                raise ValueError(
                    f"problems {stray[:5].tolist()} were not drawn in the batch of weights_id="
                    f"{weights_id}; report each batch's rewards with its own weights id"
                )
        gids = _group_ids_of(p, group_ids, group_size)
        gprob, succ, att, zero, inv = group_rewards(p, r, gids)
        mean = np.divide(succ, att, out=np.full(len(att), np.nan), where=att > 0)
        out = GroupOutcome(
            problems=gprob,
            sources=self._source_lookup[gprob],
            mean=mean,
            attempts=att,
            zero_advantage=zero,
            keep_group=np.ones(len(gprob), dtype=bool),
            group_of=inv,
            keep=np.ones(p.size, dtype=bool),
        )
        self.ledger["updates"] += 1
        self._observe(out, succ)
        out.keep_group = np.asarray(self._keep(out), dtype=bool)
        out.keep = out.keep_group[inv] if p.size else out.keep
        self.ledger["rollouts"] += int(p.size)
        self.ledger["groups"] += out.n_groups
        self.ledger["zero_advantage_groups"] += int(zero.sum())
        self.ledger["discarded_rollouts"] += int((~out.keep).sum())
        return out

    def learn(
        self,
        rows: Sequence[int] | np.ndarray,
        rewards: Sequence[float] | np.ndarray,
        *,
        weights_id: WeightsId | None = None,
        group_ids: Sequence[object] | np.ndarray | None = None,
        group_size: int | None = None,
        advantages: Sequence[float] | np.ndarray | None = None,  # noqa: ARG002
        pass_threshold: float | None = None,  # noqa: ARG002
        **feedback: Any,
    ) -> GroupOutcome:
        """`observe`, then feed the source mixer the batch's per-source reward, pass rate and
        |advantage| (`feedback_from_rewards`), credited to `weights_id`; returns which groups to
        train on. Advantages are the groups' own (GRPO-style) and a pass is the top of
        `reward_range`, whatever a trainer passes as `advantages` / `pass_threshold` (the
        arguments of `BatchSource.learn`). Extra keywords (e.g. `loss`, `grad_sketch`, `dev_loss`)
        go into that `Feedback`."""
        out = self.observe(
            rows, rewards, weights_id=weights_id, group_ids=group_ids, group_size=group_size
        )
        p = np.asarray(rows, dtype=np.int64).reshape(-1)
        raw = np.asarray(rewards, dtype=np.float64).reshape(-1)
        n = len(self.names)
        fb = feedback_from_rewards(
            raw,
            self._source_lookup[p],
            n,
            advantages=grpo_advantages(raw, out.group_of),
            pass_threshold=self.reward_range[1],
            count_groups=False,
        )
        counts = np.bincount(out.sources, minlength=n).astype(np.float64)  # groups per source
        zero = per_source_mean(out.zero_advantage.astype(np.float64), out.sources, n)
        fb = dataclasses.replace(fb, counts=counts, weights_id=weights_id, zero_adv=zero)
        self.mixer.update(dataclasses.replace(fb, **feedback) if feedback else fb)
        return out

    @property
    def drops_groups(self) -> bool:
        """Whether this sampler tells the trainer to drop some groups after rollout (DAPO, the
        pass-rate band, GRESO): only a trainer that regenerates to refill the batch can honour it."""
        return type(self)._keep is not ProblemSampler._keep

    def learnt_state(self) -> dict:
        """What the sampler learnt from rewards (the ledger and the subclass state), without the draw
        position: for trainers whose loader snapshots the sampler when it draws, before the rewards
        of that batch arrive (verl), to be saved at checkpoint time and restored after the loader."""
        own = to_state({"ledger": dict(self.ledger), "sampler": self._state()})
        return {**super().learnt_state(), **own}

    def load_learnt_state(self, state: Mapping[str, Any]) -> None:
        """Restore `learnt_state()` (after the loader restored the draw position); a state saved
        without the mixer's (before 0.2) restores the problems' part only."""
        if "mixer" in state:
            super().load_learnt_state(state)
        st = from_state({k: v for k, v in state.items() if k in ("ledger", "sampler")})
        self.ledger = {k: int(st["ledger"].get(k, 0)) for k in LEDGER_KEYS}
        self._load_state(st["sampler"])

    # ---- what subclasses change -------------------------------------------------------------
    def _observe(self, out: GroupOutcome, successes: np.ndarray) -> None:  # noqa: B027 - optional hook
        """Learn from the groups of one batch (`successes` = summed [0, 1] rewards per group)."""

    def _keep(self, out: GroupOutcome) -> np.ndarray:
        """Which groups to train on (all, here)."""
        return np.ones(out.n_groups, dtype=bool)

    def _state(self) -> dict:
        """Subclass state (numpy arrays allowed)."""
        return {}

    def _load_state(self, state: dict) -> None:  # noqa: B027 - optional hook
        """Restore what `_state` returned."""

    # ---- checkpointing ----------------------------------------------------------------------
    def state_dict(self) -> dict:
        """`MixedSampler`'s state plus the ledger, the batches awaiting rewards and the subclass state."""
        st = super().state_dict()
        st["problems"] = to_state(
            {
                "ledger": dict(self.ledger),
                "batches": [[k, v.copy()] for k, v in self._batches.items()],
                "last_problems": self.last_problems.copy(),
                "sampler": self._state(),
            }
        )
        return st

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore `state_dict()`; the next batches and predictions match the saved run."""
        if "problems" not in state:
            raise ValueError(
                "state has no problem-sampler part; it was saved by a plain MixedSampler"
            )
        super().load_state_dict(state)
        st = from_state(dict(state["problems"]))
        self.ledger = {k: int(st["ledger"].get(k, 0)) for k in LEDGER_KEYS}
        self._batches = {int(k): np.asarray(v, dtype=np.int64) for k, v in st["batches"]}
        self.last_problems = np.asarray(st["last_problems"], dtype=np.int64)
        self._load_state(st["sampler"])
