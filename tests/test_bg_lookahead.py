"""n-ply lookahead labels (playout.backgammon.lookahead): positions, labels, shards, resume."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from playout.backgammon import data as D
from playout.backgammon import lookahead as L
from playout.backgammon.board import game_result
from playout.backgammon.classes import is_bearoff
from playout.backgammon.evaluators import NeuralNet
from playout.backgammon.search import pre_roll_probs

KW = dict(ply=2, explore=0.05, per_game=3, seed=5, games_per_shard=4)


def _read(folder):
    out = {}
    for p in sorted(folder.glob("shard-*.npz")):
        if ".tmp" in p.name:
            continue
        with np.load(p, allow_pickle=False) as z:
            out[p.name] = (z["boards"].copy(), z["probs"].copy(), str(z["meta"]))
    return out


def test_labels_are_the_engines_n_ply_values(tmp_path):
    res = L.generate(tmp_path, games=8, progress=False, **KW)
    assert res == {"shards": 2, "done": 0, "new": 2, "new_rows": res["new_rows"]}
    assert 20 <= res["new_rows"] <= 24  # 3 per game, fewer only for duplicates / short games
    ev = NeuralNet()
    for boards, probs, meta in _read(tmp_path).values():
        assert json.loads(meta)["ply"] == 2 and json.loads(meta)["weights_sha256"] == D.weights_sha256(ev)
        for b, p in zip(boards, probs):
            assert game_result(b) == 0 and not is_bearoff(b)
            np.testing.assert_allclose(p, pre_roll_probs(ev, b, 2), atol=1e-6)  # float32 storage
            assert p[0] >= p[1] >= p[2] and 1 - p[0] >= p[3] - 1e-6 and p[3] >= p[4]


def test_deterministic_and_resumes_after_a_lost_shard(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    L.generate(a, games=8, progress=False, **KW)
    L.generate(b, games=4, progress=False, **KW)  # a smaller run keeps the same first shard
    (b / "shard-00000.npz").unlink()
    (b / "shard-00001.npz.tmp99.npz").write_bytes(b"torn")  # a worker killed mid-write
    res = L.generate(b, games=8, progress=False, **KW)
    assert (res["done"], res["new"]) == (0, 2)
    ra, rb = _read(a), _read(b)
    assert ra.keys() == rb.keys() == {"shard-00000.npz", "shard-00001.npz"}
    assert not list(b.glob("*.tmp*"))  # the torn file was cleared
    for k in ra:
        np.testing.assert_array_equal(ra[k][0], rb[k][0])
        np.testing.assert_array_equal(ra[k][1], rb[k][1])
    assert L.generate(b, games=8, progress=False, **KW)["new"] == 0


def test_other_settings_and_bad_shards_are_refused(tmp_path):
    L.generate(tmp_path, games=4, progress=False, **KW)
    with pytest.raises(L.LookaheadError, match=r"shard-00000.npz: made with other settings \(ply 2, asked 3\)"):
        L.generate(tmp_path, games=4, progress=False, **dict(KW, ply=3))
    from playout.backgammon.evaluators import DEFAULT_NET

    # the same weights named by path are the same labeller; other weights are refused
    assert L.generate(tmp_path, games=4, progress=False, evaluator=str(DEFAULT_NET), **KW)["new"] == 0
    with pytest.raises(L.LookaheadError, match="weights_sha256"):
        L.generate(tmp_path, games=4, progress=False,
                   evaluator=str(DEFAULT_NET.with_name("net_sl_backgame_v1.npz")), **KW)
    with pytest.raises(ValueError, match="ply >= 2"):
        L.settings(ply=1)
    (tmp_path / "shard-00001.npz").write_bytes(b"not a zip")
    with pytest.raises(D.DataError, match=r"shard-00001.npz: not a lookahead shard"):
        D.load([tmp_path])
    (tmp_path / "empty").mkdir()
    with pytest.raises(D.DataError, match="empty: no lookahead shards"):
        D.load([tmp_path / "empty"])


def test_rows_feed_supervised_training(tmp_path):
    from playout.backgammon import supervised as S
    from playout.backgammon.ids import position_id

    L.generate(tmp_path, games=8, progress=False, **KW)
    rows = D.load([tmp_path])
    boards = np.concatenate([v[0] for v in _read(tmp_path).values()])
    assert len(rows) == len({b.tobytes() for b in boards})
    for key, r in rows.items():
        assert key == position_id(np.array(r["board"], dtype=np.int8))
        assert r["source"] == "lookahead" and r["label"]["ply"] == 2
    ds = S.prepare(rows)
    assert len(ds) == len(rows) and ds.skipped == {"over": 0, "bearoff": 0, "excluded": 0}


def test_cli_grows_a_folder_and_refuses_peers(tmp_path):
    from playout.cli import main

    r = CliRunner().invoke(main, ["bg", "data", "lookahead", str(tmp_path), "--games", "4",
                                  "--ply", "2", "--per-game", "3", "--seed", "5",
                                  "--games-per-shard", "4"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output.strip().splitlines()[-1])["new"] == 1
    r = CliRunner().invoke(main, ["bg", "data", "lookahead", str(tmp_path), "--games", "4",
                                  "--evaluator", "gnubg"])
    assert r.exit_code != 0 and "peers measure, never label" in r.output
    r = CliRunner().invoke(main, ["bg", "data", "stats", str(tmp_path)])
    assert r.exit_code == 0, r.output
    stats = json.loads(r.output)
    assert stats["sources"] == {"lookahead": stats["rows"]} and 10 <= stats["rows"] <= 12


def test_candidate_positions_are_the_best_plays_at_1ply():
    from playout.backgammon.board import STARTING_BOARD, flip
    from playout.backgammon.search import choose_move

    ev = NeuralNet()
    for dice in ((3, 1), (6, 5), (2, 2)):
        got = L.candidate_positions(ev, STARTING_BOARD, dice, 4)
        ranked = choose_move(STARTING_BOARD, dice, ev, 1).candidates
        assert len(got) == 4
        for g, c in zip(got, ranked):  # the 1-ply ranking of choose_move, flipped to pre-roll
            np.testing.assert_array_equal(g, flip(c.board))
    from playout.backgammon.moves import legal_moves

    n = len(legal_moves(STARTING_BOARD, 6, 5))
    assert len(L.candidate_positions(ev, STARTING_BOARD, (6, 5), 99)) == n > 4  # every play


def test_candidates_add_rows_after_the_sampled_positions(tmp_path):
    plain, cand = tmp_path / "plain", tmp_path / "cand"
    L.generate(plain, games=4, progress=False, **KW)
    res = L.generate(cand, games=4, progress=False, candidates=3, **KW)
    (pb, _, pm), = _read(plain).values()
    (cb, cp, cm), = _read(cand).values()
    assert json.loads(cm)["candidates"] == 3 and "candidates" not in json.loads(pm)
    assert res["new_rows"] == len(cb) > 2 * len(pb)
    seen = {b.tobytes() for b in cb}
    assert all(b.tobytes() in seen for b in pb)  # the sampled positions are all still there
    ev = NeuralNet()
    for b, p in zip(cb[:6], cp[:6]):
        np.testing.assert_allclose(p, pre_roll_probs(ev, b, 2), atol=1e-6)
    with pytest.raises(L.LookaheadError, match="candidates"):
        L.generate(plain, games=4, progress=False, candidates=2, **KW)


def test_moved_pips_tells_a_play_from_other_boards():
    from playout.backgammon.board import STARTING_BOARD, flip
    from playout.backgammon.moves import legal_moves

    start = np.asarray(STARTING_BOARD, dtype=np.int64)
    for d1, d2 in [(6, 5), (3, 1), (4, 4)]:
        for m in legal_moves(STARTING_BOARD, d1, d2):
            assert L.moved_pips(start, np.asarray(flip(m), dtype=np.int64)) == (
                4 * d1 if d1 == d2 else d1 + d2)
    assert L.moved_pips(start, np.asarray(flip(STARTING_BOARD), dtype=np.int64)) == 0  # a dance
    m = legal_moves(STARTING_BOARD, 6, 5)[0]
    later = legal_moves(flip(m), 3, 1)[0]  # the opponent moved too: two plays, not one
    assert L.moved_pips(start, np.asarray(later, dtype=np.int64)) == -1
    assert L.moved_pips(start, np.asarray(flip(later), dtype=np.int64)) == -1
    # a hit: the opponent's checker on our 5 point goes to its bar
    b = np.zeros(26, dtype=np.int8)
    b[8], b[5], b[20] = 2, -1, -14
    after = b.copy()
    after[8], after[5], after[0] = 1, 1, 1  # 8/5*: three pips, one checker hit
    assert L.moved_pips(b.astype(np.int64), np.asarray(flip(after), dtype=np.int64)) == 3


def test_candidate_groups_are_stored_and_rebuilt_for_older_shards(tmp_path):
    from playout.backgammon.board import flip
    from playout.backgammon.moves import legal_moves

    L.generate(tmp_path, games=8, progress=False, candidates=4, **dict(KW, games_per_shard=8))
    path = tmp_path / "shard-00000.npz"
    with np.load(path, allow_pickle=False) as z:
        boards, parents = z["boards"].copy(), z["parents"].copy()
    groups = {}
    for i, p in enumerate(parents):
        if p >= 0:
            groups.setdefault(int(p), []).append(i)
    assert len(groups) >= 20 and max(len(g) for g in groups.values()) == 4
    for p, members in groups.items():  # one roll's plays from the sampled board
        kids = {d: {flip(m).tobytes() for m in legal_moves(boards[p], *d)}
                for d in [(a, c) for a in range(1, 7) for c in range(1, a + 1)]}
        assert any(all(boards[i].tobytes() in k for i in members) for k in kids.values())
    rebuilt = L.candidate_parents(boards, 4)
    differ = np.flatnonzero(rebuilt != parents)
    # only where a sampled position is also the previous position's candidate (stored exactly)
    assert all(parents[i] >= 0 and parents[parents[i]] >= 0 for i in differ)
    assert len(differ) < len(boards) // 10
    rows = L.rows(tmp_path)
    tags = {}
    for key, r in rows.items():
        if "group" in r:
            tags.setdefault(r["group"], []).append(key)
    assert sorted(len(v) for v in tags.values()) == sorted(len(g) for g in groups.values())


RO = dict(explore=0.05, per_game=2, seed=4, games_per_shard=1, candidates=2, rollout=36,
          truncate=5)


def test_rollout_label_of_a_race_is_the_databases_value():
    """Variance reduction with an exact evaluator telescopes each trial to the root's value: a
    bear-off position's rollout label (side to act's view, cut after 2 half-moves) is the
    bear-off database's own value, and still within 0.005 of it when cut after 11 (the
    one-sided database plays for fewest rolls, the rollout's 1-ply player for the win)."""
    ev = NeuralNet()
    b = np.zeros(26, dtype=np.int8)
    b[1:7] = [2, 2, 3, 1, 0, 2]
    b[19:25] = [-3, -2, 0, -1, -2, -2]
    want = ev.evaluate(b[None])[0]
    assert 0.80 < want[0] < 0.84  # the side to act, a roll ahead, wins ~82%
    p2 = L.rollout_labels(ev, b[None], np.array([-1]), trials=36, truncate=2, seed=2, shard=0)
    np.testing.assert_allclose(p2[0], want, atol=1e-5)
    p11 = L.rollout_labels(ev, b[None], np.array([-1]), trials=36, truncate=11, seed=1, shard=0)
    np.testing.assert_allclose(p11[0], want, atol=5e-3)


def test_rollout_folders_are_deterministic_and_refuse_other_trials(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    L.generate(a, games=2, progress=False, **RO)
    L.generate(b, games=2, workers=2, progress=False, **RO)
    ra, rb = _read(a), _read(b)
    assert ra.keys() == rb.keys() == {"shard-00000.npz", "shard-00001.npz"}
    for k in ra:
        np.testing.assert_array_equal(ra[k][1], rb[k][1])
        meta = json.loads(ra[k][2])
        assert meta["rollout"] == {"trials": 36, "truncate": 5, "luck": "ranked"}
        assert meta["ply"] == 1
        p = ra[k][1]
        assert (p >= 0).all() and (p <= 1).all() and (p[:, 0] >= p[:, 1]).all()
    rows = L.rows(a)
    assert all(r["label"]["rollout"]["trials"] == 36 for r in rows.values())
    assert sum("group" in r for r in rows.values()) >= 2  # candidate rows keep their groups
    with pytest.raises(L.LookaheadError, match=r"rollout .*'trials': 36.*asked .*'trials': 72"):
        L.generate(a, games=2, progress=False, **dict(RO, rollout=72))
    with pytest.raises(ValueError, match="truncate"):
        L.settings(rollout=36, truncate=0)


def test_rebuilt_groups_keep_a_bear_off_that_moves_fewer_pips():
    """A roll's plays move the same pips, except a bear-off with a larger die: with contact left
    such a play is a row, and the rebuilt group keeps it (found with net_cand128_g17's games)."""
    sampled = [0, 5, 4, 3, -1, 1] + [0] * 13 + [-3, -2, -4, -3, -2, 0, 0]
    # the other side's views after three plays of one roll: two move 7 pips, one bears a
    # checker off with a die larger than it needs and moves 5
    kids = [[0, 0, 2, 3, 4, 2, 3] + [0] * 14 + [1, -3, -3, -5, 0],
            [0, 0, 2, 3, 4, 2, 3] + [0] * 14 + [1, -2, -4, -6, 0],
            [0, 0, 2, 3, 4, 2, 3] + [0] * 14 + [1, -3, -4, -5, 0]]
    boards = np.array([sampled] + kids, dtype=np.int8)
    assert [L.moved_pips(boards[0], k) for k in boards[1:]] == [7, 7, 5]
    assert L.candidate_parents(boards, 4).tolist() == [-1, 0, 0, 0]
