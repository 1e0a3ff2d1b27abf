"""The wire format of the GTP analysis extensions GUIs use: arguments in, ``info`` lines out.

Leela Zero's ``lz-analyze``/``lz-genmove_analyze`` and KataGo's ``kata-analyze``/
``kata-genmove_analyze`` (KataGo's docs/GTP_Extensions.md describes both) take
``[color] [interval] [key value]...`` and answer, every ``interval`` centiseconds, one line of
``info move M visits V winrate W prior P lcb L order K pv M ...`` for each candidate move.
:func:`analysis_args` reads the arguments and :func:`info_line` writes a line from a search's
:class:`~playout.go.tree.Snapshot`; :meth:`playout.go.gtp.GtpEngine.stream` runs the search.

>>> analysis_args(["b", "50", "maxmoves", "3"], to_move=2)
(1, 0.5, {'maxmoves': 3, 'ownership': False})
"""

from __future__ import annotations

import math

from playout.go.board import BLACK, WHITE, point_to_gtp
from playout.go.tree import Snapshot

#: kata-analyze options of KataGo (docs/GTP_Extensions.md) accepted with their value and ignored
KATA_IGNORED = ("minmoves", "ownershipstdev", "movesownership", "movesownershipstdev", "pvvisits",
                "pvedgevisits", "rootinfo")

#: GTP colour words (GTP 2 draft, section 2.5), case-insensitive
COLORS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}


class AnalysisArgError(ValueError):
    """Arguments an analysis command refuses; the message is GTP's ``? ...`` text."""


def _number(v: str, what: str) -> float:
    try:
        x = float(v)
    except ValueError:
        raise AnalysisArgError(f"syntax error: {what} {v!r} is not a number") from None
    if not math.isfinite(x) or x < 0:
        raise AnalysisArgError(f"syntax error: {what} {v!r}")
    return x


def analysis_args(args: list[str], to_move: int) -> tuple[int, float, dict]:
    """``[color] [interval] [key value]...`` -> (colour, interval in seconds, options).

    ``color`` defaults to ``to_move`` (BLACK = 1 or WHITE = 2).  Keys: ``interval``
    (centiseconds, as the second argument), ``maxmoves`` (at most this many candidates; 0 = all),
    ``ownership`` (kata-analyze: true/false); KataGo's other key/value pairs
    (:data:`KATA_IGNORED`: ``minmoves N``, ``pvVisits true``, ``rootInfo true``, ...) are
    accepted and ignored.  Raises :class:`AnalysisArgError` for ``allow``/``avoid`` (not
    implemented), an unknown key, a key without a value, or a value that is not a number >= 0.
    """
    a = list(args)
    color = to_move
    if a and a[0].lower() in COLORS:
        color = COLORS[a.pop(0).lower()]
    interval_cs = 0.0
    opts = {"maxmoves": 0, "ownership": False}
    if a and (a[0][:1].isdigit() or a[0].startswith(".")):
        interval_cs = _number(a.pop(0), "interval")
    while a:
        key = a.pop(0)
        if not a:
            raise AnalysisArgError(f"syntax error: {key} needs a value")
        val = a.pop(0)
        k = key.lower()
        if k == "interval":
            interval_cs = _number(val, "interval")
        elif k == "maxmoves":
            opts[k] = int(_number(val, k))
        elif k == "minmoves":
            _number(val, k)
        elif k == "ownership":
            if val.lower() not in ("true", "false"):
                raise AnalysisArgError("syntax error: ownership true|false")
            opts["ownership"] = val.lower() == "true"
        elif k in ("allow", "avoid"):
            raise AnalysisArgError(f"{key} is not supported")
        elif k not in KATA_IGNORED:
            raise AnalysisArgError(f"syntax error: unknown option {key!r}")
    return color, interval_cs / 100.0, opts


def info_line(snap: Snapshot, fmt: str, opts: dict, size: int, color: int) -> str:
    """One batch of analysis on one line: ``info move ...`` for each candidate of ``snap`` (at
    most ``opts["maxmoves"]`` unless 0), as Leela Zero and KataGo write it.  ``fmt`` ``"lz"``:
    winrate, prior and lcb as integers 0..10000; ``"kata"``: as floats in [0, 1], then with
    ``opts["ownership"]`` ``ownership`` and one value per point of the ``size`` x ``size``
    board, rows from the top, in [-1, 1] for ``color`` (the side analysed)."""
    cands = snap.candidates
    if opts["maxmoves"]:
        cands = cands[: opts["maxmoves"]]
    parts = []
    for k in cands:
        pv = " ".join(point_to_gtp(p, size) for p in k.pv)
        if fmt == "lz":
            nums = (f"winrate {round(10000 * k.winrate)} prior {round(10000 * k.prior)} "
                    f"lcb {round(10000 * k.lcb)}")
        else:
            nums = f"winrate {k.winrate:.6f} prior {k.prior:.6f} lcb {k.lcb:.6f}"
        parts.append(f"info move {point_to_gtp(k.move, size)} visits {k.visits} {nums} "
                     f"order {k.order} pv {pv}")
    if fmt == "kata" and opts["ownership"]:
        sign = 1.0 if color == BLACK else -1.0
        w = size + 2
        own = [sign * float(snap.ownership[(r + 1) * w + c + 1]) for r in range(size) for c in range(size)]
        parts.append("ownership " + " ".join(f"{x:.6f}" for x in own))
    return " ".join(parts)
