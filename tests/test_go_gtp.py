"""GTP v2 engine: commands, errors, SGF round trip, fuzzing, and the CLI."""

from __future__ import annotations

import random

import numpy as np
from click.testing import CliRunner

from playout.go.board import BLACK, WHITE
from playout.go.gtp import GtpEngine
from playout.go.tables import load_table

REQUIRED = ["protocol_version", "name", "version", "known_command", "list_commands", "quit",
            "boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard",
            "final_score", "final_status_list", "time_settings", "time_left", "loadsgf",
            "printsgf", "kgs-genmove_cleanup"]


def engine(**kw) -> GtpEngine:
    kw.setdefault("playouts", 200)
    return GtpEngine(table=load_table("uniform"), **kw)


def test_required_commands_are_listed_and_known():
    e = engine()
    listed = e.handle("list_commands")[2:].split()
    assert set(REQUIRED) <= set(listed)
    assert e.handle("known_command genmove") == "= true\n\n"
    assert e.handle("known_command frobnicate") == "= false\n\n"
    assert e.handle("7 protocol_version") == "=7 2\n\n"


def test_play_undo_errors_and_ids():
    e = engine(size=5)
    assert e.handle("play b C3") == "=\n\n"
    assert e.handle("3 play w C3") == "?3 illegal move\n\n"
    assert e.handle("play w Z9").startswith("? invalid vertex")
    assert e.handle("play x C2").startswith("? invalid color")
    assert e.handle("play b").startswith("? syntax error")
    assert e.handle("boardsize 4").startswith("? unacceptable size")
    assert e.handle("undo") == "=\n\n"
    assert e.handle("undo").startswith("? cannot undo")
    assert e.handle("frobnicate").startswith("? unknown command")
    assert e.handle("# only a comment") == ""


def test_genmove_plays_a_legal_move_and_showboard_shows_it():
    e = engine(size=7)
    out = e.handle("genmove b")
    assert out.startswith("= ") and out.strip() != "="
    v = out[2:].strip()
    assert v == "pass" or e.board.color[e.board.moves[-1][1]] == BLACK
    assert "X" in e.handle("showboard") or v == "pass"
    assert e.board.to_move == WHITE


def test_final_score_and_status_on_a_settled_board():
    e = engine(size=5)
    for mv in ["b B5", "w C5", "b B4", "w C4", "b B3", "w C3", "b B2", "w C2", "b B1", "w C1"]:
        assert e.handle("play " + mv) == "=\n\n"
    # Black owns columns A-B (10), White C-E (15); komi 7 -> W+12
    assert e.handle("komi 7") == "=\n\n"
    assert e.handle("final_score") == "= W+12\n\n"
    assert e.handle("final_status_list dead") == "=\n\n"
    assert len(e.handle("final_status_list alive").split()) == 1 + 10


def test_time_settings_and_time_left_bound_the_search():
    e = engine(size=9, playouts=None)
    assert e.handle("time_settings 10 0 0") == "=\n\n"
    assert e.handle("time_left b 2 0") == "=\n\n"
    assert e.handle("time_left b x 0").startswith("? syntax error")
    sec, n = e.player.budget(e.board, BLACK)
    assert n is None and sec <= 1.0


def _board_after(moves):
    e = engine(size=9)
    for c, p in moves:
        e.board.play(p, c)
    return e.board


def test_printsgf_loadsgf_round_trip(tmp_path):
    e = engine(size=9)
    for mv in ["b E5", "w C3", "b G7", "w C7"]:
        e.handle("play " + mv)
    f = tmp_path / "g.sgf"
    assert e.handle(f"printsgf {f}") == "=\n\n"
    e2 = engine()
    assert e2.handle(f"loadsgf {f}") == "=\n\n"
    assert [m for m in e2.board.moves] == [m for m in e.board.moves]
    assert e2.handle(f"loadsgf {f} 3") == "=\n\n"
    assert len(e2.board.moves) == 2
    # loaded moves can be undone one by one, as in GNU Go, down to the empty board
    assert e2.handle(f"loadsgf {f}") == "=\n\n"
    assert e2.handle("undo") == "=\n\n" and e2.board.moves == e.board.moves[:3]
    assert np.array_equal(e2.board.S[0], _board_after(e.board.moves[:3]).S[0])
    for _ in range(3):
        assert e2.handle("undo") == "=\n\n"
    assert e2.board.moves == [] and e2.handle("undo").startswith("? cannot undo")
    assert e2.handle("loadsgf /nonexistent.sgf").startswith("? cannot load file")
    (tmp_path / "bad.sgf").write_text("not sgf at all")
    assert e2.handle(f"loadsgf {tmp_path / 'bad.sgf'}").startswith("? cannot load file")


def test_fuzz_ten_thousand_random_lines_never_crash(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # printsgf/loadsgf with random file names stay in here
    rng = random.Random(12345)
    words = REQUIRED + ["fixed_handicap", "place_free_handicap", "set_free_handicap", "b", "w", "black", "white", "A1", "J9", "T19", "pass", "resign", "-1",
                        "0", "7.5", "1e400", "nan", "19", "5", "alive", "dead", "seki", "\x00",
                        "🙂", "\t", "#", "/dev/null", "999999999999999999999"]
    e = engine(size=5, playouts=20)
    for i in range(10_000):
        k = rng.randrange(4)
        if k == 0:
            line = "".join(chr(rng.randrange(0, 0x250)) for _ in range(rng.randrange(30)))
        else:
            parts = [rng.choice(words) for _ in range(rng.randrange(1, 5))]
            if rng.random() < 0.3:
                parts.insert(0, str(rng.randrange(100)))
            line = " ".join(parts)
        if line.split() and line.split()[0] in ("genmove", "kgs-genmove_cleanup") and rng.random() < 0.9:
            continue  # keep the run short: still a few hundred searches
        out = e.handle(line)
        assert out == "" or (out[0] in "=?" and out.endswith("\n\n")), (line, out)
        e.quit = False
    assert e.handle("protocol_version") == "= 2\n\n"


def test_cli_gtp_over_pipes_and_bad_database():
    from playout.go.cli import go, gtp

    r = CliRunner().invoke(gtp, ["--mc-patterns", "nosuchdb"], input="quit\n")
    assert r.exit_code == 2 and "nosuchdb" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(gtp, ["--boardsize", "7", "--playouts", "50", "--mc-patterns", "uniform"],
                           input="name\nplay b D4\ngenmove w\nquit\n")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("= playout\n\n=\n\n= ")
    r = CliRunner().invoke(go, ["--help"])
    assert "patterns" in r.output and "analyze" in r.output


def test_warm_up_thread_leaves_the_games_moves_unchanged():
    """``playout gtp`` compiles its kernels in a background thread at start-up (``--warm-up``,
    the default); numba's random streams are per thread, so a seeded engine plays the same moves
    with and without it."""
    from playout.go.cli import _warm_up, gtp
    from playout.go.tables import load_table

    _warm_up(load_table("uniform"))  # runs a 5x5 search without raising
    cmds = "boardsize 7\nclear_board\ngenmove b\ngenmove w\ngenmove b\nquit\n"
    outs = []
    for flag in ("--warm-up", "--no-warm-up"):
        r = CliRunner().invoke(gtp, ["--boardsize", "7", "--playouts", "300", "--seed", "5", flag],
                               input=cmds)
        assert r.exit_code == 0, r.output
        outs.append([ln for ln in r.output.splitlines() if ln.startswith("= ") and ln != "= "])
    assert len(outs[0]) == 3 and outs[0] == outs[1]


def test_analyze_prints_one_line_per_move(tmp_path):
    from playout.go.cli import go

    f = tmp_path / "g.sgf"
    f.write_text("(;GM[1]FF[4]SZ[7]KM[0.5];B[dd];W[cc];B[ee])")
    r = CliRunner().invoke(go, ["analyze", str(f), "--playouts", "100", "--mc-patterns", "uniform",
                                "--json"])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith("{")]
    assert len(lines) == 3 and '"played": "D4"' in lines[0]
