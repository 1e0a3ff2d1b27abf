"""TD(lambda) training: seeded, resumable from its checkpoint, and it learns something."""

import numpy as np
import pytest

from playout.backgammon.net import load_weights
from playout.backgammon.train import train


@pytest.mark.parametrize("lam", [0.7, 0.0])
def test_resumed_run_equals_uninterrupted(tmp_path, lam):
    a = tmp_path / "a.npz"
    b = tmp_path / "b.npz"
    train(a, games=60, hidden=8, chunk=20, progress=False, lam=lam)
    train(b, games=20, hidden=8, chunk=20, progress=False, lam=lam)  # "killed" after one chunk
    res = train(b, games=60, hidden=8, chunk=20, progress=False, lam=lam)  # resumed
    assert res["games"] == 60
    wa, wb = load_weights(a), load_weights(b)
    for x, y in zip(wa[:4], wb[:4]):
        assert np.array_equal(x, y)
    assert wb[4]["games"] == 60 and wb[4]["hidden"] == 8


def test_training_moves_the_weights_and_other_seed_differs(tmp_path):
    from playout.backgammon.net import init_weights

    p = tmp_path / "c.npz"
    q = tmp_path / "d.npz"
    train(p, games=20, hidden=8, chunk=20, progress=False, seed=1)
    train(q, games=20, hidden=8, chunk=20, progress=False, seed=2)
    w0 = init_weights(8, 1)
    w1 = load_weights(p)
    assert not np.array_equal(w0[0], w1[0])
    assert not np.array_equal(load_weights(q)[0], w1[0])


def test_td0_learns_to_beat_its_untrained_self(tmp_path):
    """TD(0) with afterstate targets: after 3,000 games a 20-hidden net beats the random
    initial weights it started from (money points over 400 seeded games, colours alternated)."""
    from playout.backgammon.evaluators import NeuralNet
    from playout.backgammon.rollout import match
    from playout.backgammon.net import init_weights

    p = tmp_path / "td0.npz"
    train(p, games=3000, hidden=20, chunk=1000, progress=False, lam=0.0, seed=3)
    trained = NeuralNet(p)
    untrained = NeuralNet.from_arrays(*init_weights(20, 3), name="untrained")
    res = match(trained, untrained, 400, seed=11)
    assert res["win_rate"] > 0.75, res
