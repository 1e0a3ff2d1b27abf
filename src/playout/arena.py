"""Matches between agents on any two-player :class:`~playout.mdp.Game`.

``play_match`` plays N games with colours alternated (game ``i``: agent A is
player ``i % 2``), through :mod:`playout.executor` so games run in parallel and a
killed run resumes from its JSONL file.  Each game is seeded from the match seed
and its index, so the totals do not depend on where or in which order games ran.

The score is A's: a win counts 1, a draw 1/2; the 95% interval is Wilson's score
interval (Wilson, "Probable inference...", JASA 1927) on that rate.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from playout.agents import SpecError, make_agent, parse_spec
from playout.executor import ExecutorError, ResultsFileError, run_tasks
from playout.mdp import Game
from playout.stats import wilson_interval


def play_game(task: dict[str, Any]) -> dict[str, Any]:
    """Play one game (an executor task); return A's result and timings.

    Task keys: ``game`` (DOMAIN), ``a``, ``b`` (SPECs), ``index``, ``seed``,
    ``max_moves``.
    """
    from playout.cli.core import resolve_domain

    problem = resolve_domain(task["game"])
    game = problem.mdp
    rng = random.Random(task["seed"] * 1_000_003 + task["index"])
    a_player = task["index"] % 2
    agents = {a_player: make_agent(task["a"], problem), 1 - a_player: make_agent(task["b"], problem)}
    state = game.initial_state()
    for agent in agents.values():
        agent.warm(state)  # kernel loading is not thinking time
    returns = [0.0, 0.0]
    think = {"a": 0.0, "b": 0.0}
    moves = {"a": 0, "b": 0}
    n = 0
    while not game.is_terminal(state) and n < task.get("max_moves", 10_000):
        player = game.to_play(state)
        who = "a" if player == a_player else "b"
        t0 = time.perf_counter()
        action = agents[player].choose(state, rng)
        think[who] += time.perf_counter() - t0
        moves[who] += 1
        nxt = game.transition(state, action, rng)
        r = game.checked_reward(state, action, nxt)
        returns[player] += r
        returns[1 - player] -= r
        for ag in agents.values():
            ag.observe(state, action, nxt)
        state = nxt
        n += 1
    a_return = returns[a_player]
    outcome = "win" if a_return > 1e-12 else "loss" if a_return < -1e-12 else "draw"
    return {"index": task["index"], "a_player": a_player, "a_return": a_return, "outcome": outcome,
            "moves": n, "a_seconds": think["a"], "a_moves": moves["a"], "b_seconds": think["b"],
            "b_moves": moves["b"]}


@dataclass
class MatchSummary:
    """Totals of a match from A's side."""

    wins: int
    losses: int
    draws: int
    a_ms_per_move: float
    b_ms_per_move: float

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def win_rate(self) -> float:
        return self.score / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.score, self.games)


def summarise(results: list[dict[str, Any]]) -> MatchSummary:
    """Fold per-game results into a :class:`MatchSummary`."""
    count = {"win": 0, "loss": 0, "draw": 0}
    for r in results:
        count[r["outcome"]] += 1
    am = sum(r["a_moves"] for r in results) or 1
    bm = sum(r["b_moves"] for r in results) or 1
    return MatchSummary(count["win"], count["loss"], count["draw"],
                        1000 * sum(r["a_seconds"] for r in results) / am,
                        1000 * sum(r["b_seconds"] for r in results) / bm)


def play_match(game: str, a: str, b: str, games: int, *, seed: int = 0, workers: int | None = None,
               ray_address: str | None = None, out: Path | None = None, max_moves: int = 10_000,
               progress: bool = True) -> MatchSummary:
    """Play ``games`` games of ``game`` between SPECs ``a`` and ``b``, colours alternated.

    Raises:
        SpecError: a malformed SPEC.  click.BadParameter: unknown game.
        ResultsFileError: ``out`` holds a different match.
    """
    from playout.cli.core import resolve_domain

    problem = resolve_domain(game, param_hint="GAME")
    if not isinstance(problem.mdp, Game):
        raise click.BadParameter(f"{game!r} is a one-player MDP; the arena needs a two-player game",
                                 param_hint="GAME")
    parse_spec(a), parse_spec(b)
    make_agent(a, problem), make_agent(b, problem)  # validate settings before any work
    setup = {"game": game, "a": a, "b": b, "seed": seed, "max_moves": max_moves}
    tasks = [dict(setup, key=f"game-{i}", index=i) for i in range(games)]
    results = run_tasks(play_game, tasks, out_path=out, workers=workers, ray_address=ray_address,
                        description=f"{game}: {a} vs {b}" if progress else None, setup=setup,
                        unit="games")
    return summarise(results)


@click.command("arena")
@click.argument("game")
@click.option("--a", "a", required=True, help="Agent A's SPEC, e.g. mcts:iterations=500,heuristic=table")
@click.option("--b", "b", required=True, help="Agent B's SPEC, e.g. random")
@click.option("--games", "-n", type=click.IntRange(1), default=20, show_default=True)
@click.option("--workers", type=click.IntRange(0), default=None,
              help="Local processes (default: one per core; 0 = in-process).")
@click.option("--ray", "ray_address", default=None, help="Run on Ray: auto, local or host:port.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Append each finished game to this JSONL file; rerun to resume.")
@click.option("--json", "as_json", is_flag=True)
def arena_command(game, a, b, games, workers, ray_address, seed, out, as_json):
    """Play GAME between agents A and B with colours alternated; print W-L-D and win rate."""
    import json

    try:
        s = play_match(game, a, b, games, seed=seed, workers=workers, ray_address=ray_address, out=out)
    except (SpecError, ResultsFileError, ExecutorError) as exc:
        raise click.UsageError(str(exc)) from None
    lo, hi = s.interval
    if as_json:
        click.echo(json.dumps({"game": game, "a": a, "b": b, "wins": s.wins, "losses": s.losses,
                               "draws": s.draws, "win_rate": s.win_rate, "ci95": [lo, hi],
                               "a_ms_per_move": s.a_ms_per_move, "b_ms_per_move": s.b_ms_per_move}))
        return
    click.echo(f"{game}: A = {a}  vs  B = {b}")
    click.echo(f"A: {s.wins}-{s.losses}-{s.draws} (W-L-D) in {s.games} games, win rate {s.win_rate:.3f} "
               f"[95% CI {lo:.3f}-{hi:.3f}]; ms/move A {s.a_ms_per_move:.1f}, B {s.b_ms_per_move:.1f}")
