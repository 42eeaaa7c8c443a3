"""A step's feedback is credited to the weights that drew its batch, even when batches are prefetched."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from mixer import Feedback, MixedSampler, make_mixer

N = 4


def _feedback(sampler: MixedSampler, batch: list[int], weights_id: int | None) -> Feedback:
    src = sampler.source_of(batch)
    counts = np.bincount(src, minlength=N).astype(float)
    # source 2 teaches most: a strong, source-dependent signal that moves the weights every step
    adv = np.where(counts > 0, 0.1 + 0.8 * (np.arange(N) == 2), np.nan)
    return Feedback(counts=counts, adv_abs=adv, weights_id=weights_id)


@pytest.mark.parametrize("policy", ["acodm", "advantage-bandit", "odm"])
@pytest.mark.parametrize("depth", [1, 3])
def test_prefetched_batches_are_credited_to_the_weights_that_drew_them(
    policy: str, depth: int
) -> None:
    """A loader `depth` batches ahead: history records the weights each batch was drawn with."""
    kw = {"warmup": 2} if policy == "acodm" else {}
    kw |= {"signal": "adv_abs"} if policy == "odm" else {}
    sampler = MixedSampler(
        {str(i): range(i * 50, (i + 1) * 50) for i in range(N)},
        batch_size=16,
        mixer=policy,
        mixer_kwargs=kw,
        num_steps=30,
    )
    drew: dict[int, np.ndarray] = {}
    queue: collections.deque = collections.deque()
    for batch in sampler:  # the loader draws ahead; the trainer consumes `depth` batches later
        drew[sampler.last_weights_id] = sampler.mixer.weights().copy()
        queue.append((batch, sampler.last_weights_id))
        if len(queue) > depth:
            b, wid = queue.popleft()
            sampler.mixer.update(_feedback(sampler, b, wid))
    hist = sampler.mixer.history
    assert len(hist) == 30 - depth
    moved = 0
    for i, rec in enumerate(hist, start=1):
        assert rec["weights_id"] == i
        np.testing.assert_allclose(rec["weights"], drew[i], rtol=0, atol=0)
        moved += not np.allclose(drew[i], sampler.mixer.weights())
    assert moved > 0  # the weights did change between drawing and crediting


def test_without_an_id_the_current_weights_are_credited() -> None:
    m = make_mixer("advantage-bandit", N)
    w = m.weights().copy()
    m.update(Feedback(counts=np.ones(N), adv_abs=np.arange(N, dtype=float)))
    assert m.history[-1]["weights"] == pytest.approx(w.tolist())
    assert "weights_id" not in m.history[-1]


def test_an_unknown_or_reused_id_is_an_error() -> None:
    m = make_mixer("uniform", N)
    wid, _ = m.issue()
    m.update(Feedback(counts=np.ones(N), weights_id=wid))
    with pytest.raises(ValueError, match="already credited"):
        m.update(Feedback(counts=np.ones(N), weights_id=wid))
    with pytest.raises(ValueError, match="was not issued"):
        m.update(Feedback(counts=np.ones(N), weights_id=99))


def test_pending_weights_survive_a_checkpoint() -> None:
    a = make_mixer("acodm", N, warmup=1, seed=3)
    ids = [a.issue()[0] for _ in range(3)]
    b = make_mixer("acodm", N, warmup=1, seed=3)
    b.load_state_dict(a.state_dict())
    for m in (a, b):
        for wid in ids:
            m.update(Feedback(counts=np.ones(N), adv_abs=np.linspace(0, 1, N), weights_id=wid))
    np.testing.assert_array_equal(a.weights(), b.weights())
    assert [h["weights"] for h in a.history] == [h["weights"] for h in b.history]
