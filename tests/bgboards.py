"""Hand-built backgammon boards for the tests (board26, :mod:`playout.backgammon.board`)."""

from __future__ import annotations

import numpy as np


def points_board(mover: dict, opp: dict, mover_bar: int = 0, opp_bar: int = 0) -> np.ndarray:
    """board26 from {point: count} of the side to act and of its opponent (mover's numbering)."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in mover.items():
        b[p] = n
    for p, n in opp.items():
        b[p] = -n
    b[25] = mover_bar
    b[0] = opp_bar
    return b


def random_game_boards(rng, games: int) -> list[np.ndarray]:
    """Every pre-roll board of ``games`` games of uniformly random legal plays from the opening
    (two ``rng.integers(1, 7)`` dice a turn): bar checkers, deep primes, races, bear-offs."""
    from playout.backgammon.board import STARTING_BOARD, flip, game_result
    from playout.backgammon.moves import legal_moves

    boards = []
    for _ in range(games):
        b = STARTING_BOARD.copy()
        while True:
            ms = legal_moves(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            m = ms[rng.integers(len(ms))]
            if game_result(m) != 0:
                break
            b = flip(m)
            boards.append(b)
    return boards


def assert_evaluates_as_prefix(got, boards, W1c, b1, W2, b2):
    """``got[i]`` (a loaded network's outputs on ``boards[i]``) equals the forward pass of the
    weights ``W1c`` (the first ``W1c.shape[1]`` inputs of the full encoding) -- exactly: a
    network saved with fewer inputs, padded with zero rows on load, gives the same outputs."""
    from playout.backgammon.board import is_race
    from playout.backgammon.net import N_INPUTS, encode, forward, sanitize

    cut = W1c.shape[1]
    x, xo = np.zeros(N_INPUTS), np.zeros(cut)
    h, o = np.zeros(b1.shape[1]), np.zeros(5)
    for i, b in enumerate(boards):
        encode(b, x)
        xo[:] = x[:cut]
        forward(W1c, b1, W2, b2, 1 if is_race(b) else 0, xo, h, o)
        sanitize(o)
        np.testing.assert_array_equal(got[i], o)
