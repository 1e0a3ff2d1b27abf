"""Backgammon training data (``playout.backgammon.data``): plan, labels, resume, format, bgsage."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from playout.backgammon import data as D
from playout.backgammon.board import STARTING_BOARD, flip, game_result
from playout.backgammon.evaluators import get_evaluator
from playout.backgammon.families import in_family

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SAGE = SHARED / "data" / "backgammon" / "bgsage"
data = pytest.mark.skipif(not SAGE.exists(), reason="shared bgsage data not present")

TINY = dict(selfplay_games=3, per_game=2, family_games=1, backgame_starts=2, snake=False, exits=1,
            bgsage_boards=2, seed=5)


@pytest.fixture(scope="module")
def sage_rows():
    if not SAGE.exists():
        pytest.skip("shared bgsage data not present")
    return list(D.bgsage_rows())


@pytest.fixture(scope="module")
def tiny_plan():
    if not SAGE.exists():
        pytest.skip("shared bgsage data not present")
    return D.plan(**TINY)


def test_selfplay_game_is_seeded_and_legal():
    ev = get_evaluator("net")
    a = D.game_positions(ev, STARTING_BOARD, 11, opening=True)
    b = D.game_positions(ev, STARTING_BOARD, 11, opening=True)
    c = D.game_positions(ev, STARTING_BOARD, 12, opening=True)
    assert np.array_equal(a, b) and not np.array_equal(a[:len(c)], c[:len(a)])
    assert np.array_equal(a[0], STARTING_BOARD) and 20 < len(a) < D.MAX_PLIES
    # every recorded board is a position in play with 15 checkers a side at most
    for brd in a:
        assert game_result(brd) == 0
        assert brd[25] + brd[1:25][brd[1:25] > 0].sum() <= 15


@data
def test_plan_is_deterministic_deduplicated_and_grows(tiny_plan, sage_rows):
    again = D.plan(**TINY)
    assert again == tiny_plan
    keys = [t["key"] for t in tiny_plan]
    assert len(set(keys)) == len(keys)
    assert {t["source"] for t in tiny_plan} == {"family", "exit", "family-selfplay", "bgsage-board", "selfplay"}
    assert all(t["key"] == D.board_key(t["board"]) for t in tiny_plan)
    # exit successors have left their family; family-selfplay positions are still in it
    for t in tiny_plan:
        if t["source"] == "exit":
            assert not in_family(t["family"], t["board"])
        if t["source"] == "family-selfplay":
            assert in_family(t["family"], t["board"])
    # bgsage-board positions are the published boards of bgsage's cubeful rollouts, on roll
    published = {k for k, r in sage_rows if r["source"] == "bgsage-cubeful"}
    mine = [t["key"] for t in tiny_plan if t["source"] == "bgsage-board"]
    assert len(mine) == 2 and set(mine) <= published
    bigger = D.plan(**dict(TINY, selfplay_games=6))
    assert set(keys) < {t["key"] for t in bigger}


@data
def test_snake_starts_repeat_and_are_planned_once():
    from playout.backgammon.benchmark import read_starting

    starts = read_starting(SAGE / "snake starting.txt").entries
    both = [D.board_key(np.array(e.board, np.int8)) for e in starts]
    both += [D.board_key(flip(np.array(e.board, np.int8))) for e in starts]
    assert len(set(both)) < len(both)  # bgsage's 74 starts hold repeats
    tasks = D.plan(snake=True, family_games=0, exits=0)
    assert sorted(t["key"] for t in tasks) == sorted(set(both))


def _label(path, tasks, **kw):
    return D.label(path, tasks, trials=kw.pop("trials", 8), seed=3, **kw)


@data
def test_labels_are_deterministic_with_provenance(tiny_plan, tmp_path):
    tasks = tiny_plan[:5]
    _label(tmp_path / "a.jsonl", tasks)
    _label(tmp_path / "b.jsonl", tasks)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    setup, rows = D.read_rows(tmp_path / "a.jsonl")
    net = get_evaluator("net")
    assert setup == {"kind": "bg-data", "format": 1, "engine": net.name,
                     "weights_sha256": D.weights_sha256(net), "trials": 8, "truncate": 0,
                     "luck": "ranked", "seed": 3}
    assert list(rows) == [t["key"] for t in tasks]
    for t in tasks:
        r = rows[t["key"]]
        assert r["board"] == t["board"] and r["source"] == t["source"]
        lab = r["label"]
        assert lab["engine"] == net.name and lab["weights_sha256"] == setup["weights_sha256"]
        assert len(lab["weights_sha256"]) == 16 and int(lab["weights_sha256"], 16) >= 0
        assert (lab["trials"], lab["truncate"], lab["vr"]) == (8, 0, "ranked")
        assert lab["seed"] == D._seed_of(3, t["key"])
        assert lab["code_sha256"] == D.code_sha256() and len(lab["code_sha256"]) == 16
        assert len(r["probs"]) == 5 and len(r["se"]) == 5 and r["equity_se"] > 0
        p = r["probs"]
        assert 0 <= p[2] <= p[1] <= p[0] <= 1 and 0 <= p[4] <= p[3] <= 1 - p[0] + 1e-9
        assert r["phase"] in ("contact", "race")


def test_label_row_is_the_rollout_of_the_side_on_roll():
    """A row's numbers are the rollout kernel's mean over the same trials and seed, from the side
    on roll: the opening position's side on roll (any first roll, doubles included) is ahead."""
    from playout.backgammon.luck import DEFAULT_KEEP
    from playout.backgammon.rollout import rollout_trials

    net = get_evaluator("net")
    key = D.board_key(STARTING_BOARD)
    task = {"key": key, "board": [int(v) for v in STARTING_BOARD], "source": "selfplay",
            "family": None, "evaluator": "net", "engine": net.name, "weights_sha256": "x",
            "trials": 144, "truncate": 0, "luck": "ranked", "seed": 9}
    row = D.label_task(task)
    out = np.zeros((144, 5))
    rollout_trials(*net.kernel_args(), STARTING_BOARD, 0, 144, 9, 0, True, DEFAULT_KEEP, out)
    eq = D._equity(out)
    assert row["equity"] == pytest.approx(eq.mean(), abs=1e-6)
    assert row["equity_se"] == pytest.approx(eq.std(ddof=1) / 12, abs=1e-6)
    assert row["se"][0] == pytest.approx(out[:, 0].std(ddof=1) / 12, abs=1e-6)
    assert row["probs"][0] == pytest.approx(out[:, 0].mean(), abs=1e-6)
    assert row["equity"] > 0 and row["probs"][0] > 0.5


@data
def test_resume_after_a_kill_gives_the_same_file(tiny_plan, tmp_path):
    tasks = tiny_plan[:6]
    whole = tmp_path / "whole.jsonl"
    _label(whole, tasks)
    part = tmp_path / "part.jsonl"
    assert _label(part, tasks, limit=2) == {"planned": 6, "done": 2, "new": 2}
    with open(part, "a") as fh:  # killed mid-line
        fh.write('{"key": "' + tasks[2]["key"] + '", "result": {"board": [0, 1')
    _, rows = D.read_rows(part)  # a torn tail is not a row
    assert len(rows) == 2
    assert _label(part, tasks) == {"planned": 6, "done": 6, "new": 4}
    assert part.read_bytes() == whole.read_bytes()
    assert _label(part, tasks) == {"planned": 6, "done": 6, "new": 0}  # nothing left to do


@data
def test_duplicate_boards_are_labelled_once(tiny_plan, tmp_path):
    tasks = tiny_plan[:3]
    dup = dict(tasks[0], source="selfplay")
    res = _label(tmp_path / "d.jsonl", tasks + [dup])
    assert res == {"planned": 3, "done": 3, "new": 3}
    lines = (tmp_path / "d.jsonl").read_text().splitlines()[1:]
    keys = [json.loads(line)["key"] for line in lines]
    assert sorted(keys) == sorted({t["key"] for t in tasks})
    assert D.read_rows(tmp_path / "d.jsonl")[1][tasks[0]["key"]]["source"] == tasks[0]["source"]


@data
def test_another_setup_is_refused_naming_the_field(tiny_plan, tmp_path):
    p = tmp_path / "s.jsonl"
    _label(p, tiny_plan[:1])
    with pytest.raises(D.DataError, match=r"s\.jsonl:1: .*trials: 8 -> 16"):
        _label(p, tiny_plan[:2], trials=16)


@data
def test_export_is_sorted_gzipped_and_reproducible(tiny_plan, tmp_path):
    src = tmp_path / "a.jsonl"
    _label(src, tiny_plan[:4])
    n = D.export(src, tmp_path / "a.jsonl.gz")
    D.export(src, tmp_path / "b.jsonl.gz")
    assert n == 4 and (tmp_path / "a.jsonl.gz").read_bytes() == (tmp_path / "b.jsonl.gz").read_bytes()
    lines = gzip.decompress((tmp_path / "a.jsonl.gz").read_bytes()).decode().splitlines()
    keys = [json.loads(line)["key"] for line in lines[1:]]
    assert "setup" in json.loads(lines[0]) and keys == sorted(keys)
    assert D.read_rows(tmp_path / "a.jsonl.gz")[1] == D.read_rows(src)[1]


def test_holdout_is_a_stable_tenth():
    keys = [f"k{i}" for i in range(5000)]
    share = np.mean([D.is_holdout(k) for k in keys])
    assert 0.08 < share < 0.12
    assert D.is_holdout("k0") == D.is_holdout("k0")
    assert [k for k in keys[:200] if D.is_holdout(k)] == [k for k in keys[:200] if D.is_holdout(k)]


# -- bgsage's published rollouts ----------------------------------------------------------------

@data
def test_bgsage_conversion_round_trips_the_published_numbers(sage_rows):
    rows = sage_rows
    assert sum(r["source"] == "bgsage-backgame" for _, r in rows) == 10419
    assert sum(r["source"] == "bgsage-cubeful" for _, r in rows) == 9210
    lines = (SAGE / "player-backgame-rollout.txt").read_text().splitlines()
    recs = [json.loads(line) for line in (SAGE / "cubeful-pr-rollouts.jsonl").read_text().splitlines()]
    for key, r in rows[::97]:
        n = r["label"]["line"]
        if r["source"] == "bgsage-backgame":
            toks = lines[n - 1].split()
            board, probs = [int(x) for x in toks[:26]], [float(x) for x in toks[26:]]
        else:
            board, probs = recs[n - 1]["board"], recs[n - 1]["probs"]
            assert r["equity"] == pytest.approx(-recs[n - 1]["equity"], abs=1e-6)
            assert r["equity_se"] == pytest.approx(recs[n - 1]["se"], abs=1e-6)
        assert key == D.board_key(r["board"])
        # back to the side that moved: flip the board, swap wins and losses
        assert [int(v) for v in flip(np.array(r["board"], np.int8))] == board
        q = r["probs"]
        back = [1 - q[0], q[3], q[4], q[1], q[2]]
        if min(probs) >= 0:  # published values below 0 (variance reduction) are clipped
            assert back == pytest.approx(probs, abs=2e-6)
    # the back-game player (positive, who just moved) is the *opponent* of the side on roll
    r = next(r for _, r in rows if r["source"] == "bgsage-backgame")
    assert r["family"] == "backgame" and "backgame" in r["families"]


@data
def test_bgsage_conversion_side_agrees_with_our_net(sage_rows):
    """On the cubeful file's boards our net's pre-roll evaluation of the converted board is
    close to the converted probabilities (P(win) within 0.04 on average, equity correlation
    0.98), and clearly closer than under the other reading (the board as published, pre-roll,
    its probabilities as published)."""
    rows = [r for _, r in sage_rows if r["source"] == "bgsage-cubeful"][::200]
    net = get_evaluator("net")
    B = np.array([r["board"] for r in rows], np.int8)
    P = np.array([r["probs"] for r in rows])
    E = net.evaluate(B)
    raw_b = np.array([flip(b) for b in B])
    raw_p = P[:, [0, 3, 4, 1, 2]].copy()
    raw_p[:, 0] = 1 - P[:, 0]
    e_conv = np.abs(E[:, 0] - P[:, 0]).mean()
    e_raw = np.abs(net.evaluate(raw_b)[:, 0] - raw_p[:, 0]).mean()
    assert e_conv < 0.045 and e_raw > 1.5 * e_conv
    assert np.corrcoef(D._equity(E), D._equity(P))[0, 1] > 0.95


@data
def test_bgsage_conversion_side_agrees_with_bgsage_pre_roll(bgsage, sage_rows):
    """bgsage's own 1-ply pre-roll evaluation of our converted boards matches the converted
    rollout probabilities on both files (the peer as the oracle of the side convention)."""
    for src in ("bgsage-backgame", "bgsage-cubeful"):
        rows = [r for _, r in sage_rows if r["source"] == src][::400]
        pos = [dict(board=r["board"], cube_value=1, cube_owner="centered") for r in rows]
        ev = bgsage.batch_evaluate(pos, "1ply", n_threads=1)
        E = np.array([e.probs.to_list() for e in ev])
        P = np.array([r["probs"] for r in rows])
        assert np.abs(E - P).mean() < 0.012, src


# -- bad files --------------------------------------------------------------------------------

GOOD_ROW = {"board": [int(v) for v in STARTING_BOARD], "probs": [0.5, 0.1, 0.0, 0.1, 0.0],
            "se": [0.01] * 5, "source": "selfplay", "label": {"engine": "net"}}


def _file(tmp_path, lines, name="bad.jsonl"):
    p = tmp_path / name
    p.write_text("".join(line + "\n" for line in lines))
    return p


@pytest.mark.parametrize("bad,msg", [
    ("{not json", r":3: not valid JSON"),
    (json.dumps({"key": "x"}), r":3: a record needs 'key' and 'result'"),
    (json.dumps({"key": D.board_key(STARTING_BOARD), "result": dict(GOOD_ROW, board=[0] * 25)}),
     r":3: field 'board': board26: expected 26 numbers"),
    (json.dumps({"key": D.board_key(STARTING_BOARD), "result": dict(GOOD_ROW, probs=[1.2, 0, 0, 0, 0])}),
     r":3: field 'probs': values must lie in \[0, 1\]"),
    (json.dumps({"key": D.board_key(STARTING_BOARD), "result": dict(GOOD_ROW, se=[0.1, 0.1])}),
     r":3: field 'se': expected 5 numbers"),
    (json.dumps({"key": D.board_key(STARTING_BOARD), "result": dict(GOOD_ROW, source="gnubg")}),
     r":3: field 'source': 'gnubg'"),
    (json.dumps({"key": "AAAAAAAAAAAAAA", "result": GOOD_ROW}), r":3: field 'key'"),
])
def test_bad_rows_name_file_and_line(tmp_path, bad, msg):
    good = json.dumps({"key": D.board_key(STARTING_BOARD), "result": GOOD_ROW})
    p = _file(tmp_path, [json.dumps({"setup": {"kind": "bg-data"}}), good, bad, good])
    with pytest.raises(D.DataError, match=r"bad\.jsonl" + msg):
        D.read_rows(p)


def test_bad_bgsage_files_name_file_and_line(tmp_path):
    good = (" ".join(str(int(v)) for v in STARTING_BOARD)) + " 0.5 0.1 0 0.1 0"
    (tmp_path / D.BACKGAME_ROLLOUTS).write_text(good + "\n" + good + " 0.3\n")
    (tmp_path / D.CUBEFUL_ROLLOUTS).write_text("")
    with pytest.raises(D.DataError, match=r"player-backgame-rollout\.txt:2: expected 31 fields"):
        list(D.bgsage_rows(tmp_path))
    (tmp_path / D.BACKGAME_ROLLOUTS).write_text(good + "\n")
    (tmp_path / D.CUBEFUL_ROLLOUTS).write_text('{"board": [0, 1], "probs": [0.5, 0, 0, 0, 0]}\n')
    with pytest.raises(D.DataError, match=r"cubeful-pr-rollouts\.jsonl:1: board26: expected 26"):
        list(D.bgsage_rows(tmp_path))
    with pytest.raises(D.DataError, match=r"nowhere.*cannot read"):
        list(D.bgsage_rows(tmp_path / "nowhere"))


def test_cli_refuses_peer_labels_and_reports_bad_files(tmp_path):
    from playout.cli import main

    r = CliRunner().invoke(main, ["bg", "data", "label", str(tmp_path / "x.jsonl"), "--evaluator", "gnubg"])
    assert r.exit_code == 2 and "peers measure, never label" in r.output
    p = _file(tmp_path, ["{oops"])
    r = CliRunner().invoke(main, ["bg", "data", "stats", str(p)])
    assert r.exit_code == 1 and f"{p}:1: not valid JSON" in r.output and "Traceback" not in r.output


@data
def test_stats_compares_our_labels_with_bgsage_on_the_same_boards(tiny_plan, sage_rows, tmp_path):
    from playout.cli import main

    tasks = [t for t in tiny_plan if t["source"] == "bgsage-board"]
    p = tmp_path / "b.jsonl"
    _label(p, tasks, trials=36)
    r = CliRunner().invoke(main, ["bg", "data", "stats", str(p), "--against-bgsage"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["rows"] == 2 and out["sources"] == {"bgsage-board": 2}
    mine = D.read_rows(p)[1]
    theirs = dict(sage_rows)
    mae = np.mean([abs(mine[k]["equity"] - theirs[k]["equity"]) for k in mine])
    assert out["against_bgsage"]["boards"] == 2
    assert out["against_bgsage"]["mae_equity"] == pytest.approx(mae, abs=1e-4)
