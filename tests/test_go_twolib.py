"""Two-liberty playout tactics (issue 18; :mod:`playout.go.lowlib`, ``Player(twolib=PCT)``,
``playout gtp --twolib PCT``), with GNU Go 3.8's ``accuratelib`` / ``countlib`` as the oracle
for liberties after a move."""

from __future__ import annotations

import numpy as np
import pytest

from playout.go.board import BLACK, PASS, WHITE, Board, gtp_to_point, point_to_gtp
from playout.go.lowlib import libs_after, twolib_move
from playout.go.match import GNUGO, GtpClient
from playout.go.player import Player
from playout.go.properties import move_props
from playout.go.rules import COLOR, EMPTY, M_KO, META, is_suicide
from playout.go.tables import DEFAULT_DATABASE, load_table
from goboards import after_white

needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="gnugo (GNU Go 3.8) is not installed")

#: the playout table's own values as the tree's priors: the engine before session 21
OWN = load_table(DEFAULT_DATABASE)


def g(v: str) -> int:
    return gtp_to_point(v, 9)


def _col(c: int) -> str:
    return "b" if c == BLACK else "w"


_position = after_white


def _gnugo_setup(gg: GtpClient, b: Board, last: str | None = None) -> None:
    cmds = ["boardsize 9", "clear_board"]
    for p in b.points():
        c = int(b.color[p])
        if c in (BLACK, WHITE) and (last is None or p != g(last)):
            cmds.append(f"play {_col(c)} {point_to_gtp(p, 9)}")
    if last is not None:
        cmds.append(f"play w {last}")
    for ok, ans in gg.send_many(cmds):
        assert ok, ans


def _libs_gnugo(gg: GtpClient, c: int, v: str) -> int:
    return len(gg.send(f"accuratelib {_col(c)} {v}").split())


# Black D1, White E1 (the last move: 2 liberties E2, F1).  Black E2 leaves the escape F1 two
# liberties; Black F1 lets E2 run out to three: the atari is E2.
EDGE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . X O . . . .
"""
# White D6 (last) leaves Black D5-E5 two liberties, C5 and E6, no White string next to it
# with fewer than 3: Black extends at C5 (4 liberties; E6 gives 3).
EXTEND = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . O . . . . .
    . . . X X O . . .
    . . . O O . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""
# White E3 (last); Black D2-D3 has 2 liberties (D1, D4), White C1-C3 too (C4, D1): a race,
# Black to move wins it by C4, after which White's escape D1 has one liberty (E1); D1 also
# ataris C1-C3 but lets it escape at C4 to two; extending at D4 (4 liberties) loses the race.
RACE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . X . . . . . . .
    . X O X O . . . .
    . X O X O . . . .
    . X O . . . . . .
"""


def test_atari_of_the_last_moves_string_from_the_side_it_cannot_escape():
    b = _position(EDGE, "E1")
    assert twolib_move(b.S, b.B, BLACK) == g("E2")
    # the escapes' liberties as libs_after counts them before the atari (less the atari point)
    assert libs_after(b.S, g("F1"), WHITE, 9) - 1 == 2
    assert libs_after(b.S, g("E2"), WHITE, 9) - 1 == 3


def test_stricter_escape_bound_leaves_a_string_that_would_reach_two_liberties():
    """``escape=1`` (``--twolib-escape 1``): E2's atari of EDGE lets the escape F1 reach two
    liberties, so it is not played; Black's D1 (2 liberties, C1 and D2) extends at D2 (four
    liberties; C1 gives three).  The race of RACE (escape to one liberty) is the same."""
    b = _position(EDGE, "E1")
    assert twolib_move(b.S, b.B, BLACK, 2) == g("E2")
    assert twolib_move(b.S, b.B, BLACK, 1) == g("D2")
    assert libs_after(b.S, g("D2"), BLACK, 9) == 4 and libs_after(b.S, g("C1"), BLACK, 9) == 3
    b = _position(RACE, "E3")
    assert twolib_move(b.S, b.B, BLACK, 1) == g("C4")


def test_extension_of_own_two_liberty_string_to_the_most_liberties():
    b = _position(EXTEND, "D6")
    assert libs_after(b.S, g("C5"), BLACK, 9) == 4
    assert libs_after(b.S, g("E6"), BLACK, 9) == 3
    assert twolib_move(b.S, b.B, BLACK) == g("C5")


def test_race_is_won_by_taking_the_opponents_liberty():
    b = _position(RACE, "E3")
    assert libs_after(b.S, g("D1"), WHITE, 9) - 1 == 1  # escape after C4
    assert libs_after(b.S, g("C4"), WHITE, 9) - 1 == 2  # escape after D1
    assert libs_after(b.S, g("D4"), BLACK, 9) == 4
    assert twolib_move(b.S, b.B, BLACK) == g("C4")


def test_never_a_self_atari():
    # the race of RACE with White at E1 too: D1 is Black's self-atari (one liberty, D4), and
    # C4 lets White escape at D1 into E1-E3 (4+ liberties): Black extends at D4 instead
    rows = RACE.strip().splitlines()
    rows[-1] = "    . X O . O . . . ."
    b = _position("\n".join(rows), "E3")
    sui, sa, _ = move_props(b.S, b.B, g("D1"), BLACK)
    assert sa and not sui
    assert twolib_move(b.S, b.B, BLACK) == g("D4")


def test_nothing_without_a_two_liberty_string_or_a_move():
    assert twolib_move(Board(9).S, Board(9).B, BLACK) == PASS
    b = Board(9)
    b.play(g("E5"))
    assert twolib_move(b.S, b.B, WHITE) == PASS  # E5 has 4 liberties
    b.play(PASS)
    assert twolib_move(b.S, b.B, BLACK) == PASS


@needs_gnugo
def test_hand_positions_agree_with_gnugo():
    with GtpClient([GNUGO, "--mode", "gtp"]) as gg:
        b = _position(EDGE, "E1")
        _gnugo_setup(gg, b, "E1")
        assert gg.send("countlib E1") == "2"
        assert _libs_gnugo(gg, BLACK, "E2") >= 2 and _libs_gnugo(gg, BLACK, "F1") >= 2  # both safe
        gg.send("play b E2")
        assert _libs_gnugo(gg, WHITE, "F1") == 2  # the escape after the chosen atari
        gg.send("undo")
        gg.send("play b F1")
        assert _libs_gnugo(gg, WHITE, "E2") == 3  # ... and after the other one: it runs out

        b = _position(EXTEND, "D6")
        _gnugo_setup(gg, b, "D6")
        assert gg.send("countlib D5") == "2"
        assert _libs_gnugo(gg, BLACK, "C5") == 4 and _libs_gnugo(gg, BLACK, "E6") == 3
        for v in ("D6", "D4", "F5"):
            assert int(gg.send(f"countlib {v}")) >= 3  # no race

        b = _position(RACE, "E3")
        _gnugo_setup(gg, b, "E3")
        assert gg.send("countlib D3") == "2" and gg.send("countlib C3") == "2"
        gg.send("play b D1")
        assert gg.send("countlib C3") == "1" and _libs_gnugo(gg, WHITE, "C4") == 2
        gg.send("undo")
        gg.send("play b C4")
        assert gg.send("countlib C3") == "1"
        assert _libs_gnugo(gg, WHITE, "D1") == 1  # the escape has one liberty: the race is won


def _random_positions(n: int, seed: int):
    """``n`` positions of random legal 9x9 games (10-70 moves), with their move lists."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        b = Board(9, 7.0)
        moves = []
        for _ in range(int(rng.integers(10, 71))):
            legal = [p for p in b.legal_moves() if p != PASS]
            if not legal:
                break
            p = int(legal[rng.integers(len(legal))])
            moves.append((int(b.to_move), p))
            b.play(p)
        out.append((b, moves))
    return out


@needs_gnugo
def test_libs_after_and_the_rules_moves_agree_with_gnugo_on_random_games():
    checked = 0
    moves_checked = 0
    with GtpClient([GNUGO, "--mode", "gtp"]) as gg:
        for b, moves in _random_positions(40, 18):
            cmds = ["boardsize 9", "clear_board"] + [f"play {_col(c)} {point_to_gtp(p, 9)}" for c, p in moves]
            for ok, ans in gg.send_many(cmds):
                assert ok, ans
            S = b.S
            pts = [p for p in b.points() if S[COLOR, p] == EMPTY and p != S[META, M_KO]]
            queries = [(p, c) for p in pts for c in (BLACK, WHITE) if not is_suicide(S, p, c)]
            answers = gg.send_many([f"accuratelib {_col(c)} {point_to_gtp(p, 9)}" for p, c in queries])
            for (p, c), (ok, ans) in zip(queries, answers):
                assert ok, ans
                assert libs_after(S, p, c, 99) == len(ans.split()), (point_to_gtp(p, 9), c, str(b))
                checked += 1
            c = int(b.to_move)
            m = twolib_move(S, b.B, c)
            if m != PASS:
                assert S[COLOR, m] == EMPTY and m != S[META, M_KO]
                assert _libs_gnugo(gg, c, point_to_gtp(m, 9)) >= 2, (point_to_gtp(m, 9), str(b))
                moves_checked += 1
    assert checked > 2000 and moves_checked >= 5


def test_twolib_0_plays_as_before():
    # reference values: the engine before --twolib existed (commit fa1eb59), same seed
    b = Board(9, 7.0)
    for mv in ("E5", "C4", "G6"):
        b.play(g(mv))
    for kw in ({}, {"twolib": 0}):
        info = Player(playouts=400, seed=5, uct_c=0.15, prior_table=OWN,  # the old default
                      **kw).genmove(b)
        assert point_to_gtp(info.move, 9) == "G5"
        assert [(m, v) for m, v, _ in info.top[:3]] == [("G5", 19), ("E7", 12), ("C7", 11)]
        assert info.winrate == 0.6578947368421053 and info.top[1][2] == 0.5416666666666666
    for kw in ({"reply": 90}, {"reply": 90, "twolib": 0}):
        info = Player(playouts=400, seed=5, uct_c=0.15, prior_table=OWN, **kw).genmove(b)
        assert point_to_gtp(info.move, 9) == "D7"
        assert [(m, v) for m, v, _ in info.top[:3]] == [("D7", 14), ("D8", 13), ("E3", 12)]
        assert info.winrate == 0.6428571428571429 and info.top[1][2] == 0.5384615384615384


def test_twolib_changes_the_playouts_and_is_deterministic():
    b = Board(9, 7.0)
    for mv in ("E5", "C4", "G6"):
        b.play(g(mv))
    runs = [Player(playouts=400, seed=5, reply=90, twolib=90).genmove(b) for _ in range(2)]
    assert runs[0].top == runs[1].top and runs[0].winrate == runs[1].winrate
    assert runs[0].top != Player(playouts=400, seed=5, reply=90).genmove(b).top
    with pytest.raises(ValueError, match="twolib"):
        Player(twolib=101)


def test_gtp_and_analyze_take_the_option():
    from click.testing import CliRunner

    from playout.go.cli import go, gtp

    cmds = "boardsize 9\nplay b E5\nplay w C4\nplay b G6\ngenmove w\nquit\n"
    base = ["--playouts", "400", "--seed", "5", "--no-warm-up", "--uct-c", "0.15",
            "--prior-patterns", "own"]
    r0 = CliRunner().invoke(gtp, base + ["--twolib", "0"], input=cmds)
    assert r0.exit_code == 0 and "= G5" in r0.output  # as before (test_twolib_0_plays_as_before)
    b = Board(9, 7.0)
    for mv in ("E5", "C4", "G6"):
        b.play(g(mv))
    want = point_to_gtp(Player(playouts=400, seed=5, reply=90, twolib=90, uct_c=0.15,
                               prior_table=OWN).genmove(b).move, 9)
    r2 = CliRunner().invoke(gtp, base + ["--reply", "90", "--twolib", "90"], input=cmds)
    assert r2.exit_code == 0 and f"= {want}" in r2.output
    bad = CliRunner().invoke(gtp, ["--twolib", "101"], input="quit\n")
    assert bad.exit_code == 2 and "--twolib" in bad.output and "Traceback" not in bad.output
    assert "--twolib" in CliRunner().invoke(go, ["analyze", "--help"]).output
