"""Game review: search every position of a game record, write it back as an annotated SGF and a
win-rate graph (``playout go analyze``).

For a record of ``n`` moves the ``n + 1`` positions (before each move, and after the last) are
searched with one :class:`~playout.go.player.Player` (its tree kept from move to move).  Per
move it reports the engine's choice in the position before the move and its win rate, and for
the move actually played the mover's win rate read from the search of the position after it
(``played_winrate``; that search looks at the played move as deeply as the engine's choice
was looked at), and ``loss``, the engine's choice's win rate minus the played move's (both the
mover's; Monte Carlo noise makes small negative losses possible).  Both are means of one node:
the engine's choice's over its simulations, the played move's over every simulation of the
search after it (its root, the tree kept), so a move that is the engine's choice loses ~0; the
after-search's *best reply* rate would overstate every loss (by 0.01-0.03 at 3,000 playouts:
a mean over replies against the best of them).

The SGF written is the input file with, on the root and on every move node, Sabaki's ``SBKV``
property (Black's win rate in percent of the position at that node, two decimals: what Sabaki
itself stores there from an analysis session, ``src/modules/sabaki.js``), a comment with the
numbers, and, where the engine prefers another move, that move and its principal variation as a
variation beside the move played.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sgfmill import sgf

from playout.go.board import BLACK, PASS, Board, point_to_gtp
from playout.go.player import Player
from playout.go.sgf import SgfGame, move_value, read_sgf_bytes


@dataclass
class PositionReview:
    """The search of one position: ``to_move``, the side to move's win rate of the engine's
    choice ``move`` (padded point), its principal variation ``pv`` (points, ``move`` first),
    the simulations run and ``root_winrate``, the side to move's mean result over all of them
    (None: not searched, the game was over)."""

    to_move: int
    move: int
    winrate: float
    pv: list
    playouts: int
    root_winrate: float | None = None  # the side to move's mean over every simulation

    @property
    def value(self) -> float:
        """The position's value for the side to move: ``root_winrate`` (``winrate`` where
        the position was not searched)."""
        return self.winrate if self.root_winrate is None else self.root_winrate

    @property
    def black_winrate(self) -> float:
        """Black's win rate in [0, 1]: the position's :attr:`value` (SBKV, the graph)."""
        return self.value if self.to_move == BLACK else 1.0 - self.value


def review_positions(game: SgfGame, player: Player, seconds: float | None = None,
                     playouts: int | None = None, progress=None) -> list[PositionReview]:
    """Search the position before each move of ``game`` and the one after its last move
    (``len(game.board.moves) + 1`` entries).  ``progress(i, board)`` is called before each.

    A position after two passes in a row is finished, not searched: its win rate is that of
    :meth:`Player.final_score` (dead stones from playout ownership, area score with komi),
    1, 0 or 1/2 for a tie, and the engine's move there a pass."""
    boards: list[Board] = [b.copy() for b, _, _ in game.replay()]
    boards.append(game.board.copy())
    out = []
    for i, b in enumerate(boards):
        if progress is not None:
            progress(i, b)
        if b.passes >= 2:  # the game is over: the score decides
            score = player.final_score(b, playouts or 3000)
            mine = score if b.to_move == BLACK else -score
            wr = 1.0 if mine > 0 else 0.0 if mine < 0 else 0.5
            out.append(PositionReview(b.to_move, PASS, wr, [], player.owner_n))
            continue
        info = player.analyze(b, seconds, None if seconds else playouts)
        cands = player.candidates(b)
        pv = next((k.pv for k in cands if k.move == info.move), [info.move])
        out.append(PositionReview(b.to_move, info.move, info.winrate, pv, info.playouts,
                                  info.root_winrate))
    return out


def move_records(game: SgfGame, positions: list[PositionReview]) -> list[dict]:
    """One record per move: ``move`` (1-based), ``color`` (B/W), ``played`` and ``engine``
    (GTP vertices), ``winrate`` (the engine's choice's, the mover's), ``played_winrate`` and
    ``loss`` (module docstring), ``playouts``, ``pv`` (the engine's line, GTP vertices)."""
    size = game.board.size
    recs = []
    for i, (c, p) in enumerate(game.board.moves):
        before, after = positions[i], positions[i + 1]
        played = after.value if after.to_move == c else 1.0 - after.value
        recs.append({"move": i + 1, "color": "B" if c == BLACK else "W",
                     "played": point_to_gtp(p, size), "engine": point_to_gtp(before.move, size),
                     "winrate": round(before.winrate, 3), "played_winrate": round(played, 3),
                     "loss": round(before.winrate - played, 3), "playouts": before.playouts,
                     "pv": [point_to_gtp(q, size) for q in before.pv]})
    return recs


def _pct(x: float) -> str:
    return f"{100.0 * x:.2f}"


def _append_comment(node, text: str) -> None:
    old = node.get("C") if node.has_property("C") else ""
    node.set("C", f"{old}\n\n{text}" if old else text)


def write_review_sgf(src: str | Path, game: SgfGame, positions: list[PositionReview],
                     records: list[dict], dest: str | Path) -> None:
    """``src`` (the file ``game`` was read from) with the review added (module docstring),
    written to ``dest``.  Nodes, properties and variations of ``src`` are kept; the
    engine's variations are added after the existing children of each node."""
    size = game.board.size
    sg = sgf.Sgf_game.from_bytes(read_sgf_bytes(src))
    root = sg.get_root()
    move_nodes = [nd for nd in sg.get_main_sequence() if nd.get_raw_move()[0] is not None]
    move_nodes = move_nodes[: len(game.board.moves)]
    root.set_raw("SBKV", _pct(positions[0].black_winrate).encode())
    for i, node in enumerate(move_nodes):
        pos, rec = positions[i + 1], records[i]
        node.set_raw("SBKV", _pct(pos.black_winrate).encode())
        _append_comment(node, (
            f"{rec['color']} {rec['played']}: {100 * rec['played_winrate']:.1f}% for "
            f"{rec['color']}; engine's choice {rec['engine']} {100 * rec['winrate']:.1f}% "
            f"(loss {100 * rec['loss']:.1f} percentage points; {rec['playouts']} playouts)"))
        before = positions[i]
        c, p = game.board.moves[i]
        if before.move == p or before.move < 0 or not before.pv:
            continue
        parent = node.parent
        var = parent.new_child()
        colour = c
        for j, q in enumerate(before.pv):
            if j:
                var = var.new_child()
            var.set_raw("B" if colour == BLACK else "W", move_value(q, size))
            colour = 3 - colour
        first = parent[len(parent) - 1]
        _append_comment(first, f"engine: {point_to_gtp(before.move, size)} "
                               f"{100 * before.winrate:.1f}% for {rec['color']}")
    Path(dest).write_bytes(sg.serialise())


def plot_winrates(positions: list[PositionReview], dest: str | Path, title: str = "") -> None:
    """A PNG of Black's win rate (percent) after each move, move 0 = the starting position."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    xs = list(range(len(positions)))
    ys = [100.0 * p.black_winrate for p in positions]
    fig, ax = plt.subplots(figsize=(8, 3.6), dpi=110)
    ax.axhline(50, color="0.6", linewidth=0.8)
    ax.plot(xs, ys, color="black", linewidth=1.4, marker="o", markersize=2.5)
    ax.fill_between(xs, 50, ys, where=[y >= 50 for y in ys], color="0.25", alpha=0.25,
                    interpolate=True)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0, max(1, len(xs) - 1))
    ax.set_ylim(0, 100)
    ax.set_xlabel("move")
    ax.set_ylabel("Black's win rate (%)")
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(dest)
    plt.close(fig)
