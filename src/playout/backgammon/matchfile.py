"""Backgammon match files: Jellyfish ``.mat`` and gnubg's SGF (``GM[6]``), read and written.

The record (:class:`Match` > :class:`Game` > :class:`Action`) is the same for both formats.
Players are indexed 0 and 1 in the file's order: the left column of a ``.mat`` file, SGF's
``W`` (gnubg's player 0) for 0 and the right column / ``B`` for 1.  Every play read is
replayed with the rules of :mod:`playout.backgammon.moves` and checked for legality; a bad
file raises :class:`MatchFileError` with one line ``FILE:LINE: game G move M: what``.

Formats (checked against files GNU Backgammon 1.07 writes with ``export match mat`` and
``save match``, fixtures in ``tests/data/bg/``):

* ``.mat`` (Jellyfish, as FIBS, GridGammon, XG and gnubg export it): `` N point match``
  (0 = money), `` Game K``, a score line ``name0 : s0    name1 : s1``, then numbered rows
  ``  7) 52: 13/8 24/22              63: 8/5 11/5`` with player 0's action on the left and
  player 1's on the right; a roll with no legal play is the dice alone (``66:``); cube
  actions `` Doubles => 2``, ``Takes``, ``Drops``, ``Beavers => 4``; the game ends with
  ``Wins N point(s)`` in the winner's column.  Points are the mover's (24 .. 1), ``25`` or
  ``bar`` is the bar, ``0`` or ``off`` borne off.  A game that ends without a finished
  bear-off or a drop was resigned.  The Crawford game is derived from the scores (gnubg
  writes no mark); a `` Game K (Crawford)`` or ``*`` mark is accepted too.  The format has
  no Jacoby field: a money file is read with the Jacoby rule on, as gnubg's ``import mat``
  assumes (its default), unless a ``; [Jacoby "Off"]`` comment says otherwise.
* SGF (gnubg ``sgf.c``): one game tree per game; root ``MI[length:L][game:G][ws:S0][bs:S1]``,
  ``PW``/``PB`` names, ``RU[Crawford]`` / ``RU[Crawford:CrawfordGame]`` (``Jacoby`` for money),
  ``RE[W+2]`` (``RE[W+8R]``: won by resignation); move nodes ``W[52mhxv]``: the dice then one letter pair per checker step,
  letters ``a``..``x`` = points numbered from player 0's side (player 0's point ``p`` is
  ``chr(96 + p)``, player 1's is ``chr(121 - p)``), ``y`` the bar, ``z`` off;
  ``W[double]``, ``B[take]``, ``B[drop]``; a beaver is written ``W[double]`` ``B[double]``
  ``W[take]`` (the taker redoubles, the doubler accepts; ``B[beaver]`` is read too).
  Analysis properties are ignored.  A beaver (both formats) leaves the beaverer owning the
  redoubled cube (gnubg 1.07; no raccoons).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from playout.backgammon.board import STARTING_BOARD, flip, game_result
from playout.backgammon.notation import PlayError, parse_play, play_steps, play_text

KINDS = ("move", "double", "take", "drop", "beaver", "resign")


class MatchFileError(ValueError):
    """A match file is malformed or records an illegal play; the message is one line
    ``FILE:LINE: game G move M: what``."""


@dataclass
class Action:
    """One action in a game.

    ``player`` 0/1 (the file's order); ``kind`` in :data:`KINDS`; ``dice`` ``(d1, d2)`` for a
    move; ``play`` the play in gnubg notation (:func:`playout.backgammon.notation.play_text`,
    ``""`` when the roll has no legal play); ``value``: the cube value offered by a double or
    beaver, the points per cube (1/2/3) conceded by a resignation.  ``line``: source line
    (0 when built in code).  After :func:`replay`: ``before`` / ``after`` boards (board26
    from ``player``'s side), ``cube_value`` and ``cube_owner`` (None = centred, else the
    owning player) before the action.
    """

    player: int
    kind: str
    dice: tuple[int, int] | None = None
    play: str = ""
    value: int = 0
    line: int = 0
    before: np.ndarray | None = field(default=None, repr=False, compare=False)
    after: np.ndarray | None = field(default=None, repr=False, compare=False)
    cube_value: int = field(default=1, repr=False, compare=False)
    cube_owner: int | None = field(default=None, repr=False, compare=False)


@dataclass
class Game:
    """One game: ``score`` (player 0's, player 1's points) before it, ``crawford`` (this is
    the Crawford game), the actions in order, ``winner`` (0/1, None if unfinished) and the
    ``points`` won."""

    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    actions: list[Action] = field(default_factory=list)
    winner: int | None = None
    points: int = 0
    line: int = 0


@dataclass
class Match:
    """A match (``length`` points, 0 = money session) between ``players`` (two names)."""

    players: tuple[str, str] = ("player0", "player1")
    length: int = 0
    games: list[Game] = field(default_factory=list)
    jacoby: bool = False
    crawford_rule: bool = True
    path: str = ""


# -- plays ----------------------------------------------------------------------------------

def apply_play(board, dice, text: str) -> np.ndarray:
    """The board after ``text`` (``24/18*/13 6/5(2)``, ``25/21``, ``6/0``, ``bar/22 6/off``)
    played with ``dice`` from ``board`` (board26 from the mover's side).

    gnubg's exported steps are replayed as written, in order (a checker that lands on a blot
    hits it, marked or not); otherwise the checkers' landing squares fix the result among the
    legal plays, ``*`` marks choosing between plays that differ only in hits passed through
    (:func:`playout.backgammon.notation.parse_play` with ``as_written``).  Raises
    ``ValueError`` naming the problem for a play that is not legal with these dice (never
    guessed).  ``""`` = no play (legal only when none exists).
    """
    try:
        return parse_play(board, dice, text, as_written=True)
    except PlayError as exc:
        if exc.kind == "token":
            raise ValueError(f"cannot read {exc} (a play reads e.g. 24/18*/13 6/5(2))") from None
        raise


def _steps_text(before, after, dice) -> str:
    """The play as single-die steps, gnubg's ``.mat`` style (``13/11 24/23``, ``25/21``,
    ``6/0``, ``22/19*``)."""
    steps = play_steps(before, after, dice)
    if steps is None:
        raise ValueError("play does not match the dice")
    return " ".join(f"{s}/{d}{'*' if h else ''}" for s, d, h in steps)


# -- replay ---------------------------------------------------------------------------------

def _err(path, line, g, m, what) -> MatchFileError:
    return MatchFileError(f"{path or '<match>'}:{line}: game {g} move {m}: {what}")


def crawford_flags(match: Match) -> list[bool]:
    """Whether each game is the Crawford game, from the scores (the first game in which a
    side is ``length - 1`` points up, i.e. one point from winning)."""
    out = []
    seen = False
    for g in match.games:
        at = match.length and match.crawford_rule and (match.length - 1) in g.score
        out.append(bool(at and not seen))
        seen = seen or bool(at)
    return out


def replay(match: Match) -> Match:
    """Replay every game, checking each play's legality and the cube's order; fills each
    action's ``before``/``after``/``cube_value``/``cube_owner`` and, where the file leaves
    it implicit, the game's ``winner``/``points`` and trailing resignation.  Returns ``match``.
    Raises :class:`MatchFileError` (one line) at the first fault.
    """
    path = match.path
    for gi, game in enumerate(match.games, 1):
        if match.length and max(game.score) >= match.length:  # the match was already won
            raise MatchFileError(f"{path or '<match>'}:{game.line}: game {gi}: score "
                                 f"{game.score[0]}-{game.score[1]} is not below the match "
                                 f"length {match.length}")
        b0 = STARTING_BOARD.copy()  # board from player 0's side
        cube, owner = 1, None
        pending = None  # (doubler, value) while a double awaits its answer
        last_mover = None
        ended = None  # (winner, points)
        for mi, a in enumerate(game.actions, 1):
            line = a.line or game.line
            if ended is not None and a.kind != "resign":
                raise _err(path, line, gi, mi, f"action after the end of the game ({a.kind})")
            board = b0 if a.player == 0 else flip(b0)
            a.before = board.copy()
            a.cube_value, a.cube_owner = cube, owner
            if a.kind == "move":
                if pending is not None:
                    raise _err(path, line, gi, mi, "a move while a double awaits take or drop")
                if last_mover == a.player:
                    raise _err(path, line, gi, mi, f"player {a.player} moves twice in a row")
                if a.dice is None:
                    raise _err(path, line, gi, mi, "a move without dice")
                try:
                    after = apply_play(board, a.dice, a.play)
                except ValueError as exc:
                    raise _err(path, line, gi, mi, str(exc)) from None
                a.play = play_text(board, after, a.dice) if not np.array_equal(board, after) else ""
                a.after = after
                b0 = after if a.player == 0 else flip(after)
                last_mover = a.player
                r = int(game_result(after))
                if r > 0:
                    pts = r * cube
                    if not match.length and match.jacoby and owner is None:
                        pts = cube
                    ended = (a.player, pts)
            elif a.kind == "double":
                if pending is not None:
                    raise _err(path, line, gi, mi, "a double while another awaits its answer")
                if owner is not None and owner != a.player:
                    raise _err(path, line, gi, mi, f"player {a.player} doubles but does not own the cube")
                if match.length and any(game.score) and game.crawford:
                    raise _err(path, line, gi, mi, "a double in the Crawford game")
                pending = (a.player, 2 * cube)
                a.value = a.value or 2 * cube
            elif a.kind == "beaver":
                if pending is None or pending[0] == a.player:
                    raise _err(path, line, gi, mi, "a beaver without a double to answer")
                # gnubg 1.07: the beaverer takes and redoubles at once and keeps the cube; the
                # doubler has no answer to give (``Doubles => 2`` / ``Beavers => 4``, then the
                # doubler's roll; no raccoons)
                cube, owner = 2 * pending[1], a.player
                pending = None
                a.value = a.value or cube
            elif a.kind == "take":
                if pending is None or pending[0] == a.player:
                    raise _err(path, line, gi, mi, "a take without a double to answer")
                cube, owner, pending = pending[1], a.player, None
            elif a.kind == "drop":
                if pending is None or pending[0] == a.player:
                    raise _err(path, line, gi, mi, "a drop without a double to answer")
                ended = (1 - a.player, pending[1] // 2)
                pending = None
            elif a.kind == "resign":
                if ended is None:
                    ended = (1 - a.player, a.value * cube)
            else:
                raise _err(path, line, gi, mi, f"unknown action {a.kind!r}")
        if ended is None and game.winner is not None:
            # the file says who won: a resignation it does not spell out
            loser = 1 - game.winner
            per = max(1, game.points // cube) if game.points else 1
            game.actions.append(Action(loser, "resign", value=min(per, 3), line=game.line,
                                       before=(b0 if loser == 0 else flip(b0)).copy(),
                                       cube_value=cube, cube_owner=owner))
            ended = (game.winner, game.points)
        if ended is not None:
            if game.winner is not None and game.winner != ended[0]:
                raise _err(path, game.line, gi, len(game.actions),
                           f"the file says player {game.winner} won, the plays say player {ended[0]}")
            game.winner = ended[0]
            game.points = game.points or ended[1]
    return match


# -- .mat -----------------------------------------------------------------------------------

_ACTION = re.compile(
    r"(?P<move>(?P<d>[1-6])(?P<e>[1-6]):(?P<play>(?:\s+(?:bar|\d+)(?:/(?:bar|off|\d+)\*?)+(?:\(\d\))?)*))"
    r"|(?P<double>Doubles\s*=>\s*(?P<dv>\d+))|(?P<beaver>Beavers\s*=>\s*(?P<bv>\d+))"
    r"|(?P<take>Takes|Accepts)|(?P<drop>Drops|Passes|Rejects)"
    r"|(?P<wins>Wins\s+(?P<pts>\d+)\s+points?(?:\s+and\s+the\s+match)?)"
    r"|(?P<resign>Resigns?\b[^\n]*?(?=\s{2,}|$))",
    re.IGNORECASE)
_SCORE = re.compile(r"^\s*(?P<a>.*?)\s*:\s*(?P<sa>\d+)\s*\*?\s+(?P<b>\S.*?)\s*:\s*(?P<sb>\d+)\s*\*?\s*$")
_RIGHT_COL = 20  # an action starting at or past this column of a row is player 1's


def read_mat(path) -> Match:
    """Read a Jellyfish ``.mat`` file into a replayed :class:`Match` (see the module doc).

    Raises :class:`MatchFileError` naming the file, line, game and move.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise MatchFileError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_mat(text, str(path))


def parse_mat(text: str, path: str = "<mat>") -> Match:
    """Parse ``.mat`` text (see :func:`read_mat`)."""
    match = Match(path=path)
    names: tuple[str, str] | None = None
    game: Game | None = None
    gi = 0
    length_seen = False
    jacoby_seen = False
    for ln, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        s = line.strip()
        if not s or s.startswith(";"):
            if s.startswith(";") and "Jacoby" in s:
                match.jacoby = '"On"' in s or '"on"' in s.lower()
                jacoby_seen = True
            continue
        m = re.match(r"^(\d+)\s+point\s+match", s, re.IGNORECASE)
        if m and game is None:
            match.length = int(m.group(1))
            length_seen = True
            continue
        m = re.match(r"^Game\s+(\d+)(.*)$", s, re.IGNORECASE)
        if m:
            gi += 1
            game = Game(line=ln, crawford="crawford" in m.group(2).lower())
            match.games.append(game)
            continue
        if game is None:
            if length_seen:
                raise MatchFileError(f"{path}:{ln}: expected ' Game 1', got {s[:40]!r}")
            continue
        if not game.actions and game.winner is None and ":" in s and not re.match(r"^\d+\)", s):
            m = _SCORE.match(line)
            if m:
                na, nb = m.group("a").strip(), m.group("b").strip()
                if names is None:
                    names = (na, nb)
                game.score = (int(m.group("sa")), int(m.group("sb")))
                if "*" in line or "crawford" in line.lower():
                    game.crawford = True
                continue
        m = re.match(r"^\s*(\d+)\)", line)
        body_start = m.end() if m else 0
        body = line[body_start:]
        found = list(_ACTION.finditer(body))
        if not found:
            raise MatchFileError(f"{path}:{ln}: game {gi}: cannot read {s[:50]!r}")
        # what is not matched must be blank
        rest = _ACTION.sub("", body).strip()
        if rest:
            raise MatchFileError(f"{path}:{ln}: game {gi}: cannot read {rest[:40]!r}")
        for i, f in enumerate(found):
            if len(found) == 2:
                player = i
            else:
                col = f.start() + body_start
                player = 1 if col >= _RIGHT_COL + (0 if m else 5) else 0
            _add(game, f, player, ln, path, gi)
    if names is not None:
        match.players = names
    if not match.length and not jacoby_seen:
        match.jacoby = True  # .mat has no Jacoby field: gnubg's import assumes its default, on
    if not match.games:
        raise MatchFileError(f"{path}:1: no ' Game 1' found: not a .mat match file")
    for g, c in zip(match.games, crawford_flags(match)):
        g.crawford = g.crawford or c
    return replay(match)


def _add(game: Game, f, player: int, ln: int, path, gi: int) -> None:
    if f.group("move"):
        dice = (int(f.group("d")), int(f.group("e")))
        game.actions.append(Action(player, "move", dice, f.group("play").strip(), line=ln))
    elif f.group("double"):
        game.actions.append(Action(player, "double", value=int(f.group("dv")), line=ln))
    elif f.group("beaver"):
        game.actions.append(Action(player, "beaver", value=int(f.group("bv")), line=ln))
    elif f.group("take"):
        game.actions.append(Action(player, "take", line=ln))
    elif f.group("drop"):
        game.actions.append(Action(player, "drop", line=ln))
    elif f.group("wins"):
        game.winner = player
        game.points = int(f.group("pts"))
    elif f.group("resign"):
        pass  # the "Wins N points" that follows says how much


def _cell(a: Action) -> str:
    if a.kind == "move":
        d = f"{a.dice[0]}{a.dice[1]}:"
        if a.before is not None and a.after is not None and not np.array_equal(a.before, a.after):
            return f"{d} {_steps_text(a.before, a.after, a.dice)}"
        return f"{d} {a.play}".rstrip() if a.play else d
    if a.kind == "double":
        return f" Doubles => {a.value}"
    if a.kind == "beaver":
        return f" Beavers => {a.value}"
    if a.kind == "take":
        return " Takes"
    if a.kind == "drop":
        return " Drops"
    return ""


def format_mat(match: Match) -> str:
    """``.mat`` text for ``match`` in gnubg's export layout (the module doc); plays are
    written as single-die steps (``13/11 24/23``), as gnubg writes them."""
    replay(match)
    out = []
    if not match.length:
        out += [f'; [Jacoby "{"On" if match.jacoby else "Off"}"]', ""]
    out += [f" {match.length} point match", ""]
    for gi, g in enumerate(match.games, 1):
        out.append(f" Game {gi}")
        a_name = f" {match.players[0]} : {g.score[0]}"
        out.append(f"{a_name:<32}{match.players[1]} : {g.score[1]}")
        slots: list[str | None] = []  # alternating left/right cells
        for a in g.actions:
            if a.kind == "resign":
                continue
            if len(slots) % 2 != a.player:
                slots.append(None)
            slots.append(_cell(a))
        if g.winner is not None:
            if len(slots) % 2 != g.winner:
                slots.append(None)
            slots.append(f" Wins {g.points} point{'s' if g.points != 1 else ''}")
        rows = [slots[i:i + 2] for i in range(0, len(slots), 2)]
        for ri, row in enumerate(rows, 1):
            left = row[0] or ""
            right = (row[1] if len(row) > 1 else None) or ""
            wins_row = left.startswith(" Wins") or (not left and right.startswith(" Wins"))
            prefix = "     " if wins_row else f"{ri:3d}) "
            out.append(f"{prefix}{left:<{max(28, len(left) + 1)}}{right}".rstrip())
        out.append("")
    return "\n".join(out) + "\n"


def write_mat(match: Match, path) -> None:
    """Write ``match`` as a ``.mat`` file (:func:`format_mat`)."""
    Path(path).write_text(format_mat(match), encoding="utf-8")


# -- SGF ------------------------------------------------------------------------------------

_PROP = re.compile(r"([A-Z]+)((?:\s*\[(?:[^\]\\]|\\.)*\])+)", re.S)
_VAL = re.compile(r"\[((?:[^\]\\]|\\.)*)\]", re.S)


def _sgf_trees(text: str):
    """Yield each game tree as a list of nodes ``(line, {prop: [values]})``."""
    i, n = 0, len(text)
    depth = 0
    nodes: list = []
    line = 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        if c == "[":  # skip a value
            j = i + 1
            while j < n and text[j] != "]":
                if text[j] == "\\":
                    j += 1
                j += 1
            line += text.count("\n", i, j)
            i = j + 1
            continue
        if c == "(":
            depth += 1
            if depth == 1:
                nodes = []
        elif c == ")":
            depth -= 1
            if depth == 0:
                yield nodes
        elif c == ";" and depth >= 1:
            j = i + 1
            start_line = line
            # the node runs to the next unbracketed ';', '(' or ')'
            k = j
            while k < n and text[k] not in ";()":
                if text[k] == "[":
                    k += 1
                    while k < n and text[k] != "]":
                        if text[k] == "\\":
                            k += 1
                        k += 1
                k += 1
            props: dict[str, list[str]] = {}
            for pm in _PROP.finditer(text, j, k):
                props.setdefault(pm.group(1), []).extend(
                    v.replace("\\]", "]").replace("\\\\", "\\") for v in _VAL.findall(pm.group(2)))
            nodes.append((start_line, props))
            line += text.count("\n", i, k)
            i = k
            continue
        i += 1


def _sgf_point(ch: str, player: int) -> int:
    if ch == "y":
        return 25
    if ch == "z":
        return 0
    k = ord(ch) - ord("a")
    if not 0 <= k < 24:
        raise ValueError(f"bad point letter {ch!r}")
    return k + 1 if player == 0 else 24 - k


def _sgf_letter(p: int, player: int) -> str:
    if p == 25:
        return "y"
    if p == 0:
        return "z"
    return chr(ord("a") + (p - 1 if player == 0 else 24 - p))


def read_sgf(path) -> Match:
    """Read gnubg's backgammon SGF (``GM[6]``) into a replayed :class:`Match`.

    Raises :class:`MatchFileError` naming the file, line, game and move.
    """
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise MatchFileError(f"{path}: cannot read: {exc.strerror}") from None
    return parse_sgf(text, str(path))


def parse_sgf(text: str, path: str = "<sgf>") -> Match:
    """Parse SGF text (see :func:`read_sgf`)."""
    match = Match(path=path)
    for gi, nodes in enumerate(_sgf_trees(text), 1):
        if not nodes:
            continue
        ln, root = nodes[0]
        if root.get("GM", ["6"])[0] != "6":
            raise MatchFileError(f"{path}:{ln}: game {gi}: GM[{root['GM'][0]}] is not backgammon (GM[6])")
        mi = {}
        for v in root.get("MI", []):
            k, _, val = v.partition(":")
            mi[k] = val
        try:
            match.length = int(mi.get("length", match.length))
            score = (int(mi.get("ws", 0)), int(mi.get("bs", 0)))
        except ValueError:
            raise MatchFileError(f"{path}:{ln}: game {gi}: bad MI[...] value") from None
        if "PW" in root or "PB" in root:
            match.players = (root.get("PW", [match.players[0]])[0], root.get("PB", [match.players[1]])[0])
        ru = " ".join(root.get("RU", []))
        match.jacoby = "Jacoby" in ru
        game = Game(score=score, crawford="CrawfordGame" in ru, line=ln)
        re_ = root.get("RE", [""])[0]
        m = re.match(r"^([WB])\+(\d+)", re_)
        if m:
            game.winner = 0 if m.group(1) == "W" else 1
            game.points = int(m.group(2))
        for mi_, (nl, props) in enumerate(nodes[1:], 1):
            for color, player in (("W", 0), ("B", 1)):
                if color not in props:
                    continue
                v = props[color][0].strip().lower()
                prev = game.actions[-1] if game.actions else None
                if (v == "double" and prev is not None and prev.kind == "double"
                        and prev.player != player):
                    # gnubg 1.07 writes a beaver as the taker's redouble while the double is
                    # pending (W[double] B[double]), then the doubler's take (W[take])
                    game.actions.append(Action(player, "beaver", line=nl))
                elif (v == "take" and prev is not None and prev.kind == "beaver"
                        and prev.player != player):
                    pass  # the doubler's acceptance of the beaver: no answer to record
                elif v in ("double", "take", "drop", "beaver"):
                    game.actions.append(Action(player, v, line=nl))
                elif v.startswith("resign"):
                    pass
                elif re.match(r"^[1-6][1-6][a-z]*$", v) and len(v) % 2 == 0:
                    dice = (int(v[0]), int(v[1]))
                    try:
                        parts = [f"{_sgf_point(v[i], player)}/{_sgf_point(v[i + 1], player)}"
                                 for i in range(2, len(v), 2)]
                    except ValueError as exc:
                        raise MatchFileError(f"{path}:{nl}: game {gi} move {mi_}: {exc}") from None
                    game.actions.append(Action(player, "move", dice, " ".join(parts), line=nl))
                else:
                    raise MatchFileError(f"{path}:{nl}: game {gi} move {mi_}: cannot read {color}[{v[:20]}]")
        match.games.append(game)
    if not match.games:
        raise MatchFileError(f"{path}:1: no game tree '(;GM[6]...)' found: not an SGF match file")
    return replay(match)


def _sgf_esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace("]", "\\]")


def format_sgf(match: Match) -> str:
    """gnubg SGF text for ``match`` (one game tree per game, no analysis)."""
    replay(match)
    trees = []
    for gi, g in enumerate(match.games):
        ru = []
        if match.length and match.crawford_rule:
            ru.append("Crawford:CrawfordGame" if g.crawford else "Crawford")
        if not match.length and match.jacoby:
            ru.append("Jacoby")
        root = (f"(;FF[4]GM[6]CA[UTF-8]AP[playout]MI[length:{match.length}][game:{gi}]"
                f"[ws:{g.score[0]}][bs:{g.score[1]}]PW[{_sgf_esc(match.players[0])}]"
                f"PB[{_sgf_esc(match.players[1])}]" + (f"RU[{':'.join(ru)}]" if ru else ""))
        if g.winner is not None:  # gnubg marks a resigned game with R (RE[W+8R])
            resigned = bool(g.actions) and g.actions[-1].kind == "resign"
            root += f"RE[{'WB'[g.winner]}+{g.points}{'R' if resigned else ''}]"
        nodes = [root]
        for a in g.actions:
            c = "WB"[a.player]
            if a.kind == "move":
                steps = play_steps(a.before, a.after, a.dice) or []
                mv = "".join(_sgf_letter(s, a.player) + _sgf_letter(d, a.player) for s, d, _ in steps)
                nodes.append(f";{c}[{a.dice[0]}{a.dice[1]}{mv}]")
            elif a.kind == "beaver":  # as gnubg 1.07: the taker redoubles, the doubler takes
                nodes.append(f";{c}[double]")
                nodes.append(f";{'WB'[1 - a.player]}[take]")
            elif a.kind in ("double", "take", "drop"):
                nodes.append(f";{c}[{a.kind}]")
        trees.append("\n".join(nodes) + ")")
    return "\n".join(trees) + "\n"


def write_sgf(match: Match, path) -> None:
    """Write ``match`` as gnubg SGF (:func:`format_sgf`)."""
    Path(path).write_text(format_sgf(match), encoding="utf-8")


def read_match(path) -> Match:
    """Read a ``.mat`` or ``.sgf`` file (by content: SGF starts with ``(;``)."""
    try:
        head = Path(path).read_text(encoding="utf-8", errors="replace")[:200].lstrip()
    except OSError as exc:
        raise MatchFileError(f"{path}: cannot read: {exc.strerror}") from None
    return read_sgf(path) if head.startswith("(;") else read_mat(path)
