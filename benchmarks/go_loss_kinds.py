"""Why a 9x9 match's games were lost: the largest capture of A's stones and its tactical kind.

For every decided game of a ``playout go match`` results file (JSONL, ``.xz`` allowed), the
moves are replayed and the largest capture (3 stones or more) of engine A's stones by B is
classified by the state of that string when A last moved before it:

* ``atari-lost``: in atari and unable to escape by our ladder reader
  (:func:`playout.go.tactics._escapes`: capture an adjacent stone in atari, or extend to 3+
  liberties, or to 2 that no ladder catches) -- it was lost before the atari (a capturing race,
  a net, life and death); ``-fresh`` when in atari for at most two of A's moves, ``-long``
  otherwise (left for dead);
* ``atari-escapable``: in atari but the reader finds an escape (a missed escape, or one the
  search judged not worth it);
* ``ladder`` / ``2libs``: two liberties, and a ladder captures it / none does;
* ``other``: three liberties or more.

Prints counts for losses and wins and the list of lost games ``(game, move, stones, kind)``.
Run: ``python benchmarks/go_loss_kinds.py data/go/match-5000/ours-p5000-vs-gnugo-l10.jsonl.xz``
(issue 18: 63 of 96 losses with such a capture, 12 of 87 wins; 50 ``atari-lost``, 8
``atari-escapable``, 2 ``ladder``, 2 ``2libs``, 1 ``other``).
"""

from __future__ import annotations

import argparse
import collections
import json
import lzma

import numpy as np

from playout.go.board import BLACK, WHITE, Board, gtp_to_point
from playout.go.playout import PlayoutState
from playout.go.tactics import LADDER_NODES, _escapes, ladder_captures
from playout.go.tables import DEFAULT_DATABASE, load_table


def classify(rec: dict, table) -> tuple[int, int, str] | None:
    """(move number, stones, kind) of the largest capture (>= 3) of A's stones, or None."""
    ours = BLACK if rec["a_black"] else WHITE
    b = Board(9, 7.0)
    hist: list[Board] = []
    big = None
    for i, m in enumerate(rec["moves"]):
        col, v = m.split()
        c = BLACK if col.lower() == "b" else WHITE
        hist.append(b.copy())
        caps = b.play(gtp_to_point(v, 9), c)
        if c == ours or len(caps) < 3 or (big and len(caps) <= big[1]) or len(hist) < 2:
            continue
        s0 = caps[0]
        prev = hist[-2]  # the position when A last moved
        kind = "other"
        if prev.color[s0] == ours:
            libs = prev.string_libs(s0)
            st = PlayoutState(prev, table)
            budget = np.full(1, LADDER_NODES, np.int64)
            if len(libs) == 1:
                kind = "atari-escapable" if _escapes(st.S.copy(), st.B, s0, budget) else "atari-lost"
                k = 0
                for h in reversed(hist[:-1]):
                    if h.color[s0] == ours and len(h.string_libs(s0)) == 1:
                        k += 1
                    else:
                        break
                kind += "-long" if k > 2 else "-fresh"
            elif len(libs) == 2:
                kind = "ladder" if ladder_captures(st.S.copy(), st.B, s0, budget) else "2libs"
        big = (i + 1, len(caps), kind)
    return big


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("jsonl")
    a = ap.parse_args()
    opener = lzma.open if a.jsonl.endswith(".xz") else open
    with opener(a.jsonl, "rt") as f:
        recs = [json.loads(ln) for ln in f if ln.strip()]
    table = load_table(DEFAULT_DATABASE)
    counts = collections.Counter()
    kinds = collections.Counter()
    lost = []
    for r in recs:
        if r.get("a_won") in (None, 0.5):
            continue
        key = "won" if r["a_won"] else "lost"
        counts[key] += 1
        big = classify(r, table)
        if big:
            counts[key + "_capture3"] += 1
            if key == "lost":
                kinds[big[2]] += 1
                lost.append((int(r["key"].rsplit("-", 1)[1]),) + big)
    print(json.dumps({"counts": counts, "lost_kinds": kinds}, indent=1))
    print(sorted(lost))


if __name__ == "__main__":
    main()
