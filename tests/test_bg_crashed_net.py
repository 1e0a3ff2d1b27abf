"""A third network slice for gnubg's crashed class: the slice rule (``classes.net_index``), the
file that holds it (``net.combine_crashed``, ``net.load_weights``) and its evaluations."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from bgboards import random_game_boards

from playout.backgammon.board import flip, game_result, is_race
from playout.backgammon.classes import crashed_side, is_bearoff, is_crashed, net_index
from playout.backgammon.evaluators import NeuralNet
from playout.backgammon.net import N_ESC_INPUTS, combine_crashed, init_weights, load_weights, save_weights

ROOT = Path(__file__).resolve().parents[1]
BOARDS = random_game_boards(np.random.default_rng(21), 25)


def test_net_index_picks_race_crashed_contact():
    two, three = np.zeros((2, 1, 1)), np.zeros((3, 1, 1))
    n_crashed = 0
    for b in BOARDS:
        c = is_crashed(b)
        # the allocation-free rule equals its definition: either side crashed, by crashed_side
        assert c == (crashed_side(b) or crashed_side(flip(b)))
        assert c == is_crashed(flip(b))
        assert net_index(two, b) == (1 if is_race(b) else 0)  # two slices: as before
        assert net_index(three, b) == (1 if is_race(b) else 2 if c else 0)
        n_crashed += c
    assert 200 < n_crashed < len(BOARDS) / 3


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("nets")
    W1, b1, W2, b2 = init_weights(16, seed=1)
    b1 += 0.3
    save_weights(d / "general.npz", W1[:, :N_ESC_INPUTS], b1, W2, b2)  # a 218-input file: padded
    C1, c1, C2, c2 = init_weights(16, seed=2)
    c2 -= 0.5
    save_weights(d / "crashed.npz", C1, c1, C2, c2)
    combine_crashed(d / "general.npz", d / "crashed.npz", d / "out.npz")
    return d


def test_combined_file_holds_both_and_evaluates_crashed_boards_with_the_specialist(files):
    W1, b1, W2, b2, meta = load_weights(files / "out.npz")
    G1, g1, G2, g2, _ = load_weights(files / "general.npz")
    C1, c1, C2, c2, _ = load_weights(files / "crashed.npz")
    assert W1.shape == (3, 244, 16) and b2.shape == (3, 5)
    for a, g, c in ((W1, G1, C1), (b1, g1, c1), (W2, G2, C2), (b2, g2, c2)):
        assert np.array_equal(a[:2], g) and np.array_equal(a[2], c[0])
    assert "crashed.npz[0]" in meta["sources"]
    boards = np.array([b for b in BOARDS if game_result(b) == 0 and not is_bearoff(b)], dtype=np.int8)
    out = NeuralNet(files / "out.npz").evaluate(boards)
    gen = NeuralNet(files / "general.npz").evaluate(boards)
    spec = NeuralNet(files / "crashed.npz").evaluate(boards)
    crashed = np.array([is_crashed(b) for b in boards])
    np.testing.assert_allclose(out[crashed], spec[crashed], rtol=0, atol=1e-12)
    np.testing.assert_allclose(out[~crashed], gen[~crashed], rtol=0, atol=1e-12)
    assert np.abs(gen[crashed] - spec[crashed]).max() > 0.05  # the two nets do differ


def test_bad_files_are_named(files, tmp_path):
    W1, b1, W2, b2 = init_weights(8, seed=3)
    save_weights(tmp_path / "h8.npz", W1, b1, W2, b2)
    with pytest.raises(ValueError, match="h8.npz: 8 hidden units"):
        combine_crashed(files / "general.npz", tmp_path / "h8.npz", tmp_path / "x.npz")
    with pytest.raises(ValueError, match="crashed.npz: no slice 2"):
        combine_crashed(files / "general.npz", files / "crashed.npz", tmp_path / "x.npz", slot=2)
    four = [np.concatenate([a, a]) for a in (W1, b1, W2, b2)]
    save_weights(tmp_path / "four.npz", *four)
    with pytest.raises(ValueError, match="four.npz: .*expected 2 or 3 slices"):
        load_weights(tmp_path / "four.npz")


def test_combine_script(files, tmp_path):
    script = ROOT / "scripts" / "bg_combine_crashed.py"
    r = subprocess.run([sys.executable, script, files / "general.npz", files / "crashed.npz",
                        tmp_path / "s.npz"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert load_weights(tmp_path / "s.npz")[0].shape[0] == 3
    r = subprocess.run([sys.executable, script, files / "general.npz", tmp_path / "missing.npz",
                        tmp_path / "t.npz"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "missing.npz" in r.stderr and "Traceback" not in r.stderr
