"""Analysis for GUIs and records a user keeps: GTP ``lz-analyze`` / ``kata-analyze`` /
``lz-genmove_analyze`` (the formats of Leela Zero's extensions as KataGo's
docs/GTP_Extensions.md gives them), ``playout go analyze`` writing an annotated SGF (Sabaki's
``SBKV``: Black's win rate in percent) and a win-rate PNG, and ``playout go match`` writing
every game as SGF."""

from __future__ import annotations

import json
import os
import random
import re
import select
import subprocess
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner
from sgfmill import sgf

from playout.go.board import BLACK, WHITE, Board, gtp_to_point
from playout.go.gtp import GtpEngine
from playout.go.match import play_match
from playout.go.tables import load_table

KEYS = ["move", "visits", "winrate", "prior", "lcb", "order"]


def parse_info(line: str) -> list[dict]:
    """The candidates of one analysis line: ``info move M visits V winrate W prior P lcb L
    order K pv ...`` entries, nothing else but an optional trailing ``ownership`` block."""
    tokens = line.split(" ownership ")[0].split()
    out = []
    i = 0
    while i < len(tokens):
        assert tokens[i] == "info", (i, line[:200])
        keys, vals = tokens[i + 1:i + 13:2], tokens[i + 2:i + 13:2]
        assert keys == KEYS and tokens[i + 13] == "pv", line[:200]
        j = i + 14
        while j < len(tokens) and tokens[j] != "info":
            j += 1
        c = dict(zip(keys, vals))
        assert re.fullmatch(r"\d+", c["visits"]) and re.fullmatch(r"\d+", c["order"])
        out.append({"move": c["move"], "visits": int(c["visits"]), "winrate": float(c["winrate"]),
                    "prior": float(c["prior"]), "lcb": float(c["lcb"]), "order": int(c["order"]),
                    "pv": tokens[i + 14:j]})
        i = j
    return out


def check_batch(cands: list[dict], board: Board, color: int, scale: float) -> None:
    """Every field in range, orders 0..k-1, every principal variation legal from ``board``."""
    assert cands
    assert [c["order"] for c in cands] == list(range(len(cands)))
    for c in cands:
        assert c["visits"] > 0
        assert 0 <= c["lcb"] <= c["winrate"] <= scale and 0 <= c["prior"] <= scale
        assert c["pv"][0] == c["move"]
        b = board.copy()
        b.to_move = color
        for v in c["pv"]:
            p = gtp_to_point(v, board.size)
            assert b.is_legal(p), (c["move"], c["pv"], v)
            b.play(p)
    assert len({c["move"] for c in cands}) == len(cands)


# ------------------------------------------------------------------------ in-process answers
def engine(**kw) -> GtpEngine:
    kw.setdefault("playouts", 600)
    return GtpEngine(table=load_table("uniform"), **kw)


def test_lz_analyze_answer_format_and_prior_of_the_uniform_table():
    e = engine(size=9)
    out = e.handle("lz-analyze b 5")
    assert out.startswith("=\n") and out.endswith("\n\n")
    lines = out[2:-2].splitlines()
    assert lines and all(ln.startswith("info move ") for ln in lines)
    cands = parse_info(lines[-1])
    check_batch(cands, Board(9), BLACK, 10000)
    # mc_uniform gives every empty point of the empty board the same value: the playout
    # policy's probability is 1/81 for each move, 0 for pass
    assert {c["prior"] for c in cands if c["move"] != "pass"} == {round(10000 / 81)}
    assert sum(c["visits"] for c in cands) <= 600
    assert sum(c["visits"] for c in cands) >= 500  # only superko-banned walks are lost


def test_winrates_are_the_side_to_move_s():
    # Black owns nearly the whole board: Black's moves win, White's lose
    rows = "\n".join(["XXXXXXX", "XXXXXXX", "XXXXXXX", "XXX.XXX", ".X.X.X.", "XXXXXXX", "XXX.O.O"])
    e = engine(size=7, komi=0.5)
    e.board = Board.from_ascii(rows, komi=0.5)
    b = parse_info(e.handle("lz-analyze b 5")[2:-2].splitlines()[-1])
    w = parse_info(e.handle("lz-analyze w 5")[2:-2].splitlines()[-1])
    assert b[0]["winrate"] > 9000 and w[0]["winrate"] < 1000
    k = parse_info(e.handle("kata-analyze w 5")[2:-2].splitlines()[-1])
    assert k[0]["winrate"] < 0.1 and all(0 <= c["winrate"] <= 1 for c in k)


def test_kata_analyze_ownership_one_value_per_point_for_the_side_to_move():
    rows = "\n".join(["XXXXXXX", "X.X.X.X", "XXXXXXX", ".......", "OOOOOOO", "O.O.O.O",
                      "OOOOOOO"])  # both alive, each with three eyes
    e = engine(size=7, komi=0.5)
    e.board = Board.from_ascii(rows, komi=0.5)
    for color, sign in (("b", 1), ("w", -1)):
        line = e.handle(f"kata-analyze {color} 5 ownership true")[2:-2].splitlines()[-1]
        own = [float(x) for x in line.split(" ownership ")[1].split()]
        assert len(own) == 49 and all(-1 <= x <= 1 for x in own)
        # rows from the top: Black's stones first, White's last
        assert min(own[:21]) * sign > 0.5 and max(own[-21:]) * sign < -0.5


def test_genmove_analyze_plays_the_move_and_ends_with_play():
    e = engine(size=9)
    out = e.handle("lz-genmove_analyze b 5")
    lines = out[:-2].splitlines()
    assert lines[0] == "=" and out.endswith("\n\n") and lines[-1].startswith("play ")
    assert len(lines) >= 3  # at least the last batch before the move
    mv = lines[-1].split()[1]
    assert e.handle("list_stones black") == f"= {mv}\n\n"
    for ln in lines[1:-1]:
        check_batch(parse_info(ln), Board(9), BLACK, 10000)
    out = e.handle("kata-genmove_analyze w")  # no interval: only the move
    assert out.splitlines()[0] == "=" and out.splitlines()[1].startswith("play ")


def test_analysis_arguments():
    e = engine(size=5, playouts=50)
    for bad, why in (("lz-analyze b abc", "? syntax error: abc needs a value"),
                     ("lz-analyze b -5", "? syntax error: -5 needs a value"),
                     ("lz-analyze b interval nan", "? syntax error: interval 'nan'"),
                     ("kata-analyze 10 avoid b C3 1", "? avoid is not supported"),
                     ("kata-analyze 10 ownership maybe", "? syntax error: ownership true|false"),
                     ("lz-analyze 10 frobnicate 1", "? syntax error: unknown option 'frobnicate'"),
                     ("7 lz-analyze x", "?7 syntax error: x needs a value")):
        assert e.handle(bad) == why + "\n\n", bad
    assert e.handle("5 lz-analyze 1").startswith("=5\ninfo move ")  # Lizzie's form
    assert e.handle("lz-analyze b interval 1 minmoves 3 pvVisits true").startswith("=\ninfo ")
    assert e.handle("lz-analyze b") == "=\n\n"  # no interval: no lines
    capped = e.handle("lz-analyze b 1 maxmoves 2")[2:-2].splitlines()[-1]
    assert len(parse_info(capped)) == 2
    for cmd in ("lz-analyze", "kata-analyze", "lz-genmove_analyze", "genmove_analyze", "analyze"):
        assert e.handle(f"known_command {cmd}") == "= true\n\n"
    rng = random.Random(7)
    words = ["b", "w", "10", "0", "-1", "1e400", "nan", "interval", "maxmoves", "ownership",
             "true", "avoid", "x", "999999999999999999999", "\x00"]
    for _ in range(200):
        line = " ".join([rng.choice(["lz-analyze", "kata-analyze"])]
                        + [rng.choice(words) for _ in range(rng.randrange(5))])
        out = e.handle(line)
        assert out[0] in "=?" and out.endswith("\n\n"), (line, out)


# ------------------------------------------------------------------------ live engine (stdin)
class Live:
    """``playout gtp`` in a subprocess, read line by line with a timeout."""

    def __init__(self, *args):
        self.p = subprocess.Popen([sys.executable, "-m", "playout.cli", "gtp", "--no-warm-up",
                                   "--mc-patterns", "uniform", *args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        self.buf = b""

    def send(self, line: str) -> None:
        self.p.stdin.write((line + "\n").encode())
        self.p.stdin.flush()

    def line(self, timeout: float = 120.0) -> str:
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            ready = select.select([self.p.stdout], [], [], max(0.0, end - time.monotonic()))[0]
            assert ready, f"no line within {timeout} s"
            chunk = os.read(self.p.stdout.fileno(), 1 << 16)
            assert chunk, "engine exited"
            self.buf += chunk
        ln, self.buf = self.buf.split(b"\n", 1)
        return ln.decode()

    def close(self) -> None:
        self.send("quit")
        self.p.wait(timeout=30)


@pytest.fixture
def live():
    eng = Live("--boardsize", "9", "--playouts", "300")
    yield eng
    eng.close()


def test_lz_analyze_streams_until_the_next_command(live):
    live.send("play b E5")
    assert live.line() == "=" and live.line() == ""
    live.send("lz-analyze w 10")
    assert live.line() == "="
    board = Board(9)
    board.play(gtp_to_point("E5", 9), BLACK)
    totals = []
    for _ in range(3):
        cands = parse_info(live.line())
        check_batch(cands, board, WHITE, 10000)
        assert "E5" not in {c["move"] for c in cands}
        totals.append(sum(c["visits"] for c in cands))
    # the search goes on past the 300-playout move budget, the visits only grow
    assert totals == sorted(totals) and totals[-1] > totals[0]
    live.send("name")
    while live.line() != "":  # at most the batch already on its way, then the empty line
        pass
    assert live.line() == "= playout" and live.line() == ""
    live.send("list_stones black")  # the analysis played nothing
    assert live.line() == "= E5"


def test_an_empty_line_stops_analysis_too_and_ids_are_echoed(live):
    live.send("12 kata-analyze b 5")
    assert live.line() == "=12"
    line = live.line()
    assert line.startswith("info move ") and all(0 <= c["winrate"] <= 1 for c in parse_info(line))
    live.send("")
    while live.line() != "":
        pass
    live.send("13 protocol_version")
    assert live.line() == "=13 2"


def test_genmove_analyze_is_not_interrupted_by_input(live):
    live.send("lz-genmove_analyze b 2")
    live.send("name")  # queued: answered after the move
    assert live.line() == "="
    lines = []
    while not (ln := live.line()).startswith("play "):
        lines.append(ln)
    assert live.line() == ""
    assert lines and all(ln.startswith("info move ") for ln in lines)
    assert live.line() == "= playout" and live.line() == ""
    live.send("list_stones black")
    assert live.line() == f"= {ln.split()[1]}"


# ------------------------------------------------------------------------ go analyze
def _analyze(path, text: str, playouts: int, *options: str):
    """``playout go analyze`` of the record ``text`` written to ``path`` (uniform playouts)."""
    from playout.go.cli import go

    path.write_text(text)
    r = CliRunner().invoke(go, ["analyze", str(path), "--playouts", str(playouts),
                                "--mc-patterns", "uniform", *options])
    assert r.exit_code == 0, r.output
    return r


def test_go_analyze_writes_sgf_with_sbkv_variations_and_a_png(tmp_path):
    f = tmp_path / "g.sgf"
    r = _analyze(f, "(;GM[1]FF[4]SZ[7]KM[0.5]PB[Kim]PW[Lee];B[dd];W[cc]C[a comment];B[ee];W[ed])",
                 200, "--json")
    recs = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["played"] for x in recs] == ["D4", "C5", "E3", "E4"]
    png = tmp_path / "g-winrate.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    game = sgf.Sgf_game.from_bytes((tmp_path / "g-analysis.sgf").read_bytes())
    root = game.get_root()
    assert root.get("PB") == "Kim" and root.get("PW") == "Lee"
    nodes = game.get_main_sequence()
    assert [nd.get_move()[0] for nd in nodes[1:]] == ["b", "w", "b", "w"]
    assert nodes[2].get("C").startswith("a comment\n\n")  # the record's comment kept
    sbkv = [float(nd.get_raw("SBKV")) for nd in nodes]
    assert len(sbkv) == 5 and all(0 <= v <= 100 for v in sbkv)
    for i, rec in enumerate(recs):
        # the move played's win rate is read from the search after it (Black's view in SBKV)
        black_after = sbkv[i + 1] / 100
        mover = black_after if rec["color"] == "B" else 1 - black_after
        assert abs(mover - rec["played_winrate"]) < 0.001
        assert abs(rec["loss"] - (rec["winrate"] - rec["played_winrate"])) < 0.002
        parent = nodes[i]
        if rec["engine"] == rec["played"]:
            assert len(parent) == 1
            continue
        assert len(parent) == 2 and parent[0] is nodes[i + 1]
        var, moves = parent[1], []
        while True:  # the variation: the engine's choice, then its principal variation
            colour, rc = var.get_move()
            moves.append((colour, rc))
            if not len(var):
                break
            var = var[0]
        assert moves[0][0] == rec["color"].lower()
        row, col = moves[0][1]
        assert "ABCDEFG"[col] + str(row + 1) == rec["engine"]
        assert len(moves) == len(rec["pv"])


def test_go_analyze_scores_the_position_after_two_passes(tmp_path):
    # one black stone on 5x5, then two passes: area scoring gives Black all 25 points against
    # White's komi 0.5, so Black has won (the search would answer 1/2: no move is left)
    r = _analyze(tmp_path / "g.sgf", "(;GM[1]SZ[5]KM[0.5];B[cc];W[];B[])", 100, "--json")
    last = json.loads(r.stdout.splitlines()[-1])
    assert (last["played"], last["played_winrate"]) == ("pass", 1.0)
    game = sgf.Sgf_game.from_bytes((tmp_path / "g-analysis.sgf").read_bytes())
    assert game.get_main_sequence()[-1].get_raw("SBKV") == b"100.00"


def test_go_analyze_text_mode_and_no_files(tmp_path):
    from playout.go.cli import go

    f = tmp_path / "g.sgf"
    f.write_text("(;GM[1]SZ[7];B[dd])")
    r = CliRunner().invoke(go, ["analyze", str(f), "--playouts", "50", "--mc-patterns", "uniform",
                                "--no-files"])
    assert r.exit_code == 0 and "loss" in r.output and "wrote" not in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.sgf"]
    out = tmp_path / "nodir" / "x.sgf"
    r = CliRunner().invoke(go, ["analyze", str(f), "--playouts", "50", "--mc-patterns", "uniform",
                                "--sgf-out", str(out)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.output.strip().splitlines()[-1].startswith(f"Error: {out}: cannot write")


# ------------------------------------------------------------------------ go match records
# plays the vertices of argv[1] (comma-separated) in turn, then passes; "hang" never answers
# the genmove after its moves
FAKE = r'''
import sys, time
moves = sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else []
hang = sys.argv[2:] == ["hang"]
for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    answer = {"name": "fake", "version": "1.2", "final_score": "W+7.0"}.get(cmd[0], "")
    if cmd[0] == "genmove":
        if not moves and hang:
            time.sleep(1000)
        answer = moves.pop(0) if moves else "pass"
    sys.stdout.write(f"= {answer}\n\n")
    sys.stdout.flush()
    if cmd[0] == "quit":
        break
'''


def test_match_writes_every_game_as_sgf(tmp_path):
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE)
    a = f"{sys.executable} {fake} D4,E5"
    b = f"{sys.executable} {fake} C3"
    out = tmp_path / "m.jsonl"
    play_match(a, b, 2, out, size=9, komi=6.5, names=("Alpha", "Beta"), log=lambda s: None,
               referee=f"{sys.executable} {fake}")
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["sgf"] for r in recs] == ["m-sgf/Alpha-vs-Beta-9-6.5-0.sgf",
                                        "m-sgf/Alpha-vs-Beta-9-6.5-1.sgf"]
    for g, rec in enumerate(recs):
        game = sgf.Sgf_game.from_bytes((tmp_path / rec["sgf"]).read_bytes())
        root = game.get_root()
        black, white = ("Alpha", "Beta") if g == 0 else ("Beta", "Alpha")
        assert (root.get("PB"), root.get("PW")) == (black, white)
        assert root.get("RE") == "W+7.0" and root.get("KM") == 6.5 and game.get_size() == 9
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", root.get("DT"))
        assert root.get("GC").splitlines() == [f"Black: {black} (fake 1.2)",
                                               f"White: {white} (fake 1.2)"]
        moves = [nd.get_move() for nd in game.get_main_sequence()[1:]]
        first, second = (["D4", "E5"], ["C3"]) if g == 0 else (["C3"], ["D4", "E5"])
        expect = [("b", first[0]), ("w", second[0])]
        if g == 0:
            expect += [("b", "E5"), ("w", "pass"), ("b", "pass")]
        else:
            expect += [("b", "pass"), ("w", "E5"), ("b", "pass"), ("w", "pass")]
        assert [(c, "pass" if rc is None else "ABCDEFGHJ"[rc[1]] + str(rc[0] + 1))
                for c, rc in moves] == expect
        assert [m.split()[1] for m in rec["moves"]] == [v for _, v in expect]
        assert len(rec["seconds_per_move"]) == len(expect)
        for nd, s in zip(game.get_main_sequence()[1:], rec["seconds_per_move"]):
            assert abs(float(nd.get("C").split()[1]) - s) < 0.002


def test_an_unfinished_game_is_written_void(tmp_path):
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE)
    out = tmp_path / "m.jsonl"
    from playout.go.match import GtpError

    with pytest.raises(GtpError):
        play_match(f"{sys.executable} {fake} D4", f"{sys.executable} {fake} '' hang", 1, out,
                   timeout=2, log=lambda s: None, referee=f"{sys.executable} {fake}")
    rec = json.loads(out.read_text())
    game = sgf.Sgf_game.from_bytes((tmp_path / rec["sgf"]).read_bytes())
    root = game.get_root()
    assert root.get("RE") == "Void"
    assert root.get("GC").splitlines()[-1] == "unfinished: engine B: no answer to genmove after 2 s"
    assert [nd.get_move() for nd in game.get_main_sequence()[1:]] == [("b", (3, 3))]


# a 9x9 game of ours (White, 5,000 playouts a move) against gnugo --level 10, its first 40 moves
# (data/go/match-rootuct005-p5000, game 1)
OWN_GAME = ("(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[ff];B[gg];W[fe];B[ed];W[ef];B[fd];W[cf];B[cd];W[gd]"
            ";B[he];W[ge];B[gf];W[gc];B[fb];W[fc];B[ec];W[fh];B[gh];W[be];B[gb];W[hb];B[bd];W[eh]"
            ";B[hd];W[hc];B[hg];W[de];B[ce];W[af];B[ad];W[dd];B[dc];W[df];B[ha];W[ga];B[ea];W[cc]"
            ";B[cb];W[db])")


def test_a_move_that_is_the_engines_choice_loses_about_nothing(tmp_path):
    # The played move's win rate is its node's mean over the search after it, the same kind of
    # estimate as the engine's choice's rate before it.  The after-search's best-reply rate
    # (used before) set a node's mean against the best of its replies and overstated every
    # loss: here by +0.011 on average over the engine's 15 own moves, against +0.0005 now.
    from playout.go.player import Player
    from playout.go.review import move_records, review_positions
    from playout.go.sgf import read_game

    f = tmp_path / "own.sgf"
    f.write_text(OWN_GAME)
    game = read_game(f)
    positions = review_positions(game, Player(seed=1), playouts=3000)
    recs = move_records(game, positions)
    own = [i for i, r in enumerate(recs) if r["played"] == r["engine"]]
    assert len(own) == 15
    new = np.mean([recs[i]["loss"] for i in own])
    old = np.mean([positions[i].winrate - (1.0 - positions[i + 1].winrate) for i in own])
    assert abs(new) < 0.005 < old, (new, old)


def test_go_analyze_of_a_record_without_moves_says_so(tmp_path):
    f = tmp_path / "empty.sgf"
    r = _analyze(f, "(;GM[1]FF[4]SZ[7]KM[0.5])", 100, "--no-files")
    assert r.stdout == ""
    assert re.fullmatch(rf"{re.escape(str(f))}: no moves to review; the position \(Black to move\) "
                        r"was searched: engine [A-G][1-7], Black's win rate 0\.\d{3}\n", r.stderr)
