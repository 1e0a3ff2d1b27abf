"""bgsage benchmark formats: round trips on the real files, errors, side conventions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from playout.backgammon import benchmark as B

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
BG = SHARED / "data" / "backgammon"
SAGE = BG / "bgsage"
REF_A = BG / "reference" / "A"
pytestmark = pytest.mark.skipif(not BG.exists(), reason="shared backgammon data not present")


@pytest.mark.parametrize("path,reader,n", [
    (SAGE / "snake starting.txt", B.read_starting, 74),
    (SAGE / "snake benchmark.first50.txt", B.read_benchmark, 50),
    (REF_A / "benchmark.txt", B.read_benchmark, 358),
])
def test_text_files_round_trip_byte_identical(path, reader, n, tmp_path):
    bf = reader(path)
    assert len(bf.entries) == n
    out = tmp_path / "x.txt"
    B.write_text(out, bf)
    assert out.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("path,n", [(REF_A / "rollout.jsonl", 358), (SAGE / "snake rollout.first7.jsonl", 7)])
def test_rollout_round_trip_byte_identical(path, n, tmp_path):
    refs = B.read_rollout(path)
    assert len(refs) == n
    out = tmp_path / "r.jsonl"
    B.write_rollout(out, refs)
    assert out.read_bytes() == path.read_bytes()


def test_reference_set_pairs_every_decision():
    s = B.load_set(REF_A)
    assert len(s.decisions) == 358
    assert all(r is not None for r in s.references)
    assert sum(d.kind == "checker" for d in s.decisions) == 326


def test_benchmark_and_rollout_side_convention(bgsage):
    """Pre-move boards are the mover's; candidates are legal post-move boards of the mover
    (not flipped) and best first by the mover's equity."""
    for path in (REF_A / "rollout.jsonl", SAGE / "snake rollout.first7.jsonl"):
        for r in B.read_rollout(path):
            if r.kind != "checker":
                assert r.equity_dp == 1.0
                continue
            legal = {tuple(b) for b in bgsage.possible_moves(list(r.board), *r.dice)}
            assert {tuple(m.board) for m in r.moves} <= legal
            eq = [m.equity for m in r.moves]
            assert eq == sorted(eq, reverse=True)
    # reference A lists every legal move
    for r in B.read_rollout(REF_A / "rollout.jsonl")[:40]:
        if r.kind == "checker":
            assert len(r.moves) == len(bgsage.possible_moves(list(r.board), *r.dice))


def test_starting_positions_are_player_one_view():
    """starting.txt is relative to player 1 (positive), who owns the snake's prime in most
    lines and is *not* necessarily on roll: both sides occur."""
    from playout.backgammon.families import is_snake, flip
    st = B.read_starting(SAGE / "snake starting.txt").entries
    own = sum(is_snake(p.board) for p in st)
    other = sum(is_snake(flip(p.board)) for p in st)
    assert own + other >= 74 and own > 0 and other > 0


@pytest.mark.parametrize("name,rows", [("backgame", None), ("cubeful", None)])
def test_rollout_positions_are_post_move_from_the_side_that_moved(name, rows, bgsage):
    """player-backgame-rollout.txt and cubeful-pr-rollouts.jsonl hold post-move boards whose
    probabilities belong to the side that just moved: bgsage's 1-ply post-move evaluation is
    much closer to them than its pre-roll evaluation of the same boards."""
    if name == "backgame":
        lines = (SAGE / "player-backgame-rollout.txt").read_text().splitlines()[::200]
        boards = [[int(x) for x in l.split()[:26]] for l in lines]
        probs = np.array([[float(x) for x in l.split()[26:31]] for l in lines])
    else:
        recs = [json.loads(l) for l in (SAGE / "cubeful-pr-rollouts.jsonl").read_text().splitlines()[::200]]
        boards = [r["board"] for r in recs]
        probs = np.array([r["probs"] for r in recs])
    pre = bgsage.batch_evaluate([dict(board=b, cube_value=1, cube_owner="centered") for b in boards], "1ply", n_threads=1)
    post = bgsage.batch_post_move_evaluate([dict(board=b, cube_owner="centered") for b in boards], "1ply", n_threads=1)
    e_pre = np.abs(np.array([e.probs.to_list() for e in pre]) - probs).mean()
    e_post = np.abs(np.array([e.probs.to_list() for e in post]) - probs).mean()
    assert e_post < 0.01 and e_pre > 2 * e_post


def _write(tmp_path, text, name="x benchmark.txt"):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.parametrize("line,field", [
    ("checker 1 centered 3 7 " + "0 " * 26, "d2"),
    ("checker 3 centered 3 1 " + "0 " * 26, "cube_value"),
    ("checker 1 middle 3 1 " + "0 " * 26, "cube_owner"),
    ("move 1 centered 3 1 " + "0 " * 26, "kind"),
    ("cube 1 centered 3 1 " + "0 " * 26, "dice"),
    ("checker 1 centered 3 1 " + "0 " * 25, "line"),
    ("checker 1 centered 3 1 " + "0 " * 25 + "x", "board[25]"),
    ("checker 1 centered 3 1 " + "0 " * 25 + "-1", "board"),
])
def test_benchmark_errors_name_file_line_field(tmp_path, line, field):
    p = _write(tmp_path, "# header\n" + "cube 1 centered - - " + "0 " * 26 + "\n" + line + "\n")
    with pytest.raises(B.FormatError) as ei:
        B.read_benchmark(p)
    assert ei.value.line == 3 and ei.value.field == field
    assert str(p) in str(ei.value) and ":3:" in str(ei.value)


def test_rollout_errors_and_truncated_tail(tmp_path):
    good = (REF_A / "rollout.jsonl").read_text().splitlines()[0]
    p = tmp_path / "r.jsonl"
    p.write_text(good + "\n" + good[:100])
    with pytest.raises(B.FormatError) as ei:
        B.read_rollout(p)
    assert ei.value.line == 2 and ei.value.field == "json"
    assert len(B.read_rollout(p, tolerate_truncated_tail=True)) == 1
    d = json.loads(good)
    d["moves"][2]["equity"] = "high"
    p.write_text(json.dumps(d) + "\n")
    with pytest.raises(B.FormatError) as ei:
        B.read_rollout(p)
    assert ei.value.field == "moves[2].equity"


def test_decision_key_ignores_dice_order():
    a = B.parse_decision("checker 1 centered 3 6 " + " ".join(["0"] * 26))
    b = B.parse_decision("checker 1 centered 6 3 " + " ".join(["0"] * 26))
    assert a.key == b.key and a.line() != b.line()
