"""Benchmark generation: cubeful money self-play from a family's starting positions.

Open Sage's recipe (``../shared/docs/backgammon.md``, "Families"): starting positions are
taken in a shuffled cycle (reshuffled each pass); a coin flip decides who starts; both sides
play bgsage (PyPI) at ``ply`` (XG numbering; bgsage's benchmarks use 3-ply) with cubeful money
equities, Jacoby and beaver on.  While the position stays in the family (either side has the
feature, :func:`families.in_family`), each non-trivial decision is recorded from the side
making it:

* cube: before rolling, when the side on roll may double and the decision is not trivial by
  the scorer's doubler-side filter (:func:`scoring.doubler_trivial`) on the engine's own
  ND/DT/DP; the engine's action is then played (take, beaver = redouble keeping the cube,
  or pass, which ends the game);
* checker: when the roll has 2+ legal moves and the engine's best-to-worst spread is at least
  0.001.

Everything is a function of ``seed`` (one ``numpy`` generator for the shuffle, coin flips and
dice; bgsage's n-ply evaluation is deterministic with one thread), so the same seed writes a
byte-identical file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .benchmark import BenchmarkFile, Decision, flip_board, flip_owner, read_starting, write_text
from .families import classifier, flip as _flip
from .scoring import SPREAD_MIN, doubler_trivial

MAX_HALF_MOVES = 400


def _game_over(board) -> bool:
    b = list(board)
    return b[25] + sum(x for x in b[1:25] if x > 0) == 0 or b[0] - sum(x for x in b[1:25] if x < 0) == 0


def self_play_decisions(family: str, starts, n_decisions: int, *, seed: int = 1, ply: int = 3,
                        engine=None) -> list[Decision]:
    """Play games until ``n_decisions`` decisions in ``family`` are recorded; return them."""
    from .engines import BgsageEngine

    feature = classifier(family)

    def in_family(board) -> bool:
        return feature(board) or feature(_flip(board))

    if not starts:
        raise ValueError("no starting positions")
    engine = engine or BgsageEngine(ply)
    rng = np.random.default_rng(seed)
    out: list[Decision] = []
    order: list[int] = []
    games_without = 0
    while len(out) < n_decisions:
        if not order:
            order = [int(i) for i in rng.permutation(len(starts))]
        start = starts[order.pop(0)]
        board, cv, owner = tuple(start.board), start.cube_value, start.cube_owner
        if rng.integers(2):  # coin flip: player 2 starts
            board, owner = flip_board(board), flip_owner(owner)
        before = len(out)
        for _ in range(MAX_HALF_MOVES):
            if len(out) >= n_decisions or not in_family(board):
                break
            if owner != "opponent":
                c = engine.cube_analysis(board, cv, owner)
                if not doubler_trivial(c.equity_nd, c.equity_dt, c.equity_dp):
                    out.append(Decision("cube", cv, owner, None, board))
                    if len(out) >= n_decisions:
                        break
                if c.should_double:
                    if not c.should_take:
                        break  # pass: game over
                    cv, owner = cv * (4 if c.is_beaver else 2), "opponent"
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            res = engine.checker_analysis(board, dice, cv, owner)
            moves = res.moves
            if len(moves) >= 2 and moves[0].equity - min(m.equity for m in moves) >= SPREAD_MIN:
                out.append(Decision("checker", cv, owner, dice, board))
            if moves:
                board = tuple(int(x) for x in moves[0].board)
            if _game_over(board):
                break
            board, owner = flip_board(board), flip_owner(owner)
        games_without = games_without + 1 if len(out) == before else 0
        if games_without > 10 * len(starts):
            raise ValueError(f"no {family} decisions arise from these starting positions")
    return out


def generate_file(family: str, starting_path, out_path, n_decisions: int, *, seed: int = 1, ply: int = 3) -> int:
    """Generate ``n_decisions`` and write them as bgsage's ``benchmark.txt``; returns the count."""
    starts = read_starting(starting_path).entries
    decisions = self_play_decisions(family, starts, n_decisions, seed=seed, ply=ply)
    n_checker = sum(d.kind == "checker" for d in decisions)
    header = [
        f"# {family} - cubeful benchmark decisions (money play, Jacoby + beaver on).",
        f"# {len(decisions)} decisions ({n_checker} checker, {len(decisions) - n_checker} cube), from simulated "
        f"{ply}ply cubeful self-play",
        f'# out of "{Path(starting_path).name}"; engine=bgsage (PyPI) {ply}-ply, seed={seed}.',
        "# One decision per line: kind cube_value cube_owner die1 die2 board(26 ints).",
        '#   kind        "checker" or "cube"',
        '#   cube_owner  "centered" | "player" | "opponent", relative to the player on roll',
        '#   die1 die2   "-" for a cube decision',
        "# The board is from the perspective of the player whose decision it is.",
    ]
    write_text(out_path, BenchmarkFile(list(decisions), [(0, h) for h in header]))
    return len(decisions)
