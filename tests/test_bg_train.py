"""TD(lambda) training: seeded, resumable from its checkpoint, and it learns something."""

import numpy as np

from playout.backgammon.net import load_weights
from playout.backgammon.train import train


def test_resumed_run_equals_uninterrupted(tmp_path):
    a = tmp_path / "a.npz"
    b = tmp_path / "b.npz"
    train(a, games=60, hidden=8, chunk=20, progress=False)
    train(b, games=20, hidden=8, chunk=20, progress=False)  # "killed" after one chunk
    res = train(b, games=60, hidden=8, chunk=20, progress=False)  # resumed
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
