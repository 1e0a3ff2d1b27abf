"""The Go search tree as arrays, and the views of it a player and a GUI read.

:class:`Tree` holds one search tree of :func:`playout.go.search.search` in preallocated numpy
arrays (mctx's layout: a record per edge, its statistics in rows), with the few Python walks
over them that are not hot (children, principal variation, descent for tree reuse).
:class:`MoveInfo`, :class:`Candidate` and :class:`Snapshot` are what a search reports: the
move chosen (GTP ``genmove``), each root move with the fields Leela Zero's ``lz-analyze``
prints, and a running search's state (:meth:`playout.go.player.Player.analyze`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from playout.go.search import (
    BANNED,
    FIRST,
    KEY,
    LINK,
    MOVE,
    NCH,
    NF_ROWS,
    NI_ROWS,
    T_MERGED,
    T_NEXT,
    T_ROOT,
    VISITS,
    WINS,
)


@dataclass
class MoveInfo:
    """What :meth:`playout.go.player.Player.genmove` decided: ``move`` (point, PASS, or -1 =
    resign), win rate of the side to move after it, simulations, seconds, the principal children
    (gtp, visits, rate), and ``root_winrate``: the side to move's mean result over every
    simulation of the search (all root moves; 0.5 when there were none)."""

    move: int
    winrate: float
    playouts: int
    seconds: float
    top: list
    root_winrate: float = 0.5


@dataclass
class Candidate:
    """One root move of a search, with the fields GUIs show (Leela Zero's ``lz-analyze``).

    ``move``: padded point or PASS.  ``visits``: simulations through the move (summed over the
    root-parallel trees).  ``winrate``: the side to move's mean result after the move, in [0, 1]
    (a tie counts 1/2).  ``prior``: the playout policy's probability of the move at the root --
    its pattern value (the one the tree's expansion reads) over the sum of the values of every
    root move; 0 for pass, which the playouts never choose while a move has a value.  ``lcb``:
    the lower end of the 95 % Wilson interval of ``winrate`` over ``visits`` (Leela Zero's LCB
    uses a Student-t bound; the Wilson bound also stays in [0, 1]). ``order``: rank, 0 for the
    move :meth:`playout.go.player.Player.genmove` would play
    (:func:`playout.go.player.final_choice`), then by visits.  ``pv``: the principal variation,
    this move first, then the most-visited child of each position down the tree (points)."""

    move: int
    visits: int
    winrate: float
    prior: float
    lcb: float
    order: int
    pv: list


@dataclass
class Snapshot:
    """The state of a running search (:meth:`playout.go.player.Player.analyze`'s ``report``):
    ``candidates`` (:class:`Candidate`, by ``order``), simulations so far, seconds so far, and
    ``ownership``: per padded point, the mean over the playouts of +1 (Black's at the end) / -1
    (White's), float64 of the board's point count."""

    candidates: list
    playouts: int
    seconds: float
    ownership: np.ndarray


class Tree:
    """Preallocated node arrays (``capacity`` records) of one search tree (a DAG with
    transpositions): ``NI`` (7, capacity) int64, ``NF`` (5, capacity) float64, ``tm`` meta, and
    ``HT`` the transposition table, ``capacity // 2`` slots (at least 64) holding an owner
    record + 1 (0 = empty).  Expanded positions number at most about ``capacity / 2`` (every
    expansion adds a move and the pass), and the table stops taking new ones at
    ``HT_MAX_LOAD``; it is cleared by :meth:`reset` only, so it survives :meth:`descend`."""

    def __init__(self, capacity: int):
        self.NI = np.zeros((NI_ROWS, capacity), np.int64)
        self.NF = np.zeros((NF_ROWS, capacity), np.float64)
        self.tm = np.zeros(4, np.int64)
        self.HT = np.zeros(max(64, capacity // 2), np.int64)
        self.reset()

    def reset(self) -> None:
        self.tm[:] = 0
        self.tm[T_ROOT] = 0
        self.tm[T_NEXT] = 1
        self.NI[FIRST, 0] = -1
        self.NI[NCH, 0] = 0
        self.NI[BANNED, 0] = 0
        self.NI[LINK, 0] = 0
        self.NI[KEY, 0] = 0
        self.NF[:, 0] = 0.0
        self.HT[:] = 0
        self.moves: list | None = None  # game moves at the root (None: no valid root)
        self.to_move = 0

    @property
    def root(self) -> int:
        return int(self.tm[T_ROOT])

    @property
    def merged(self) -> int:
        """Records linked to a transposition (an existing position) since the last reset."""
        return int(self.tm[T_MERGED])

    def position(self, node: int) -> int:
        """The record owning ``node``'s position (``node`` itself unless merged)."""
        return int(self.NI[LINK, node])

    def children(self, node: int | None = None) -> list[tuple[int, float, float, bool]]:
        """(move, visits, win rate, banned) of ``node``'s children (root by default)."""
        node = self.position(self.root if node is None else node)
        first, n = int(self.NI[FIRST, node]), int(self.NI[NCH, node])
        out = []
        for ch in range(first, first + n) if first >= 0 else []:
            v = float(self.NF[VISITS, ch])
            out.append((int(self.NI[MOVE, ch]), v, float(self.NF[WINS, ch]) / v if v else 0.0,
                        bool(self.NI[BANNED, ch])))
        return out

    def pv(self, node: int, max_len: int = 40) -> list[int]:
        """Moves of the principal variation from the edge record ``node`` on: its move, then
        at each position the most-visited non-banned child with visits, down to a leaf, a
        position already on the line (a transposition cycle), or ``max_len`` moves."""
        line = [int(self.NI[MOVE, node])]
        seen = set()
        while len(line) < max_len:
            pos = self.position(node)
            first = int(self.NI[FIRST, pos])
            if first < 0 or pos in seen:
                break
            seen.add(pos)
            n = int(self.NI[NCH, pos])
            v = np.where(self.NI[BANNED, first:first + n] != 0, 0.0, self.NF[VISITS, first:first + n])
            if n == 0 or v.max() <= 0:
                break
            node = first + int(np.argmax(v))
            line.append(int(self.NI[MOVE, node]))
        return line

    def descend(self, moves: list) -> bool:
        """Make the node reached by ``moves`` (points) from the root the new root, if present."""
        node = self.root
        for p in moves:
            pos = self.position(node)
            first = int(self.NI[FIRST, pos])
            if first < 0:
                return False
            for ch in range(first, first + int(self.NI[NCH, pos])):
                if self.NI[MOVE, ch] == p:
                    node = ch
                    break
            else:
                return False
        self.tm[T_ROOT] = node
        return True
