"""Each policy moves weight toward the source its signal favours; floors, NaN, exhausted sources, state."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import torch

from filters.contracts import UserError
from mixer import ODM, AdvantageBandit, Feedback, Static, Uniform, make_mixer
from tests.mixer.streams import run_stream

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


@pytest.mark.parametrize("name", ["uniform", "odm", "acodm", "advantage-bandit"])
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


@pytest.mark.parametrize("name", ["uniform", "odm", "acodm", "advantage-bandit"])
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


@pytest.mark.parametrize("name", ["uniform", "static", "odm", "acodm", "advantage-bandit"])
def test_state_dict_round_trip_is_exact(name: str) -> None:
    a = make_mixer(name, N, seed=3)
    run_stream(a, "adv_abs", FAV, steps=30, seed=1)
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    b = make_mixer(name, N, seed=99)
    b.load_state_dict(torch.load(buf, weights_only=True))
    assert np.array_equal(a.weights(), b.weights())
    Wa = run_stream(a, "adv_abs", FAV, steps=25, seed=7)
    Wb = run_stream(b, "adv_abs", FAV, steps=25, seed=7)
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
