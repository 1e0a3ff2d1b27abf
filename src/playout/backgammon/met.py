"""Match equity table (MET): Kazaross-XG2, and match winning chances after a game.

Source: ``data/Kazaross-XG2.xml`` (Neil Kazaross 2011, transcribed for GNU
Backgammon by Michael Petch; see ``data/SOURCES.md``).  ``pre[i, j]`` is the
match winning chance (MWC) of a player ``i + 1`` away against an opponent
``j + 1`` away before the Crawford game has been played (row 1-away = the
Crawford game itself); ``post[j]`` is the MWC of a player ``j + 1`` away against
an opponent 1-away after the Crawford game (post-Crawford).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import numpy as np

from playout.backgammon.evaluators import DATA


@lru_cache(maxsize=4)
def load_met(path: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(pre float64[25, 25], post float64[25]) read from a gnubg MET XML file."""
    p = Path(path) if path else DATA / "Kazaross-XG2.xml"
    try:
        root = ET.parse(p).getroot()
    except (OSError, ET.ParseError) as exc:
        raise ValueError(f"{p}: not a readable MET file ({exc})") from None
    pre_el = root.find("pre-crawford-table")
    post_el = root.find("post-crawford-table")
    if pre_el is None or post_el is None:
        raise ValueError(f"{p}: missing pre-crawford-table or post-crawford-table")
    pre = np.array([[float(me.text) for me in row.findall("me")] for row in pre_el.findall("row")])
    post = np.array([float(me.text) for me in post_el.find("row").findall("me")])
    if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or post.shape[0] != pre.shape[0]:
        raise ValueError(f"{p}: tables have shapes {pre.shape} and {post.shape}")
    return pre, post


def mwc(away_me: int, away_opp: int, post_crawford: bool = False) -> float:
    """Match winning chance of a player ``away_me`` away vs ``away_opp`` away.

    ``post_crawford``: the Crawford game has already been played (only matters
    when one side is 1-away).  Scores beyond 25-away are clipped to the table.
    """
    if away_me <= 0:
        return 1.0
    if away_opp <= 0:
        return 0.0
    pre, post = load_met()
    n = pre.shape[0]
    a = min(away_me, n)
    b = min(away_opp, n)
    if post_crawford and (a == 1 or b == 1):
        if a == 1 and b == 1:
            return 0.5
        return float(post[a - 1]) if b == 1 else 1.0 - float(post[b - 1])
    return float(pre[a - 1, b - 1])


def mwc_after(away_me: int, away_opp: int, points: int, crawford_state: str) -> float:
    """MWC after this game ends with ``points`` (positive: we win them).

    ``crawford_state``: ``"pre"`` (no one has been 1-away yet), ``"crawford"``
    (this is the Crawford game) or ``"post"``.  A side that reaches 1-away from
    ``"pre"`` makes the next game the Crawford game (``pre`` table row 1).
    """
    a, b = away_me, away_opp
    if points > 0:
        a -= points
    else:
        b += points
    post = crawford_state in ("crawford", "post")
    return mwc(a, b, post_crawford=post)
