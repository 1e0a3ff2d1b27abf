"""Cost and use of the two-liberty playout rule (``playout gtp --twolib PCT``, issue 18).

For 9 positions of the baseline match (data/go/match-5000: games 4, 12, 30 at moves 10, 25,
40): simulations per CPU second of one 5,000-simulation search (``time.process_time``; median
of three seeds) with ``--reply 90`` alone and with ``--twolib PCT`` too, in the same run; and
how often the rule has a move: over the playout moves of 200 playouts from each position
(played with ``--reply 90``), the share where :func:`playout.go.playout.atari_reply` gives
nothing and :func:`playout.go.lowlib.twolib_move` gives a move.

Run: ``python benchmarks/go_twolib.py [--twolib 90] [--sims 5000]``

Measured (2-core VM, the other core busy; commit e5523b7, --twolib 90): 20,435 simulations
per CPU second with --reply 90, 18,220 with --twolib 90 too (0.892); the rule had a move in
0.210 of the playout moves where the atari answer had none (atari answers: 0.179).
"""

from __future__ import annotations

import argparse
import json
import lzma
import time
from pathlib import Path

import numpy as np

from playout.go.board import PASS, Board, gtp_to_point
from playout.go.lowlib import twolib_move
from playout.go.player import Player
from playout.go.playout import PlayoutState, atari_reply, run_playout, seed_rng
from playout.go.rules import M_TOMOVE, META
from playout.go.tables import DEFAULT_DATABASE, load_table

BASELINE = Path(__file__).resolve().parents[1] / "data/go/match-5000/ours-p5000-vs-gnugo-l10.jsonl.xz"


def positions() -> list[Board]:
    games = [json.loads(x) for x in lzma.open(BASELINE, "rt")]
    out = []
    for gi in (4, 12, 30):
        moves = games[gi]["moves"]
        for k in (10, 25, 40):
            b = Board(9, 7.0)
            for mv in moves[:k]:
                v = mv.split()[1]
                b.play(PASS if v.lower() == "pass" else gtp_to_point(v, 9))
            out.append(b)
    return out


def rate(board: Board, sims: int, twolib: int) -> float:
    rates = []
    for seed in (1, 2, 3):
        pl = Player(playouts=sims, seed=seed, reply=90, twolib=twolib)
        t0 = time.process_time()
        info = pl.analyze(board, playouts=sims)
        rates.append(info.playouts / (time.process_time() - t0))
    return sorted(rates)[1]


def use(board: Board, n: int = 200) -> tuple[int, int, int]:
    """(playout moves, atari answers available, two-liberty moves available without one)."""
    table = load_table(DEFAULT_DATABASE)
    moves = ans1 = ans2 = 0
    seed_rng(7)
    for _ in range(n):
        st = PlayoutState(board, table)
        buf = np.zeros(700, np.int64)
        k = run_playout(st.S, st.B, table.T, buf, 600, 90, 0, None, 0)
        b = board.copy()
        for m in buf[:k]:
            S = b.S
            c = int(S[META, M_TOMOVE])
            if atari_reply(S, b.B, c) != PASS:
                ans1 += 1
            elif twolib_move(S, b.B, c) != PASS:
                ans2 += 1
            moves += 1
            p = int(abs(m))
            if p != PASS and not b.is_legal(p):
                break  # a superko repetition the playout allowed: stop replaying
            b.play(p)
    return moves, ans1, ans2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--twolib", type=int, default=90)
    ap.add_argument("--sims", type=int, default=5000)
    args = ap.parse_args()
    bs = positions()
    Player(playouts=64, seed=0, reply=90, twolib=args.twolib).analyze(bs[0])  # compile
    off, on = [], []
    tot = [0, 0, 0]
    for i, b in enumerate(bs):
        off.append(rate(b, args.sims, 0))
        on.append(rate(b, args.sims, args.twolib))
        m, a1, a2 = use(b)
        tot = [tot[0] + m, tot[1] + a1, tot[2] + a2]
        print(f"position {i}: {off[-1]:8.0f} sims/s off, {on[-1]:8.0f} on; playout moves {m}, "
              f"atari answers {a1 / m:.3f}, two-liberty moves {a2 / m:.3f}", flush=True)
    print(f"mean over {len(bs)}: {np.mean(off):.0f} sims/s (--reply 90), {np.mean(on):.0f} "
          f"(--reply 90 --twolib {args.twolib}), ratio {np.mean(on) / np.mean(off):.3f}; "
          f"two-liberty moves available in {tot[2] / tot[0]:.3f} of playout moves "
          f"(atari answers {tot[1] / tot[0]:.3f})")


if __name__ == "__main__":
    main()
