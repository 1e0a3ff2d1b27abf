"""1-ply (or ``--ply N``) checker choices of networks, judged by gnubg on its own self-play positions (paired).

Usage: ``.venv/bin/python benchmarks/bg_choice_vs_gnubg.py [--judge PLY] [--seeds S,S...]
[--family NAME] NET...`` (``net`` = the shipped default; others ``.npz`` paths; ``--family``
keeps the decisions whose board is in a family of :mod:`playout.backgammon.families`, e.g.
``crashed``, either side; ``--side owner|opponent``: only the decisions of the side that owns
the family's feature -- plays the back game, say -- or of the side facing it).

Reference set A has 326 checker decisions, so two close networks' PR there differs by a few
tenths of noise.  This judge is a larger, paired sample: every position of
``../shared/data/backgammon/gnubg_selfplay_position_ids.txt`` (pre-roll, the side to act),
one random roll each per seed (``numpy`` ``default_rng(seed)``, two dice in order; several
seeds pool their decisions), kept when the position is a contact position (``--races``: a race
outside the one-sided bear-off database) and the roll has two or more plays (2,324 of 3,177
decisions with seed 14).  Candidates: each network's 1-ply choice
(:func:`playout.backgammon.search.choose_move`)
and gnubg 0-ply's five best plays; every candidate gets gnubg's cubeless money equity at
``--judge`` plies (gnubg numbering: 0 = its raw net, 1 = one roll ahead, the default).  A
network's error on a decision = the best candidate's equity - its choice's; printed: mean
error x 500 (a PR against gnubg), its standard error, and the paired difference to the first
network with its standard error (the same decisions: most of the noise cancels) and their
ratio ``z``.

gnubg judges, it does not train anything (PyPI ``gnubg``, an optional extra).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from playout.backgammon.board import flip, game_result, is_race
from playout.backgammon.classes import is_bearoff
from playout.backgammon.engines import to_gnubg
from playout.backgammon.evaluators import NeuralNet
from playout.backgammon.families import classifier, in_family
from playout.backgammon.ids import board_from_position_id
from playout.backgammon.moves import legal_moves
from playout.backgammon.search import choose_move

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("nets", nargs="+")
    ap.add_argument("--judge", type=int, default=1, help="gnubg plies of the judge (gnubg numbering)")
    ap.add_argument("--ply", type=int, default=1,
                    help="plies of the networks' own choice (XG numbering: 1 = the raw net; 2 looks "
                         "one roll ahead through search.choose_move's move filter)")
    ap.add_argument("--seeds", default="14", help="comma-separated dice seeds (decisions pooled)")
    ap.add_argument("--family", help="only decisions in this family (families.py), e.g. crashed")
    ap.add_argument("--races", action="store_true",
                    help="judge the race decisions (bear-offs of the one-sided database left out) "
                         "instead of the contact ones")
    ap.add_argument("--side", choices=("either", "owner", "opponent"), default="either",
                    help="with --family: the side to act owns the family's feature (e.g. plays the "
                         "back game), faces it, or either (default)")
    args = ap.parse_args()
    import gnubg

    nets = [NeuralNet() if a == "net" else NeuralNet(a) for a in args.nets]
    ids = (SHARED / "gnubg_selfplay_position_ids.txt").read_text().split()
    ci = gnubg.cubeinfo()
    ecs = {0: gnubg.evalcontext(0, 0, 1, 0, 0), args.judge: gnubg.evalcontext(0, args.judge, 1, 0, 0)}
    cache: dict = {}

    def value(m, ply):
        """gnubg's cubeless equity of post-move board ``m`` for the side that moved."""
        k = (m.tobytes(), ply)
        if k not in cache:
            r = game_result(flip(m))
            cache[k] = -float(r) if r else -gnubg.evaluate(to_gnubg(flip(m)), ci, ecs[ply])[5]
        return cache[k]

    errs = []
    seeds = [int(v) for v in args.seeds.split(",")]
    decisions = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        decisions += [(p, (int(rng.integers(1, 7)), int(rng.integers(1, 7)))) for p in ids]
    for p, d in decisions:
        b = board_from_position_id(p)
        if is_race(b) != args.races or (args.family and not in_family(args.family, b)):
            continue
        if args.races and is_bearoff(b):
            continue
        if args.family and args.side != "either" and (
                not classifier(args.family)(b if args.side == "owner" else flip(b))):
            continue
        moves = legal_moves(b, *d)
        if len(moves) < 2:
            continue
        picks = [choose_move(b, d, n, args.ply).board for n in nets]
        top = sorted(moves, key=lambda m: -value(m, 0))[:5]
        best = max(value(m, args.judge) for m in list(top) + picks)
        errs.append([best - value(m, args.judge) for m in picks])
    E = np.array(errs) * 500.0
    n = len(E)
    fam = f" in family {args.family}" if args.family else ""
    fam += f" (side to act: {args.side})" if args.family and args.side != "either" else ""
    kind = "race" if args.races else "contact"
    print(f"{n} {kind} decisions{fam} (seeds {args.seeds}), networks at {args.ply}-ply, judge gnubg "
          f"{args.judge}-ply; PR = mean error x 500")
    for i, name in enumerate(args.nets):
        dd = E[:, i] - E[:, 0]
        se = dd.std() / np.sqrt(n)
        print(f"{name:40s} PR {E[:, i].mean():7.4f} +- {E[:, i].std() / np.sqrt(n):.4f}   "
              f"minus first {dd.mean():+7.4f} +- {se:.4f}  z {dd.mean() / max(se, 1e-12):+.2f}")


if __name__ == "__main__":
    main()
