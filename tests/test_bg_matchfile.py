"""Match files (.mat, gnubg SGF): reading gnubg's own files, writing files gnubg reads back.

Fixtures in tests/data/bg/ were played by Debian GNU Backgammon 1.07 (``gnubg -t``, both
sides gnubg 0-ply with noise 0.03 / 0.06, ``export match mat``); the .sgf files are gnubg's
``save match`` of the same matches after ``import mat``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from playout.backgammon.board import STARTING_BOARD
from playout.backgammon.matchfile import (MatchFileError, apply_play, format_mat, parse_mat,
                                          read_mat, read_match, read_sgf, write_mat, write_sgf)

DATA = Path(__file__).parent / "data" / "bg"
NAMES = ["gnubg_3pt", "gnubg_5pt_crawford", "gnubg_7pt", "gnubg_money"]


def _key(m):
    return [[(a.player, a.kind, a.dice, a.play, a.value) for a in g.actions]
            + [(g.winner, g.points, g.score, g.crawford)] for g in m.games]


def _gnubg_cli():
    exe = shutil.which("gnubg") or ("/usr/games/gnubg" if os.path.exists("/usr/games/gnubg") else None)
    if exe is None:
        pytest.skip("Debian gnubg (gnubg -t) is not installed")
    return exe


@pytest.mark.parametrize("name", NAMES)
def test_mat_and_sgf_of_the_same_match_agree(name):
    a = read_mat(DATA / f"{name}.mat")
    b = read_sgf(DATA / f"{name}.sgf")
    assert _key(a) == _key(b)
    assert a.length == b.length


def test_match_structure_as_gnubg_wrote_it():
    m = read_match(DATA / "gnubg_5pt_crawford.mat")
    assert m.length == 5 and m.players == ("gnubg", "root")
    assert [(g.score, g.crawford, g.winner, g.points) for g in m.games] == [
        ((0, 0), False, 0, 4), ((4, 0), True, 0, 2)]
    m7 = read_match(DATA / "gnubg_7pt.mat")
    assert [g.score for g in m7.games] == [(0, 0), (0, 4), (2, 4), (3, 4), (5, 4)]
    assert [g.winner for g in m7.games] == [1, 0, 0, 0, 0]
    money = read_match(DATA / "gnubg_money.mat")
    assert money.length == 0 and money.players == ("Alice", "Bob")
    assert money.jacoby  # .mat has no Jacoby field: gnubg's import default (on)
    # rows 1-3 of the 3-point match: "31: 8/5 6/5" by player 1; "41: 13/9 8/7" and
    # " Doubles => 2" ...; " Takes" by player 0, then "11: 8/7 8/7 6/5 5/4" (single-die steps,
    # kept in the combined notation)
    g = read_match(DATA / "gnubg_3pt.mat").games[0]
    assert [(a.player, a.kind, a.dice, a.play, a.value) for a in g.actions[:5]] == [
        (1, "move", (3, 1), "8/5 6/5", 0), (0, "move", (4, 1), "13/9 8/7", 0),
        (1, "double", None, "", 2), (0, "take", None, "", 0), (1, "move", (1, 1), "8/7(2) 6/4", 0)]
    kinds = [a.kind for gm in m7.games for a in gm.actions]
    assert {"double", "take", "drop"} <= set(kinds)


def test_plays_in_every_notation():
    b = STARTING_BOARD
    assert np.array_equal(apply_play(b, (6, 5), "24/13"), apply_play(b, (6, 5), "24/18 18/13"))
    assert np.array_equal(apply_play(b, (3, 1), "8/5 6/5"), apply_play(b, (3, 1), "6/5 8/5"))
    d = apply_play(b, (6, 6), "24/18(2) 13/7(2)")
    assert d[24] == 0 and d[18] == 2 and d[13] == 3 and d[7] == 2
    with pytest.raises(ValueError, match="illegal play"):
        apply_play(b, (3, 1), "24/18")
    with pytest.raises(ValueError, match="cannot read"):
        apply_play(b, (3, 1), "8-5")
    with pytest.raises(ValueError, match="no play recorded"):
        apply_play(b, (3, 1), "")


def test_an_illegal_play_is_reported_with_file_line_game_move(tmp_path):
    text = (DATA / "gnubg_3pt.mat").read_text()
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.strip().startswith("3)"))
    row = lines[i]
    # the left play of row 3 becomes one that moves a checker the wrong way
    colon = row.index(":")
    lines[i] = row[:colon + 1] + " 6/12 6/13" + " " * max(1, 33 - (colon + 12)) + row[33:]
    p = tmp_path / "bad.mat"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(MatchFileError) as exc:
        read_mat(p)
    msg = str(exc.value)
    assert msg.startswith(f"{p}:{i + 1}: game 1 move ")
    assert "\n" not in msg


def test_a_score_at_or_above_the_match_length_names_the_game(tmp_path):
    # before: read without a word, then analysed into an error rate of nan (a match already
    # won has no decisions)
    lines = (DATA / "gnubg_3pt.mat").read_text().splitlines()
    k = next(k for k, ln in enumerate(lines) if ln.strip() == "Game 1")
    assert lines[k + 1].startswith(" gnubg : 0 ")
    lines[k + 1] = lines[k + 1].replace("gnubg : 0", "gnubg : 3", 1)
    p = tmp_path / "won.mat"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(MatchFileError, match="^" + re.escape(
            f"{p}:{k + 1}: game 1: score 3-0 is not below the match length 3") + "$"):
        read_mat(p)


def test_not_a_match_file(tmp_path):
    p = tmp_path / "x.mat"
    p.write_text("hello\n")
    with pytest.raises(MatchFileError, match=r"x.mat:1: no ' Game 1'"):
        read_mat(p)
    with pytest.raises(MatchFileError, match="no game tree"):
        read_sgf(p)


@pytest.mark.parametrize("name", NAMES)
def test_our_writers_round_trip(name, tmp_path):
    m = read_match(DATA / f"{name}.mat")
    write_mat(m, tmp_path / "a.mat")
    write_sgf(m, tmp_path / "a.sgf")
    assert _key(read_mat(tmp_path / "a.mat")) == _key(m)
    assert _key(read_sgf(tmp_path / "a.sgf")) == _key(m)


def test_mat_layout_is_gnubgs():
    m = read_match(DATA / "gnubg_3pt.mat")
    out = format_mat(m).splitlines()
    orig = [ln.rstrip() for ln in (DATA / "gnubg_3pt.mat").read_text().splitlines()
            if not ln.startswith(";")]
    assert out[0] == orig[1] == " 3 point match"
    assert out[3] == orig[4]  # the score line, column for column
    assert out[-2] == orig[-1] if orig[-1] else out[-2] == orig[-2]


@pytest.mark.parametrize("name", ["gnubg_3pt", "gnubg_money", "gnubg_5pt_crawford"])
def test_gnubg_reads_back_what_we_write(name, tmp_path):
    """Our .mat and SGF -> gnubg (import mat / load match) -> gnubg's export -> same plays."""
    exe = _gnubg_cli()
    m = read_match(DATA / f"{name}.mat")
    write_mat(m, tmp_path / "ours.mat")
    write_sgf(m, tmp_path / "ours.sgf")
    script = (f"import mat {tmp_path / 'ours.mat'}\nexport match mat {tmp_path / 'g1.mat'}\n"
              f"load match {tmp_path / 'ours.sgf'}\nexport match mat {tmp_path / 'g2.mat'}\n")
    subprocess.run([exe, "-t", "-q"], input=script, capture_output=True, text=True, timeout=60)
    assert _key(read_mat(tmp_path / "g1.mat")) == _key(m)
    back = read_mat(tmp_path / "g2.mat")
    assert _key(back) == _key(m)


def test_a_written_match_from_code(tmp_path):
    """The record built by hand (as `bg play` does) is replayed and written."""
    from playout.backgammon.matchfile import Action, Game, Match
    g = Game(score=(0, 0), actions=[Action(0, "move", (3, 1), "8/5 6/5"),
                                    Action(1, "double", value=2), Action(0, "drop")])
    m = Match(players=("a", "b"), length=3, games=[g])
    text = format_mat(m)
    assert "31: 8/5 6/5" in text and "Doubles => 2" in text and "Drops" in text
    back = parse_mat(text)
    assert back.games[0].winner == 1 and back.games[0].points == 1


def test_beaver_as_gnubg_writes_it():
    """gnubg 1.07 (``set beavers 3``; ``double``, ``beaver``, then both sides gnubg 0-ply):
    ``Doubles => 2`` / ``Beavers => 4`` with no take after it, the beaverer (root, player 1)
    owning the 4-cube; it redoubles to 8 at row 14 and gnubg drops: root wins 4 points."""
    for name in ("gnubg_money_beaver.mat", "gnubg_money_beaver.sgf"):
        m = read_match(DATA / name)
        g = m.games[0]
        kinds = [(a.player, a.kind, a.value) for a in g.actions if a.kind != "move"]
        assert kinds == [(0, "double", 2), (1, "beaver", 4), (1, "double", 8), (0, "drop", 0)], name
        assert (g.winner, g.points) == (1, 4), name
    assert _key(read_mat(DATA / "gnubg_money_beaver.mat")) == _key(
        read_sgf(DATA / "gnubg_money_beaver.sgf"))
    # our writer gives gnubg's rows back: no take after the beaver
    text = format_mat(read_mat(DATA / "gnubg_money_beaver.mat"))
    assert "Beavers => 4" in text and "Takes" not in text


def test_beaver_written_as_gnubg_writes_it(tmp_path):
    m = read_match(DATA / "gnubg_money_beaver.mat")
    write_sgf(m, tmp_path / "b.sgf")
    text = (tmp_path / "b.sgf").read_text()
    assert ";W[double]\n;B[double]\n;W[take]\n" in text  # gnubg's own spelling of a beaver
    assert _key(read_sgf(tmp_path / "b.sgf")) == _key(m)
    exe = _gnubg_cli()
    out = subprocess.run([exe, "-t", "-q"], input=f"load match {tmp_path / 'b.sgf'}\n"
                         f"export match mat {tmp_path / 'g.mat'}\n", capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0
    assert _key(read_mat(tmp_path / "g.mat")) == _key(m)
