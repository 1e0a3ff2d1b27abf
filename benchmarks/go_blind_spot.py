"""The greedy search's blind spot: a winning capture that the search never tries.

Issue 18, session 28.  In game 13 of ``data/go/match-s1-adaptive`` (our engine White, GNU Go
level 10 Black, 9x9 komi 7), after move 40 GNU Go captured at D3 and our win rate fell; White
resigned later.  In that position (Black to move) the search without an exploration term
(``UCT_C`` = 0, the default) usually gives D3 no visit at all: its AMAF value (~0.40 over ~90%
of the simulations) stays just below the real win rate of the move it prefers (D8, ~0.42), and
with no exploration term nothing makes it try D3, whose real win rate for Black is ~0.8.

Searches the position once per configuration and seed and prints the chosen move, its visits
and win rate, and D3's visits and win rate::

    python benchmarks/go_blind_spot.py --playouts 20000 --seeds 3 4 5

Configurations: the default search, ``uct_c`` 0.03 / 0.05, weighted AMAF updates
(``amaf_weight=1``).  No timings: the figures are visit counts at a fixed number of playouts.
"""

from __future__ import annotations

import argparse

from playout.go.board import Board, gtp_to_point, point_to_gtp
from playout.go.player import Player

#: game 13 of data/go/match-s1-adaptive, moves 1-40 (GNU Go Black, ours White)
MOVES = ("E5 C7 C4 F6 F5 G6 H4 G5 G4 D6 J7 C5 D4 H7 J6 B4 B3 B5 A3 H8 E6 E7 J8 J5 H5 H6 J4 A4 "
         "H9 F7 F9 F4 F3 G8 G9 E4 E3 C3 C2 B2").split()
#: GNU Go's move in that position
CAPTURE = "D3"

CONFIGS = {
    "default": {},
    "uct_c 0.03": {"uct_c": 0.03},
    "uct_c 0.05": {"uct_c": 0.05},
    "amaf_weight 1": {"amaf_weight": 1},
}


def position() -> Board:
    """The position after move 40 of game 13, Black to move, komi 7."""
    b = Board(9, 7.0)
    for m in MOVES:
        b.play(gtp_to_point(m, 9))
    return b


def probe(playouts: int, seed: int, **kw) -> tuple[str, int, float, int, float]:
    """(chosen move, its visits, its win rate, D3's visits, D3's win rate) of one search."""
    b = position()
    pl = Player(playouts=playouts, seed=seed, resign=0, reuse=False, **kw)
    pl.analyze(b, playouts=playouts)
    cands = pl.candidates(b)
    best = cands[0]
    d3 = next((c for c in cands if point_to_gtp(c.move, 9) == CAPTURE), None)
    return (point_to_gtp(best.move, 9), best.visits, best.winrate,
            d3.visits if d3 else 0, d3.winrate if d3 else 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--playouts", type=int, default=20000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[3, 4, 5])
    args = ap.parse_args()
    print(f"{'config':<14} seed  chosen visits winrate   {CAPTURE} visits winrate")
    for name, kw in CONFIGS.items():
        for seed in args.seeds:
            mv, v, w, dv, dw = probe(args.playouts, seed, **kw)
            print(f"{name:<14} {seed:>4}  {mv:<6} {v:>6} {w:>7.3f}   {dv:>9} {dw:>7.3f}", flush=True)


if __name__ == "__main__":
    main()
