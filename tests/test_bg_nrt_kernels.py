"""Kernels compiled without reference counting (``_nrt=False``) compile from an empty cache.

numba compiles a not-yet-compiled callee with the *caller's* flags, so a helper that allocates
(``np.empty``, ``flip``, array slice assignment) compiles fine when an ordinary kernel reaches it
first and fails ("NRT required but not enabled") when an ``_nrt=False`` kernel does.  The order
depends on what a user calls first, so each ``_nrt=False`` entry point is compiled here first, in
a fresh process with an empty cache, for every evaluator kind it serves.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from playout.backgammon.board import STARTING_BOARD
    from playout.backgammon.evaluators import _eval_batch_loop, get_evaluator
    from playout.backgammon.incremental import best_plays, new_workspace
    from playout.backgammon.moves import MAX_MOVES
    from playout.backgammon.search import _best_of

    net = get_evaluator("net")
    ws = new_workspace(net.W2)
    rows = np.zeros(21, dtype=np.int64)
    best_plays(net.W1, net.b1, net.W2, net.b2, STARTING_BOARD.copy(), 3, 1, True, ws, rows)
    print("best_plays", ws[6][rows[3]].round(4).tolist())
    moves = np.zeros((MAX_MOVES, 26), dtype=np.int8)
    moves[0] = STARTING_BOARD
    for ev in (get_evaluator("pubeval"), net):
        args = ev.kernel_args()
        x, h = np.zeros(args[1].shape[1]), np.zeros(args[1].shape[2])
        o, oi, cur = np.zeros(5), np.zeros(5), np.zeros(5)
        out = np.zeros((1, 5))
        _eval_batch_loop(*args, STARTING_BOARD[None].copy(), out, x, h, o)
        print(ev.name, "batch", out[0].round(4).tolist())
        print(ev.name, "best_of", _best_of(*args, moves, 1, x, h, o, oi, cur))
    """
)


@pytest.mark.slow  # a cold compile of the backgammon kernels (~80 s on 2 cores); CI runs it
def test_nrt_false_entry_points_compile_first_from_an_empty_cache(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env,
                       check=False, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = r.stdout.splitlines()
    assert lines[0].startswith("best_plays [")
    assert [ln.split()[1] for ln in lines[1:]] == ["batch", "best_of", "batch", "best_of"]
    # the opening position is about even for our net (pubeval's score is a ranking, not a
    # calibrated probability); one legal "play" offered: index 0
    net_batch = lines[3]  # order: pubeval batch, best_of, then the net's
    assert 0.4 < float(net_batch.split("[")[1].split(",")[0]) < 0.6, net_batch
    assert all(ln.endswith(" 0") for ln in lines if " best_of " in ln)


def test_pubeval_of_the_flipped_board_without_building_it():
    """``_pubeval(b, flipped=True)`` (allocation-free, used by ``eval_kernel``) equals the score of
    ``flip(b)`` on 2,000 positions from gnubg self-play."""
    from pathlib import Path

    import pytest

    from playout.backgammon.board import flip
    from playout.backgammon.evaluators import _pubeval, get_evaluator, pubeval_score
    from playout.backgammon.ids import board_from_position_id

    path = Path(__file__).resolve().parents[2] / "shared/data/backgammon/gnubg_selfplay_position_ids.txt"
    if not path.exists():
        pytest.skip("../shared not present")
    args = get_evaluator("pubeval").kernel_args()
    race, contact = args[5], args[6]
    for pid in path.read_text().split()[:2000]:
        b = board_from_position_id(pid)
        assert _pubeval(race, contact, b, True) == pubeval_score(race, contact, flip(b))
