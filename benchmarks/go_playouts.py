"""Playouts per second on one core: our pattern playouts vs GNU Go 3.8's Monte Carlo mode.

For each built-in database (uniform, mogo_classic, montegnu_classic), on 9x9 and 19x19, from the
empty board and from a mid-game position (a seeded playout cut after 40 / 150 moves), we time
``run_many`` (whole playouts from copies of the position, process CPU time).  GNU Go's rate is
measured in the same run: the CPU-time slope of ``genmove`` over ``--mc-games-per-level`` at
``--level 1`` with ``--monte-carlo`` on 9x9 (its MC mode is limited to 9x9) after the four
moves E5 C3 G7 C7 with its fuseki database off (on an empty board it answers from the book
without simulating), so start-up and the non-MC part of move generation cancel out; our rate
from the same four-stone position is the like-for-like row ``4 stones``.  Targets (issue 4): >= 41,000
light (uniform) playouts/s on 9x9 and >= 27,000/s with mogo_classic.

With ``--lgrf`` it also times whole simulations of the search (tree + playout, as GNU Go's MC
``genmove`` counts them; process CPU time of ``Player.analyze`` at 5,000 simulations, the
median of three searches, 9x9 from the four-stone and mid-game positions) without
last-good-replies and with LGRF-1 and LGRF-2 (``playout gtp --lgrf``; the replies live only
inside a search, so ``run_many`` cannot show them), against GNU Go's MC rate of the same run.

Run: ``python benchmarks/go_playouts.py [--seconds 2] [--no-gnugo] [--lgrf]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time

from playout.go.board import Board, gtp_to_point
from playout.go.match import GNUGO
from playout.go.playout import PlayoutState, playouts_from
from playout.go.tables import load_table

DBS = ["uniform", "mogo_classic", "montegnu_classic"]
FOUR = ["b E5", "w C3", "b G7", "w C7"]
PACHI_LIGHT_9x9 = 34_000  # Pachi 11.99, one thread, measured on this machine class (doc)


def midgame(size: int, n_moves: int, seed: int = 7) -> Board:
    """A position reached by a seeded mogo_classic playout, cut after ``n_moves`` moves."""
    st = PlayoutState(Board(size), load_table("mc_mogo_classic"))
    _, moves = st.run(seed=seed, max_moves=n_moves)
    b = Board(size, superko=False)
    for m in moves:
        p = abs(int(m))
        b.play(p, b.to_move)
    return b


def our_rate(board: Board, db: str, seconds: float) -> tuple[float, float]:
    """(playouts/s, moves per playout) over about ``seconds`` of CPU time."""
    st = PlayoutState(board, load_table(db))
    playouts_from(st, 3, seed=1)  # compile / warm up
    n = 200
    while True:
        t0 = time.process_time()
        _, moves = playouts_from(st, n, seed=2)
        dt = time.process_time() - t0
        if dt >= seconds or n >= 1_000_000:
            return n / dt, moves / n
        n = int(n * max(2.0, 1.2 * seconds / max(dt, 1e-3)))


def gnugo_cpu(games: int, db: str) -> float:
    """CPU seconds of a GNU Go process that answers one MC ``genmove`` on empty 9x9 and quits."""
    before = os.times()
    args = [GNUGO, "--mode", "gtp", "--monte-carlo", "--level", "1", "--mc-games-per-level",
            str(games), "--mc-patterns", db, "--boardsize", "9", "--komi", "7", "--nofusekidb",
            "--nofuseki"]
    script = "".join(f"play {m}\n" for m in FOUR) + "genmove b\nquit\n"
    subprocess.run(args, input=script, capture_output=True, text=True, timeout=600)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def gnugo_rate(db: str, g1: int = 2000, g2: int = 20000) -> float:
    """GNU Go MC simulations per CPU second: slope between ``g1`` and ``g2`` games per move."""
    t1 = min(gnugo_cpu(g1, db) for _ in range(2))
    t2 = min(gnugo_cpu(g2, db) for _ in range(2))
    return (g2 - g1) / max(t2 - t1, 1e-9)


def search_rate(board: Board, db: str, lgrf: int, sims: int = 5000) -> float:
    """Simulations per CPU second of one search of ``board`` (median of three seeds)."""
    from playout.go.player import Player

    table = load_table(db)
    Player(table, playouts=64, seed=0, lgrf=lgrf).analyze(board)  # compile / warm up
    rates = []
    for seed in (1, 2, 3):
        pl = Player(table, playouts=sims, seed=seed, lgrf=lgrf)
        t0 = time.process_time()
        info = pl.analyze(board, playouts=sims)
        rates.append(info.playouts / (time.process_time() - t0))
    return sorted(rates)[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per measurement")
    ap.add_argument("--no-gnugo", action="store_true", help="skip GNU Go's rate")
    ap.add_argument("--lgrf", action="store_true",
                    help="also search simulations/s with --lgrf 0, 1, 2 (9x9)")
    args = ap.parse_args()
    four = Board(9)
    for m in FOUR:
        four.play(gtp_to_point(m.split()[1], 9))
    positions = {9: {"empty": Board(9), "4 stones": four, "midgame": midgame(9, 40)},
                 19: {"empty": Board(19), "midgame": midgame(19, 150)}}
    gg = {}
    if GNUGO and not args.no_gnugo:
        for db in DBS:
            gg[db] = gnugo_rate(db)
    print(f"{'database':18s} {'size':>4s} {'start':>8s} {'playouts/s':>11s} {'moves':>6s} "
          f"{'GNU Go MC/s':>12s} {'ratio':>6s}")
    results = {}
    for db in DBS:
        for size in (9, 19):
            for start, board in positions[size].items():
                rate, mv = our_rate(board, db, args.seconds)
                results[(db, size, start)] = rate
                ref = gg.get(db) if size == 9 and start == "4 stones" else None
                ref_s = f"{ref:12,.0f}" if ref else f"{'-':>12s}"
                ratio = f"{rate / ref:6.2f}" if ref else f"{'-':>6s}"
                print(f"{db:18s} {size:4d} {start:>8s} {rate:11,.0f} {mv:6.1f} {ref_s} {ratio}")
    light = results[("uniform", 9, "empty")]
    mogo = results[("mogo_classic", 9, "empty")]
    mogo4 = results[("mogo_classic", 9, "4 stones")]
    print(f"\n9x9 light playouts: {light:,.0f}/s = {light / PACHI_LIGHT_9x9:.2f}x Pachi's 34k "
          f"(target 41,000: {'met' if light >= 41_000 else 'NOT met'})")
    ref = gg.get("mogo_classic")
    extra = f" (4 stones: {mogo4 / ref:.2f}x GNU Go's {ref:,.0f} in this run)" if ref else ""
    print(f"9x9 mogo_classic playouts: {mogo:,.0f}/s{extra} "
          f"(target 27,000: {'met' if mogo >= 27_000 else 'NOT met'})")
    if args.lgrf:
        print(f"\nsearch simulations/s (5,000 a search, median of 3), 9x9\n{'database':18s} "
              f"{'start':>8s} {'lgrf 0':>9s} {'lgrf 1':>9s} {'lgrf 2':>9s} {'GNU Go MC/s':>12s} "
              f"{'ratios 0/1/2':>17s}")
        for db in ("montegnu_classic", "mogo_classic"):
            for start in ("4 stones", "midgame"):
                r = [search_rate(positions[9][start], db, k) for k in (0, 1, 2)]
                ref = gg.get(db)
                ref_s = f"{ref:12,.0f}" if ref else f"{'-':>12s}"
                ratios = "/".join(f"{x / ref:.2f}" for x in r) if ref else "-"
                print(f"{db:18s} {start:>8s} {r[0]:9,.0f} {r[1]:9,.0f} {r[2]:9,.0f} {ref_s} "
                      f"{ratios:>17s}")


if __name__ == "__main__":
    main()
