"""MixedSampler: per-step source counts from a mixer's weights, then examples without replacement.

`BatchSource` is what the trainer adapters need from a sampler (MixedSampler is one), and
`DrawnIndex` is an index that carries the weights id of the batch that drew it through a loader.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from mixer.policies.base import Mixer, from_state, to_state
from mixer.policies.baselines import Uniform

__all__ = ["BatchSource", "DrawnIndex", "MixedSampler", "stochastic_round", "MixedDataset"]


@runtime_checkable
class BatchSource(Protocol):
    """A batch sampler the trainer adapters can drive: `next_batch()` draws one batch of row
    indices and sets `last_weights_id` to the id (from `mixer.issue()`) of the weights that drew it;
    `source_of` maps rows to source ids in `range(len(names))`; `learn` takes what a trainer has
    after a step (each completion's row and reward, its group, the weights id that drew the batch)
    and is the one call the adapters make; `drops_groups` says whether the source asks the trainer
    to drop groups after rollout; `learnt_state` is what it learnt from rewards, without the draw
    position (for loaders that snapshot the sampler when they draw)."""

    @property
    def drops_groups(self) -> bool: ...

    batch_size: int
    names: list[str]
    mixer: Mixer
    last_weights_id: int | None

    def next_batch(self) -> list[int]: ...

    def source_of(self, indices: Sequence[int] | np.ndarray) -> np.ndarray: ...

    def learn(
        self,
        rows: Sequence[int] | np.ndarray,
        rewards: Sequence[float] | np.ndarray,
        *,
        weights_id: Any = None,
        group_ids: Sequence[object] | np.ndarray | None = None,
        group_size: int | None = None,
        advantages: Sequence[float] | np.ndarray | None = None,
        pass_threshold: float = 1.0,
    ) -> Any: ...

    def state_dict(self) -> dict: ...

    def load_state_dict(self, state: Mapping[str, Any]) -> None: ...

    def learnt_state(self) -> dict: ...

    def load_learnt_state(self, state: Mapping[str, Any]) -> None: ...


#: Marks a `learnt_state()` (a checkpoint file may hold one, or, written before it, a mixer state).
LEARNT_FORMAT_KEY, LEARNT_FORMAT = "format", "codemix.learnt/1"


def _group_ids_of(
    rows: np.ndarray, group_ids: Sequence[object] | np.ndarray | None, group_size: int | None
) -> np.ndarray | None:
    """One group id per completion: `group_ids` as given (as text), or `group_size` consecutive
    completions a group; None when neither is given (then a problem's completions form a group)."""
    if group_ids is not None and group_size is not None:
        raise ValueError("give group_ids or group_size, not both")
    if group_ids is not None:
        g = np.asarray(group_ids, dtype=object).astype(str).reshape(-1)
        if g.shape != rows.shape:
            raise ValueError(f"{g.size} group ids for {rows.size} completions")
        return g
    if group_size is not None:
        if group_size < 1 or rows.size % group_size:
            raise ValueError(
                f"{rows.size} completions do not split into groups of group_size={group_size}"
            )
        return np.arange(rows.size) // group_size
    return None


class DrawnIndex(int):
    """A row index that remembers the weights id of the batch that drew it.

    It is an `int` everywhere (datasets index with it), survives pickling into loader workers and
    the batching of torch's and torchdata's loaders, so a dataset wrapper can put the id into the
    row it returns and the feedback can name the weights that drew each example.
    """

    weights_id: int | None

    def __new__(cls, index: int, weights_id: int | None) -> DrawnIndex:
        obj = super().__new__(cls, int(index))
        obj.weights_id = None if weights_id is None else int(weights_id)
        return obj

    def __reduce__(self) -> tuple:
        return (DrawnIndex, (int(self), self.weights_id))

    def __repr__(self) -> str:
        return f"DrawnIndex({int(self)}, weights_id={self.weights_id})"

    def __str__(self) -> str:
        return int.__repr__(self)


def stochastic_round(weights: np.ndarray, total: int, rng: np.random.Generator) -> np.ndarray:
    """Integer counts summing exactly to `total` with E[count_i] = weights_i * total (systematic sampling)."""
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    x = w * total
    base = np.floor(x).astype(np.int64)
    rem = int(total - base.sum())
    if rem > 0:
        frac = x - base
        frac = frac * (rem / frac.sum())
        edges = np.cumsum(frac)
        pos = rng.random() + np.arange(rem)
        hit = np.searchsorted(edges, pos, side="right")
        np.add.at(base, np.minimum(hit, len(w) - 1), 1)
    return base


class MixedDataset:
    """The concatenation of several map-style datasets; index `i` is global, as `MixedSampler` yields."""

    def __init__(self, datasets: Sequence[Any]) -> None:
        self.datasets = list(datasets)
        self.offsets = np.concatenate([[0], np.cumsum([len(d) for d in self.datasets])])

    def __len__(self) -> int:
        return int(self.offsets[-1])

    def locate(self, i: int) -> tuple[int, int]:
        """(source, index inside that source) of global index `i`."""
        s = int(np.searchsorted(self.offsets, i, side="right") - 1)
        return s, int(i - self.offsets[s])

    def __getitem__(self, i: int) -> Any:
        s, j = self.locate(int(i))
        return self.datasets[s][j]


class MixedSampler:
    """Draw batches across sources with the weights of a `Mixer`.

    `groups` maps each source name to the global indices of its examples. `mixer` is a `Mixer`,
    or a policy name for `make_mixer` (built with these source names, `seed` and `mixer_kwargs`). Each step draws per-source
    counts by stochastic rounding of weights * `batch_size` (the batch size is exact), then takes
    examples from each source in a seeded per-epoch permutation, without replacement inside an epoch.
    A source that runs out starts a new epoch (`exhaust="recycle"`) or is marked exhausted in the
    mixer and gets no weight again (`exhaust="stop"`). Iterating yields lists of global indices, so it
    works as a `torch.utils.data.DataLoader(batch_sampler=...)`; `last_sources` holds the source id of
    each index of the latest batch. `state_dict()` includes the mixer's state, so a resumed run draws
    exactly the same batches.
    """

    def __init__(
        self,
        groups: Mapping[str, Sequence[int] | np.ndarray],
        batch_size: int,
        mixer: Mixer | str | None = None,
        seed: int = 0,
        exhaust: str = "recycle",
        num_steps: int | None = None,
        mixer_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        if exhaust not in ("recycle", "stop"):
            raise ValueError(f"exhaust must be 'recycle' or 'stop', got {exhaust!r}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.names = list(groups)
        self.groups = [np.asarray(groups[k], dtype=np.int64) for k in self.names]
        empty = [k for k, g in zip(self.names, self.groups, strict=True) if len(g) == 0]
        if empty:
            raise ValueError(f"sources with no examples: {empty}")
        if isinstance(mixer, str):
            from mixer.policies import make_mixer

            mixer = make_mixer(
                mixer, len(self.names), names=self.names, seed=seed, **dict(mixer_kwargs or {})
            )
        self.mixer = mixer if mixer is not None else Uniform(len(self.names), names=self.names)
        if self.mixer.n_sources != len(self.names):
            raise ValueError(
                f"mixer has {self.mixer.n_sources} sources, sampler has {len(self.names)}"
            )
        self.batch_size, self.seed, self.exhaust, self.num_steps = (
            int(batch_size),
            int(seed),
            exhaust,
            num_steps,
        )
        self.rng = np.random.default_rng([self.seed, 0])
        self.epoch = np.zeros(len(self.names), dtype=np.int64)
        self.pos = np.zeros(len(self.names), dtype=np.int64)
        self.steps = 0
        self.last_counts = np.zeros(len(self.names), dtype=np.int64)
        self.last_sources = np.zeros(0, dtype=np.int64)
        self.last_weights_id: int | None = None
        self._perm_cache: dict[int, tuple[int, np.ndarray]] = {}
        self.dataset: Any = None
        #: the problem id of each global index, and the column the sources came from, where
        #: known (`from_dataset`, `from_shards`): what `mixer.rows.check_rows` compares
        self.row_ids: list[str] | None = None
        self.group_column: str | None = None
        if num_steps is not None:
            self.mixer.set_horizon(num_steps, origin=f"{type(self).__name__}(num_steps=...)")

    # ---- constructors -----------------------------------------------------------------------
    @classmethod
    def from_datasets(cls, datasets: Mapping[str, Any], batch_size: int, **kw: Any) -> MixedSampler:
        """Sources from a dict of map-style datasets; `sampler.dataset` is their concatenation."""
        ds = MixedDataset(list(datasets.values()))
        groups = {k: np.arange(ds.offsets[i], ds.offsets[i + 1]) for i, k in enumerate(datasets)}
        s = cls(groups, batch_size, **kw)
        s.dataset = ds
        return s

    @classmethod
    def from_labels(cls, labels: Sequence[Any], batch_size: int, **kw: Any) -> MixedSampler:
        """Sources from one label per example (e.g. a dataset's `source` column); names sorted."""
        lab = np.asarray([str(x) for x in labels], dtype=object)
        names = sorted(set(lab.tolist()))
        groups = {k: np.flatnonzero(lab == k) for k in names}
        return cls(groups, batch_size, **kw)

    @classmethod
    def from_dataset(
        cls, dataset: Any, batch_size: int, group_by: str = "source", **kw: Any
    ) -> MixedSampler:
        """Sources from a column of the dataset the trainer reads (a `datasets.Dataset`, e.g. a
        `codemix export --format trl` split, a `pyarrow.Table`, a DataFrame or a dict of lists);
        global index = row. `sampler.dataset` is that dataset, and its `problem_id` column (where
        it has one) lets adapters check that the trainer reads the same rows (`check_rows`)."""
        from filters.contracts import UserError
        from mixer.rows import ID_COLUMN, dataset_column

        labels = dataset_column(dataset, group_by)
        if labels is None:
            cols = getattr(dataset, "column_names", None) or list(getattr(dataset, "columns", []))
            raise UserError(
                f"the dataset has no column {group_by!r}; columns: {', '.join(map(str, cols))}"
            )
        s = cls.from_labels(labels, batch_size, **kw)
        s.dataset, s.group_column = dataset, group_by
        ids = dataset_column(dataset, ID_COLUMN)
        s.row_ids = None if ids is None else [str(x) for x in ids]
        return s

    @classmethod
    def from_shards(
        cls, directory: str | Path, batch_size: int, group_by: str = "source", **kw: Any
    ) -> MixedSampler:
        """Sources from curated Parquet shards (`DIR/problems/*.parquet` or `DIR/*.parquet`), grouped by a column.

        `sampler.dataset` is the `pyarrow.Table` of all shards in file order; global index = row.
        A trainer that reads another table (an export, above all one with a held-out split) needs
        a sampler built `from_dataset` of that table: the adapters refuse a sampler whose rows
        are not the train set's.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        from filters.contracts import PROBLEMS_DIR, UserError

        d = Path(directory)
        files = sorted((d / PROBLEMS_DIR).glob("*.parquet")) or sorted(d.glob("*.parquet"))
        if not files:
            raise UserError(
                f"no Parquet shards in {d} or {d / PROBLEMS_DIR}; pass a curated build's OUT directory"
            )
        table = pa.concat_tables([pq.read_table(f) for f in files], promote_options="default")
        if group_by not in table.column_names:
            raise UserError(
                f"shards have no column {group_by!r}; columns: {', '.join(table.column_names)}"
            )
        return cls.from_dataset(table, batch_size, group_by=group_by, **kw)

    # ---- drawing ----------------------------------------------------------------------------
    def _perm(self, s: int) -> np.ndarray:
        e = int(self.epoch[s])
        hit = self._perm_cache.get(s)
        if hit is None or hit[0] != e:
            perm = np.random.default_rng([self.seed, 1, s, e]).permutation(len(self.groups[s]))
            self._perm_cache[s] = (e, perm)
            return perm
        return hit[1]

    def _take(self, s: int, k: int) -> list[int]:
        out: list[int] = []
        g = self.groups[s]
        while k > 0:
            left = len(g) - int(self.pos[s])
            if left == 0:
                self.epoch[s] += 1
                self.pos[s] = 0
                left = len(g)
            t = min(k, left)
            p = int(self.pos[s])
            out.extend(g[self._perm(s)[p : p + t]].tolist())
            self.pos[s] += t
            k -= t
        return out

    def _runs_out(self, s: int) -> bool:
        return self.exhaust == "stop" and int(self.pos[s]) >= len(self.groups[s])

    def next_batch(self) -> list[int]:
        """The global indices of the next step's batch (also sets `last_counts`, `last_sources` and
        `last_weights_id`, the id of the weights that drew it, for `Feedback.weights_id`)."""
        for s in range(len(self.names)):
            if self._runs_out(s) and self.mixer.active[s]:
                self.mixer.set_exhausted(s)
        self.last_weights_id, w = self.mixer.issue()
        counts = stochastic_round(w, self.batch_size, self.rng)
        if self.exhaust == "stop":
            counts = counts.astype(np.int64)
            # never draw past the end of a source; move the excess to sources that still have examples
            for _ in range(len(self.names)):
                room = np.array([len(g) for g in self.groups]) - self.pos
                over = np.maximum(counts - room, 0)
                if over.sum() == 0:
                    break
                counts -= over
                free = np.where(room - counts > 0, w, 0.0)
                if free.sum() <= 0:
                    break
                counts += stochastic_round(free, int(over.sum()), self.rng)
        idx: list[int] = []
        src: list[int] = []
        for s, k in enumerate(counts.tolist()):
            if k:
                idx.extend(self._take(s, k))
                src.extend([s] * k)
        self.last_counts = counts
        self.last_sources = np.asarray(src, dtype=np.int64)
        self.steps += 1
        return idx

    def next_drawn(self) -> list[DrawnIndex]:
        """`next_batch()` with each index carrying the batch's weights id (for loaders that prefetch)."""
        idx = self.next_batch()
        return [DrawnIndex(i, self.last_weights_id) for i in idx]

    def __iter__(self) -> Iterator[list[int]]:
        while self.num_steps is None or self.steps < self.num_steps:
            if self.exhaust == "stop" and all(
                int(self.pos[s]) >= len(g) for s, g in enumerate(self.groups)
            ):
                return
            yield self.next_batch()

    def __len__(self) -> int:
        if self.num_steps is not None:
            return int(self.num_steps)
        return max(1, sum(len(g) for g in self.groups) // self.batch_size)

    def describe(self) -> str:
        """One line for a run's log: the policy, the sources and their sizes, this sampler."""
        sizes = ", ".join(f"{k} {len(g)}" for k, g in zip(self.names, self.groups, strict=True))
        line = f"{self.mixer.name} over {len(self.names)} sources ({sizes}); {type(self).__name__}"
        line += f", {self.batch_size} rows a draw"
        horizon = getattr(self.mixer, "horizon", None)
        if horizon is not None:
            line += f"; horizon {horizon} updates ({getattr(self.mixer, 'horizon_origin', '?')})"
        return line

    def source_of(self, indices: Sequence[int] | np.ndarray) -> np.ndarray:
        """The source id of each global index."""
        lookup = getattr(self, "_lookup", None)
        if lookup is None:
            size = max(int(g.max()) for g in self.groups) + 1
            lookup = np.full(size, -1, dtype=np.int64)
            for s, g in enumerate(self.groups):
                lookup[g] = s
            self._lookup = lookup
        return lookup[np.asarray(indices, dtype=np.int64)]

    # ---- learning --------------------------------------------------------------------------
    @property
    def drops_groups(self) -> bool:
        """Whether the trainer must drop some groups after rollout (only problem filters do)."""
        return False

    def learn(
        self,
        rows: Sequence[int] | np.ndarray,
        rewards: Sequence[float] | np.ndarray,
        *,
        weights_id: Any = None,
        group_ids: Sequence[object] | np.ndarray | None = None,
        group_size: int | None = None,
        advantages: Sequence[float] | np.ndarray | None = None,
        pass_threshold: float = 1.0,
        **feedback: Any,
    ) -> object:
        """One step's outcome, as a trainer has it: each completion's row (the index this sampler
        drew), its reward, its group (`group_ids`, or `group_size` consecutive completions per
        prompt; default one group per row), optionally its advantage (default GRPO-style from the
        groups), and the id of the weights that drew the batch. Feeds the mixer the per-source
        reward, pass rate (reward >= `pass_threshold`) and |advantage|, counted in groups. Extra
        keywords (`loss`, `dev_loss`, `grad_sketch`, ...) go into that `Feedback`. Returns None
        here; a problem sampler returns which groups to train on (`GroupOutcome`)."""
        import dataclasses

        from mixer.feedback import feedback_from_rewards

        r = np.asarray(rows, dtype=np.int64).reshape(-1)
        groups = _group_ids_of(r, group_ids, group_size)
        fb = feedback_from_rewards(
            np.asarray(rewards, dtype=np.float64).reshape(-1),
            self.source_of(r),
            len(self.names),
            group_ids=r if groups is None else groups,
            advantages=advantages,
            pass_threshold=pass_threshold,
            weights_id=weights_id,
        )
        self.mixer.update(dataclasses.replace(fb, **feedback) if feedback else fb)
        return None

    def learnt_state(self) -> dict:
        """What the sampler learnt from rewards, without its draw position: the mixer's state."""
        return {LEARNT_FORMAT_KEY: LEARNT_FORMAT, "mixer": self.mixer.state_dict()}

    def load_learnt_state(self, state: Mapping[str, Any]) -> None:
        """Restore `learnt_state()` (after a loader restored its own snapshot of the draw position)."""
        self.mixer.load_state_dict(state["mixer"])

    # ---- checkpointing ----------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Sampler position and RNG plus the mixer's state."""
        return to_state(
            {
                "rng": self.rng.bit_generator.state,
                "epoch": self.epoch.copy(),
                "pos": self.pos.copy(),
                "steps": self.steps,
                "last_counts": np.asarray(self.last_counts).copy(),
                "mixer": self.mixer.state_dict(),
            }
        )

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore `state_dict()` (mixer included)."""
        st = from_state(dict(state))
        self.rng.bit_generator.state = st["rng"]
        self.epoch = np.asarray(st["epoch"], dtype=np.int64).copy()
        self.pos = np.asarray(st["pos"], dtype=np.int64).copy()
        self.steps = int(st["steps"])
        self.last_counts = np.asarray(st["last_counts"], dtype=np.int64).copy()
        self.mixer.load_state_dict(state["mixer"])
        self._perm_cache.clear()
