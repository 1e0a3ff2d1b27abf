"""Cube decisions from a cubeless rollout, read with the 0-ply cube model.

The engine's 1-ply cube action (:func:`playout.backgammon.cube.cube_action`) reads the
network's five probabilities with gnubg 1.07's Janowski model, so a network that misjudges
a position misjudges its cube.  Rolling the position out first (our own 1-ply plays,
ranked-luck variance reduction: :func:`playout.backgammon.rollout.rollout`) and reading the
rolled-out probabilities with the same model is how gnubg reports a cubeless rollout's
cubeful equities (its "cubeless rollout" setting) and how XG's "XG Roller" levels settle a
doubtful cube: the search does the work the network cannot.

Measured on reference set A (53 scored cube decisions; ``playout bg pr
../shared/data/backgammon/reference/A --engine ours:ply=1 --engine ours:ply=1,cube=rollout``):
cube PR 12.05 at 1-ply -> 1.49 with 1,296 trials, 5.2 s a decision on average on one core
(docs/results.md, session 16).

>>> from playout.backgammon.ids import board_from_position_id
>>> d, info = rollout_cube(board_from_position_id("4HPwATDgc/ABMA"), trials=72)  # the opening
>>> d.double, info["trials"]
(False, 72)
"""

from __future__ import annotations

from playout.backgammon.cube import CubeDecision, check_cube, cube_action
from playout.backgammon.evaluators import Evaluator

#: Trials of a cube rollout unless told: 1,296 = 36 x 36, every pair of first two rolls
#: equally often (the rollout's quasi-random start).
DEFAULT_TRIALS = 1296


def evaluator_name(evaluator: Evaluator | str | None) -> str:
    """The name :func:`playout.backgammon.rollout.rollout` takes for ``evaluator``.

    Raises ``ValueError`` for a network built from arrays (a rollout's worker processes
    load the network from its file).
    """
    if evaluator is None or isinstance(evaluator, str):
        return evaluator or "net"
    path = getattr(evaluator, "path", None)
    if path is not None:
        return str(path)
    name = getattr(evaluator, "name", "")
    if name == "pubeval":
        return name
    raise ValueError(f"evaluator {name!r}: a cube rollout needs a network file or 'pubeval'")


def rollout_cube(board26, cube_value: int = 1, cube_owner: str = "centered",
                 evaluator: Evaluator | str | None = None, *, trials: int = DEFAULT_TRIALS,
                 seed: int = 1, truncate: int = 0, jacoby: bool = True, beaver: bool = True,
                 match_length: int = 0, score: tuple[int, int] = (0, 0),
                 crawford: bool = False) -> tuple[CubeDecision, dict]:
    """Cube action for the side to act in pre-roll ``board26`` from a cubeless rollout.

    ``board26``: bgsage board, positive = the side to act.  Money (``match_length`` 0):
    equities per unit of the present cube; match play: MWC (as
    :func:`~playout.backgammon.cube.cube_action`).  ``trials`` games (in-process, one core),
    ``truncate`` half-moves before the network's value stands in (0 = played out), seeded by
    ``seed``.  Returns ``(decision, rollout)``: the decision of the 0-ply model on the
    rolled-out probabilities, and the rollout's row (``probs``, ``equity``, ``std_error``,
    ``trials``) for the side to act.  ``ValueError`` for a bad cube, owner or evaluator.
    """
    from playout.backgammon.rollout import rollout

    check_cube(cube_value, cube_owner)  # before the rollout's seconds are spent
    if trials < 1:
        raise ValueError(f"trials: {trials} (at least 1)")
    name = evaluator_name(evaluator)
    row = rollout([board26], evaluator=name, trials=trials, truncate=truncate, seed=seed,
                  post_move=False, workers=0)[0]
    d = cube_action(board26, cube_value, cube_owner, None, 1, jacoby=jacoby, beaver=beaver,
                    probs=row["probs"], match_length=match_length, score=score, crawford=crawford)
    return d, row
