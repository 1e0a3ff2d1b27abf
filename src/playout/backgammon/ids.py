"""Position formats: gnubg position/match IDs, XGID, board26 text, an ASCII board.

Sources: gnubg manual, "A technical description of the Position ID / Match ID";
XG's XGID format (as documented in ``../shared/docs/backgammon.md``); bgsage's
board26.  The side order of gnubg's ID was checked against PyPI ``gnubg``:
``gnubg.position_from_id`` returns (opponent, player on roll), each as 25
counts for that side's points 1..24 then its bar, and the ID encodes the
opponent's half first (``tests/test_bg_ids.py`` round-trips 3,177 real IDs).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field, replace

import numpy as np

from playout.backgammon.board import BoardError, as_board, flip

CUBE_OWNERS = ("centered", "player", "opponent")


class PositionError(ValueError):
    """A position string could not be parsed; the message names the field."""


@dataclass(frozen=True)
class Position:
    """A position from the side to act, plus cube, dice and match state.

    ``board``: ``np.int8[26]`` board26 from the side to act.  ``cube_owner`` in
    ``CUBE_OWNERS``.  ``dice``: ``(d1, d2)`` or ``None`` (not rolled).
    ``match_length`` 0 = money; ``score`` = (side to act, opponent) points.
    ``crawford``: this game is the Crawford game (a match game with a side 1-away that is
    not the Crawford game is post-Crawford: :attr:`post_crawford`).  ``jacoby``: the
    Jacoby rule is in force (money; gnubg match ID bit 66 clear).  ``max_cube_log2``:
    XGID's max-cube field (log2 of the largest cube allowed), kept for round trips.
    """

    board: np.ndarray
    cube_value: int = 1
    cube_owner: str = "centered"
    dice: tuple[int, int] | None = None
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = True
    beaver: bool = True
    extra: dict = field(default_factory=dict, compare=False)
    max_cube_log2: int = 10

    def with_dice(self, dice):
        return replace(self, dice=dice)

    def _repr_svg_(self) -> str:
        """SVG of the position (Jupyter): :func:`playout.backgammon.svg.position_svg`."""
        from playout.backgammon.svg import position_svg

        return position_svg(self)

    @property
    def post_crawford(self) -> bool:
        """A match game after the Crawford game: a side is 1-away and this is not the Crawford
        game (gnubg derives it the same way; neither ID has a bit for it)."""
        if not self.match_length or self.crawford:
            return False
        return self.match_length - 1 in self.score


# -- gnubg position ID ---------------------------------------------------------------------

def board_to_gnubg(board) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """board26 -> gnubg's (opponent, on-roll) pair of 25 counts (points 1..24, bar)."""
    b = np.asarray(board, dtype=np.int64)
    me = [0] * 25
    op = [0] * 25
    for p in range(1, 25):
        if b[p] > 0:
            me[p - 1] = int(b[p])
        elif b[p] < 0:
            op[24 - p] = int(-b[p])
    me[24] = int(b[25])
    op[24] = int(b[0])
    return tuple(op), tuple(me)


def gnubg_to_board(pair) -> np.ndarray:
    """gnubg's (opponent, on-roll) pair -> board26 from the side on roll."""
    op, me = pair
    b = np.zeros(26, dtype=np.int64)
    for p in range(1, 25):
        if me[p - 1] and op[24 - p]:
            raise BoardError(f"point {p}: both sides have checkers there")
        b[p] = me[p - 1] - op[24 - p]
    b[25] = me[24]
    b[0] = op[24]
    return as_board(b)


def _b64decode(text: str, nbytes: int, what: str) -> bytes:
    nchars = (nbytes * 8 + 5) // 6
    if len(text) != nchars:
        raise PositionError(f"{what}: expected {nchars} characters, got {len(text)} ({text!r})")
    pad = "=" * (-len(text) % 4)
    try:
        raw = base64.b64decode(text + pad, validate=True)
    except (binascii.Error, ValueError):
        raise PositionError(f"{what}: {text!r} is not base64") from None
    return raw[:nbytes]


def _b64encode(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii").rstrip("=")


def position_id(board) -> str:
    """The 14-character gnubg position ID of a board26 (side to act = gnubg's on roll)."""
    bits: list[int] = []
    for half in board_to_gnubg(board):
        for n in half:
            bits.extend([1] * n)
            bits.append(0)
    bits.extend([0] * (80 - len(bits)))
    raw = bytearray(10)
    for k, bit in enumerate(bits):
        if bit:
            raw[k // 8] |= 1 << (k % 8)
    return _b64encode(bytes(raw))


def board_from_position_id(pid: str) -> np.ndarray:
    """Decode a gnubg position ID to board26 (from the side on roll).

    Raises :class:`PositionError` naming the field for a wrong length, bad
    characters, more than 15 checkers a side, or both sides on one point.
    """
    raw = _b64decode(pid.strip(), 10, "position ID")
    halves: list[list[int]] = [[0] * 25, [0] * 25]
    side, idx = 0, 0
    for k in range(80):
        bit = (raw[k // 8] >> (k % 8)) & 1
        if side >= 2:
            if bit:
                raise PositionError(f"position ID {pid!r}: too many checkers")
            continue
        if bit:
            halves[side][idx] += 1
        else:
            idx += 1
            if idx == 25:
                side, idx = side + 1, 0
    for s, name in ((0, "opponent"), (1, "player on roll")):
        if sum(halves[s]) > 15:
            raise PositionError(f"position ID {pid!r}: the {name} has {sum(halves[s])} checkers")
    try:
        return gnubg_to_board((halves[0], halves[1]))
    except BoardError as exc:
        raise PositionError(f"position ID {pid!r}: {exc}") from None


# -- gnubg match ID -------------------------------------------------------------------------

_MATCH_FIELDS = (  # (name, bits), least significant first; no_jacoby: bit 66 (gnubg 1.x:
    # set when the Jacoby rule is off, e.g. `set jacoby off`; written by gnubg's MatchID)
    ("cube_log2", 4), ("cube_owner", 2), ("dice_owner", 1), ("crawford", 1),
    ("game_state", 3), ("turn", 1), ("doubled", 1), ("resign", 2), ("die1", 3),
    ("die2", 3), ("match_length", 15), ("score0", 15), ("score1", 15), ("no_jacoby", 1),
)


def decode_match_id(mid: str) -> dict[str, int]:
    """The 14 raw fields of a gnubg match ID (12 base64 chars: 66 bits + the no-Jacoby bit)."""
    raw = _b64decode(mid.strip(), 9, "match ID")
    value = int.from_bytes(raw, "little")
    out: dict[str, int] = {}
    shift = 0
    for name, nbits in _MATCH_FIELDS:
        out[name] = (value >> shift) & ((1 << nbits) - 1)
        shift += nbits
    return out


def encode_match_id(fields: dict[str, int]) -> str:
    """Inverse of :func:`decode_match_id` (missing fields are 0)."""
    value = 0
    shift = 0
    for name, nbits in _MATCH_FIELDS:
        v = int(fields.get(name, 0))
        if not 0 <= v < (1 << nbits):
            raise PositionError(f"match ID field {name}={v} does not fit in {nbits} bits")
        value |= v << shift
        shift += nbits
    return _b64encode(value.to_bytes(9, "little"))


def match_id(pos: Position, turn: int = 0) -> str:
    """gnubg match ID for ``pos``, the side to act being gnubg player ``turn``."""
    owner = {"centered": 3, "player": turn, "opponent": 1 - turn}[pos.cube_owner]
    score = [0, 0]
    score[turn], score[1 - turn] = pos.score
    d1, d2 = pos.dice if pos.dice else (0, 0)
    return encode_match_id(dict(
        cube_log2=int(pos.cube_value).bit_length() - 1, cube_owner=owner, dice_owner=turn,
        crawford=int(pos.crawford), game_state=1, turn=turn, die1=d1, die2=d2,
        match_length=pos.match_length, score0=score[0], score1=score[1],
        no_jacoby=int(not pos.jacoby and not pos.match_length)))


def _check_score(what: str, match_length: int, score: tuple[int, int]) -> None:
    """A match's scores are below its length (a side at the length has won the match; gnubg's
    and XG's match states never hold such a score).  Money (length 0) keeps any session score."""
    if match_length and max(score) >= match_length:
        raise PositionError(f"{what}: score {score[0]}-{score[1]} is not below the match length "
                            f"{match_length}")


def _from_gnubg(pid: str, mid: str | None) -> Position:
    board = board_from_position_id(pid)
    if mid is None:
        return Position(board)
    f = decode_match_id(mid)
    turn = f["turn"]
    owner = f["cube_owner"]
    if owner == 2:
        raise PositionError(f"match ID {mid!r}: cube owner field is 2 (must be 0, 1 or 3)")
    cube_owner = "centered" if owner == 3 else ("player" if owner == turn else "opponent")
    dice = None
    if f["die1"] or f["die2"]:
        if not (1 <= f["die1"] <= 6 and 1 <= f["die2"] <= 6):
            raise PositionError(f"match ID {mid!r}: impossible dice {f['die1']}{f['die2']}")
        dice = (f["die1"], f["die2"])
    scores = (f["score0"], f["score1"])
    _check_score(f"match ID {mid!r}", f["match_length"], scores)
    return Position(
        board, cube_value=1 << f["cube_log2"], cube_owner=cube_owner, dice=dice,
        match_length=f["match_length"], score=(scores[turn], scores[1 - turn]),
        crawford=bool(f["crawford"]), jacoby=not f["no_jacoby"], extra={"gnubg_turn": turn})


# -- XGID -------------------------------------------------------------------------------------

def _xg_char(n: int) -> str:
    if n == 0:
        return "-"
    return chr(ord("A") + n - 1) if n > 0 else chr(ord("a") - n - 1)


def xgid(pos: Position) -> str:
    """XGID of ``pos`` with the side to act as XG's bottom player (turn 1)."""
    b = np.asarray(pos.board, dtype=np.int64)
    chars = [_xg_char(int(b[0])).lower() if b[0] else "-"]
    chars += [_xg_char(int(b[p])) for p in range(1, 25)]
    chars.append(_xg_char(int(b[25])))
    cube_pos = {"centered": 0, "player": 1, "opponent": -1}[pos.cube_owner]
    dice = f"{pos.dice[0]}{pos.dice[1]}" if pos.dice else "00"
    if pos.match_length:
        flag = int(pos.crawford)
    else:
        flag = int(pos.jacoby) + 2 * int(pos.beaver)
    return (f"XGID={''.join(chars)}:{int(pos.cube_value).bit_length() - 1}:{cube_pos}:1:{dice}:"
            f"{pos.score[0]}:{pos.score[1]}:{flag}:{pos.match_length}:{pos.max_cube_log2}")


def parse_xgid(text: str) -> Position:
    """Parse an XGID (``XGID=`` prefix optional) into a :class:`Position` from the side to act."""
    body = text.strip()
    if body.upper().startswith("XGID="):
        body = body[5:]
    parts = body.split(":")
    if len(parts) < 9:
        raise PositionError(f"XGID: expected 10 ':'-separated fields, got {len(parts)}")
    s = parts[0]
    if len(s) != 26:
        raise PositionError(f"XGID position field: expected 26 characters, got {len(s)}")
    b = np.zeros(26, dtype=np.int64)
    for i, ch in enumerate(s):
        if ch == "-":
            n = 0
        elif "A" <= ch <= "O":
            n = ord(ch) - ord("A") + 1
        elif "a" <= ch <= "o":
            n = -(ord(ch) - ord("a") + 1)
        else:
            raise PositionError(f"XGID position field: bad character {ch!r} at {i}")
        b[i] = n
    if b[0] > 0 or b[25] < 0:
        raise PositionError("XGID position field: wrong side's checkers on a bar")
    b[0] = -b[0]
    try:
        cube_log2 = int(parts[1])
        cube_pos = int(parts[2])
        turn = int(parts[3])
        s1, s2 = int(parts[5]), int(parts[6])
        flag = int(parts[7])
        mlen = int(parts[8])
        max_cube = int(parts[9]) if len(parts) > 9 and parts[9] != "" else 10
    except ValueError:
        raise PositionError(f"XGID: non-numeric field in {text!r}") from None
    if not 0 <= max_cube <= 15:
        raise PositionError(f"XGID max cube field: {max_cube} (log2 of the largest cube, 0..15)")
    if turn not in (1, -1):
        raise PositionError(f"XGID turn field: {turn} (must be 1 or -1)")
    if cube_pos not in (-1, 0, 1):
        raise PositionError(f"XGID cube position field: {cube_pos} (must be -1, 0 or 1)")
    if not 0 <= cube_log2 <= 12:
        raise PositionError(f"XGID cube field: {cube_log2}")
    dtxt = parts[4]
    dice = None
    if dtxt not in ("00", "0"):
        if len(dtxt) != 2 or not dtxt.isdigit() or not all("1" <= c <= "6" for c in dtxt):
            raise PositionError(f"XGID dice field: impossible dice {dtxt!r}")
        dice = (int(dtxt[0]), int(dtxt[1]))
    try:
        board = as_board(b)
    except BoardError as exc:
        raise PositionError(f"XGID position field: {exc}") from None
    owner = {0: "centered", 1: "player", -1: "opponent"}[cube_pos]
    score = (s1, s2)
    if turn == -1:
        board = flip(board)
        owner = {"centered": "centered", "player": "opponent", "opponent": "player"}[owner]
        score = (s2, s1)
    if mlen < 0 or min(s1, s2) < 0:
        raise PositionError(f"XGID: negative score or match length in {text!r}")
    _check_score("XGID", mlen, (s1, s2))
    if mlen:
        return Position(board, 1 << cube_log2, owner, dice, mlen, score, crawford=bool(flag & 1),
                        jacoby=False, beaver=False, max_cube_log2=max_cube)
    return Position(board, 1 << cube_log2, owner, dice, 0, (0, 0), jacoby=bool(flag & 1),
                    beaver=bool(flag & 2), max_cube_log2=max_cube)


# -- any format ---------------------------------------------------------------------------

def parse_board26(text: str) -> np.ndarray:
    """Parse 26 integers separated by commas/spaces (brackets allowed) into a board26."""
    cleaned = text.replace("[", " ").replace("]", " ").replace(",", " ").split()
    try:
        vals = [int(v) for v in cleaned]
    except ValueError:
        raise PositionError(f"board26: not a list of integers: {text!r}") from None
    try:
        return as_board(vals)
    except BoardError as exc:
        raise PositionError(str(exc)) from None


def parse_position(text: str) -> Position:
    """Parse a gnubg position ID, ``ID:matchID``, XGID or board26 into a :class:`Position`.

    Raises :class:`PositionError` with a one-line message naming the field.
    """
    t = text.strip()
    if not t:
        raise PositionError("position: empty string")
    if t.upper().startswith("XGID=") or t.count(":") >= 8:
        return parse_xgid(t)
    if "," in t or " " in t or t.startswith("["):
        return Position(parse_board26(t))
    if t.upper().startswith("GNUBGID"):
        t = t.split(None, 1)[1] if " " in t else t[7:]
    if ":" in t:
        pid, mid = t.split(":", 1)
        return _from_gnubg(pid.strip(), mid.strip())
    return _from_gnubg(t, None)


def ascii_board(board, *, names=("X", "O"), dice=None, numbers: int = 0) -> str:
    """A readable board from the view of ``names[0]`` (moving 24 -> 1, home bottom right).

    ``numbers``: whose numbering the point labels use, 0 = ``names[0]``'s (13..24 along the
    top, 12..1 along the bottom), 1 = ``names[1]``'s (12..1 along the top, 13..24 along the
    bottom: its point p is our 25 - p).  The checkers are drawn the same either way.  This is
    gnubg's ``show board`` (``gnubg -t``, 1.07): O always at the top and X at the bottom,
    the points numbered from the side of the player on roll, each play written in the mover's
    own numbering.
    """
    b = np.asarray(board, dtype=np.int64)
    me, op = names
    if numbers not in (0, 1):
        raise ValueError(f"numbers: {numbers!r} (0 or 1)")

    def label(p: int) -> int:
        return 25 - p if numbers else p

    def cell(p: int, row: int) -> str:
        n = int(b[p])
        if n == 0:
            return " . " if row == 0 else "   "
        ch = me if n > 0 else op
        k = abs(n)
        if row < 4:
            return f" {ch} " if k > row else "   "
        return f"{k:>2d} " if k > 4 else (f" {ch} " if k > row else "   ")

    top = list(range(13, 25))
    bot = list(range(12, 0, -1))
    lines = [" " + "".join(f"{label(p):>3d}" for p in top[:6]) + " | "
             + "".join(f"{label(p):>3d}" for p in top[6:])]
    for row in range(5):
        lines.append(" " + "".join(cell(p, row) for p in top[:6]) + " | "
                     + "".join(cell(p, row) for p in top[6:]))
    lines.append(" " + " " * 18 + " | " + " " * 18 + f"   bar: {me} {int(b[25])}  {op} {int(b[0])}")
    for row in range(4, -1, -1):
        lines.append(" " + "".join(cell(p, row) for p in bot[:6]) + " | "
                     + "".join(cell(p, row) for p in bot[6:]))
    lines.append(" " + "".join(f"{label(p):>3d}" for p in bot[:6]) + " | "
                 + "".join(f"{label(p):>3d}" for p in bot[6:]))
    from playout.backgammon.board import checkers_off, pip_counts
    mo, oo = checkers_off(np.asarray(board, dtype=np.int8))
    mp, opp = pip_counts(np.asarray(board, dtype=np.int8))
    tail = f" {me}: pips {mp}, off {mo}   |   {op}: pips {opp}, off {oo}"
    if dice:
        tail += f"   dice {dice[0]}{dice[1]}"
    lines.append(tail)
    return "\n".join(lines)
