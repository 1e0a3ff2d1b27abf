"""Pattern values learned from game records (playout.go.tune) and self-play records
(playout.go.selfplay): MM recovers known gammas, the written database is the model cell for
cell in our compiler and GNU Go 3.8 plays with it, extraction agrees with the playouts'
own values, self-play resumes and times out hung engines."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from playout.go import selfplay, tune
from playout.go.board import PASS, Board
from playout.go.match import GNUGO, game_sgf
from playout.go.pattern_compiler import (
    N_CLASSES,
    diagram_class_match,
    geometry_classes,
    load_patterns,
)
from playout.go.patterns import parse_patterns

from gnugo_mc import gnugo_mc_genmove

needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="GNU Go 3.8 (gnugo) not installed")


def _synthetic(gamma_a, gamma_b, positions=4000, moves=8, seed=3):
    """Positions whose chosen move is drawn from the Bradley-Terry model with the gammas."""
    rng = np.random.default_rng(seed)
    fa = rng.integers(0, len(gamma_a), positions * moves)
    fb = rng.integers(0, len(gamma_b), positions * moves)
    strength = np.asarray(gamma_a)[fa] * np.asarray(gamma_b)[fb]
    start = np.arange(positions + 1) * moves
    # Gumbel-max: argmax(log s + Gumbel noise) is drawn with probability s / sum(s)
    noisy = np.log(strength) + rng.gumbel(size=strength.shape)
    chosen = start[:-1] + noisy.reshape(positions, moves).argmax(axis=1)
    return fa, fb, start, chosen


def test_mm_recovers_known_gamma_ratios():
    true_a = np.array([1.0, 2.0, 4.0, 0.5, 8.0])
    true_b = np.array([1.0, 3.0])
    fa, fb, start, chosen = _synthetic(true_a, true_b, positions=20000)
    ga, gb, sweeps, loglik = tune.mm(fa, fb, start, chosen, 5, 2, iterations=1000, prior=False)
    assert list(np.argsort(ga)) == [3, 0, 1, 2, 4]  # the ordering
    np.testing.assert_allclose(ga / ga[0], true_a, rtol=0.08)
    assert gb[1] / gb[0] == pytest.approx(3.0, rel=0.08)
    # MM increases the likelihood: the fitted gammas beat the uniform model
    assert loglik > np.log(1 / 8) + 0.1
    # Coulom's prior pulls towards 1 but keeps the ordering
    gp, _, _, _ = tune.mm(fa, fb, start, chosen, 5, 2, iterations=1000)
    assert list(np.argsort(gp)) == [3, 0, 1, 2, 4]


def test_mm_prior_keeps_unseen_features_at_one_and_dummies_fixed():
    fa, fb, start, chosen = _synthetic(np.array([1.0, 4.0]), np.array([1.0]), positions=500)
    ga, gb, _, _ = tune.mm(fa, fb, start, chosen, 3, 2, fixed_b=[1])
    assert ga[2] == pytest.approx(1.0)  # feature 2 never occurs: the prior alone
    assert gb[1] == 1.0
    assert ga[1] / ga[0] > 2.5


def test_class_diagrams_match_exactly_their_class():
    for cls in range(N_CLASSES):
        rules = parse_patterns("\n".join(tune.class_diagram(cls)) + "\n:5\n")
        hit = np.nonzero(diagram_class_match(rules[0].masks))[0]
        assert list(hit) == [cls], cls


def test_drop_cells_removes_candidates_and_positions():
    data = tune.Positions(cls=np.zeros(7, np.int64), code=np.array([0, 1, 2, 1, 0, 3, 1]),
                          start=np.array([0, 3, 5, 7]), chosen=np.array([0, 3, 6]))
    exclude = np.zeros((N_CLASSES, 256), bool)
    exclude[0, 1] = True
    d = tune.drop_cells(data, exclude)
    # position 0 loses its code-1 move; position 1 its chosen move (dropped); position 2 too
    assert list(d.start) == [0, 2] and list(d.code) == [0, 2] and list(d.chosen) == [0]
    assert d.skipped == 2


def test_tactical_keys_are_a_bijection():
    keys = {int(tune.tactical_key(o, x, n, s)) for o in range(4) for x in range(4)
            for n in (0, 1) for s in (0, 1) if o or x}
    assert keys == set(range(tune.N_TACTICAL))


def _model(seed=5):
    rng = np.random.default_rng(seed)
    seen = rng.random(N_CLASSES) < 0.3
    return tune.Model(np.exp(rng.normal(0, 1.5, N_CLASSES)), np.exp(rng.normal(1, 1.5, 60)),
                      np.exp(rng.normal(0, 1, 4)), seen, 1, -1.0)


def test_written_database_is_the_model_cell_for_cell(tmp_path):
    m = _model()
    m.shape[~m.seen] = 1.0  # what fit() leaves for unseen classes (the prior)
    path = tmp_path / "mc_t.db"
    n = tune.write_database(m, path, ["made by a test", "second line"])
    text = path.read_text()
    assert text.startswith("# made by a test\n# second line\n")
    db = load_patterns(path)
    assert len(db.rules) == n == 3 + 60 + 4 * int(m.seen.sum()) + 4
    want = np.clip(np.round(m.cell_gammas() * tune._scale(m)), 1, tune.MAX_DB_VALUE)
    eyes = tune.eye_cells()
    assert eyes.sum() == 4352  # GNU Go's mc_uniform: {0: 4352, 1: 279040}
    np.testing.assert_array_equal(db.values, np.where(eyes, 0, want))
    # the prediction code ranks by value: a table and its gammas predict alike
    assert db.values.max() == tune.MAX_DB_VALUE


def test_power_flattens_but_keeps_the_ranking():
    m = _model()
    g, h = m.cell_gammas(), m.power(0.5).cell_gammas()
    np.testing.assert_allclose(h, np.sqrt(g))
    assert (np.argsort(g.ravel(), kind="stable") == np.argsort(h.ravel(), kind="stable")).all()


def test_base_database_answers_for_unseen_shapes(tmp_path):
    m = _model()
    eye = int(geometry_classes().index_class[sum(1 << (2 * i) for i in range(8))])  # own stones all round
    m.seen[eye] = False
    path = tmp_path / "mc_t.db"
    tune.write_database(m, path, ["x"], base=load_patterns("montegnu_classic"))
    db = load_patterns(path)
    assert db.values[eye, 0] == 0  # the base's own-eye rule :0
    no_eyes = tune.write_database(m, tmp_path / "mc_u.db", ["x"], eyes=False)
    assert load_patterns(tmp_path / "mc_u.db").values[eye, 0] == round(m.context[0] * tune._scale(m))
    assert no_eyes == len(load_patterns(tmp_path / "mc_u.db").rules)


def _random_game(path: Path, seed: int, size: int = 7, moves: int = 60) -> None:
    rng = random.Random(seed)
    b = Board(size)
    played = []
    for _ in range(moves):
        legal = b.legal_moves()
        p = rng.choice(legal) if legal else PASS
        name = "b" if b.to_move == 1 else "w"
        from playout.go.board import point_to_gtp
        played.append(f"{name} {point_to_gtp(p, size) if p != PASS else 'pass'}")
        b.play(p)
    path.write_bytes(game_sgf(size, 7.0, played, None, "r", "r"))


def test_extraction_agrees_with_the_playouts_values(tmp_path):
    """Each legal move's (class, code) read by the extractor gives the value the playout
    kernels hold for it after playing the same move (near set with captures, ko, suicide)."""
    from playout.go.playout import PlayoutState
    from playout.go.tables import load_table

    table = load_table("mc_montegnu_classic")
    db = load_patterns("montegnu_classic")
    rng = random.Random(11)
    checked = 0
    for game in range(3):
        b = Board(7)
        for _ in range(50):
            legal = b.legal_moves()
            if not legal:
                break
            p = rng.choice(legal)
            c = b.to_move
            ps = PlayoutState(b, table)
            ps.play(p, c)
            b.play(p, c)
            q, idx, code = tune.position_cells(b, b.to_move)
            mine = {int(x): db.value(int(i), int(k)) for x, i, k in zip(q, idx, code)}
            for x in b.points():
                want = ps.value(x, b.to_move)
                assert mine.get(x, 0) == want, (game, x)
                checked += 1
    assert checked > 1000


def test_extract_fit_predict_and_deterministic(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    for i in range(12, 20):
        _random_game(games / f"g-{i:03d}.sgf", i)
    train, held = selfplay.split_files(games)
    assert [f.name for f in held] == ["g-016.sgf", "g-018.sgf"]
    assert len(train) == 6
    data = tune.extract_positions(train)
    assert data.n_positions == len(data.chosen) > 300
    assert data.start[-1] == len(data.cls)
    out1, out2 = tmp_path / "a.db", tmp_path / "b.db"
    r1 = tune.tune(games, out1, command="test")
    r2 = tune.tune(games, out2, command="test")
    assert out1.read_bytes().replace(b"a.db", b"b.db") == out2.read_bytes()
    assert r1["prediction"]["a.db"] == r2["prediction"]["b.db"]
    assert set(r1["prediction"]) == {"a.db", "mc_montegnu_classic", "mc_mogo_classic",
                                     "mc_uniform"}
    # random games: the uniform database (all 1 but own eyes) predicts about 1 / (legal moves)
    held_data = tune.extract_positions(held)
    chance = float(np.mean(1.0 / np.diff(held_data.start)))
    assert r1["prediction"]["mc_uniform"]["top1"] == pytest.approx(chance, rel=0.25)
    assert r1["held_out_positions"] == held_data.n_positions
    cv = tune.cross_validate(sorted(games.glob("*.sgf")), folds=3)
    total = tune.extract_positions(sorted(games.glob("*.sgf"))).n_positions
    assert cv["tuned"]["positions"] == cv["mc_uniform"]["positions"] == total


def test_prediction_counts_ties_fairly():
    data = tune.Positions(cls=np.zeros(4, np.int64), code=np.array([0, 0, 1, 2]),
                          start=np.array([0, 4]), chosen=np.array([1]))
    values = np.ones((N_CLASSES, 256))
    values[0, 2] = 5
    r = tune.prediction(values, data)
    assert r["top1"] == 0.0 and r["mean_rank"] == 3.0  # one above, three tied: 1 + 1 + 1
    values[0, 2] = 1
    r = tune.prediction(values, data)
    assert r["top1"] == 0.25 and r["mean_rank"] == 2.5 and r["p_chosen"] == 0.25


@needs_gnugo
def test_gnugo_plays_with_the_written_database(tmp_path):
    path = tmp_path / "mc_t.db"
    tune.write_database(_model(), path, ["test"])
    gnugo_mc_genmove(path, ["b E5", "w C3", "b G7"], "w")
    # and a file it cannot read is an error for GNU Go (the option is really used)
    bad = subprocess.run([GNUGO, "--mode", "gtp", "--monte-carlo", "--mc-load-patterns",
                          str(tmp_path / "missing.db")], input="quit\n", capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode != 0


def test_held_out_tenth_is_a_stable_hash():
    names = [f"gnugo-l10-9x9-s1-{i:05d}" for i in range(40)]
    assert [n for n in names if selfplay.is_held_out(n)] == ["gnugo-l10-9x9-s1-00027"]
    assert selfplay.is_held_out("gnugo-l10-9x9-s1-00027.sgf")
    share = np.mean([selfplay.is_held_out(f"x-{i}") for i in range(2000)])
    assert 0.08 < share < 0.12


FAKE = r"""
import sys
hang = sys.argv[1] == "hang"
for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "quit":
        print("=\n", flush=True); break
    if cmd[0] == "genmove":
        if hang:
            import time; time.sleep(60)
        print("= pass\n", flush=True)
    elif cmd[0] == "final_score":
        print("= W+7.0\n", flush=True)
    else:
        print("=\n", flush=True)
"""


@pytest.fixture
def fake_engine(tmp_path, monkeypatch):
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    mode = {"m": "ok"}

    def command(engine, seed, size, komi, level=10, playouts=2000):
        return f"{sys.executable} {script} {mode['m']} {seed}"

    monkeypatch.setattr(selfplay, "engine_command", command)
    mode["referee"] = f"{sys.executable} {script} ok 0"  # answers final_score W+7.0
    return mode


def test_selfplay_resumes_and_skips_finished_games(tmp_path, fake_engine):
    out = tmp_path / "games"
    r = selfplay.generate(out, 3, level=1, seed=4, log=lambda s: None,
                          referee=fake_engine["referee"])
    assert (r["played"], r["skipped"]) == (3, 0)
    names = sorted(p.name for p in out.glob("*.sgf"))
    assert names == [f"gnugo-l1-9x9-s4-{i:05d}.sgf" for i in range(3)]
    text = (out / names[1]).read_text()
    assert "seed 800003" in text and "seed 800004" in text  # 2k+1, 2k+2 with k = 4*100000+1
    assert "RE[W+7.0]" in text
    (out / names[1]).unlink()
    r = selfplay.generate(out, 4, level=1, seed=4, log=lambda s: None,
                          referee=fake_engine["referee"])
    assert (r["played"], r["skipped"]) == (2, 2)
    assert not list(out.glob(".*.tmp"))


def test_random_opening_is_seeded_and_off_the_first_line():
    a = selfplay.random_opening(9, 3, 400007)
    assert a == selfplay.random_opening(9, 3, 400007)
    assert a != selfplay.random_opening(9, 3, 400008)
    assert [m.split()[0] for m in a] == ["b", "w", "b"]
    vertices = [m.split()[1] for m in a]
    assert len(set(vertices)) == 3
    assert all(v[0] in "BCDEFGH" and 2 <= int(v[1:]) <= 8 for v in vertices)
    openings = {selfplay.random_opening(9, 3, k) for k in range(2000)}
    assert len(openings) > 1950  # 49*48*47 ordered triples: few repeats
    with pytest.raises(ValueError, match="does not fit off the first line of a 5x5"):
        selfplay.random_opening(5, 10, 0)


def test_selfplay_random_opening_is_the_records_setup(tmp_path, fake_engine):
    from playout.go.board import BLACK, COLOR, WHITE, gtp_to_point
    from playout.go.sgf import read_game

    out = tmp_path / "games"
    r = selfplay.generate(out, 2, level=1, seed=4, log=lambda s: None, opening=3,
                          referee=fake_engine["referee"])
    assert [Path(f).name for f in r["files"]] == [f"gnugo-l1-o3-9x9-s4-{i:05d}.sgf"
                                                  for i in range(2)]
    stones = selfplay.random_opening(9, 3, 400001)
    g = read_game(r["files"][1], rules="simple-ko")
    colours = g.setup.S[COLOR]
    for m in stones:
        colour, vertex = m.split()
        assert colours[gtp_to_point(vertex, 9)] == (BLACK if colour == "b" else WHITE)
    assert int((colours == BLACK).sum()) == 2 and int((colours == WHITE).sum()) == 1
    # the engines' moves alone are moves, White first (PL[W]); the fake engine passes
    assert g.board.moves == [(WHITE, PASS), (BLACK, PASS)]
    text = Path(r["files"][1]).read_text()
    assert "random opening (setup stones): " + ", ".join(stones) in text
    assert r["moves_per_game"] == 2.0
    assert tune._selfplay_commands("G", r["files"]) == [
        "playout go selfplay G --games 2 --size 9 --level 1 --seed 4 --random-opening 3"]


def test_duplicate_games_are_left_out_of_training_and_held_out(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    for i in range(12, 20):
        _random_game(games / f"g-{i:03d}.sgf", i)
    # g-016 is held out; a copy under a training name must not leak it into training
    (games / "g-100.sgf").write_bytes((games / "g-016.sgf").read_bytes())
    (games / "g-101.sgf").write_bytes((games / "g-013.sgf").read_bytes())
    assert not selfplay.is_held_out("g-100") and not selfplay.is_held_out("g-101")
    kept, dropped = tune.distinct_games(sorted(games.glob("*.sgf")))
    assert dropped == 2 and [f.name for f in kept] == [f"g-{i:03d}.sgf" for i in range(12, 20)]
    r = tune.tune(games, tmp_path / "t.db", command="test", compare=[TUNED_V1])
    assert (r["train_games"], r["held_out_games"], r["duplicate_games"]) == (6, 2, 2)
    held = tune.extract_positions([games / "g-016.sgf", games / "g-018.sgf"])
    assert r["held_out_positions"] == held.n_positions
    assert r["prediction"]["mc_tuned_v1.db"] == tune.prediction(load_patterns(TUNED_V1).values,
                                                                 held)
    assert "(2 duplicate games left out" in (tmp_path / "t.db").read_text()


@needs_gnugo
def test_gnugo_reads_a_random_opening_record(tmp_path):
    """GNU Go 3.8 loads a record with a random opening: the setup stones, then the moves."""
    from playout.go.gtp_client import GtpClient

    r = selfplay.generate(tmp_path / "g", 1, level=0, seed=9, log=lambda s: None, opening=3)
    path = r["files"][0]
    stones = selfplay.random_opening(9, 3, 900000)
    e = GtpClient(f"{GNUGO} --mode gtp --chinese-rules")
    try:
        e.send(f"loadsgf {path} 1")  # the position before the first move
        black = set(e.send("list_stones black").split())
        white = set(e.send("list_stones white").split())
    finally:
        e.close()
    assert black == {m.split()[1] for m in stones if m[0] == "b"}
    assert white == {m.split()[1] for m in stones if m[0] == "w"}
    assert r["moves_per_game"] > 10


def test_selfplay_hung_engine_is_a_one_line_error(tmp_path, fake_engine):
    fake_engine["m"] = "hang"
    with pytest.raises(selfplay.SelfplayError) as e:
        selfplay.generate(tmp_path / "g", 1, timeout=1.0, log=lambda s: None)
    msg = str(e.value)
    assert "\n" not in msg and "gnugo-l10-9x9-s1-00000" in msg and "not written" in msg
    assert not list((tmp_path / "g").glob("*.sgf"))


@needs_gnugo
def test_gnugo_seed_makes_a_game_repeatable(tmp_path):
    """GNU Go's --seed makes a collection a function of its seeds (level 0, a few seconds)."""
    a = selfplay.generate(tmp_path / "a", 1, level=0, seed=9, log=lambda s: None)
    b = selfplay.generate(tmp_path / "b", 1, level=0, seed=9, log=lambda s: None)
    from playout.go.sgf import read_game

    ma = read_game(a["files"][0]).board.moves
    mb = read_game(b["files"][0]).board.moves
    assert ma == mb and len(ma) > 10


def test_selfplay_commands_regenerate_the_collections(tmp_path):
    files = [f"gnugo-l10-9x9-s1-{i:05d}.sgf" for i in (0, 4, 2)] + ["ours-p300-9x9-s2-00000.sgf",
                                                                     "other.sgf"]
    assert tune._selfplay_commands("G", files) == [
        "playout go selfplay G --games 5 --size 9 --level 10 --seed 1",
        "playout go selfplay G --games 1 --size 9 --engine ours --playouts 300 --seed 2",
    ]


TUNED_V1 = Path(__file__).resolve().parents[1] / "src/playout/go/data/mc_tuned_v1.db"


@pytest.mark.skipif(not TUNED_V1.is_file(), reason="no committed mc_tuned_v1.db")
def test_committed_tuned_database_loads_and_says_how_it_was_made():
    db = load_patterns(TUNED_V1)
    head = TUNED_V1.read_text().splitlines()[:14]
    assert any("command: playout go tune-patterns" in h for h in head)
    assert any("games made by: playout go selfplay" in h and "--level 10" in h for h in head)
    assert db.cells_per_value()[0] == 4352  # the own-eye cells, as in mc_uniform
    assert db.values.max() == tune.MAX_DB_VALUE
    if GNUGO is not None:
        gtp = "boardsize 9\nclear_board\nplay b E5\ngenmove w\nquit\n"
        r = subprocess.run([GNUGO, "--mode", "gtp", "--monte-carlo", "--level", "1",
                            "--mc-games-per-level", "100", "--mc-load-patterns", str(TUNED_V1)],
                           input=gtp, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and "= " in r.stdout.split("\n\n")[3]
