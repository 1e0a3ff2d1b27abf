"""SGF passes: written ``B[]``/``W[]`` on every board size (FF[4]); ``tt`` read as a pass only on
boards up to 19x19 (on larger boards ``t`` is the 20th coordinate).  Reference values: sgfmill's
own point parser, and GNU Go 3.8 reading the files we write."""

from __future__ import annotations

import pytest
from sgfmill import sgf, sgf_properties

from playout.go.board import BLACK, PASS, WHITE, Board, gtp_to_point
from playout.go.match import GNUGO, GtpClient
from playout.go.sgf import board_to_sgf, move_point, move_value, read_game

needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="gnugo (GNU Go 3.8) is not installed")


def _game_with_passes(size):
    b = Board(size)
    for v in ("D4", "pass", "pass", "C3"):  # B D4, W pass, B pass, W C3
        b.play(gtp_to_point(v, size))
    return b


@pytest.mark.parametrize("size", [5, 9, 19])
def test_passes_are_written_empty(size):
    data = board_to_sgf(_game_with_passes(size))
    assert data.count(b"W[]") == 1 and data.count(b"B[]") == 1
    assert b"[tt]" not in data
    # sgfmill reads the empty value back as a pass, and our reader too
    moves = [n.get_move() for n in sgf.Sgf_game.from_bytes(data).get_main_sequence()[1:]]
    assert [m[1] is None for m in moves] == [False, True, True, False]
    assert [p for _, p in read_game_bytes(data).board.moves][1:3] == [PASS, PASS]


def read_game_bytes(data):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "g.sgf"
        f.write_bytes(data)
        return read_game(f)


@pytest.mark.parametrize("size", [19, 21, 25])
def test_move_value_of_a_pass_is_empty_on_every_size(size):
    assert move_value(PASS, size) == b""
    # a point: the same two letters as sgfmill writes (its (row, col) counts rows from the bottom)
    W = size + 2
    corner = size * W + size  # the lower right corner
    assert move_value(corner, size) == sgf_properties.serialise_go_point((0, size - 1), size)


def test_tt_is_a_pass_up_to_19x19_and_a_point_above():
    assert move_point(b"tt", 19) == PASS
    assert move_point(b"", 21) == PASS
    assert sgf_properties.interpret_go_point(b"tt", 19) is None  # sgfmill agrees
    # 21x21: t is the 20th column and row; sgfmill's (row from the bottom, column) is (1, 19)
    row, col = sgf_properties.interpret_go_point(b"tt", 21)
    assert (row, col) == (1, 19)
    assert move_point(b"tt", 21) == (21 - row) * 23 + col + 1
    assert move_value(move_point(b"tt", 21), 21) == b"tt"


def test_tt_in_a_19x19_file_is_read_as_a_pass(tmp_path):
    f = tmp_path / "tt.sgf"
    f.write_text("(;GM[1]FF[3]SZ[19];B[pd];W[tt];B[dp])")
    g = read_game(f)
    assert g.board.moves == [(BLACK, gtp_to_point("Q16", 19)), (WHITE, PASS),
                             (BLACK, gtp_to_point("D4", 19))]


@needs_gnugo
def test_gnugo_reads_our_passes(tmp_path):
    b = _game_with_passes(19)
    b.play(gtp_to_point("Q16", 19))
    f = tmp_path / "passes.sgf"
    f.write_bytes(board_to_sgf(b))
    with GtpClient([GNUGO, "--mode", "gtp", "--level", "0"], name="gnugo") as gg:
        assert gg.send(f"loadsgf {f}") == "white"  # GNU Go answers the colour to move next
        assert gg.send("list_stones black").split() == ["Q16", "D4"]
        assert gg.send("list_stones white").split() == ["C3"]
