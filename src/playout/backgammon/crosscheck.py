"""Cross-checks of our rules against gnubg (PyPI ``gnubg``, an optional extra).

``gnubg_legal_boards`` asks gnubg's move generator (``gnubg.find_best_moves``
at 0-ply) for every legal play and applies each (from, to) list to the board26
(from 25 = bar, to 0 = off), giving gnubg's set of resulting boards to compare
with :func:`playout.backgammon.moves.legal_moves`.
"""

from __future__ import annotations

import numpy as np

from playout.backgammon.board import apply_steps, board_key
from playout.backgammon.ids import board_to_gnubg
from playout.backgammon.moves import ROLLS, legal_moves


def _gnubg():
    import gnubg  # optional extra

    return gnubg


def apply_move_tuple(board, move) -> np.ndarray:
    """Apply gnubg's (from, to, from, to, ...) tuple (1-based, 25 bar, 0 off; a negative
    ``from`` ends it) to a board26 (:func:`playout.backgammon.board.apply_steps`)."""
    steps = []
    for i in range(0, len(move) - 1, 2):
        if int(move[i]) < 0:
            break
        steps.append((int(move[i]), int(move[i + 1])))
    b = apply_steps(board, steps)
    if b is None:
        raise ValueError(f"gnubg move {tuple(move)}: a step has no checker or lands on a point held")
    return b


def gnubg_legal_moves(board, d1: int, d2: int) -> tuple[int, set[bytes]]:
    """gnubg's legal plays for ``d1 d2``: (count, boards of the fully known plays).

    PyPI gnubg's ``find_best_moves`` cuts each (from, to, ...) tuple at the
    first ``to == 0`` (a bear-off), so a play containing a bear-off is known
    only up to it (odd tuple length).  Plays with an even-length tuple are
    complete and are applied to give their board; the count covers all plays.
    """
    g = _gnubg()
    ci = g.cubeinfo()
    ec = g.evalcontext(0, 0, 1, 0, 0)
    moves = g.find_best_moves(board_to_gnubg(board), ci, ec, (int(d1), int(d2)))
    if not moves:
        return 1, {board_key(board)}
    full = {board_key(apply_move_tuple(board, m["move"])) for m in moves if len(m["move"]) % 2 == 0}
    return len(moves), full


def bgsage_legal_boards(board, d1: int, d2: int) -> set[bytes]:
    """bgsage's set of boards after ``d1 d2`` (``bgsage.possible_moves``; optional extra)."""
    import bgsage

    res = bgsage.possible_moves([int(v) for v in board], int(d1), int(d2))
    if not res:
        return {board_key(board)}
    return {board_key(np.array(r, dtype=np.int8)) for r in res}


def compare_moves(boards, rolls=None, *, use_bgsage: bool = True) -> dict:
    """Compare our legal plays with gnubg's (and bgsage's) on every board x roll.

    gnubg: the number of plays must agree and every fully known gnubg play must
    be one of ours; bgsage: the board sets must be equal.  Returns counts of
    cases, moves and differences, and up to 5 examples.
    """
    rolls = ROLLS if rolls is None else rolls
    n_cases = n_diff_g = n_diff_s = n_moves = n_full = 0
    examples: list[dict] = []
    for b in boards:
        for d1, d2 in rolls:
            ours = {board_key(m) for m in legal_moves(b, int(d1), int(d2))}
            count, full = gnubg_legal_moves(b, int(d1), int(d2))
            n_cases += 1
            n_moves += len(ours)
            n_full += len(full)
            bad_g = count != len(ours) or not full <= ours
            bad_s = use_bgsage and bgsage_legal_boards(b, int(d1), int(d2)) != ours
            n_diff_g += bad_g
            n_diff_s += bad_s
            if (bad_g or bad_s) and len(examples) < 5:
                examples.append({"board": [int(v) for v in b], "dice": [int(d1), int(d2)],
                                 "ours": len(ours), "gnubg": count})
    return {"cases": n_cases, "moves": n_moves, "gnubg_full_moves_checked": n_full,
            "differences_gnubg": n_diff_g, "differences_bgsage": n_diff_s if use_bgsage else None,
            "examples": examples}
