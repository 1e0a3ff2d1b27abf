"""``playout go match`` against engines that hang or answer garbage: one line, the game kept as
unfinished, the command exits (GTP v2 section 2.6: a response starts with ``=`` or ``?``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from playout.go.match import GtpClient, GtpError, play_match

# A minimal GTP engine: passes at genmove (``hang`` as argv[1]: never answers genmove; ``die``:
# exits at genmove, as a segfaulting engine does; ``die SEED SEED'``: only when SEED == SEED';
# ``move TEXT``: answers genmove with TEXT, an empty answer when TEXT is missing).
FAKE_ENGINE = r'''
import sys, time
hang = sys.argv[1:] == ["hang"]
move = " ".join(sys.argv[2:]) if sys.argv[1:2] == ["move"] else "pass"
die = sys.argv[1:2] == ["die"] and (len(sys.argv) < 4 or sys.argv[2] == sys.argv[3])
for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "genmove" and hang:
        time.sleep(1000)
    if cmd[0] == "genmove" and die:
        sys.exit(139)
    answer = {"genmove": move, "final_score": "W+7.0", "protocol_version": "2"}.get(cmd[0], "")
    sys.stdout.write(f"= {answer}\n\n")
    sys.stdout.flush()
    if cmd[0] == "quit":
        break
'''


@pytest.fixture
def fake(tmp_path):
    path = tmp_path / "fake_gtp.py"
    path.write_text(FAKE_ENGINE)
    return f"{sys.executable} {path}"


def _match(tmp_path, a, b, *extra):
    out = tmp_path / "m.jsonl"
    r = subprocess.run([sys.executable, "-m", "playout.cli", "go", "match", a, b, "--games", "2",
                        "--out", str(out), *extra], capture_output=True, text=True, timeout=120)
    recs = [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []
    return r, out, recs


def _one_line_error(r):
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


def test_an_engine_that_echoes_commands_is_an_invalid_response(tmp_path, fake):
    r, out, recs = _match(tmp_path, fake, "cat", "--timeout", "2")
    assert _one_line_error(r) == (f"Error: engine B: invalid GTP response to boardsize: "
                                  f"'boardsize 9' (game 0 recorded as unfinished in {out}; "
                                  f"a rerun plays it again)")
    assert len(recs) == 1  # the match stopped at the faulty game
    assert recs[0]["key"] == "A-vs-B-9-7.0-0" and recs[0]["a_won"] is None
    assert recs[0]["unfinished"].startswith("engine B: invalid GTP response")


@pytest.mark.parametrize("answer, shown", [("", "''"), ("Z99", "'Z99'"), ("E5 E6", "'E5 E6'")])
def test_a_genmove_answer_that_is_no_move_blames_the_engine_that_gave_it(tmp_path, fake, answer,
                                                                         shown):
    # Engine B (White in game 0) answers genmove with garbage: the error names B and its
    # answer, not A, which would have refused the garbage as a 'play' (before: "engine A:
    # 'play w ' -> ? syntax error").
    r, out, recs = _match(tmp_path, fake, f"{fake} move {answer}", "--timeout", "20")
    assert _one_line_error(r) == (f"Error: engine B: 'genmove w' -> {shown}, not a vertex of the "
                                  f"9x9 board, pass or resign (game 0 recorded as unfinished in "
                                  f"{out}; a rerun plays it again)")
    assert recs[0]["unfinished"].startswith("engine B: 'genmove w'")


def test_an_engine_that_never_answers_times_out_and_is_killed(tmp_path, fake):
    t0 = time.monotonic()
    r, out, recs = _match(tmp_path, fake, "sleep 1234.5", "--timeout", "2")
    assert _one_line_error(r).startswith("Error: engine B: no answer to boardsize after 2 s "
                                         "(game 0 recorded as unfinished")
    assert time.monotonic() - t0 < 60  # it exits (before: waited forever)
    assert [rec["unfinished"] for rec in recs] == ["engine B: no answer to boardsize after 2 s"]
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if b"1234.5" in fh.read():
                    left.append(int(pid))
        except OSError:
            pass
    assert left == []  # the hung engine was killed, not left behind


def test_no_answer_to_genmove_keeps_the_moves_and_a_rerun_replays_the_game(tmp_path, fake):
    r, out, recs = _match(tmp_path, fake, f"{fake} hang", "--timeout", "2")
    assert _one_line_error(r).startswith("Error: engine B: no answer to genmove after 2 s")
    assert len(recs) == 1 and recs[0]["moves"] == ["b pass"] and recs[0]["n_moves"] == 1
    s = play_match(fake, fake, 2, out, log=lambda *_: None, timeout=10, referee=fake)
    assert s["games"] == 2 and s["a_wins"] == 1  # game 0 played again, then game 1 (W+7.0)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(x["key"], "unfinished" in x) for x in lines] == [
        ("A-vs-B-9-7.0-0", True), ("A-vs-B-9-7.0-0", False), ("A-vs-B-9-7.0-1", False)]


def test_client_errors_name_the_engine_and_the_command(fake):
    with GtpClient(fake, name="E", timeout=5) as g:
        assert g.send("protocol_version") == "2"
    g = GtpClient([sys.executable, "-c", "print('hello')"], name="E", timeout=5)
    with pytest.raises(GtpError, match=r"^engine E: invalid GTP response to name: 'hello'$"):
        g.send("name")
    g.close()
    g = GtpClient([sys.executable, "-c", "pass"], name="E", timeout=5)
    with pytest.raises(GtpError, match=r"^engine E: (exited during 'name'|exited before 'name')$"):
        g.send("name")
    g.close()


def test_a_corrupt_results_file_is_one_line_naming_file_and_line(fake, tmp_path):
    """A torn last line (a killed writer) is cut and the game replayed; a corrupt line before
    it is a one-line error with FILE:LINE, not a traceback."""
    from click.testing import CliRunner

    from playout.cli import main

    out = tmp_path / "m.jsonl"
    play_match(fake, fake, 2, out, referee=fake, log=lambda *a: None)
    good = out.read_text()
    out.write_text(good + '{"key": "9x9-k7.0-g2", "a_bl')  # torn tail
    s = play_match(fake, fake, 2, out, referee=fake, log=lambda *a: None)
    assert out.read_text() == good and s["games"] == 2
    out.write_text("not json\n" + good)
    res = CliRunner().invoke(main, ["go", "match", fake, fake, "--games", "2", "--out", str(out)])
    assert res.exit_code == 2  # UserError: a bad file
    assert f"{out}:1: not valid JSON" in res.output and "Traceback" not in res.output


# Genmove answers D4; with ``refuse`` it answers every ``play`` "? illegal move" (as our engine
# does for a move GNU Go's simple-ko rules allow and positional superko forbids).
RULES_ENGINE = r'''
import sys
refuse = sys.argv[1:] == ["refuse"]
for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "play" and refuse:
        sys.stdout.write("? illegal move\n\n")
    else:
        answer = {"genmove": "D4", "name": "rules", "protocol_version": "2"}.get(cmd[0], "")
        sys.stdout.write(f"= {answer}\n\n")
    sys.stdout.flush()
    if cmd[0] == "quit":
        break
'''


def test_a_move_refused_as_illegal_voids_the_game_and_the_match_goes_on(tmp_path):
    path = tmp_path / "rules_gtp.py"
    path.write_text(RULES_ENGINE)
    plain, refuser = f"{sys.executable} {path}", f"{sys.executable} {path} refuse"
    out = tmp_path / "m.jsonl"
    s = play_match(plain, refuser, 3, out, log=lambda *_: None, timeout=10, referee=plain)
    assert s["games"] == 0 and s["void"] == 3  # nobody won: the rules disagree, not the players
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["a_won"] for r in recs] == [None, None, None] and not any("unfinished" in r for r in recs)
    # game 0: A (plain) is Black, its first move is refused by B; game 1: B is Black and plays
    # D4 unrefused, then A's D4 is refused by B
    assert recs[0]["moves"] == ["b D4"] and recs[0]["void"].startswith("B's move 1 D4 refused")
    assert recs[1]["moves"] == ["b D4", "w D4"] and "W's move 2 D4 refused as illegal by B" in recs[1]["void"]
    sgf = (out.parent / recs[0]["sgf"]).read_text()
    assert "RE[Void]" in sgf and "void: B's move 1" in sgf
    again = play_match(plain, refuser, 3, out, log=lambda *_: None, timeout=10, referee=plain)
    assert again == s and len(out.read_text().splitlines()) == 3  # voids are not replayed


def test_on_failure_void_records_a_crashed_game_void_and_goes_on(tmp_path, fake):
    # engine B dies in game 0 only (its seed there is 1001); game 1 is played and scored
    out = tmp_path / "m.jsonl"
    crashy = f"{fake} die 1001 {{seed}}"
    logged = []
    s = play_match(fake, crashy, 2, out, log=logged.append, timeout=10, referee=fake,
                   on_failure="void")
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["key"] for x in recs] == ["A-vs-B-9-7.0-0", "A-vs-B-9-7.0-1"]
    assert recs[0]["a_won"] is None and "unfinished" not in recs[0]
    assert recs[0]["void"].startswith("engine failure: engine B: ")
    assert logged[0].startswith("game 0: void (engine failure: engine B: ")
    assert recs[1]["result"] == "W+7.0" and recs[1]["a_won"] is True  # A is White in game 1
    assert s == {"games": 1, "a_wins": 1.0, "a_rate": 1.0, "wilson95": s["wilson95"], "void": 1}
    sgf0 = (out.parent / recs[0]["sgf"]).read_text()
    assert "RE[Void]" in sgf0 and "void: engine failure: engine B:" in sgf0
    # a rerun (the command line) does not replay the void game: the same seeds would crash again
    r, _, recs2 = _match(tmp_path, fake, crashy, "--timeout", "10", "--on-failure", "void")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])["void"] == 1 and recs2 == recs


def test_on_failure_void_still_stops_an_engine_that_always_fails(tmp_path, fake):
    out = tmp_path / "m.jsonl"
    with pytest.raises(GtpError, match=r"\(game 2 recorded as unfinished in .*; a rerun plays it "
                                       r"again; 3 games in a row failed\)$"):
        play_match(fake, f"{fake} die", 5, out, log=lambda *_: None, timeout=10, referee=fake,
                   on_failure="void")
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [("void" in x, "unfinished" in x) for x in recs] == [(True, False), (True, False),
                                                                (False, True)]


def test_play_game_continues_from_an_opening(fake):
    """``play_game(opening=...)``: the moves reach both engines as ``play`` before the first
    ``genmove``, which asks the side after them; they start the record (0 s each)."""
    from playout.go.match import play_game
    tr: list = []
    r = play_game(fake, fake, opening=["b E5", "w C3", "b pass"], transcript=tr,
                  referee=fake, timeout=10)
    assert r["moves"] == ["b E5", "w C3", "b pass", "w pass"]
    assert r["seconds"][:3] == [0.0, 0.0, 0.0] and r["result"] == "W+7.0"
    sent = [(name, cmd) for name, cmd, _ in tr if name in ("black", "white")]
    first_genmove = next(i for i, (_, c) in enumerate(sent) if c.startswith("genmove"))
    assert sent[first_genmove] == ("white", "genmove w")
    before = [x for x in sent[:first_genmove] if x[1].startswith("play")]
    assert sorted(before) == sorted((n, f"play {m}") for n in ("black", "white")
                                    for m in ("b E5", "w C3", "b pass"))


def _strip(recs):
    return sorted(({k: v for k, v in r.items() if k not in ("seconds", "seconds_per_move")}
                   for r in recs), key=lambda r: r["key"])


def test_jobs_play_the_same_games_as_one_at_a_time(tmp_path, fake):
    """``jobs=3``: the same records (engines and seeds by game number), a crash in game 3
    (B's seed 1004) voided as in sequence, and a rerun plays nothing.  The fake engine
    passes and W wins: A wins the odd games it plays White, 1 and 5."""
    crashy = f"{fake} die 1004 {{seed}}"
    seq, par = tmp_path / "seq.jsonl", tmp_path / "par.jsonl"
    s1 = play_match(fake, crashy, 7, seq, log=lambda *_: None, timeout=10, referee=fake,
                    on_failure="void")
    s3 = play_match(fake, crashy, 7, par, log=lambda *_: None, timeout=10, referee=fake,
                    on_failure="void", jobs=3)
    r1 = [json.loads(x) for x in seq.read_text().splitlines()]
    r3 = [json.loads(x) for x in par.read_text().splitlines()]
    assert s1 == s3 == {"games": 6, "a_wins": 2.0, "a_rate": 2 / 6, "wilson95": s1["wilson95"],
                        "void": 1}
    assert [r["key"] for r in _strip(r3) if "void" in r] == ["A-vs-B-9-7.0-3"]
    assert _strip(r1) == [dict(r, sgf=r["sgf"].replace("par-sgf", "seq-sgf")) for r in _strip(r3)]
    again = play_match(fake, crashy, 7, par, log=lambda *_: None, timeout=10, referee=fake,
                       jobs=3)
    assert again == s3 and len(par.read_text().splitlines()) == 7


def test_more_jobs_than_cores_is_warned(tmp_path, fake):
    jobs = (os.cpu_count() or 1) + 1
    r, out, recs = _match(tmp_path, fake, fake, "--timeout", "10", "--jobs", str(jobs))
    assert r.returncode == 0, r.stderr
    assert f"warning: --jobs {jobs} on {jobs - 1} cores" in r.stderr and len(recs) == 2


def test_first_plays_the_rest_of_a_match_as_the_whole_match_would(tmp_path, fake):
    """``first=4``: games 4-6 only, the same records (seeds and colours by game number) as
    those games of the whole match; a crash in game 5 (B's seed 1006) voided in both."""
    crashy = f"{fake} die 1006 {{seed}}"
    whole, rest = tmp_path / "whole.jsonl", tmp_path / "rest.jsonl"
    play_match(fake, crashy, 7, whole, log=lambda *_: None, timeout=10, referee=fake,
               on_failure="void")
    s = play_match(fake, crashy, 7, rest, log=lambda *_: None, timeout=10, referee=fake,
                   on_failure="void", first=4)
    rw = _strip(json.loads(x) for x in whole.read_text().splitlines())
    rr = _strip(json.loads(x) for x in rest.read_text().splitlines())
    assert [r["key"] for r in rr] == ["A-vs-B-9-7.0-4", "A-vs-B-9-7.0-5", "A-vs-B-9-7.0-6"]
    assert rr == [dict(r, sgf=r["sgf"].replace("whole-sgf", "rest-sgf")) for r in rw[4:]]
    assert "void" in rr[1] and s["games"] == 2 and s["a_wins"] == 0.0  # A is Black in 4 and 6


def test_first_beyond_the_games_is_a_one_line_error(tmp_path, fake):
    r, out, recs = _match(tmp_path, fake, fake, "--first", "2")
    assert _one_line_error(r) == "Error: --first 2: must be below --games (2)" and recs == []
