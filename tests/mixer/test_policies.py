"""Each policy moves weight toward the source its signal favours; floors, NaN, exhausted sources, state."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import torch

from filters.contracts import UserError
from mixer import DUMP, ODM, AdvantageBandit, Feedback, Static, TransferBandit, Uniform, make_mixer
from tests.mixer.streams import run_stream, synthetic_feedback

N = 6
FAV = 4


def _favours(W: np.ndarray, fav: int, margin: float = 2.0) -> None:
    late = W[-20:].mean(axis=0)
    assert late.argmax() == fav, late
    assert late[fav] > margin / len(late), late


@pytest.mark.parametrize(
    "name,kw,signal",
    [
        ("odm", {"variant": "smoothed-mean"}, "loss"),
        ("odm", {"variant": "exp3", "scale": 20.0}, "loss"),
        ("odm", {"variant": "smoothed-mean", "signal": "adv_abs"}, "adv_abs"),
        ("advantage-bandit", {"mode": "boltzmann"}, "adv_abs"),
        ("advantage-bandit", {"mode": "ucb"}, "adv_abs"),
        ("dump", {}, "adv_abs"),
        ("transfer-bandit", {"transfer": 0.0}, "adv_abs"),
    ],
)
def test_baseline_moves_toward_favoured(name: str, kw: dict, signal: str) -> None:
    W = run_stream(make_mixer(name, N, seed=1, **kw), signal, FAV, steps=200)
    _favours(W, FAV, margin=1.4 if kw.get("variant") == "exp3" else 2.0)


def test_odm_exp3_defaults_lean_toward_high_loss_but_stay_exploratory() -> None:
    W = run_stream(ODM(N, variant="exp3"), "loss", FAV, steps=200)
    late = W[-20:].mean(axis=0)
    assert late.argmax() == FAV and late.min() > 0.5 / N


def test_uniform_and_static_do_not_move() -> None:
    W = run_stream(Uniform(N), "loss", FAV, steps=30)
    assert np.allclose(W, 1.0 / N)
    m = Static(3, weights=[3, 1, 0], floor=0.0)
    assert np.allclose(run_stream(m, "loss", 0, steps=10), [0.75, 0.25, 0.0])


def test_floor_keeps_every_source_alive() -> None:
    m = Static(4, weights=[1, 0, 0, 0], floor=0.05)
    w = m.weights()
    assert np.isclose(w.sum(), 1.0) and (w >= 0.05 - 1e-12).all()
    W = run_stream(AdvantageBandit(N, temperature=0.01, floor=0.02), "adv_abs", FAV, steps=100)
    assert (W >= 0.02 - 1e-12).all()
    with pytest.raises(ValueError):
        Uniform(4, floor=0.3)


@pytest.mark.parametrize(
    "name", ["uniform", "odm", "acodm", "advantage-bandit", "dump", "transfer-bandit"]
)
def test_nan_and_missing_feedback_are_ignored(name: str) -> None:
    m = make_mixer(name, 4, seed=0)
    m.update(Feedback(counts=[0, 0, 0, 0]))
    m.update(
        Feedback(counts=[4, 0, 4, 0], loss=[np.nan, np.nan, np.inf, np.nan], adv_abs=[np.nan] * 4)
    )
    m.update(
        {
            "counts": [2, 2, 0, 0],
            "loss": [1.0, float("nan"), 2.0, 3.0],
            "adv_abs": [0.5, 0.1, None, None],
        }
    )
    w = m.weights()
    assert np.isfinite(w).all() and np.isclose(w.sum(), 1.0)
    assert len(m.history) == 3


@pytest.mark.parametrize(
    "name", ["uniform", "odm", "acodm", "advantage-bandit", "dump", "transfer-bandit"]
)
def test_exhausted_source_gets_zero_weight(name: str) -> None:
    m = make_mixer(name, 4, seed=0)
    m.set_exhausted(2)
    run_stream(m, "adv_abs", 2, steps=5)
    assert m.weights()[2] == 0.0 and np.isclose(m.weights().sum(), 1.0)
    for s in (0, 1, 3):
        m.set_exhausted(s)
    with pytest.raises(RuntimeError):
        m.weights()


def test_feedback_shape_is_checked() -> None:
    with pytest.raises(ValueError):
        Uniform(3).update(Feedback(counts=[1, 2]))
    with pytest.raises(ValueError):
        Feedback(counts=[1, 2], loss=[1.0, 2.0, 3.0])
    with pytest.raises(UserError):
        make_mixer("nope", 3)


@pytest.mark.parametrize(
    "name", ["uniform", "static", "odm", "acodm", "advantage-bandit", "dump", "transfer-bandit"]
)
def test_state_dict_round_trip_is_exact(name: str) -> None:
    a = make_mixer(name, N, seed=3)
    signal = "alignment" if name == "transfer-bandit" else "adv_abs"  # it needs gradients
    run_stream(a, signal, FAV, steps=30, seed=1)
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    b = make_mixer(name, N, seed=99)
    b.load_state_dict(torch.load(buf, weights_only=True))
    assert np.array_equal(a.weights(), b.weights())
    Wa = run_stream(a, signal, FAV, steps=25, seed=7)
    Wb = run_stream(b, signal, FAV, steps=25, seed=7)
    assert np.array_equal(Wa, Wb)
    assert a.history == b.history
    with pytest.raises(ValueError):
        make_mixer("uniform" if name != "uniform" else "odm", N).load_state_dict(a.state_dict())


def test_history_jsonl(tmp_path) -> None:
    m = ODM(3, signal="loss")
    run_stream(m, "loss", 1, steps=5)
    p = m.save_history(tmp_path / "h.jsonl")
    lines = [json.loads(x) for x in p.read_text().splitlines()]
    assert lines[0]["names"] == ["0", "1", "2"]
    assert [r["step"] for r in lines[1:]] == [1, 2, 3, 4, 5]
    assert all(np.isclose(sum(r["weights"]), 1.0) for r in lines[1:])
    assert "loss" in lines[1] and "counts" in lines[1]


def _equal_sources(m, steps: int, seed: int = 0) -> np.ndarray:
    """Two sources whose |advantage| comes from the same distribution: neither is better."""
    rng = np.random.default_rng(seed)
    W = []
    for _ in range(steps):
        w = m.weights()
        W.append(w)
        c = rng.multinomial(32, w)
        adv = np.clip(0.3 + 0.1 * rng.standard_normal(2), 0.0, None)
        m.update(Feedback(counts=c, adv_abs=np.where(c > 0, adv, np.nan)))
    return np.array(W)


def test_bandit_defaults_do_not_starve_an_equally_good_source() -> None:
    """Issue 15: the old default (temperature 0.1 on raw |advantage|, a source's first value taken
    as its average) put 0.91 on one of two equal sources after one step."""
    m = AdvantageBandit(2, floor=0.0)
    m.update(Feedback(counts=[16, 16], adv_abs=[0.5, 0.26]))  # one step's luck
    assert m.weights().max() < 0.6, m.weights()
    W = _equal_sources(AdvantageBandit(2, floor=0.0), steps=300)
    assert W.min() > 0.25, W.min()
    assert abs(W[100:, 0].mean() - 0.5) < 0.1


def test_bandit_is_scale_free() -> None:
    """The same signal in other units gives the same weights (the temperature is relative)."""
    weights = []
    for unit in (1.0, 100.0):
        m, rng = AdvantageBandit(N, seed=0), np.random.default_rng(0)
        W = []
        for t in range(40):
            W.append(m.weights())
            fb = synthetic_feedback("adv_abs", rng.multinomial(64, W[-1]), FAV, t, rng)
            fb.adv_abs = fb.adv_abs * unit
            m.update(fb)
        weights.append(np.array(W))
    np.testing.assert_allclose(weights[0], weights[1], atol=1e-9)
    assert weights[0][-1].argmax() == FAV


def test_dump_window_bonus_and_softmax_follow_the_paper() -> None:
    m = DUMP(3, window=10, c=1.0, temperature=0.1, floor=0.0)
    m.update(Feedback(counts=[6, 4, 0], adv_abs=[1.0, 0.5, np.nan]))
    m.update(Feedback(counts=[6, 4, 0], adv_abs=[0.0, 0.5, np.nan]))
    # source 0's window keeps its last 10 samples: 4 of the first step's 1.0, 6 of 0.0
    assert np.allclose(m.window_mean(), [0.4, 0.5, 0.0])
    n = np.array([12.0, 8.0, 0.0])
    score = m.window_mean() + np.sqrt(2 * np.log(n.sum() + 1) / (n + 1))
    np.testing.assert_allclose(m.weights(), np.exp(score / 0.1) / np.exp(score / 0.1).sum())
    assert m.weights().argmax() == 2  # never drawn: the bonus explores it
    with pytest.raises(ValueError):
        DUMP(3, window=0)
    with pytest.raises(ValueError):
        DUMP(3, signal="nope")


def test_transfer_bandit_prefers_sources_that_help_the_others() -> None:
    """Equal learnability; three sources' gradients share a direction, one's is orthogonal to it."""
    rng = np.random.default_rng(0)
    m = TransferBandit(4, floor=0.0)
    d, e = np.eye(16)[0], np.eye(16)[1]
    for _ in range(60):
        g = 0.05 * rng.standard_normal((4, 16)) + np.array([d, d, e, d])
        m.update(Feedback(counts=[8, 8, 8, 8], adv_abs=[0.3] * 4, grad_sketch=g))
    w = m.weights()
    assert w.argmin() == 2 and w[2] < 0.5 * w[[0, 1, 3]].min(), w
    m0 = TransferBandit(4, transfer=0.0, floor=0.0)  # learnability only: no preference
    m0.update(Feedback(counts=[8, 8, 8, 8], adv_abs=[0.3] * 4, grad_sketch=g))
    assert np.allclose(m0.weights(), 0.25)
    # without sketches it says so instead of quietly ignoring transfer
    lonely = TransferBandit(3)
    with pytest.raises(ValueError, match="grad_sketch"):
        for _ in range(60):
            lonely.update(Feedback(counts=[4, 4, 4], adv_abs=[0.2, 0.3, 0.4]))
