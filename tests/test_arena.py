"""Arena: specs, colours alternated, resume after a kill, errors."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from playout.agents import SpecError, parse_spec
from playout.arena import play_match, summarise
from playout.stats import wilson_interval
from playout.executor import load_results


def test_parse_spec_types_and_errors():
    assert parse_spec("mcts:iterations=50,c=0.5,solver=stateful") == (
        "mcts", {"iterations": 50, "c": 0.5, "solver": "stateful"})
    for bad, msg in [("alphazero", "unknown kind"), ("mcts:iters=5", "unknown key 'iters'"),
                     ("mcts:iterations=five", "is not an integer"), ("mcts:iterations", "not key=value"),
                     ("random:x=1", "takes no settings"), ("mcts:solver=deep", "generic or stateful")]:
        with pytest.raises(SpecError, match=msg):
            parse_spec(bad)


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_mcts_beats_random_at_connect4_with_colours_alternated(tmp_path):
    out = tmp_path / "m.jsonl"
    s = play_match("connect4", "mcts:iterations=300,engine=python", "random", 6, seed=1,
                   workers=0, out=out, progress=False)
    assert s.games == 6 and s.wins >= 5
    recs = load_results(out)
    assert sorted(r["a_player"] for r in recs.values()) == [0, 0, 0, 1, 1, 1]


def test_resume_after_kill_gives_same_totals(tmp_path):
    full = play_match("connect4", "mcts:iterations=40,engine=python", "random", 8, seed=7,
                      workers=0, progress=False)
    out = tmp_path / "resume.jsonl"
    cmd = [sys.executable, "-m", "playout.cli", "arena", "connect4", "--a",
           "mcts:iterations=40,engine=python", "--b", "random", "--games", "8", "--seed", "7",
           "--workers", "0", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline:  # kill once a few games are on disk
        if out.exists() and out.read_text().count("\n") >= 3:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with open(out, "a") as fh:
        fh.write('{"key": "game-7", "res')  # and a torn line, as a killed writer leaves
    partial = len(load_results(out))
    assert 0 < partial < 8
    resumed = play_match("connect4", "mcts:iterations=40,engine=python", "random", 8, seed=7,
                         workers=0, out=out, progress=False)
    assert (resumed.wins, resumed.losses, resumed.draws) == (full.wins, full.losses, full.draws)


def test_other_setup_in_results_file_is_refused(tmp_path):
    out = tmp_path / "x.jsonl"
    play_match("connect4", "random", "random", 1, seed=1, workers=0, out=out, progress=False)
    r = subprocess.run([sys.executable, "-m", "playout.cli", "arena", "connect4", "--a", "random",
                        "--b", "random", "--games", "2", "--seed", "2", "--workers", "0",
                        "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 2
    assert "different setup" in r.stderr and "Traceback" not in r.stderr


def test_resumed_arena_says_how_many_games_it_kept(tmp_path):
    out = tmp_path / "r.jsonl"
    play_match("connect4", "random", "random", 2, seed=1, workers=0, out=out, progress=False)
    r = subprocess.run([sys.executable, "-m", "playout.cli", "arena", "connect4", "--a", "random",
                        "--b", "random", "--games", "3", "--seed", "1", "--workers", "0",
                        "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"resuming: 2 of 3 games done, read from {out}" in r.stderr.splitlines()
    assert len(load_results(out)) == 3


def test_bad_spec_is_one_line_error():
    r = subprocess.run([sys.executable, "-m", "playout.cli", "arena", "connect4", "--a", "mcts:foo=1",
                        "--b", "random"], capture_output=True, text=True)
    assert r.returncode == 2 and "unknown key 'foo'" in r.stderr and "Traceback" not in r.stderr


def test_summarise_counts_draws_as_half():
    rs = [{"outcome": o, "a_moves": 1, "b_moves": 1, "a_seconds": 0.1, "b_seconds": 0.2}
          for o in ("win", "draw", "loss", "win")]
    s = summarise(rs)
    assert (s.wins, s.losses, s.draws, s.win_rate) == (2, 1, 1, 0.625)
    assert s.a_ms_per_move == pytest.approx(100.0)


def test_agent_with_tree_reuse_and_time_budget():
    from playout.agents import make_agent
    from playout.cli.core import resolve_domain
    import random

    problem = resolve_domain("connect4")
    agent = make_agent("mcts:seconds=0.02,reuse=1,solver=stateful", problem)
    game = problem.mdp
    rng = random.Random(0)
    s0 = game.initial_state()
    a = agent.choose(s0, rng)
    s1 = game.transition(s0, a, rng)
    agent.observe(s0, a, s1)
    s2 = game.transition(s1, 3, rng)
    agent.observe(s1, 3, s2)
    assert agent._solver is not None and agent._solver.root_state == s2
    kept = agent._solver.root.visits
    assert kept > 0  # the subtree under our move and the reply survived
    agent.choose(s2, rng)
    assert agent._solver.root.visits > kept


def test_heuristic_policy_reaches_the_python_solver():
    import random

    from playout.agents import make_agent
    from playout.cli.core import resolve_domain
    from playout.domains.reversi import HeuristicPolicy

    problem = resolve_domain("reversi")
    agent = make_agent("mcts:iterations=30,reuse=1,heuristic=table,solver=stateful", problem)
    state = problem.mdp.initial_state()
    action = agent.choose(state, random.Random(0))
    assert action in problem.mdp.actions(state)
    assert isinstance(agent._solver.rollout_policy, HeuristicPolicy)
