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
