"""Simulation balancing (playout.go.balance): the softmax playout draws moves in proportion to
the cell strengths, its policy gradient sums to zero per move, balancing moves the playouts'
mean result toward the targets, a run is deterministic and resumable, and GNU Go 3.8 plays
with the database it writes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from playout.go import balance
from playout.go.board import BLACK, Board, gtp_to_point
from playout.go.match import GNUGO
from playout.go.pattern_compiler import load_patterns
from playout.go.playout import PlayoutState
from playout.go.rules import M_LAST, M_MOVES, META
from playout.go.tables import load_table
from playout.go.tune import Model, position_cells

from gnugo_mc import gnugo_mc_genmove

needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="GNU Go 3.8 (gnugo) not installed")
GAME_ARCHIVES = Path(__file__).resolve().parents[1] / "data" / "go" / "games"


def _board(moves: str) -> Board:
    b = Board(9, 7.0)
    c = BLACK
    for v in moves.split():
        b.play(gtp_to_point(v, 9), c)
        c = 3 - c
    return b


def _buffers(S):
    n = S.shape[1]
    return (np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
            np.zeros(n, np.float64))


def test_first_move_is_drawn_in_proportion_to_the_cell_strengths():
    board = _board("E5 C3 G7 D4")
    state = PlayoutState(board, load_table())
    cells = balance.CellFeatures.build()
    gamma = load_patterns("mc_mogo_classic").values.reshape(-1).astype(np.float64)
    q, idx, code = position_cells(board, board.to_move)
    w = gamma[cells.index_class[idx].astype(np.int64) * 256 + code]
    expect = dict(zip(q.tolist(), (w / w.sum()).tolist()))
    counts: dict[int, int] = {}
    np.random.seed(0)
    S0 = state.S.copy()
    one_move = int(S0[META, M_MOVES]) + 1
    bufs = _buffers(S0)
    trials = 20000
    for i in range(trials):
        S = S0.copy()
        balance.run_policy_playout(S, state.B, cells.index_class, gamma, cells.fa, cells.fb,
                                   1167, 7.0, one_move, np.zeros(0), *bufs)
        p = int(S[META, M_LAST])
        counts[p] = counts.get(p, 0) + 1
    assert set(counts) <= {p for p, pr in expect.items() if pr > 0}
    for p, pr in expect.items():
        got = counts.get(p, 0) / trials
        assert abs(got - pr) < 4 * np.sqrt(pr * (1 - pr) / trials) + 1e-3, (p, got, pr)


def test_policy_gradient_sums_to_zero_in_each_feature_group():
    board = _board("E5 C3 G7")
    state = PlayoutState(board, load_table())
    cells = balance.CellFeatures.build()
    gamma = load_patterns("mc_montegnu_classic").values.reshape(-1).astype(np.float64)
    na = 1167
    grad = np.zeros(na + 5)
    np.random.seed(3)
    S = state.S.copy()
    z = balance.run_policy_playout(S, state.B, cells.index_class, gamma, cells.fa, cells.fb, na,
                                   7.0, 500, grad, *_buffers(S))
    assert z in (0.0, 0.5, 1.0)
    moves = int(S[META, M_MOVES]) - int(state.S[META, M_MOVES])
    assert moves > 40  # a playout to the end of the game
    # each move adds +1 at the chosen move's features and -1 spread over the legal moves'
    assert grad[:na].sum() == pytest.approx(0.0, abs=1e-9)
    assert grad[na:].sum() == pytest.approx(0.0, abs=1e-9)
    assert np.abs(grad).sum() > 10


def _model() -> Model:
    from playout.go.pattern_compiler import N_CLASSES

    rng = np.random.default_rng(5)
    return Model(np.exp(rng.normal(0, 0.5, N_CLASSES)), np.exp(rng.normal(1, 0.5, 60)),
                 np.array([1.0, 0.3, 4.0, 1.2]), np.ones(N_CLASSES, bool), 1, 0.0)


def test_balancing_learns_the_evaluations_of_another_policy(tmp_path):
    """Targets a policy can reach: mogo_classic's own mean results.  Balancing a flat model
    (every gamma 1: uniform playouts) toward them for 100 steps cuts its squared error by more
    than half."""
    from playout.go.pattern_compiler import N_CLASSES

    files = sorted(_games(tmp_path).glob("*.sgf"))
    positions = balance.sample_positions(files, 12, seed=3)
    flat = Model(np.ones(N_CLASSES), np.ones(60), np.ones(4), np.ones(N_CLASSES, bool), 1, 0.0)
    bal = balance.Balancer(flat, positions)  # values None -> NaN until set below
    mogo = load_patterns("mc_mogo_classic").values.reshape(-1).astype(np.float64)
    v = np.zeros(len(positions))
    balance.balance_step(bal.states, bal.scratch, np.zeros(len(positions)),
                         bal.cells.index_class, mogo, bal.cells.fa, bal.cells.fb, bal.na,
                         bal.komi, 2000, 0, 5, v, np.zeros(bal.theta.shape[0]))
    bal.values = v
    before, _ = bal.evaluate(400, seed=11)
    balance.train(bal, 100, alpha=20.0, batch=12, m=32, n=32, seed=2)
    after, _ = bal.evaluate(400, seed=11)
    assert bal.steps == 100
    assert after < 0.5 * before, (before, after)


def _games(tmp_path) -> Path:
    """A small folder of GNU Go records (from the committed archive) with a held-out game."""
    import tarfile

    out = tmp_path / "games"
    out.mkdir()
    with tarfile.open(GAME_ARCHIVES / "gnugo-l10-o3-9x9-s1-s2.tar.xz") as tar:
        members = [m for m in tar.getmembers() if m.name.endswith(".sgf")][:24]
        for m in members:
            m.name = Path(m.name).name
            tar.extract(m, out, filter="data")
    return out


def test_balance_patterns_is_deterministic_and_resumes(tmp_path):
    games = _games(tmp_path)
    args = dict(positions=6, held_positions=3, label_playouts=200, alpha=20.0, batch=3, m=8,
                n=8, eval_playouts=16, command="test")
    full = balance.balance_patterns(games, tmp_path / "a.db", steps=6, **args)
    # a second run: stopped after 3 steps, then resumed with the labels and checkpoint kept
    balance.balance_patterns(games, tmp_path / "b.db", steps=3, work=tmp_path / "wb", **args)
    resumed = balance.balance_patterns(games, tmp_path / "b.db", steps=6, work=tmp_path / "wb",
                                       **args)
    a = (tmp_path / "a.db").read_text().replace("a.db", "b.db")
    assert a == (tmp_path / "b.db").read_text()
    assert full["held_out_error"]["a.db"] == resumed["held_out_error"]["b.db"]
    assert set(full["held_out_error"]) == {"a.db", "start", "mc_montegnu_classic",
                                           "mc_mogo_classic", "mc_uniform"}
    assert full["train_positions"] == 6 and full["steps"] == 6
    labels = [json.loads(x) for x in (tmp_path / "a.db.work" / "labels-train.jsonl")
              .read_text().splitlines()]
    assert len(labels) == 6 and all(0.0 <= d["value"] <= 1.0 for d in labels)
    # the written file is a valid database that our compiler reads
    assert load_patterns(tmp_path / "a.db").values.max() > 1


def test_missing_folder_is_a_one_line_error(tmp_path):
    from click.testing import CliRunner

    from playout.cli import main

    r = CliRunner().invoke(main, ["go", "balance-patterns", str(tmp_path / "none"), "--out",
                                  str(tmp_path / "x.db")])
    assert r.exit_code == 2
    assert "none" in r.output and "Traceback" not in r.output


@needs_gnugo
def test_gnugo_plays_with_a_balanced_database(tmp_path):
    from playout.go.pattern_compiler import N_CLASSES

    positions = [balance.TrainingPosition("x", 0, 0.8)]
    positions[0].board = lambda: _board("E5 C3")
    bal = balance.Balancer(_model(), positions)
    balance.train(bal, 2, alpha=5.0, batch=1, m=8, n=8, seed=1)
    from playout.go.tune import write_database

    path = tmp_path / "mc_bal.db"
    write_database(bal.model(), path, ["test"])
    assert bal.model().shape.shape == (N_CLASSES,)
    gnugo_mc_genmove(path, ["b E5", "w C3"], "b")


def test_a_databases_rules_are_its_parameters(tmp_path):
    """Balancing a database (one parameter a rule): its cells are the rules' values, the file
    written back before any step is the same table, and the own-eye rules stay 0."""
    compiled = load_patterns("mc_montegnu_classic")
    positions = [balance.TrainingPosition("x", 0, 0.6)]
    positions[0].board = lambda: _board("E5 C3 G7")
    bal = balance.Balancer(compiled, positions)
    assert bal.na == len(compiled.rules) + 1
    assert np.allclose(bal.cell_gamma(), compiled.values.reshape(-1), rtol=1e-9)
    bal.write(tmp_path / "same.db", ["test"])
    assert np.array_equal(load_patterns(tmp_path / "same.db").values, compiled.values)
    balance.train(bal, 3, alpha=10.0, batch=1, m=8, n=8, seed=1)
    eyes = [r for r, rule in enumerate(compiled.rules) if rule.value == 0]
    assert eyes and np.all(bal.theta[eyes] == 0.0) and bal.theta[bal.na - 1] == 0.0
    bal.write(tmp_path / "moved.db", ["test"])
    moved = load_patterns(tmp_path / "moved.db")
    assert [r.value == 0 for r in moved.rules] == [r.value == 0 for r in compiled.rules]
    assert not np.array_equal(moved.values, compiled.values)
