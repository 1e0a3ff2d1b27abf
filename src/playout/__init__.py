"""playout: Monte Carlo search for MDPs and games.

Three faces on one core: an extensible MCTS library (:mod:`playout.mdp`,
:mod:`playout.mcts`, :mod:`playout.domains`), a Go engine with GNU Go-format
pattern playouts (:mod:`playout.go`) and a backgammon engine with PR benchmarks
(:mod:`playout.backgammon`).
"""

from playout.mdp import MDP, Game, MDPError

__all__ = ["MDP", "Game", "MDPError"]
__version__ = "0.1.0"
