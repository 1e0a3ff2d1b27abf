"""Build a three-slice network file: a general net's contact and race nets plus a crashed specialist.

    python scripts/bg_combine_crashed.py GENERAL.npz CRASHED.npz OUT.npz [--slot 0]

``OUT.npz`` holds ``W1[3, I, H]`` (and ``b1``, ``W2``, ``b2``): slices 0 and 1 of
``GENERAL.npz`` (contact, race) and slice ``--slot`` (default 0: the contact net of a specialist
trained with ``playout bg train --family crashed --net contact``) of ``CRASHED.npz`` as slice 2.
Every kernel (evaluation, search, rollouts, luck, matches, analysis) then answers a crashed
position (:func:`playout.backgammon.classes.is_crashed`, gnubg's ``CLASS_CRASHED``) with slice 2,
as gnubg does with its crashed net (:func:`playout.backgammon.classes.net_index`); load it like
any network (``ours:...,weights=OUT.npz``, ``--evaluator OUT.npz``).  The two files' hidden sizes
must agree.  :func:`playout.backgammon.net.combine_crashed` does the work.
"""

from __future__ import annotations

import argparse
import sys

from playout.backgammon.net import combine_crashed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("general", help="network file whose contact and race nets are kept (.npz)")
    ap.add_argument("crashed", help="network file holding the crashed specialist (.npz)")
    ap.add_argument("out", help="three-slice network file to write (.npz)")
    ap.add_argument("--slot", type=int, default=0, help="the specialist's slice in CRASHED (default 0)")
    a = ap.parse_args(argv)
    try:
        combine_crashed(a.general, a.crashed, a.out, slot=a.slot)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{a.out}: contact, race from {a.general}; crashed from {a.crashed}[{a.slot}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
