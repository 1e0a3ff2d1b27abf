"""User-facing Go errors and GTP handicap commands (found by a new-user trial).

Bad SGF files and pattern files give one line naming the file and the problem, in the CLI
(exit code 2) and through GTP (``? cannot load file: <that line>``); ``--playouts`` with
``--seconds`` is a usage error; ``fixed_handicap`` follows the GTP v2 spec's table (4.1.1).
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from playout.go.board import BLACK, WHITE, gtp_to_point
from playout.go.cli import go, gtp
from playout.go.cli_patterns import patterns as patterns_command
from playout.go.gtp import GtpEngine
from playout.go.handicap import fixed_handicap_vertices, free_handicap_vertices
from playout.go.sgf import SgfError, board_to_sgf, load_sgf, read_sgf
from playout.go.tables import load_table

# GTP version 2 draft 2, section 4.1.1 (fixed handicap placement), written out as in the spec.
SPEC_19 = {
    2: "D4 Q16",
    3: "D4 Q16 D16",
    4: "D4 Q16 D16 Q4",
    5: "D4 Q16 D16 Q4 K10",
    6: "D4 Q16 D16 Q4 D10 Q10",
    7: "D4 Q16 D16 Q4 D10 Q10 K10",
    8: "D4 Q16 D16 Q4 D10 Q10 K4 K16",
    9: "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10",
}
SPEC_9 = {
    2: "C3 G7",
    5: "C3 G7 C7 G3 E5",
    6: "C3 G7 C7 G3 C5 G5",
    8: "C3 G7 C7 G3 C5 G5 E3 E7",
    9: "C3 G7 C7 G3 C5 G5 E3 E7 E5",
}


def engine(**kw) -> GtpEngine:
    kw.setdefault("playouts", 100)
    return GtpEngine(table=load_table("uniform"), **kw)


# ---------------------------------------------------------------------------- SGF errors
BAD_SGF = [
    ("(;GM[1]SZ[9];B[zz])", "move 1: bad point 'zz' for a 9x9 board"),
    ("(;GM[1]SZ[9];B[ee];W[dd];B[e])", "move 3: bad point 'e' for a 9x9 board"),
    ("(;GM[1]SZ[7];B[hh])", "move 1: bad point 'hh' for a 7x7 board"),
    ("(;GM[1]SZ[9];B[ee];W[ee])", "move 2 (W E5) is illegal: occupied"),
    ("(;GM[1]SZ[9]AB[zz])", "AB: bad point 'zz' for a 9x9 board"),
    ("(;GM[1]SZ[9]AW[aa:zz])", "AW: bad point 'aa:zz' for a 9x9 board"),
    ("(;GM[1]SZ[9]AB[ee]AW[ee])", "point E5 is in both AB and AW"),
    ("(;GM[1]SZ[9]AB[aa:cc]AE[bb])", "point B8 is in both AB and AE"),
    ("(;GM[1]SZ[9]AB[aa][ba][ab]AW[bb][ca][ac])", "setup stones leave the string at A9 without liberties"),
    ("(;GM[1]SZ[9];B[ee];AW[dd]AB[dd])", "after move 1: point D6 is in both AB and AW"),
    ("(;GM[1]SZ[x])", "not a valid SGF: bad SZ value 'x'"),
    ("(;GM[1]SZ[30])", "board size 30 not supported (5..19)"),
    ("(;GM[1]SZ[4])", "board size 4 not supported (5..19)"),
    ("(;GM[1]SZ[9]KM[abc];B[ee])", "bad KM value 'abc'"),
    ("(;GM[1]SZ[9]PL[x])", "bad PL value 'x' (B or W)"),
    ("(;GM[1]SZ[9]HA[two]AB[cc][gg])", "bad HA value 'two'"),
    ("(;GM[2]SZ[9];B[ee])", "GM[2] is not a Go game record (GM[1])"),
    ("(;GM[1]SZ[9:13];B[ee])", "rectangular board SZ[9:13] not supported (Go boards here are square)"),
]


def test_the_two_number_size_of_a_square_board_is_read(tmp_path):
    # FF[4] allows SZ[columns:rows]; sgfmill reads only SZ[n] (before: "bad SZ value '9:9'")
    f = tmp_path / "g.sgf"
    f.write_text("(;GM[1]FF[4]SZ[ 9 : 9 ]KM[6.5];B[ee];W[cc])")
    b = load_sgf(f)
    assert b.size == 9 and b.komi == 6.5
    assert b.moves == [(BLACK, gtp_to_point("E5", 9)), (WHITE, gtp_to_point("C7", 9))]


#: setup after the first move that cannot be applied
LATER_BAD = [
    ("(;GM[1]SZ[9];B[ee];AB[zz])", "after move 1: AB: bad point 'zz' for a 9x9 board"),
    ("(;GM[1]SZ[9];B[ee];AB[dd]AE[dd])", "after move 1: point D6 is in both AB and AE"),
    ("(;GM[1]SZ[9];B[aa];W[dd];AW[ba][ab])",
     "after move 2: setup stones leave the string at A9 without liberties"),
    ("(;GM[1]SZ[9];B[aa];AW[ee];W[ee])", "move 2 (W E5) is illegal: occupied"),
    ("(;GM[1]SZ[9];B[aa];PL[x])", "after move 1: bad PL value 'x' (B or W)"),
]


@pytest.mark.parametrize("text,why", BAD_SGF + LATER_BAD)
def test_bad_sgf_is_one_line_naming_file_and_problem(tmp_path, text, why):
    f = tmp_path / "g.sgf"
    f.write_text(text)
    with pytest.raises(SgfError) as err:
        load_sgf(f)
    assert str(err.value) == f"{f}: {why}"
    # GTP loadsgf: the spec's "cannot load file", then the same line; the engine keeps going
    e = engine()
    e.handle("play b E5")
    assert e.handle(f"loadsgf {f}") == f"? cannot load file: {f}: {why}\n\n"
    assert e.board.moves == [(BLACK, gtp_to_point("E5", e.board.size))]  # the position stays
    assert e.handle("protocol_version") == "= 2\n\n"
    assert e.handle("protocol_version") == "= 2\n\n"


@pytest.mark.parametrize("text,why", BAD_SGF[:1] + BAD_SGF[3:5] + BAD_SGF[-3:-2])
def test_analyze_bad_sgf_exit_2_one_line(tmp_path, text, why):
    f = tmp_path / "zz.sgf"
    f.write_text(text)
    r = CliRunner().invoke(go, ["analyze", str(f), "--playouts", "10", "--mc-patterns", "uniform"])
    assert r.exit_code == 2
    assert r.output == f"Error: {f}: {why}\n"


def test_sgf_setup_handicap_passes_and_rectangles(tmp_path):
    f = tmp_path / "h.sgf"
    # handicap without PL: White moves first; tt and [] are passes; AE clears a setup point
    f.write_text("(;GM[1]SZ[9]HA[2]AB[cc][gg];W[ee];B[tt];W[])")
    setup, b = read_sgf(f)
    assert setup.to_move == WHITE and setup.moves == []
    assert sorted(setup.stones(BLACK)) == sorted(gtp_to_point(v, 9) for v in ("C7", "G3"))
    assert [c for c, _ in b.moves] == [WHITE, BLACK, WHITE] and b.moves[1][1] == b.moves[2][1] == 0
    f.write_text("(;GM[1]SZ[9]AB[aa:cb];AE[ba];W[ee])")
    setup, b = read_sgf(f)
    assert sorted(setup.stones(BLACK)) == sorted(gtp_to_point(v, 9) for v in ("A9", "C9", "A8", "B8", "C8"))
    assert setup.to_move == BLACK  # no HA, no PL
    # setup in the first node below the root (as some servers write handicaps) is setup too
    f.write_text("(;GM[1]SZ[9];AB[cc][gg]PL[W];W[ee])")
    setup, b = read_sgf(f)
    assert len(setup.stones(BLACK)) == 2 and setup.to_move == WHITE and b.moves == [(WHITE, gtp_to_point("E5", 9))]


# ---------------------------------------------------------------------------- handicap
def test_fixed_handicap_19x19_matches_the_spec_table():
    for n, want in SPEC_19.items():
        e = engine(size=19)
        assert e.handle(f"fixed_handicap {n}") == f"= {want}\n\n"
        assert sorted(e.board.stones(BLACK)) == sorted(gtp_to_point(v, 19) for v in want.split())
        assert e.board.stones(WHITE) == [] and e.board.moves == [] and e.board.to_move == WHITE


def test_fixed_handicap_9x9_13x13_and_limits():
    for n, want in SPEC_9.items():
        assert " ".join(fixed_handicap_vertices(n, 9)) == want
    assert " ".join(fixed_handicap_vertices(9, 13)) == "D4 K10 D10 K4 D7 K7 G4 G10 G7"
    assert " ".join(fixed_handicap_vertices(4, 7)) == "C3 E5 C5 E3"
    e = engine(size=9)
    for bad in ("0", "1", "10"):
        assert e.handle(f"fixed_handicap {bad}") == "? invalid number of stones\n\n"
    assert e.handle("fixed_handicap") == "? syntax error\n\n"
    assert e.handle("fixed_handicap two") == "? syntax error\n\n"
    e = engine(size=8)  # even sizes: at most 4 (no centre point)
    assert e.handle("fixed_handicap 5") == "? invalid number of stones\n\n"
    assert e.handle("fixed_handicap 4") == "= C3 F6 C6 F3\n\n"
    e = engine(size=5)  # below 7x7 the spec defines no fixed placement
    assert e.handle("fixed_handicap 2") == "? invalid number of stones\n\n"


def test_handicap_needs_an_empty_board_then_white_moves():
    e = engine(size=9, playouts=50)
    assert e.handle("play b E5") == "=\n\n"
    assert e.handle("fixed_handicap 2") == "? board not empty\n\n"
    assert e.handle("place_free_handicap 2") == "? board not empty\n\n"
    assert e.handle("set_free_handicap C3 G7") == "? board not empty\n\n"
    assert e.handle("clear_board") == "=\n\n"
    assert e.handle("fixed_handicap 4") == "= C3 G7 C7 G3\n\n"
    assert e.handle("undo") == "? cannot undo\n\n"  # handicap stones are not moves
    out = e.handle("genmove w")
    assert out.startswith("= ")
    p = gtp_to_point(out[2:].strip(), 9)
    assert e.board.color[p] == WHITE and e.board.moves == [(WHITE, p)]
    assert e.board.to_move == BLACK and len(e.board.stones(BLACK)) == 4
    # printsgf keeps the handicap as setup (AB, HA, PL[W]); loadsgf restores it
    sgf_text = e.handle("printsgf")
    assert "HA[4]" in sgf_text and "AB[cc][cg][gc][gg]" in sgf_text and "PL[W]" in sgf_text


def test_printsgf_loadsgf_keeps_handicap(tmp_path):
    e = engine(size=9)
    e.handle("fixed_handicap 3")
    e.handle("play w E5")
    f = tmp_path / "h.sgf"
    assert e.handle(f"printsgf {f}") == "=\n\n"
    e2 = engine()
    assert e2.handle(f"loadsgf {f} 1") == "=\n\n"  # the position before move 1
    assert len(e2.board.stones(BLACK)) == 3 and e2.board.to_move == WHITE and e2.board.moves == []
    assert e2.handle(f"loadsgf {f}") == "=\n\n"
    assert e2.board.moves == [(WHITE, gtp_to_point("E5", 9))]


def test_set_free_handicap_and_its_errors():
    e = engine(size=9)
    for bad in ("A1", "A1 A1", "A1 Z1", "A1 pass", "A1 K9"):
        assert e.handle(f"set_free_handicap {bad}") == "? bad vertex list\n\n", bad
    assert e.handle("set_free_handicap") == "? syntax error\n\n"
    all_points = [f"{c}{r}" for c in "ABCDEFGHJ" for r in range(1, 10)]
    assert e.handle("set_free_handicap " + " ".join(all_points)) == "? bad vertex list\n\n"
    assert e.board.stones(BLACK) == []  # nothing placed by a failed command
    assert e.handle("set_free_handicap D4 f6 E5") == "=\n\n"
    assert sorted(e.board.stones(BLACK)) == sorted(gtp_to_point(v, 9) for v in ("D4", "F6", "E5"))
    assert e.board.to_move == WHITE and e.board.moves == []
    assert e.handle("genmove w").startswith("= ")
    assert e.board.moves[0][0] == WHITE


def test_place_free_handicap_uses_fixed_points_then_spreads():
    e = engine(size=19)
    assert e.handle("place_free_handicap 9") == f"= {SPEC_19[9]}\n\n"
    e = engine(size=9)
    assert e.handle("place_free_handicap 1") == "? invalid number of stones\n\n"
    assert e.handle("place_free_handicap 81") == "? invalid number of stones\n\n"
    assert e.handle("place_free_handicap 13") == f"= {SPEC_9[9]} D6 F6 D4 F4\n\n"
    assert len(e.board.stones(BLACK)) == 13 and e.board.to_move == WHITE
    # the most the spec allows (all but one point) still is a legal position, White to move
    v = free_handicap_vertices(80, 9)
    assert len(set(v)) == 80
    e = engine(size=9, playouts=20)
    assert e.handle("place_free_handicap 80") == f"= {' '.join(v)}\n\n"
    assert e.handle("genmove w").startswith("= ")
    e = engine(size=5)  # no fixed placement below 7x7: the 2nd-line star points
    assert e.handle("place_free_handicap 3") == "= B2 D4 B4\n\n"


def test_handicap_commands_listed_and_known():
    e = engine()
    listed = e.handle("list_commands")[2:].split()
    for cmd in ("fixed_handicap", "place_free_handicap", "set_free_handicap"):
        assert cmd in listed
        assert e.handle(f"known_command {cmd}") == "= true\n\n"


# ---------------------------------------------------------------------------- CLI options
@pytest.mark.parametrize("cmd,extra", [(gtp, []), (go, ["analyze", "g.sgf"])])
def test_playouts_with_seconds_is_a_usage_error(tmp_path, monkeypatch, cmd, extra):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.sgf").write_text("(;GM[1]SZ[7];B[dd])")
    r = CliRunner().invoke(cmd, extra + ["--playouts", "400", "--seconds", "1"], input="quit\n")
    assert r.exit_code == 2
    assert r.output.strip().splitlines()[-1] == "Error: give --playouts or --seconds, not both"
    assert "Traceback" not in r.output


def test_pattern_directory_and_empty_file_same_message_in_both_commands(tmp_path):
    empty = tmp_path / "empty.db"
    empty.write_text("")
    comments = tmp_path / "comments.db"
    comments.write_text("# only a comment\n\n")
    cases = [(tmp_path, f"{tmp_path}: is a directory, not a pattern file"),
             (empty, f"{empty}: no patterns found"),
             (comments, f"{comments}: no patterns found")]
    for path, msg in cases:
        r = CliRunner().invoke(patterns_command, [str(path)])
        assert r.exit_code == 2 and r.output == f"Error: {msg}\n", r.output
        r = CliRunner().invoke(gtp, ["--mc-load-patterns", str(path)], input="quit\n")
        assert r.exit_code == 2 and r.output == f"Error: {msg}\n", r.output
    r = CliRunner().invoke(gtp, ["--mc-load-patterns", str(tmp_path / "missing.db")], input="quit\n")
    assert r.exit_code == 2 and r.output == f"Error: {tmp_path / 'missing.db'}: no such pattern file\n"


def test_board_to_sgf_round_trips_setup_and_side_to_move(tmp_path):
    e = engine(size=9)
    e.handle("set_free_handicap C3 G7")
    f = tmp_path / "s.sgf"
    f.write_bytes(board_to_sgf(e.board, e.setup))  # no HA: PL[W] alone says White moves
    setup, _ = read_sgf(f)
    assert setup.to_move == WHITE and sorted(setup.stones(BLACK)) == sorted(e.board.stones(BLACK))


def test_match_with_an_engine_that_cannot_start_is_a_one_line_error(tmp_path):
    r = CliRunner().invoke(go, ["match", "no-such-engine --mode gtp", "also-missing", "--games", "1",
                                "--out", str(tmp_path / "m.jsonl")])
    assert r.exit_code == 2  # UserError: a one-line "Error: ..." as for bad options
    assert "cannot start engine 'no-such-engine'" in r.output and "Traceback" not in r.output
