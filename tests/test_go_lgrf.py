"""Last-good-reply playouts with forgetting (issue 18; Baier & Drake 2010, "The Power of
Forgetting", IEEE TCIAIG 2(4); ``Player(lgrf=...)``, ``playout gtp --lgrf``)."""

from __future__ import annotations

import numpy as np

from playout.go.board import BLACK, PASS, WHITE, Board, gtp_to_point, point_to_gtp
from playout.go.player import Player
from playout.go.tree import Tree
from playout.go.playout import (
    PlayoutState,
    lgrf_move,
    lgrf_table,
    lgrf_update,
    policy_value,
    run_playout,
)
from playout.go.rules import M_LAST, M_LAST2, META
from playout.go.search import search
from playout.go.tables import DEFAULT_DATABASE, load_table

TABLE = load_table("mc_montegnu_classic")
NPT = Board(9).S.shape[1]  # padded points of 9x9 (121)
ONE = NPT  # LG[c - 1, ONE, p1]: the reply to one move

#: the playout table's own values as the tree's priors: the engine before session 21
OWN = load_table(DEFAULT_DATABASE)


def g(v: str) -> int:
    return gtp_to_point(v, 9)


def test_update_stores_the_winners_replies_and_forgets_the_losers():
    a, b, c, d, e, x, y, p0 = (g(v) for v in ("C3", "D4", "E5", "F6", "G7", "H8", "J9", "A1"))
    LG = lgrf_table(NPT)
    assert LG.shape == (2, NPT + 1, NPT) and (LG == -1).all()
    W = WHITE - 1
    LG[W, ONE, a] = b       # White's reply to a, equal to what White (the loser) plays: forgotten
    LG[W, p0, a] = b        # the same as a two-move reply: forgotten
    LG[W, ONE, c] = x       # White answered c with d, not x: kept
    LG[W, b, c] = d         # two-move reply (b, c) -> d, played: forgotten
    LG[W, ONE, e] = y       # e never preceded a White move here: kept
    LG[BLACK - 1, ONE, b] = y  # overwritten by the winner's reply c
    # the game's last moves: none, then White p0; the simulation: B a, W b, B c, W d, B pass,
    # W pass, B e (a reply to a pass)
    seq = np.array([-1, p0, a, b, c, d, PASS, PASS, e], np.int64)
    lgrf_update(LG, seq, len(seq), BLACK, BLACK)
    B = BLACK - 1
    assert LG[B, ONE, p0] == a  # Black's first move replies to the game's last move
    assert (LG[B, :ONE, p0] == -1).all()  # no two-move reply: the move before p0 is unknown
    assert LG[B, ONE, b] == c and LG[B, a, b] == c
    assert LG[B, ONE, PASS] == e and LG[B, PASS, PASS] == e  # e after W pass (after B pass)
    assert LG[B, ONE, d] == -1  # Black's pass after d is no reply
    assert LG[W, ONE, a] == -1 and LG[W, p0, a] == -1
    assert LG[W, ONE, c] == x
    assert LG[W, b, c] == -1
    assert LG[W, ONE, e] == y
    # nothing else changed: 5 Black entries written, 3 White entries deleted, 2 kept
    assert (LG[B] != -1).sum() == 5
    assert (LG[W] != -1).sum() == 2
    # the same simulation won by White: White's moves are stored, Black's equal ones forgotten
    LG2 = lgrf_table(NPT)
    LG2[B, ONE, p0] = a
    LG2[B, ONE, b] = e
    lgrf_update(LG2, seq, len(seq), BLACK, WHITE)
    assert LG2[B, ONE, p0] == -1 and LG2[B, ONE, b] == e
    assert LG2[W, ONE, a] == b and LG2[W, p0, a] == b and LG2[W, ONE, c] == d and LG2[W, b, c] == d
    assert (LG2[W] != -1).sum() == 4


def _ko_board() -> Board:
    # Black C8 takes White's B8: a ko, White may not retake at B8 at once
    b = Board.from_ascii("""
        . X O . . . . . .
        X O . O . . . . .
        . X O . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        X X . . . . . . .
        . X . . . . . . .
        X X . . . . . . .
    """, to_move=BLACK)
    b.play(g("C8"))
    assert b.ko == g("B8")
    return b


def test_a_stored_reply_the_policy_would_not_play_is_skipped():
    b = _ko_board()
    st = PlayoutState(b, TABLE)
    S, B, T = st.S, st.B, TABLE.T
    last = g("C8")
    cases = {"B8": "ko", "C7": "occupied", "A2": "Black's eye: White's suicide"}
    for mv, why in cases.items():
        LG = lgrf_table(NPT)
        LG[WHITE - 1, ONE, last] = g(mv)
        assert policy_value(S, B, T, g(mv), WHITE) == 0, why
        assert lgrf_move(S, B, T, LG, 1, WHITE) == PASS, why
        assert lgrf_move(S, B, T, LG, 2, WHITE) == PASS, why
    # a legal reply is played (E5: value 1, an ordinary move)
    LG = lgrf_table(NPT)
    LG[WHITE - 1, ONE, last] = g("E5")
    assert policy_value(S, B, T, g("E5"), WHITE) > 0
    assert lgrf_move(S, B, T, LG, 1, WHITE) == g("E5")
    # LGRF-2 prefers the two-move reply; LGRF-1 ignores it; an illegal two-move reply falls
    # back to the one-move reply
    b2 = Board(9)
    for mv in ("E5", "D4", "C3"):
        b2.play(g(mv))
    st2 = PlayoutState(b2, TABLE)
    assert st2.S[META, M_LAST2] == g("D4") and st2.S[META, M_LAST] == g("C3")
    LG = lgrf_table(NPT)
    LG[WHITE - 1, ONE, g("C3")] = g("G7")
    LG[WHITE - 1, g("D4"), g("C3")] = g("F3")
    assert lgrf_move(st2.S, st2.B, T, LG, 2, WHITE) == g("F3")
    assert lgrf_move(st2.S, st2.B, T, LG, 1, WHITE) == g("G7")
    LG[WHITE - 1, g("D4"), g("C3")] = g("E5")  # occupied
    assert lgrf_move(st2.S, st2.B, T, LG, 2, WHITE) == g("G7")


def test_policy_value_is_the_policys_value_on_random_games():
    # the filter of a stored reply is the policy's own value: equal to the incremental value
    # rows of the side to move at every point of every position of seeded random games
    rng = np.random.default_rng(3)
    for name in ("mc_montegnu_classic", "mc_mogo_classic", "mc_uniform"):
        table = load_table(name)
        b = Board(9)
        checked = 0
        for _ in range(70):
            st = PlayoutState(b, table)
            c = b.to_move
            for p in b.points():
                assert policy_value(st.S, st.B, table.T, p, c) == st.value(p, c), (name, p)
                checked += 1
            legal = [p for p in b.legal_moves() if p != PASS and st.value(p, c) > 0]
            if not legal:
                break
            b.play(int(rng.choice(legal)))
        assert checked > 50 * 81


def test_the_playout_plays_the_stored_reply_first():
    b2 = Board(9)
    for mv in ("E5", "D4", "C3"):
        b2.play(g(mv))
    for name in ("mc_montegnu_classic", "mc_uniform"):  # far-light and light samplers
        table = load_table(name)
        st = PlayoutState(b2, table)
        LG = lgrf_table(NPT)
        LG[WHITE - 1, ONE, g("C3")] = g("J1")
        LG[BLACK - 1, ONE, g("J1")] = g("A9")
        LG[BLACK - 1, g("C3"), g("J1")] = g("H2")
        buf = np.zeros(16, np.int64)
        n = run_playout(st.S, st.B, table.T, buf, 5, 0, 2, LG)
        assert n == 2 and list(buf[:2]) == [-g("J1"), g("H2")], name
        st = PlayoutState(b2, table)
        n = run_playout(st.S, st.B, table.T, buf, 5, 0, 1, LG)
        assert n == 2 and list(buf[:2]) == [-g("J1"), g("A9")], name


def test_lgrf_0_plays_as_before():
    # reference values: the engine before LGRF existed (commit ce797ce), same seed
    b = Board(9, 7.0)
    for mv in ("E5", "C4", "G6"):
        b.play(g(mv))
    for kw in ({}, {"lgrf": 0}):
        p = Player(playouts=400, seed=5, uct_c=0.15, prior_table=OWN, **kw)  # the old default
        info = p.genmove(b)
        assert point_to_gtp(info.move, 9) == "G5"
        assert [(m, v) for m, v, _ in info.top[:3]] == [("G5", 19), ("E7", 12), ("C7", 11)]
        assert info.winrate == 0.6578947368421053 and info.top[1][2] == 0.5416666666666666


def test_lgrf_2_is_deterministic_and_learns():
    b = Board(9, 7.0)
    for mv in ("E5", "C4", "G6"):
        b.play(g(mv))
    runs = []
    for _ in range(2):
        p = Player(playouts=400, seed=5, lgrf=2)
        info = p.genmove(b)
        runs.append((info.move, info.top, info.winrate))
    assert runs[0] == runs[1]
    assert runs[0][1] != Player(playouts=400, seed=5).genmove(b).top  # the playouts changed
    # the search fills the table with replies on the board only (learnt, some forgotten)
    st = PlayoutState(b, TABLE)
    tree = Tree(20000)
    tree.reset()
    LG = lgrf_table(NPT)
    owner = np.zeros(NPT, np.int64)
    search(tree.NI, tree.NF, tree.tm, tree.HT, st.S, st.B, TABLE.T, 200, 7.0,
           np.zeros(0, np.int64), owner, 400, 2, 5, 1000.0, True, False, 0, 0, 2, LG)
    stored = LG[LG != -1]
    assert len(stored) > 100
    on_board = set(b.points())
    assert all(int(m) in on_board for m in stored)


def test_gtp_and_analyze_take_the_option():
    from click.testing import CliRunner

    from playout.go.cli import go, gtp

    cmds = "boardsize 9\nplay b E5\nplay w C4\nplay b G6\ngenmove w\nquit\n"
    base = ["--playouts", "400", "--seed", "5", "--no-warm-up", "--uct-c", "0.15",
            "--prior-patterns", "own"]
    r0 = CliRunner().invoke(gtp, base + ["--lgrf", "0"], input=cmds)
    assert r0.exit_code == 0 and "= G5" in r0.output  # as before LGRF (test_lgrf_0_plays_as_before)
    b = Board(9, 7.0)
    for mv in ("E5", "C4", "G6"):
        b.play(g(mv))
    want = point_to_gtp(Player(playouts=400, seed=5, lgrf=2, uct_c=0.15, prior_table=OWN).genmove(b).move, 9)
    r2 = CliRunner().invoke(gtp, base + ["--lgrf", "2"], input=cmds)
    assert r2.exit_code == 0 and f"= {want}" in r2.output
    bad = CliRunner().invoke(gtp, ["--lgrf", "3"], input="quit\n")
    assert bad.exit_code == 2 and "--lgrf" in bad.output and "Traceback" not in bad.output
    assert "--lgrf" in CliRunner().invoke(go, ["analyze", "--help"]).output
