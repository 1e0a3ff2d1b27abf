"""Go: a numba board, GNU Go-format pattern playouts, a UCT player and GTP.

Modules (imported on demand; importing this package compiles nothing):

* :mod:`playout.go.rules` -- the numba state layout and rules kernels (strings, liberties,
  captures, ko, area score);
* :mod:`playout.go.board` -- :class:`~playout.go.board.Board` (record, superko, GTP vertices)
  and the :class:`~playout.go.board.GoGame` adapter for the core solvers;
* :mod:`playout.go.patterns` -- the ``mc_*.db`` parser/compiler;
* :mod:`playout.go.tables` -- compiled tables for the kernels (neighbour index, packed values);
* :mod:`playout.go.properties` -- per-point move properties (captures, self-atari, suicide);
* :mod:`playout.go.playout` -- pattern-value playouts (incremental values, proportional sampling);
* :mod:`playout.go.search` -- the compiled UCT/RAVE search (node arrays, transpositions);
* :mod:`playout.go.player` -- the player: time management, tree reuse, scoring;
* :mod:`playout.go.gtp` -- the GTP v2 engine; :mod:`playout.go.match` -- engine-vs-engine matches.
"""

from playout.nowrap import install as _install_nowrap

# The kernels index with points that are never negative: compile them without numba's
# negative-index wraparound (15% of a playout; see playout.nowrap).
_install_nowrap()
