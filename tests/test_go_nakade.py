"""Nakade playout rule (issue 18; :mod:`playout.go.nakade`, ``Player(nakade=PCT)``, ``playout gtp
--nakade PCT``), with GNU Go 3.8's life-and-death reader (``owl_attack`` / ``owl_defend``) as the
oracle for the vital point of each killable eye shape."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from playout.cli import main
from playout.go.board import BLACK, PASS, WHITE, Board, gtp_to_point, point_to_gtp
from playout.go.match import GNUGO, GtpClient
from playout.go.nakade import nakade_move, nakade_point
from playout.go.player import Player
from playout.go.playout import PlayoutState, run_playout
from playout.go.tables import DEFAULT_DATABASE, load_table
from goboards import after_white

needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="gnugo (GNU Go 3.8) is not installed")
TABLE = load_table(DEFAULT_DATABASE)


def g(v: str) -> int:
    return gtp_to_point(v, 9)


_position = after_white


# White groups whose only liberties are one eye space, surrounded by Black: (rows, White's last
# move, the vital point).  Each group lives if White plays the vital point and dies if Black does.
KILLABLE = {
    "straight three": ("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X X . . . .
        O O O O X . . . .
        . . . O X . . . .
    """, "D1", "B1"),
    "bent three": ("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X . . . . . .
        O O X X . . . . .
        . O O X . . . . .
        . . O X . . . . .
    """, "C1", "A1"),
    "pyramid four": ("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X X . . . .
        X O O O X X . . .
        O O . O O X . . .
        O . . . O X . . .
    """, "E1", "C1"),
    "bulky five": ("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X . . . . .
        O O O X X . . . .
        . . O O X . . . .
        . . . O X . . . .
    """, "D1", "B1"),
    "crossed five": ("""
        . . . . . . . . .
        . . . . . . . . .
        X X X X . . . . .
        X O O O X X . . .
        O O . O O X . . .
        O . . . O X . . .
        O O . O O X . . .
        X O O O X X . . .
        X X X X X . . . .
    """, "C2", "C4"),
}

# eye spaces that give no move: alive shapes (two vital points, miai), square four (dead as it
# stands), a space of six, and a space that touches both colours
NO_MOVE = {
    "straight four": ("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X X X . . .
        O O O O O X . . .
        . . . . O X . . .
    """, "E1"),
    "square four": ("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X . . . . .
        O O O X . . . . .
        . . O X . . . . .
        . . O X . . . . .
    """, "C1"),
    "bent four": ("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X . . . . . .
        O O X X . . . . .
        . O O O X . . . .
        . . . O X . . . .
    """, "D1"),
    "T five": ("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X X X . . .
        O O O O O X . . .
        O O . O O X . . .
        O O . O O X . . .
        O . . . O X . . .
        O O O O O X . . .
    """, "D1"),
    "six": ("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X X X X X .
        O O O O O O O X .
        . . . . . . O X .
    """, "G1"),
    "two colours": ("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X X X X . . . .
        X O O O X . . . .
        . . . O X . . . .
    """, "D1"),
}


@pytest.mark.parametrize("shape", sorted(KILLABLE))
def test_the_vital_point_of_each_killable_shape(shape):
    rows, last, vital = KILLABLE[shape]
    b = _position(rows, last)
    assert nakade_move(b.S, b.B, BLACK) == g(vital)
    assert nakade_move(b.S, b.B, WHITE) == g(vital)  # the defender's move is the same point
    e = next(p for p in b.points() if b.color[p] == 0 and abs(p - g(vital)) in (1, b.W))
    assert nakade_point(b.S, b.B, e, 3 * b.S.shape[1]) == g(vital)


@pytest.mark.parametrize("shape", sorted(NO_MOVE))
def test_no_move_for_other_spaces(shape):
    rows, last = NO_MOVE[shape]
    b = _position(rows, last)
    assert nakade_move(b.S, b.B, BLACK) == PASS


def test_only_spaces_next_to_the_previous_move():
    rows, _, _ = KILLABLE["straight three"]
    b = Board.from_ascii(rows, to_move=BLACK)
    b.play(g("H8"))  # Black plays far away; White to move
    assert nakade_move(b.S, b.B, WHITE) == PASS
    b.play(g("J9"))  # after White's move in the other corner: nothing there either
    assert nakade_move(b.S, b.B, BLACK) == PASS


def test_the_rule_does_not_change_the_state():
    rows, last, _ = KILLABLE["crossed five"]
    b = _position(rows, last)
    S0 = b.S.copy()
    nakade_move(b.S, b.B, BLACK)
    from playout.go.rules import MARK, META, M_STAMP

    changed = np.argwhere(b.S != S0)
    assert all(r in (MARK, META) for r, _ in changed)
    assert all(r == MARK or k == M_STAMP for r, k in changed)


@needs_gnugo
@pytest.mark.parametrize("shape", sorted(KILLABLE))
def test_gnugo_reads_the_same_vital_point(shape):
    """GNU Go 3.8's owl reader kills the White group at our vital point and saves it there."""
    rows, last, vital = KILLABLE[shape]
    b = _position(rows, last)
    with GtpClient([GNUGO, "--mode", "gtp"]) as gg:
        cmds = ["boardsize 9", "clear_board"]
        for p in b.points():
            c = int(b.color[p])
            if c in (BLACK, WHITE) and p != g(last):
                cmds.append(f"play {'b' if c == BLACK else 'w'} {point_to_gtp(p, 9)}")
        cmds.append(f"play w {last}")
        for ok, ans in gg.send_many(cmds):
            assert ok, ans
        assert gg.send(f"owl_attack {last}").split() == ["1", vital]
        assert gg.send(f"owl_defend {last}").split() == ["1", vital]


def test_playouts_with_the_rule_play_the_vital_point():
    """From the straight three with Black to move, every nakade=100 playout's first move is the
    vital point (the atari answer and the patterns come after it); nakade=0 plays as before."""
    rows, last, vital = KILLABLE["straight three"]
    firsts = {}
    for pct in (0, 100):
        st = PlayoutState(_position(rows, last), TABLE)
        np.random.seed(3)
        moves = []
        for _ in range(20):
            S, B = st.S.copy(), st.B.copy()
            buf = np.zeros(1000, np.int64)
            n = run_playout(S, B, TABLE.T, buf, 500, 0, 0, None, 0, 2, pct)
            assert n > 0
            moves.append(int(buf[0]))
        firsts[pct] = moves
    assert firsts[100] == [g(vital)] * 20
    assert firsts[0].count(g(vital)) < 20


def test_player_and_gtp_take_the_percent():
    with pytest.raises(ValueError, match="nakade must be a percent"):
        Player(TABLE, playouts=10, nakade=101)
    assert Player(TABLE, playouts=10, nakade=50).nakade == 50
    r = CliRunner().invoke(main, ["gtp", "--nakade", "101"], input="quit\n")
    assert r.exit_code == 2 and "--nakade" in r.output


def test_the_search_passes_the_percent_to_its_playouts():
    """Same seed, same position: the rule changes the search's statistics, and 0 is the default."""
    rows, last, _ = KILLABLE["straight three"]
    tops = {}
    for pct in (None, 0, 100):
        kw = {} if pct is None else {"nakade": pct}
        pl = Player(TABLE, playouts=300, seed=5, **kw)
        tops[pct] = pl.genmove(_position(rows, last)).top
    assert tops[None] == tops[0]
    assert tops[100] != tops[0]
