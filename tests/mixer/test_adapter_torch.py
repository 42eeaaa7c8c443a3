"""Plain PyTorch adapter: a mixed DataLoader, per-source losses and gradient sketches on a real model."""

from __future__ import annotations

import numpy as np
import torch

from mixer import Feedback, GradientSketch, make_mixer
from mixer.adapters.torch import (
    loss_feedback,
    mixed_dataloader,
    per_source_loss,
    per_source_sketches,
)


def test_mixed_dataloader_and_loss_feedback_drive_a_mixer() -> None:
    torch.manual_seed(0)
    datasets = {
        "easy": [(torch.zeros(4), torch.tensor(0.0)) for _ in range(40)],
        "hard": [(torch.randn(4), torch.tensor(5.0)) for _ in range(40)],
    }
    mixer = make_mixer("odm", 2, variant="smoothed-mean", seed=0)
    loader, sampler = mixed_dataloader(datasets, batch_size=8, mixer=mixer, num_steps=30)
    model = torch.nn.Linear(4, 1)
    for b in loader:
        x, y = b.data
        losses = (model(x).squeeze(-1) - y) ** 2
        fb = loss_feedback(losses, b.sources, 2, weights_id=b.weights_id)
        assert fb.counts.sum() == 8 and isinstance(b.weights_id, int)
        mixer.update(fb)
    assert mixer.weights()[1] > 0.8  # the hard source keeps the higher loss


def _recording(mixer):
    """Wrap `mixer.issue` to record the weights handed out under each id."""
    drew: dict[int, np.ndarray] = {}
    issue = mixer.issue

    def recorded():
        wid, w = issue()
        drew[wid] = w.copy()
        return wid, w

    mixer.issue = recorded
    return drew


def test_a_prefetching_loader_with_workers_credits_the_weights_that_drew_each_batch() -> None:
    """Two workers, prefetch_factor 2: batches are drawn up to 4 updates ahead of training."""
    torch.manual_seed(0)
    datasets = {
        "easy": [(torch.zeros(4), torch.tensor(0.0)) for _ in range(40)],
        "hard": [(torch.randn(4), torch.tensor(5.0)) for _ in range(40)],
    }
    mixer = make_mixer("advantage-bandit", 2, seed=0)
    drew = _recording(mixer)
    loader, sampler = mixed_dataloader(
        datasets, batch_size=8, mixer=mixer, num_steps=12, num_workers=2, prefetch_factor=2
    )
    lagged = 0
    for b in loader:
        assert (sampler.source_of(b.rows) == b.sources).all()
        counts = np.bincount(b.sources, minlength=2)
        adv = np.where(counts > 0, [0.1, 0.9], np.nan)  # the hard source teaches more
        lagged += not np.array_equal(drew[b.weights_id], mixer.weights())
        mixer.update(Feedback(counts=counts, adv_abs=adv, weights_id=b.weights_id))
    assert len(mixer.history) == 12
    for rec in mixer.history:
        np.testing.assert_array_equal(rec["weights"], drew[rec["weights_id"]])
    assert lagged > 0  # the loader did run ahead: the current weights were not those that drew


def test_per_source_sketches_match_per_source_gradients() -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    x, y = torch.randn(12, 3), torch.randn(12)
    src = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0])
    per = (model(x).squeeze(-1) - y) ** 2
    sk = GradientSketch(dim=32, seed=1)
    got = per_source_sketches(per, src, 3, model.parameters(), sk)
    assert np.isnan(got[2]).all()
    for i in (0, 1):
        model.zero_grad()
        ((model(x).squeeze(-1) - y) ** 2)[torch.tensor(src == i)].mean().backward()
        assert np.allclose(got[i], sk.project_grads(model.parameters()), atol=1e-5)
    assert np.allclose(
        per_source_loss(per, src, 3)[:2],
        [per[src == 0].mean().item(), per[src == 1].mean().item()],
        atol=1e-6,
    )


def test_mixed_dataloader_tells_acodm_num_steps_and_logs_its_start(caplog) -> None:
    """A plain loop's run length reaches ACODM (its warm-up is 5% of it, not of 1000)."""
    import logging

    from mixer import make_mixer
    from mixer.adapters.torch import mixed_dataloader

    data = {"a": list(range(30)), "b": list(range(30, 60))}
    logger = logging.getLogger("codemix.mixer")
    logger.addHandler(caplog.handler)
    try:
        mixer = make_mixer("acodm", 2, names=list(data))
        _, sampler = mixed_dataloader(data, batch_size=4, mixer=mixer, num_steps=40)
    finally:
        logger.removeHandler(caplog.handler)
    assert (mixer.horizon, mixer.warmup, mixer.horizon_origin) == (40, 2, "num_steps")
    assert "mixed_dataloader: mixing with acodm over 2 sources (a 30, b 30)" in caplog.text
