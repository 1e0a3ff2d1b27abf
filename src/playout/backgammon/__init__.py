"""Backgammon analysis: rules, position IDs, evaluators, n-ply search, cube, rollouts.

Conventions used throughout (see ``../shared/docs/backgammon.md``):

* A board is bgsage's *board26*: ``np.int8[26]`` seen from the side to act.
  ``board[1..24]`` are points (positive = the mover's checkers, negative = the
  opponent's); the mover moves from 24 towards 1 and bears off below point 1;
  ``board[25]`` is the mover's bar and ``board[0]`` the opponent's bar (both
  positive counts).  :func:`playout.backgammon.board.flip` gives the other
  side's view.
* Evaluators return five probabilities for the side *to act* in a pre-roll
  board: P(win), P(win gammon), P(win backgammon), P(lose gammon),
  P(lose backgammon) (gammon figures include backgammons).
* Plies use XG's numbering: 1-ply = the raw network (gnubg's 0-ply).

Importing this package does not compile any numba kernel.
"""
