"""`bg analyze` cube figures at ply >= 2: gnubg's cubeful n-ply search, checked against gnubg.

Oracle: Debian gnubg 1.07's own ``analyse match`` at 1-ply (XG 2; pruning off, as
``cube_crosscheck.run_gnubg``), read from the analysed ``save match`` SGF: each cube decision's
``DA`` property holds the no-double and double/take evaluations (5 cubeless probabilities,
cubeless equity, cubeful equity: MWC in match play, money equity with DT already doubled).

Tolerance: the leaf is PyPI ``gnubg``'s 0-ply net, whose probabilities differ from Debian
gnubg 1.07's by up to ~0.02 (tests/test_bg_analysis.py); over the two fixtures' 42 cube
decisions ND and DT agree to 0.008 EMG (3-point 0.0026, money 0.0078), where the old
figures (the 0-ply cube model on gnubg's 1-ply cubeless probabilities) were off by up to
0.058 and 0.147 EMG.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from playout.backgammon.analysis import State, make_rater
from playout.backgammon.cubeful import cubeful_equities
from playout.backgammon.evaluators import DEFAULT_CUBE_NET, NeuralNet
from playout.backgammon.matchfile import read_match

DATA = Path(__file__).parent / "data" / "bg"
TOL = 0.008  # EMG; see the module docstring
TOL_PLAY = 0.02  # EMG, a play's value (test_play_values_at_1ply_equal_gnubgs)


def _gnubg_cli():
    exe = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg")
                                    else None)
    if exe is None:
        pytest.skip("Debian gnubg (gnubg -t) is not installed")
    return exe


def _gnubg_analysed(name, tmp_path, plies):
    """(our reading of fixture ``name``, gnubg's analysed SGF text of each game) after gnubg
    1.07's ``analyse match`` at ``plies`` (pruning off)."""
    exe = _gnubg_cli()
    out = tmp_path / "analysed.sgf"
    script = (f"set analysis chequerplay evaluation plies {plies}\n"
              f"set analysis cubedecision evaluation plies {plies}\n"
              "set analysis chequerplay evaluation prune off\n"
              "set analysis cubedecision evaluation prune off\n"
              f"import mat {DATA / (name + '.mat')}\nanalyse match\nsave match {out}\n")
    subprocess.run([exe, "-t", "-q"], input=script, capture_output=True, text=True, timeout=300)
    return read_match(DATA / f"{name}.mat"), out.read_text().split("\n(;")


def _state(m, game, a) -> State:
    p = a.player
    owner = "centered" if a.cube_owner is None else ("player" if a.cube_owner == p else "opponent")
    return State(m.length, (game.score[p], game.score[1 - p]), a.cube_value, owner, game.crawford,
                 m.jacoby)


def _gnubg_cube_figures(name, tmp_path, plies=1):
    """(board, state, ND EMG, DT EMG) of every cube decision gnubg analysed at ``plies``."""
    m, trees = _gnubg_analysed(name, tmp_path, plies)
    rows = []
    for game, tree in zip(m.games, trees):
        nodes = tree.split("\n;")[1:]
        acts = [a for a in game.actions if a.kind in ("move", "double", "take", "drop")]
        assert len(nodes) == len(acts)
        for a, node in zip(acts, nodes):
            da = re.search(r"DA\[E ver 3 (\d+)C \S+ \S+ \S+ ([^\]]*)\]", node)
            if not da or a.kind not in ("move", "double"):
                continue
            assert int(da.group(1)) == plies
            f = [float(x) for x in da.group(2).split()]
            st = _state(m, game, a)
            nd, dt = f[6], f[13]
            if m.length:
                nd, dt = st.to_emg(nd), st.to_emg(dt)
            rows.append((a.before, st, nd, dt))
    return rows


@pytest.mark.parametrize("name", ["gnubg_3pt", "gnubg_money"])
def test_cube_figures_at_1ply_equal_gnubgs(name, gnubg, tmp_path):
    rows = _gnubg_cube_figures(name, tmp_path)
    assert len(rows) >= 7
    rater, _ = make_rater("gnubg:ply=1")  # XG 2: our cubeful search over gnubg's 0-ply net
    assert rater.ply == 2 and rater.leaf is not None
    old, _ = make_rater("gnubg:ply=1")
    old.leaf = None  # the former figures: the 0-ply model on gnubg's own 1-ply probabilities
    worst_old = 0.0
    for board, st, nd, dt in rows:
        cd = rater.cube(board, st)
        assert cd["nd"] == pytest.approx(nd, abs=TOL) and cd["dt"] == pytest.approx(dt, abs=TOL)
        assert cd["dp"] == 1.0
        o = old.cube(board, st)
        worst_old = max(worst_old, abs(o["nd"] - nd), abs(o["dt"] - dt))
    assert worst_old > 0.05  # the check tells the two apart


def test_rater_cube_is_the_cubeful_search_for_our_engine():
    """ours:ply=2/3: ND/DT are cubeful_equities' (match: MWC -> EMG by mwc2eq); ply 1 stays
    the 0-ply model.  Positions: the 7-point fixture's first 6 cube decisions."""
    m = read_match(DATA / "gnubg_7pt.mat")
    game = m.games[0]
    cases = [(a.before, _state(m, game, a)) for a in game.actions[2:] if a.kind == "move"]
    cases = [(b, st) for b, st in cases if st.can_double()][:6]
    assert len(cases) == 6
    ev = NeuralNet(DEFAULT_CUBE_NET)  # cube figures: the default cube network
    for ply in (2, 3):
        rater, _ = make_rater(f"ours:ply={ply}")
        assert isinstance(rater.leaf, NeuralNet)
        for b, st in cases:
            cd = rater.cube(b, st)
            r = cubeful_equities(b, st.cube, st.owner, ev, ply, jacoby=st.jacoby,
                                 match_length=st.length, score=st.score, crawford=st.crawford)
            assert cd["nd"] == pytest.approx(st.to_emg(r.nd), abs=1e-12)
            assert cd["dt"] == pytest.approx(st.to_emg(r.dt), abs=1e-12)
            assert np.allclose(cd["probs"], r.probs, atol=1e-12)
    one, _ = make_rater("ours:ply=1")
    assert one.leaf is None
    b, st = cases[0]
    cd = one.cube(b, st)
    r = cubeful_equities(b, st.cube, st.owner, ev, 1, jacoby=st.jacoby, match_length=st.length,
                         score=st.score, crawford=st.crawford)
    assert cd["nd"] == pytest.approx(st.to_emg(r.nd), abs=1e-9)


def test_money_rater_cube_at_ply2_equals_cubeful_equities():
    """Money (DT per unit of the present cube, already x 2) on the money fixture, with the
    Jacoby rule as the match file says."""
    m = read_match(DATA / "gnubg_money.mat")
    game = m.games[0]
    cases = [(a.before, _state(m, game, a)) for a in game.actions[2:] if a.kind == "move"]
    cases = [(b, st) for b, st in cases if st.can_double()][:4]
    rater, _ = make_rater("ours:ply=2")
    for b, st in cases:
        cd = rater.cube(b, st)
        r = cubeful_equities(b, st.cube, st.owner, NeuralNet(DEFAULT_CUBE_NET), 2,
                             jacoby=st.jacoby)
        assert (cd["nd"], cd["dt"], cd["dp"]) == pytest.approx((r.nd, r.dt, 1.0), abs=1e-12)


@pytest.mark.parametrize("name", ["gnubg_3pt", "gnubg_money"])
def test_rates_at_1ply_agree_with_gnubgs_1ply_analysis(name, gnubg):
    """``analyze`` with gnubg:ply=1 beside gnubg's ``analyse match`` at 1-ply (show statistics
    match): decision counts equal; rates within 0.6 mEMG (checker, overall: 3-point 16.35/47.41
    against 16.6/47.3, money 21.9/96.2 against 21.4/96.6) and 2.0 (cube: 3-point 10.3/15.9
    against 10.4/16.2, money 1.0/94.6 against 1.1/92.7; the former figures 9.0/18.5 and
    0.5/82.0)."""
    from playout.backgammon.analysis import analyze
    from playout.backgammon.gnubg_oracle import gnubg_analyse

    _gnubg_cli()
    path = DATA / f"{name}.mat"
    theirs = gnubg_analyse(path, 1)
    rater, _ = make_rater("gnubg:ply=1")
    ours = analyze(read_match(path), rater, luck=False)["players"]
    for o, t in zip(ours, theirs):
        for k in ("unforced_moves", "total_moves", "cube_decisions", "close_cube_decisions"):
            assert o[k] == t[k], (k, o[k], t[k])
        for k, tol in (("checker_error_rate_memg", 0.6), ("overall_error_rate_memg", 0.6),
                       ("cube_error_rate_memg", 2.0)):
            assert abs(o[k] - t[k]) <= tol, (k, o[k], t[k])


def _gnubg_play_values(name, tmp_path, plies=1):
    """(before, after, state, gnubg's cubeful EMG) of every play gnubg's ``plies``-ply
    analysis scored at that depth (its move filter leaves the rest at 0-ply)."""
    from playout.backgammon.matchfile import _sgf_point, apply_play

    m, trees = _gnubg_analysed(name, tmp_path, plies)
    rows = []
    for game, tree in zip(m.games, trees):
        nodes = tree.split("\n;")[1:]
        acts = [a for a in game.actions if a.kind in ("move", "double", "take", "drop")]
        for a, node in zip(acts, nodes):
            if a.kind != "move":
                continue
            st = _state(m, game, a)
            for key, rest in re.findall(r"\[([a-z]+) E ver 3 ([^\]]*)\]", node):
                f = rest.split()
                if f[6] != f"{plies}C" or float(f[0]) in (0.0, 1.0):
                    continue
                txt = " ".join(f"{_sgf_point(key[i], a.player)}/{_sgf_point(key[i + 1], a.player)}"
                               for i in range(0, len(key), 2))
                rows.append((a.before, apply_play(a.before, a.dice, txt), st, float(f[5])))
    return rows


@pytest.mark.parametrize("name", ["gnubg_3pt", "gnubg_money"])
def test_play_values_at_1ply_equal_gnubgs(name, gnubg, tmp_path):
    """Every play gnubg's 1-ply analysis scored at 1-ply (3-point 638, money 283): our
    cubeful 1-ply value over gnubg's 0-ply net (the opponent's cube decision inside) is
    gnubg's equity to 0.0092 / 0.0196 EMG (median 0.0005 / 0.0008; the nets differ); the
    former value (gnubg's own cubeless 1-ply + the 0-ply model) was off by up to 0.058 / 0.131."""
    rows = _gnubg_play_values(name, tmp_path)
    assert len(rows) > 50
    rater, _ = make_rater("gnubg:ply=1")
    diffs = [abs(rater.play_values(b, np.asarray(after)[None], st)[0] - eq)
             for b, after, st, eq in rows]
    assert max(diffs) < TOL_PLAY and np.median(diffs) < 0.001, (max(diffs), np.median(diffs))


def test_post_move_values_at_ply1_are_the_0ply_model():
    """ply 1: the opponent's best cube action on the evaluator's probabilities
    (analysis.play_emg_batch), money and match."""
    from playout.backgammon.analysis import play_emg_batch
    from playout.backgammon.cubeful import post_move_values
    from playout.backgammon.moves import legal_moves
    from playout.backgammon.search import post_move_probs

    m = read_match(DATA / "gnubg_7pt.mat")
    game = m.games[0]
    a = next(a for a in game.actions[4:] if a.kind == "move")
    after = legal_moves(a.before, a.dice[0], a.dice[1])
    ev = NeuralNet()
    for st in (_state(m, game, a), State(0, (0, 0), 2, "player", False, True)):
        v = post_move_values(after, st.cube, st.owner, ev, 1, jacoby=st.jacoby,
                             match_length=st.length, score=st.score, crawford=st.crawford)
        v = np.array([st.to_emg(t) for t in v]) if st.length else v
        ref = play_emg_batch(post_move_probs(ev, after, 1), after, st)
        assert np.allclose(v, ref, atol=1e-9, rtol=0), st
