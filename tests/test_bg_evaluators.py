"""Evaluators (pubeval, our net, gnubg/bgsage adapters), n-ply search and the cube."""

from pathlib import Path

import numpy as np
import pytest

from playout.backgammon.board import STARTING_BOARD, flip, is_race
from playout.backgammon.cube import cube_action, cubeful_equity
from playout.backgammon.evaluators import NeuralNet, PubEval, equity, invert_probs
from playout.backgammon.ids import board_from_position_id
from playout.backgammon.moves import ROLLS, ROLL_WEIGHTS, legal_moves
from playout.backgammon.search import choose_move, parse_ply, post_move_probs, pre_roll_probs

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"
IDS = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()


def _pubeval_reference(w_race, w_contact, pos28, race):
    """Tesauro's pubeval.c transcribed literally (pos[0..27] convention)."""
    if pos28[26] == 15:
        return 99999999.0
    x = [0.0] * 122
    for j in range(1, 25):
        jm1 = j - 1
        n = pos28[25 - j]
        if n != 0:
            if n == -1:
                x[5 * jm1 + 0] = 1.0
            if n == 1:
                x[5 * jm1 + 1] = 1.0
            if n >= 2:
                x[5 * jm1 + 2] = 1.0
            if n == 3:
                x[5 * jm1 + 3] = 1.0
            if n >= 4:
                x[5 * jm1 + 4] = (n - 3) / 2.0
    x[120] = -pos28[0] / 2.0
    x[121] = pos28[26] / 15.0
    w = w_race if race else w_contact
    return sum(a * b for a, b in zip(w, x))


def test_pubeval_weights_equal_shared_file():
    rows = [list(map(float, line.split()))
            for line in (SHARED / "pubeval_weights.txt").read_text().splitlines() if line.strip()]
    pe = PubEval()
    assert np.array_equal(pe.race, np.array(rows[0])) and np.array_equal(pe.contact, np.array(rows[1]))


def test_pubeval_matches_literal_transcription():
    pe = PubEval()
    n = 0
    for pid in IDS[::200]:
        b = board_from_position_id(pid)
        for m in legal_moves(b, 5, 2):
            off_me = 15 - int(m[25] + m[1:25][m[1:25] > 0].sum())
            off_op = 15 - int(m[0] - m[1:25][m[1:25] < 0].sum())
            pos = [-int(m[0])] + [int(v) for v in m[1:25]] + [int(m[25]), off_me, -off_op]
            ref = _pubeval_reference(pe.race, pe.contact, pos, is_race(m))
            assert pe.score(m) == pytest.approx(ref, abs=1e-9)
            n += 1
    assert n > 50


def test_net_outputs_consistent_and_side_to_act():
    net = NeuralNet()
    boards = np.stack([board_from_position_id(p) for p in IDS[:200]])
    p = net.evaluate(boards)
    assert p.shape == (200, 5)
    assert (p >= 0).all() and (p <= 1).all()
    assert (p[:, 1] <= p[:, 0] + 1e-12).all() and (p[:, 3] <= 1 - p[:, 0] + 1e-12).all()
    # a crushing position for the side to act: all 15 home vs 15 on our bar side
    b = np.zeros(26, dtype=np.int8)
    b[1:4] = 5
    b[19:22] = -5
    assert net.evaluate(b)[0, 0] > 0.9
    assert net.evaluate(flip(b))[0, 0] < 0.1
    # the opening: the side to act is the favourite (trained nets agree: about 0.52)
    assert 0.45 < net.evaluate(STARTING_BOARD)[0, 0] < 0.6


def test_net_agrees_with_gnubg_on_who_wins():
    pytest.importorskip("gnubg")
    from playout.backgammon.evaluators import GnubgEvaluator

    boards = np.stack([board_from_position_id(p) for p in IDS[::40]])
    ours = NeuralNet().evaluate(boards)[:, 0]
    theirs = GnubgEvaluator().evaluate(boards)[:, 0]
    assert np.corrcoef(ours, theirs)[0, 1] > 0.8
    assert np.mean(np.abs(ours - theirs)) < 0.12


def test_bgsage_adapter_side_to_act():
    pytest.importorskip("bgsage")
    from playout.backgammon.evaluators import BgsageEvaluator

    p = BgsageEvaluator().evaluate(STARTING_BOARD)[0]
    assert 0.5 < p[0] < 0.56  # the side to act at the opening is a slight favourite


def test_choose_move_1ply_is_argmax_and_2ply_by_hand():
    net = NeuralNet()
    b = board_from_position_id(IDS[500])
    mc = choose_move(b, (4, 2), net, 1)
    moves = legal_moves(b, 4, 2)
    eqs = [equity(invert_probs(net.evaluate(flip(m))[0])) for m in moves]
    assert mc.equity == pytest.approx(max(eqs))
    assert (mc.board == moves[int(np.argmax(eqs))]).all()
    # 2-ply of a candidate by hand: opponent's 21 rolls, its 1-ply best reply, our net after it
    m = mc.board
    opp = flip(m)
    acc = np.zeros(5)
    for (d1, d2), w in zip(ROLLS, ROLL_WEIGHTS):
        replies = legal_moves(opp, d1, d2)
        vals = [equity(invert_probs(net.evaluate(flip(r))[0])) for r in replies]
        best = replies[int(np.argmax(vals))]
        acc += w * net.evaluate(flip(best))[0]  # our view (we act after the reply)
    assert np.allclose(post_move_probs(net, m[None], 2)[0], acc, atol=1e-6)  # fastmath order


def test_parse_ply_both_spellings():
    assert parse_ply("1") == 1 and parse_ply("2ply") == 2 and parse_ply("3") == 3
    assert parse_ply("0") == 1 and parse_ply("0g") == 1 and parse_ply("gnubg:2") == 3
    with pytest.raises(ValueError, match="ply"):
        parse_ply("9")


def test_cube_janowski_numbers():
    # gammonless, live-cube TP = 0.2, CP = 0.8; x = 0.68
    p = [0.78, 0, 0, 0, 0]
    live_opp = -1 + 2 * (0.78 - 0.2) / 0.8
    dead = 2 * 0.78 - 1
    assert cubeful_equity(p, "opponent", 0.68) == pytest.approx(0.68 * live_opp + 0.32 * dead)
    d = cube_action(STARTING_BOARD, probs=p, jacoby=False)
    assert d.double and d.take and d.equity_dt == pytest.approx(2 * (0.68 * live_opp + 0.32 * dead))
    assert not cube_action(STARTING_BOARD, probs=[0.6, 0, 0, 0, 0]).double
    big = cube_action(STARTING_BOARD, probs=[0.9, 0, 0, 0, 0])
    assert big.double and not big.take and big.optimal_action == "Double, pass"
    # symmetric position: centred equity 0; the taker beavers
    even = cube_action(STARTING_BOARD, probs=[0.5, 0.1, 0, 0.1, 0])
    assert even.equity_nd == pytest.approx(0.0, abs=1e-9) and even.is_beaver
    # the opponent owns the cube: no double available
    assert not cube_action(STARTING_BOARD, 2, "opponent", probs=[0.9, 0, 0, 0, 0]).can_double
    with pytest.raises(ValueError, match="cube_owner"):
        cube_action(STARTING_BOARD, 1, "me", probs=p)


def _pre_roll_2ply_by_hand(net, board):
    """2-ply (XG numbering) of a pre-roll board, written out: the side to act's 21 rolls, its
    1-ply best play for each, the raw net of the opponent after it, seen from the side to act."""
    acc = np.zeros(5)
    for (d1, d2), w in zip(ROLLS, ROLL_WEIGHTS):
        moves = legal_moves(board, d1, d2)
        vals = [equity(invert_probs(net.evaluate(flip(m))[0])) for m in moves]
        acc += w * invert_probs(net.evaluate(flip(moves[int(np.argmax(vals))]))[0])
    return acc


@pytest.mark.parametrize("index", [None, 17, 1234])
def test_pre_roll_2ply_equals_the_average_over_rolls_by_hand(index):
    """pre_roll_probs at 2-ply is the roll-weighted average of the raw net after each roll's
    1-ply best play (held to the written-out sum, not to a tolerance around 1-ply)."""
    net = NeuralNet()
    b = STARTING_BOARD if index is None else board_from_position_id(IDS[index])
    p2 = pre_roll_probs(net, b, 2)
    assert np.allclose(p2, _pre_roll_2ply_by_hand(net, b), atol=1e-6)  # fastmath order
    assert not np.allclose(p2, pre_roll_probs(net, b, 1), atol=1e-3)  # a real second ply


def test_met_kazaross_xg2_values():
    from playout.backgammon.met import load_met, mwc

    pre, post = load_met()
    assert pre.shape == (25, 25) and post.shape == (25,)
    assert np.allclose(pre + pre.T, 1.0, atol=1e-4)  # a table of one player's chances
    assert mwc(1, 2) == pytest.approx(0.67736)  # Crawford game, 1-away vs 2-away (file's value)
    assert mwc(2, 1, post_crawford=True) == pytest.approx(0.48803)
    assert mwc(0, 3) == 1.0 and mwc(3, 0) == 0.0 and mwc(7, 7) == pytest.approx(0.5)


def test_match_cube_crawford_and_post_crawford():
    s = STARTING_BOARD
    crawford = cube_action(s, probs=[0.9, 0.3, 0, 0, 0], match_length=7, score=(4, 6), crawford=True)
    assert not crawford.can_double and not crawford.double
    # post-Crawford the trailer doubles at once (nothing to lose) and the leader takes
    post = cube_action(s, probs=[0.4, 0.1, 0, 0.1, 0], match_length=7, score=(4, 6), post_crawford=True)
    assert post.double and post.take
    # 0-0 to 7, gammonless: no double at 60%, double/take at 75%, double/pass at 85%
    d60, d75, d85 = (cube_action(s, probs=[p, 0, 0, 0, 0], match_length=7) for p in (0.6, 0.75, 0.85))
    assert not d60.double and d75.double and d75.take and d85.double and not d85.take
    assert 0.5 < d75.equity_nd < d75.equity_dp < 1.0  # match winning chances


def test_dead_cubes_in_match_play():
    """A cube is dead for a side that needs no more than its value (gnubg's rule)."""
    s = STARTING_BOARD
    p = [0.5162, 0.1238, 0.0050, 0.1102, 0.0043]
    # double match point: the cube is irrelevant, every equity is P(win) (gammons count 1)
    dmp = cube_action(s, probs=p, match_length=1)
    assert dmp.equity_nd == pytest.approx(0.5162) and dmp.equity_dt == pytest.approx(0.5162)
    assert not dmp.double
    # 2-away/2-away: after the double the taker's cube is dead, DT = the cubeless MWC = P(win);
    # holding the live centred cube is worth less, so the side ahead doubles (standard theory)
    d22 = cube_action(s, probs=p, match_length=5, score=(3, 3))
    assert d22.equity_dt == pytest.approx(0.5162)
    assert d22.double and d22.take
    # 3-away/3-away keeps a live cube after the double: its DT is not the cubeless MWC
    d33 = cube_action(s, probs=p, match_length=5, score=(2, 2))
    assert abs(d33.equity_dt - 0.5162) > 0.01


def test_adapters_search_at_their_own_plies():
    """``bg eval/hint --evaluator gnubg --ply N`` runs gnubg's own (N-1)-ply search (gnubg
    numbering), bgsage's its N-ply level; our net has no adapter search (kernels do it)."""
    gnubg = pytest.importorskip("gnubg")
    pytest.importorskip("bgsage")
    from playout.backgammon.evaluators import BgsageEvaluator, GnubgEvaluator, get_evaluator
    from playout.backgammon.ids import board_to_gnubg

    b = board_from_position_id(IDS[5])
    direct = gnubg.evaluate(board_to_gnubg(b), gnubg.cubeinfo(), gnubg.evalcontext(0, 1, 1, 0, 0))[:5]
    ours = pre_roll_probs(get_evaluator("gnubg"), b, 2)
    assert np.allclose(ours, direct, atol=1e-6)
    assert not np.allclose(ours, pre_roll_probs(get_evaluator("gnubg"), b, 1), atol=1e-4)
    assert isinstance(GnubgEvaluator().at_ply(3), GnubgEvaluator) and GnubgEvaluator().at_ply(3).plies == 2
    assert BgsageEvaluator().at_ply(2).level == "2ply"
    assert get_evaluator("net").at_ply(2) is None and get_evaluator("pubeval").at_ply(1) is not None


def test_cube_evaluator_by_name():
    """``net`` (and no name) decide the cube with the default cube network, a named network or
    evaluator with itself; ``bg cube``, ``bg play --human`` and the engine side follow it."""
    from playout.backgammon.board import STARTING_BOARD
    from playout.backgammon.cli import _evaluator
    from playout.backgammon.cube import cube_action
    from playout.backgammon.evaluators import (DEFAULT_CUBE_NET, DEFAULT_NET, NeuralNet, PubEval,
                                               get_cube_evaluator)
    from playout.backgammon.human import BgMatch, EngineSide

    assert get_cube_evaluator().path == DEFAULT_CUBE_NET
    assert get_cube_evaluator("net").path == DEFAULT_CUBE_NET
    assert get_cube_evaluator(str(DEFAULT_NET)).path == DEFAULT_NET
    assert isinstance(get_cube_evaluator("pubeval"), PubEval)
    assert _evaluator("net", cube=True).path == DEFAULT_CUBE_NET
    assert _evaluator("net").path == DEFAULT_NET
    b = STARTING_BOARD.copy()
    b[1], b[24] = 2, 0  # the back checkers moved to a made ace point: far ahead
    assert b[1:25][b[1:25] > 0].sum() == 15
    assert cube_action(b).probs == pytest.approx(cube_action(b, evaluator=NeuralNet(DEFAULT_CUBE_NET)).probs)
    assert cube_action(b).probs != pytest.approx(cube_action(b, evaluator=NeuralNet(DEFAULT_NET)).probs)
    side = EngineSide(NeuralNet(DEFAULT_NET), 1, cube_evaluator=NeuralNet(DEFAULT_CUBE_NET))
    m = BgMatch(0)
    assert side.cube_hint(m, 0).probs == pytest.approx(
        cube_action(m.position(0).board, evaluator=NeuralNet(DEFAULT_CUBE_NET)).probs)
    alone = EngineSide(NeuralNet(DEFAULT_NET), 1)
    assert alone.cube_ev is alone.ev  # no cube network given: the engine's own cubes


def test_the_default_network_is_chosen_by_depth():
    """A search two plies deep or more plays with the value network (``DEFAULT_SEARCH_NET``), a
    1-ply choice with the ranking network (``DEFAULT_NET``): the library's defaults, the ``ours``
    engines, ``bg analyze``'s rater and the CLI agree; a named network plays at every depth."""
    from playout.backgammon.analysis import make_rater
    from playout.backgammon.board import STARTING_BOARD
    from playout.backgammon.checkerplay import choose_play
    from playout.backgammon.cli import _evaluator
    from playout.backgammon.engines import OursEngine
    from playout.backgammon.evaluators import (DEFAULT_CUBE_NET, DEFAULT_NET, DEFAULT_SEARCH_NET,
                                               NeuralNet, default_net, get_evaluator)

    assert DEFAULT_SEARCH_NET.exists() and DEFAULT_SEARCH_NET != DEFAULT_NET
    assert [default_net(p) for p in (1, 2, 3, 4)] == [DEFAULT_NET] + [DEFAULT_SEARCH_NET] * 3
    assert get_evaluator().path == DEFAULT_NET and get_evaluator("net", 2).path == DEFAULT_SEARCH_NET
    assert _evaluator("net", ply=1).path == DEFAULT_NET
    assert _evaluator("net", ply=3).path == DEFAULT_SEARCH_NET
    assert _evaluator(str(DEFAULT_NET), ply=2).path == DEFAULT_NET  # a named network: itself
    assert _evaluator("net", cube=True, ply=2).path == DEFAULT_CUBE_NET
    assert OursEngine(ply=1)._ev.path == DEFAULT_NET
    assert OursEngine(ply=2)._ev.path == DEFAULT_SEARCH_NET
    assert OursEngine(ply=2, weights=str(DEFAULT_NET))._ev.path == DEFAULT_NET
    assert OursEngine(ply=2)._cube_net.path == DEFAULT_CUBE_NET  # the cube keeps its network
    assert make_rater("ours:ply=2")[0].ev.path == DEFAULT_SEARCH_NET
    assert make_rater("ours:ply=1")[0].ev.path == DEFAULT_NET
    # the two networks differ where it shows: the 2-ply values of the 21 opening replies
    b, d = STARTING_BOARD.copy(), (4, 3)
    by_default = choose_move(b, d, ply=2)
    value = choose_move(b, d, NeuralNet(DEFAULT_SEARCH_NET), 2)
    ranking = choose_move(b, d, NeuralNet(DEFAULT_NET), 2)
    assert [c.equity for c in by_default.candidates] == [c.equity for c in value.candidates]
    assert by_default.candidates[0].equity != pytest.approx(ranking.candidates[0].equity, abs=1e-4)
    cubeful = choose_play(b, d, ply=2)
    assert [p.equity for p in cubeful] == [p.equity for p in choose_play(
        b, d, NeuralNet(DEFAULT_SEARCH_NET), 2)]
