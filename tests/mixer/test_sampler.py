"""MixedSampler: exact batch sizes, unbiased counts, no repeats within an epoch, shards, exact resume."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import torch

from filters.contracts import UserError
from mixer import Feedback, MixedSampler, Static, make_mixer, stochastic_round


def test_stochastic_round_is_exact_and_unbiased() -> None:
    rng = np.random.default_rng(0)
    w = np.array([0.5, 0.3, 0.15, 0.05])
    draws = np.array([stochastic_round(w, 7, rng) for _ in range(20000)])
    assert (draws.sum(axis=1) == 7).all()
    assert np.allclose(draws.mean(axis=0), w * 7, atol=0.03)
    assert (draws >= np.floor(w * 7)).all() and (draws <= np.ceil(w * 7)).all()


def test_no_repeats_inside_an_epoch_and_recycling() -> None:
    groups = {"a": range(0, 10), "b": range(10, 40)}
    s = MixedSampler(groups, batch_size=5, mixer=Static(2, [1, 0], floor=0.0), seed=3)
    first = [i for _ in range(2) for i in s.next_batch()]
    assert sorted(first) == list(range(10))  # one full epoch of "a", no repeats
    nxt = [i for _ in range(2) for i in s.next_batch()]
    assert sorted(nxt) == list(range(10)) and nxt != first  # a new, different permutation
    assert s.epoch[0] == 1


def test_counts_follow_weights_and_sources_are_reported() -> None:
    groups = {"a": range(100), "b": range(100, 200), "c": range(200, 300)}
    s = MixedSampler(groups, batch_size=10, mixer=Static(3, [0.6, 0.3, 0.1], floor=0.0), seed=0)
    tot = np.zeros(3)
    for _ in range(300):
        b = s.next_batch()
        assert len(b) == 10
        assert (s.source_of(b) == s.last_sources).all()
        tot += s.last_counts
    assert np.allclose(tot / tot.sum(), [0.6, 0.3, 0.1], atol=0.01)


def test_stop_mode_marks_exhausted_and_keeps_batch_size() -> None:
    groups = {"small": range(3), "big": range(3, 103)}
    m = make_mixer("uniform", 2)
    s = MixedSampler(groups, batch_size=4, mixer=m, exhaust="stop", seed=0)
    seen: list[int] = []
    for _ in range(10):
        b = s.next_batch()
        assert len(b) == 4
        seen.extend(b)
    assert sorted(i for i in seen if i < 3) == [0, 1, 2]  # small drawn once each, never again
    assert not m.active[0] and m.weights()[0] == 0.0


def test_works_as_a_torch_batch_sampler() -> None:
    datasets = {"x": [("x", i) for i in range(20)], "y": [("y", i) for i in range(5)]}
    s = MixedSampler.from_datasets(datasets, batch_size=4, num_steps=6, seed=1)
    dl = torch.utils.data.DataLoader(s.dataset, batch_sampler=s, collate_fn=list)
    batches = list(dl)
    assert len(batches) == 6 and all(len(b) == 4 for b in batches)
    assert {src for b in batches for src, _ in b} == {"x", "y"}


def _shards(tmp_path, n=60):
    out = tmp_path / "OUT" / "problems"
    out.mkdir(parents=True)
    src = ["taco", "lcb", "mbpp"]
    for k in range(2):
        rows = range(k * n // 2, (k + 1) * n // 2)
        t = pa.table(
            {
                "problem_id": [f"{src[i % 3]}/{i}" for i in rows],
                "source": [src[i % 3] for i in rows],
                "statement": [f"problem {i}" for i in rows],
                "difficulty_bucket": [
                    ["easy", "medium", "hard"][i % 3 if i < 30 else (i + 1) % 3] for i in rows
                ],
            }
        )
        pq.write_table(t, out / f"part-{k:05d}.parquet", compression="zstd")
    return tmp_path / "OUT"


@pytest.mark.parametrize("group_by", ["source", "difficulty_bucket"])
def test_from_shards_groups_by_any_column(tmp_path, group_by: str) -> None:
    out = _shards(tmp_path)
    s = MixedSampler.from_shards(out, batch_size=6, group_by=group_by, seed=0)
    table = s.dataset
    col = table.column(group_by).to_pylist()
    assert sorted(s.names) == sorted(set(col))
    for _ in range(5):
        b = s.next_batch()
        assert len(b) == 6
        labels = [col[i] for i in b]
        assert [s.names.index(x) for x in labels] == s.last_sources.tolist()
    with pytest.raises(UserError):
        MixedSampler.from_shards(out, batch_size=2, group_by="nope")
    with pytest.raises(UserError):
        MixedSampler.from_shards(tmp_path / "empty", batch_size=2)


def _feedback(s: MixedSampler, batch: list[int]) -> Feedback:
    """A deterministic function of the batch, as a trainer's measurements would be."""
    src = s.last_sources
    n = len(s.names)
    adv = np.full(n, np.nan)
    loss = np.full(n, np.nan)
    for i in range(n):
        mine = [b for b, k in zip(batch, src, strict=True) if k == i]
        if mine:
            adv[i] = (np.mean(mine) % 7) / 7 + 0.1 * i
            loss[i] = 3.0 - 0.01 * len(mine) + 0.1 * i
    return Feedback(counts=s.last_counts, adv_abs=adv, loss=loss)


@pytest.mark.parametrize("policy", ["uniform", "odm", "acodm", "advantage-bandit"])
def test_checkpoint_and_resume_reproduce_the_exact_stream(policy: str) -> None:
    groups = {f"s{i}": range(i * 50, i * 50 + 17 + 10 * i) for i in range(4)}

    def fresh() -> MixedSampler:
        return MixedSampler(
            groups,
            batch_size=8,
            mixer=make_mixer(policy, 4, seed=5, warmup=3)
            if policy == "acodm"
            else make_mixer(policy, 4, seed=5),
            seed=11,
        )

    a = fresh()
    stream_a, saved = [], None
    for step in range(40):
        if step == 20:
            buf = io.BytesIO()
            torch.save(a.state_dict(), buf)
            saved = buf.getvalue()
        b = a.next_batch()
        stream_a.append(b)
        a.mixer.update(_feedback(a, b))
    c = fresh()
    c.load_state_dict(torch.load(io.BytesIO(saved), weights_only=True))
    stream_c = []
    for _ in range(20):
        b = c.next_batch()
        stream_c.append(b)
        c.mixer.update(_feedback(c, b))
    assert stream_c == stream_a[20:]
    assert np.array_equal(a.mixer.weights(), c.mixer.weights())
    assert a.mixer.history == c.mixer.history


def test_policy_by_name_gets_the_source_names(tmp_path) -> None:
    s = MixedSampler.from_shards(
        _shards(tmp_path), batch_size=6, mixer="acodm", mixer_kwargs={"reward": "progress"}, seed=2
    )
    assert (
        s.mixer.name == "acodm" and s.mixer.names == s.names and s.mixer.reward_kind == "progress"
    )
