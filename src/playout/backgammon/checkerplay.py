"""Cubeful checker play: the best play for the cube and score as they are (gnubg's ``FindBestMove``).

A money or match player does not maximise cubeless equity: a play that wins more gammons is
worth nothing extra when the cube is centred and the Jacoby rule is on, a play that keeps the
opponent from doubling us out matters more than a few points of cubeless equity, and a play
that reaches a cash is worth exactly the cash.  gnubg therefore ranks checker plays by
*cubeful* equity (``eval.c``: ``FindnSaveBestMoves`` scores every play with
``ScoreMove`` and sorts them by ``CompareMoves``: cubeful score first, the cubeless score of the
same evaluation breaking ties), and so does XG; :func:`playout.backgammon.search.choose_move`
is the cubeless ranking, right for cubeless rollouts and cubeless money games.

:func:`choose_play` does gnubg's two steps:

1. every legal play valued at 1-ply (XG numbering, gnubg's 0-ply): the board after the play is
   evaluated cubeless for the opponent and turned into its cubeful value with its best cube
   action (:func:`playout.backgammon.analysis.play_emg_batch`, the 0-ply Janowski model); a play
   that ends the game gets its exact value (a gammon counts 1 under the Jacoby rule with the
   cube centred): :func:`playout.backgammon.analysis.post_move_emg`, as ``bg analyze`` values plays;
2. at ``ply`` >= 2, the best ``filter_max`` plays within ``filter_threshold`` of the best are
   valued by the cubeful n-ply search (:func:`playout.backgammon.cubeful.post_move_values`,
   the opponent's cube decisions inside the tree) -- gnubg's move filter (its defaults for
   1-ply: 8 plays within 0.16); the others keep their 1-ply rank below them.

Equal cubeful values (typically -1.000 where every play lets the opponent double us out, a
cash, or plays that differ only in gammons the score makes worthless) are ordered by gnubg's
cubeless utility at the same ply (``CompareMoves``' ``rScore2``: :func:`_utility`).

Measured on reference set A (bgsage 3-ply cubeful references, centred cube, Jacoby; ``playout bg
pr ../shared/data/backgammon/reference/A --engine ours:ply=1 --engine ours:ply=2``): see
``docs/results.md``, session 19.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from playout.backgammon.analysis import State, _terminal_emg, post_move_emg
from playout.backgammon.board import game_result
from playout.backgammon.evaluators import Evaluator, get_evaluator
from playout.backgammon.moves import legal_moves
from playout.backgammon.net import money_equity
from playout.backgammon.search import post_move_probs

#: values closer than this are a tie (cubeful values of -1 / +1 are exact; the rest are floats)
TIE = 1e-9


@dataclass
class CubefulPlay:
    """One candidate: post-move ``board`` (mover's view), ``equity`` (cubeful: money per unit
    of the present cube, match play EMG as gnubg's ``mwc2eq``) at ``ply``, and ``cubeless``,
    gnubg's cubeless utility of the play (money: cubeless equity, gammons worth nothing under
    the Jacoby rule with the cube centred; match: cubeless MWC as EMG) at 1-ply, except for plays
    tied for the best after the search, which get it at ``ply`` (it only orders ties);
    ``probs``: the mover's cubeless probabilities behind ``cubeless`` (float64[5]: win, win
    gammon, win backgammon, lose gammon, lose backgammon)."""

    board: np.ndarray
    equity: float
    cubeless: float
    ply: int
    probs: np.ndarray


def _utility(p, st: State) -> float:
    """gnubg's ``Utility`` of the mover's cubeless probabilities ``p`` for the state ``st``: the
    tie-break ``rScore2`` of ``CompareMoves``.  Money: the cubeless equity with gammons at their
    price -- none while the Jacoby rule holds a centred cube (``2 p_win - 1``); match play: the
    cubeless MWC at the present cube, as EMG (``st.to_emg``)."""
    w, wg, wbg, lg, lbg = (float(v) for v in p)
    if not st.length:
        if st.jacoby and st.owner == "centered":
            return 2.0 * w - 1.0
        return float(money_equity(np.asarray(p, dtype=np.float64)))
    s, c = st.score_obj(), st.cube
    mwc = ((w - wg) * s.mwc(0, 0, c) + (wg - wbg) * s.mwc(0, 0, 2 * c) + wbg * s.mwc(0, 0, 3 * c)
           + (1.0 - w - lg) * s.mwc(0, 1, c) + (lg - lbg) * s.mwc(0, 1, 2 * c)
           + lbg * s.mwc(0, 1, 3 * c))
    return st.to_emg(mwc)


def _cubeless(evaluator: Evaluator, boards, st: State, ply: int):
    """(:func:`_utility`, the mover's cubeless probabilities float64[n, 5]) of each post-move
    board at ``ply``; a finished game gets its result."""
    util = np.empty(len(boards))
    probs = np.zeros((len(boards), 5))
    live = []
    for i, b in enumerate(boards):
        g = int(game_result(b))
        if g > 0:
            util[i] = _terminal_emg(g, st)
            probs[i] = [1.0, float(g >= 2), float(g >= 3), 0.0, 0.0]
        else:
            live.append(i)
    if live:
        probs[live] = post_move_probs(evaluator, np.stack([boards[i] for i in live]), ply)
        util[live] = [_utility(p, st) for p in probs[live]]
    return util, probs


def choose_play(board26, dice, evaluator: Evaluator | None = None, ply: int = 1, *,
                cube_value: int = 1, cube_owner: str = "centered", jacoby: bool = True,
                match_length: int = 0, score: tuple[int, int] = (0, 0), crawford: bool = False,
                filter_max: int = 8, filter_threshold: float = 0.16) -> list[CubefulPlay]:
    """The legal plays of ``dice`` from pre-roll ``board26`` (the side to act's view), best first
    by cubeful equity at ``ply`` (XG numbering; ``evaluator`` default the shipped network for that
    depth, :func:`playout.backgammon.evaluators.default_net`).

    ``cube_owner`` is ``centered``, ``player`` (the side to act) or ``opponent``; ``score`` is
    (side to act, opponent) in a ``match_length``-point match (0 = money, where ``jacoby``
    applies to a centred cube).  Plays outside the move filter keep their 1-ply values and
    follow the searched ones.  Returns one :class:`CubefulPlay` per distinct legal play (one,
    the board itself, when the roll cannot be played).  Raises ValueError for a ply outside
    1..4 or an unknown cube owner.
    """
    if not 1 <= int(ply) <= 4:
        raise ValueError(f"ply: {ply} is out of range (1..4 in XG numbering)")
    if cube_owner not in ("centered", "player", "opponent"):
        raise ValueError(f"cube_owner: {cube_owner!r} (centered, player or opponent)")
    evaluator = evaluator or get_evaluator(ply=ply)
    board = np.ascontiguousarray(board26, dtype=np.int8)
    moves = legal_moves(board, int(dice[0]), int(dice[1]))
    st = State(int(match_length), (int(score[0]), int(score[1])), int(cube_value), cube_owner,
               bool(crawford), bool(jacoby))
    eq = post_move_emg(moves, st, 1, evaluator)
    cl, pr = _cubeless(evaluator, moves, st, 1)
    plays = [CubefulPlay(moves[i], float(eq[i]), float(cl[i]), 1, pr[i]) for i in range(len(moves))]
    plays.sort(key=lambda c: (-c.equity, -c.cubeless))  # before the filter: gnubg's CompareMoves
    if ply > 1 and len(plays) > 1:
        keep = [c for c in plays[:filter_max] if c.equity >= plays[0].equity - filter_threshold]
        deep = post_move_emg([c.board for c in keep], st, ply, evaluator, evaluator)
        for c, v in zip(keep, deep):
            c.equity, c.ply = float(v), ply
        keep.sort(key=lambda c: -c.equity)
        plays = keep + plays[len(keep):]
    # ties after the search: the cubeless equity at the same ply decides (gnubg's CompareMoves)
    top = [c for c in plays if c.ply == plays[0].ply and c.equity >= plays[0].equity - TIE]
    if len(top) > 1 and top[0].ply > 1:
        cl, pr = _cubeless(evaluator, [c.board for c in top], st, top[0].ply)
        for c, v, p in zip(top, cl, pr):
            c.cubeless, c.probs = float(v), p
        top.sort(key=lambda c: -c.cubeless)
        plays = top + plays[len(top):]
    return plays
