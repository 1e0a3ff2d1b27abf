"""UCT player: tactics it must find, superko bans, tree reuse, clock, dead stones."""

from __future__ import annotations

import numpy as np

from playout.go.board import BLACK, PASS, WHITE, Board
from playout.go.player import Player
from playout.go.tables import load_table


def test_captures_the_big_group_in_atari():
    b = Board.from_ascii(
        """
        . . . . . . .
        . X X X X . .
        X O O O O . .
        . X X X X . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        komi=0.5,
    )
    libs = b.string_libs(b.pt(2, 1))
    assert libs == [b.pt(2, 5)]  # White's four stones have one liberty left
    # the tactical priors make the capture the move (2,998 of 3,000 visits); without them the
    # default search (uct_c 0) may play F4 or F6, which also win (the group stays dead), and
    # with exploration (uct_c 0.15, the default before session 14) it captures
    for kw in ({"tactics": 1}, {"uct_c": 0.15}):
        info = Player(load_table("mc_mogo_classic"), playouts=3000, seed=3, **kw).genmove(b, BLACK)
        assert info.move == libs[0]
        assert info.winrate > 0.8
    info = Player(load_table("mc_mogo_classic"), playouts=3000, seed=3).genmove(b, BLACK)
    assert info.winrate > 0.95


def test_saves_own_group_from_atari():
    b = Board.from_ascii(
        """
        . . . . . . .
        . . . . . . .
        . O O O . . .
        O X X X O . .
        . O O . . . .
        . . . . . . .
        . . . . . . .
        """,
        to_move=BLACK,
        komi=0.5,
    )
    libs = b.string_libs(b.pt(3, 1))
    assert libs == [b.pt(4, 3)]
    pl = Player(load_table("uniform"), playouts=4000, seed=5)
    assert pl.genmove(b, BLACK).move == b.pt(4, 3)


def test_superko_child_is_banned_and_never_chosen():
    b = Board.from_ascii(
        """
        . X O . .
        X O . O .
        . X O . .
        . . . . .
        . . . . .
        """,
        komi=0.5,
    )
    b.play(b.pt(1, 2), BLACK)  # takes the ko
    b.play(PASS, WHITE)
    b.play(PASS, BLACK)
    assert b.why_illegal(b.pt(1, 1), WHITE) == "superko"
    pl = Player(load_table("uniform"), playouts=1500, seed=2, resign=0)
    info = pl.genmove(b, WHITE)
    assert info.move != b.pt(1, 1)
    banned = [mv for mv, _, _, ban in pl.trees[0].children() if ban]
    assert banned == [] or banned == [b.pt(1, 1)]


def test_tree_is_reused_after_two_moves():
    b = Board(9)
    pl = Player(load_table("uniform"), playouts=3000, seed=1)
    info = pl.genmove(b)
    b.play(info.move)
    tree = pl.trees[0]
    reply = max((c for c in tree.children(tree.root)), key=lambda c: c[1])  # root child: our move
    # find the most visited grandchild under our move and play it as the opponent
    node = [ch for ch in range(tree.NI[0, tree.root], tree.NI[0, tree.root] + tree.NI[1, tree.root])
            if tree.NI[2, ch] == info.move][0]
    opp = max(tree.children(node), key=lambda c: c[1])[0]
    visits_before = max(tree.children(node), key=lambda c: c[1])[1]
    b.play(opp)
    pl._prepare(b)
    assert tree.NF[1, tree.root] == visits_before > 0  # the grandchild is the new root
    assert reply[1] > 0


def test_clock_budget_never_exceeds_time_left():
    pl = Player(load_table("uniform"))
    pl.main_time = 60
    b = Board(9)
    pl.time_left[BLACK] = (3.0, 0)
    sec, n = pl.budget(b, BLACK)
    assert n is None and 0.05 <= sec < 2.0
    pl.time_left[BLACK] = (5.0, 5)  # byo-yomi: 5 stones in 5 seconds
    sec, _ = pl.budget(b, BLACK)
    assert sec < 1.0
    calls = _spy(pl, "analyze")
    info = pl.genmove(b, BLACK)
    # the search ran on the budget the clock gave, by time (no playout count), and did search
    assert [args[1:] for args, _ in calls] == [(sec, None)]
    assert info.playouts > 0


def _spy(obj, name):
    """Record the arguments of every call of ``obj.name`` (still calling it)."""
    calls = []
    orig = getattr(obj, name)

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return orig(*args, **kwargs)

    setattr(obj, name, spy)
    return calls


def test_dead_stones_and_final_score():
    b = Board.from_ascii(
        """
        . . . X O O O . .
        . . . X O O O . .
        . O . X O O O . .
        . . . X O O O . .
        . . . X O O O . .
        . . . X O O O . .
        . . . X O O O X .
        . . . X O O O . .
        . . . X O O O . .
        """,
        komi=0.5,
    )
    # Black's stone lives in ~7% of the playouts, White's in ~25% (a lone Black stone in a
    # 3-wide White area lived in ~32%: too close to the 1/3 threshold for a stable test)
    pl = Player(load_table("mc_mogo_classic"), seed=4)
    dead = pl.dead_stones(b, playouts=2000)
    assert sorted(dead) == sorted([b.pt(2, 1), b.pt(6, 7)])
    # after removing them: Black owns columns 0-3 (36 points), White columns 4-8 (45)
    assert pl.final_score(b) == 36 - 45 - 0.5


def test_never_loses_on_time_with_little_left_on_19x19():
    pl = Player(load_table("mc_mogo_classic"), playouts=None)
    pl.main_time = 0.0
    b = Board(19)
    for p in (b.pt(3, 3), b.pt(15, 15), b.pt(3, 15)):
        b.play(p)
    b.play(PASS)  # the opponent passed: the settled-check must also respect the clock
    pl.time_left[b.to_move] = (1.5, 1)
    sec, n = pl.budget(b, b.to_move)
    assert n is None and sec < 1.5 * 0.85 + 1e-9  # one stone left in 1.5 s of byo-yomi
    scored = _spy(pl, "final_score")
    searched = _spy(pl, "analyze")
    info = pl.genmove(b)
    # the settled-check uses its quick form (300 playouts, not 2000) under a short budget,
    # and the search that follows gets what is left of the budget, by time
    assert [kw.get("playouts") for _, kw in scored] == [300]
    assert len(searched) == 1
    (_, s_sec, s_n), _ = searched[0]
    assert s_n is None and 0.05 <= s_sec <= sec
    assert info.move == PASS or b.is_legal(info.move)


def test_a_tie_is_worth_half_not_a_loss():
    from playout.go.search import black_result

    assert (black_result(3.0), black_result(0.0), black_result(-0.5)) == (1.0, 0.5, 0.0)
    # both sides have two eyes and nothing else to play: every playout ends 13 - 12 = 1 point
    # for Black, and komi 1 makes it a tie; it used to count as a loss (and Black resigned)
    b = Board.from_ascii(
        """
        . X O . O
        X X O O O
        X . X O .
        X X X O O
        X X X O O
        """,
        komi=1.0,
    )
    assert b.score() == 0.0
    pl = Player(load_table("uniform"), playouts=300, seed=1)
    info = pl.genmove(b, BLACK)
    assert info.move == PASS
    assert info.winrate == 0.5


def test_pass_is_not_tried_first_at_a_new_node():
    from playout.go.tree import Tree
    from playout.go.search import search
    from playout.go.playout import PlayoutState

    b = Board(9)
    table = load_table("uniform")
    st = PlayoutState(b, table)
    tree = Tree(20000)
    owner = np.zeros(b.S.shape[1], np.int64)
    search(tree.NI, tree.NF, tree.tm, tree.HT, st.S, st.B, table.T, 60, 7.0, np.zeros(0, np.int64),
           owner, 400, 2, 5)
    kids = tree.children()
    assert len(kids) == 82  # 81 points and pass
    visits = {mv: v for mv, v, _, _ in kids}
    assert visits[PASS] == 0  # with first-play urgency pass took the first visit of every node
    assert sum(visits.values()) == 58  # every simulation after the root's two expansions


def test_two_passes_in_the_tree_remove_dead_stones():
    # Black's wall owns columns 0-3 (28 points) but a dead White stone sits inside; White owns
    # columns 4-6 (21).  White has passed: if Black passes too, the referee removes the dead
    # stone and Black wins by 28 - 21 - 2.5.  Counting the stones as they stand (empty points
    # away from stones counted for nobody) made Black's pass look lost.
    b = Board.from_ascii(
        """
        . . . X O . .
        . . . X O . .
        . . . X O . .
        . O . X O . .
        . . . X O . .
        . . . X O . .
        . . . X O . .
        """,
        komi=2.5,
    )
    b.to_move = WHITE
    b.play(PASS, WHITE)
    from playout.go.tree import Tree
    from playout.go.search import BANNED, FIRST, MOVE, NCH, search
    from playout.go.playout import PlayoutState

    table = load_table("uniform")
    st = PlayoutState(b, table)
    tree = Tree(20000)
    owner = np.zeros(b.S.shape[1], np.int64)
    args = (np.zeros(0, np.int64), owner, 400, 0)
    search(tree.NI, tree.NF, tree.tm, tree.HT, st.S, st.B, table.T, 1, 2.5, *args, 1)
    first, n = tree.NI[FIRST, 0], tree.NI[NCH, 0]
    assert n == 7 * 7 - 7 * 2 - 1 + 1  # every empty point (no eye yet) and pass
    for ch in range(first, first + n):  # leave Black only the pass
        if tree.NI[MOVE, ch] != PASS:
            tree.NI[BANNED, ch] = 1
    search(tree.NI, tree.NF, tree.tm, tree.HT, st.S, st.B, table.T, 400, 2.5, *args, 2)
    (mv, visits, rate, _), = [c for c in tree.children() if not c[3]]
    assert mv == PASS and visits == 400
    assert rate > 0.55  # was 0: the stones as they stand, open territory counted for nobody



def test_no_pass_while_behind_when_a_real_move_is_left():
    from playout.go.player import final_choice

    # behind: every move looks lost and pass happens to be the most visited -> play a real move
    assert final_choice([(PASS, (43, 1.0)), (40, (37, 1.0)), (41, (29, 0.0))]) == (40, 37, 1.0)
    # ahead or even (a settled position): the pass stands
    assert final_choice([(PASS, (300, 240.0)), (40, (20, 10.0))]) == (PASS, 300, 240.0)
    assert final_choice([(PASS, (300, 150.0)), (40, (20, 10.0))]) == (PASS, 300, 150.0)
    # behind with nothing else visited: pass
    assert final_choice([(PASS, (10, 0.0)), (40, (0, 0.0))]) == (PASS, 10, 0.0)
    assert final_choice([(40, (50, 5.0)), (PASS, (10, 0.0))]) == (40, 50, 5.0)
