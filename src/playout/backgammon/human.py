"""A person against the engine: ``playout bg play --human`` (match to N points, or money).

Two layers:

* :class:`BgMatch`, an I/O-free state machine for a match (or a money session): whose
  turn it is, the dice, the cube (value and owner), the score, the Crawford game and
  post-Crawford play, the end of a game by bearing off (single / gammon / backgammon),
  a dropped double or an accepted resignation, and a log of every action.  Illegal
  requests raise :class:`HumanError` with a one-line message.  Tests drive it directly.
* :class:`EngineSide`, the engine's decisions: checker play by cubeful equity for the cube
  and score (:func:`playout.backgammon.checkerplay.choose_play`) at the chosen ply, cube actions by
  :func:`playout.backgammon.cube.cube_action` (gnubg 1.07's 0-ply cube model), resignations
  accepted when they give at least the cubeless value of playing on.
* :func:`to_record` / :func:`save_match`: the session as a
  :class:`playout.backgammon.matchfile.Match`, written as ``.mat`` or SGF.

The terminal loop around them is :mod:`playout.backgammon.human_play`.

Rules (standard backgammon and match play as gnubg 1.07 applies them, see
``../shared/docs/backgammon.md``):

* **Opening**: each player throws one die, equal dice are thrown again, and the higher die
  starts, playing both numbers; no one may double before the first play.
* **Cube**: the side on roll may double before rolling if the cube is centred or its own;
  the opponent takes (owning the doubled cube) or drops (the doubler wins the value of the
  cube before the double).  Money play with beavers: the taker may beaver (take and at once
  redouble, owning the cube at four times its old value); a beaver cannot be refused (gnubg
  1.07: "accepts and immediately redoubles to 4", the beaverer owns the 4-cube).  The
  Jacoby rule (money, when on): gammons and backgammons count as single games while the cube
  is centred.
* **Match play** to N points: the first game after a player first reaches N-1 points is the
  Crawford game, in which neither side may double; after it (post-Crawford) the trailer may
  double, the leader's cube is dead.  A side may not double a cube whose value already
  gives it the match (gnubg: the away score must exceed the cube value).
* **Scoring**: 1, 2 or 3 times the cube value for a single game, gammon (the loser has borne
  off nothing) or backgammon (also a loser's checker on the bar or in the winner's home
  board), :func:`playout.backgammon.board.game_result`.

Plays are typed as gnubg and XG write them (``8/5 6/5``, ``24/18*/13``, ``bar/22``,
``13/11(2)``, ``6/off``): :func:`parse_play` reads them against the legal plays of
:func:`playout.backgammon.moves.legal_moves`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from playout.backgammon.board import STARTING_BOARD, flip, game_result
from playout.backgammon.ids import Position
from playout.backgammon.moves import legal_moves
from playout.backgammon.notation import PlayError, play_text
from playout.backgammon.notation import parse_play as parse_play_text

NAMES = ("you", "the engine")
RESIGN_LEVELS = {"single": 1, "normal": 1, "gammon": 2, "backgammon": 3}


class HumanError(ValueError):
    """A request the rules or the input do not allow; the message is one line."""


# -- reading a play -------------------------------------------------------------------------------

def parse_play(text: str, board, dice) -> np.ndarray:
    """The board after the play ``text`` (gnubg notation) from ``board`` with ``dice``.

    ``board``: board26 from the mover's side; returns the legal board it names (mover's view).
    The play is identified by where the mover's checkers end up; hits that the text marks
    with ``*`` choose between plays that differ only in hitting (gnubg writes every hit, so
    ``24/13`` with 6-5 means the play that does not hit on the way).  The grammar and the
    search are :func:`playout.backgammon.notation.parse_play`'s.  Raises :class:`HumanError`
    (one line) for text that is not a play, a play that is not legal with the dice, or one
    that matches several legal plays.
    """
    t = text.strip()
    d = f"{dice[0]}-{dice[1]}"
    if not t.replace(",", " ").split():
        raise HumanError("empty play")
    try:
        return parse_play_text(board, dice, t)
    except PlayError as exc:
        if exc.kind == "checkers":
            where = "on the bar" if exc.point == 25 else f"on point {exc.point}"
            raise HumanError(f"{t!r}: you do not have that many checkers {where}") from None
        if exc.kind in ("illegal", "no-play", "dice"):
            why = exc.why or "all of a roll must be played when it can be"
            raise HumanError(f"{t!r} is not a legal play with {d} ({why}; 'hint' lists the "
                             "best plays)") from None
        if exc.kind == "ambiguous":
            raise HumanError(f"{t!r} is ambiguous with {d}: {' or '.join(exc.options)} "
                             "(mark hits with *)") from None
        raise HumanError(str(exc)) from None


def renumber(text: str) -> str:
    """A play written in the mover's numbering, in the other side's (point p -> 25 - p)."""
    return re.sub(r"\d+(?!\))", lambda mt: str(25 - int(mt.group())), text)


def parse_dice(text: str) -> tuple[int, int]:
    """``"63"``, ``"6 3"``, ``"6-3"`` -> (6, 3); :class:`HumanError` for anything else."""
    t = text.strip().replace("-", "").replace(",", "").replace(" ", "")
    if len(t) != 2 or not all("1" <= c <= "6" for c in t):
        raise HumanError(f"{text.strip()!r} is not a roll (two dice 1..6, e.g. 63)")
    return int(t[0]), int(t[1])


# -- the match state machine ----------------------------------------------------------------------

@dataclass
class Action:
    """One logged action.  ``kind``: ``move`` (``dice``, ``play`` in the mover's gnubg
    notation, ``before``/``after`` board26 from the mover's side), ``double`` (``cube`` = the
    new value offered), ``take``, ``drop``, ``beaver`` (``cube`` = the value after it),
    ``resign`` (``points`` = the points given, accepted), ``win`` (``points`` to ``player``,
    the last action of a finished game).  ``player`` 0 = the person, 1 = the engine."""

    kind: str
    player: int
    dice: tuple[int, int] | None = None
    play: str | None = None
    before: list | None = None
    after: list | None = None
    cube: int | None = None
    points: int | None = None


@dataclass
class GameRecord:
    """One game: the score before it (player 0, player 1), whether it was the Crawford game,
    the actions, and (when finished) the winner and points."""

    score: tuple[int, int]
    crawford: bool
    actions: list[Action] = field(default_factory=list)
    winner: int | None = None
    points: int = 0
    start: list | None = None   # board26 from player 0's side if not the opening position


class BgMatch:
    """Match (``match_length`` > 0) or money session (0) between player 0 and player 1.

    The board is kept from the side on turn (:attr:`board`, board26).  Phases:
    ``opening`` (the opening roll decides who starts), ``preroll`` (the side on turn may
    double, then rolls), ``doubled`` (the other side must take, drop or beaver), ``move``
    (dice rolled, the side on turn plays), ``over`` (game finished), ``match_over``.
    Every method that the rules forbid now raises :class:`HumanError`.
    """

    def __init__(self, match_length: int = 0, *, jacoby: bool = False, beaver: bool = False,
                 names=NAMES):
        if match_length < 0:
            raise HumanError(f"match length {match_length}: must be >= 1 (or 0 for money)")
        if match_length and (jacoby or beaver):
            raise HumanError("the Jacoby rule and beavers are money-play rules")
        self.match_length = int(match_length)
        self.jacoby = bool(jacoby)
        self.beaver_allowed = bool(beaver)
        self.names = tuple(names)
        self.score = [0, 0]
        self.crawford_game = False   # this game is the Crawford game
        self.crawford_done = False   # the Crawford game has been played
        self.games: list[GameRecord] = []
        self.phase = "over"
        self.board = STARTING_BOARD.copy()
        self.turn = 0
        self.dice: tuple[int, int] | None = None
        self.cube = 1
        self.owner: int | None = None   # None = centred
        self._rolled_after_take = False

    # -- state ------------------------------------------------------------------------------
    @property
    def game(self) -> GameRecord:
        return self.games[-1]

    @property
    def post_crawford(self) -> bool:
        """A match game after the Crawford game (a side is 1-away, this is not the Crawford game)."""
        return (bool(self.match_length) and not self.crawford_game
                and self.match_length - 1 in self.score)

    def away(self, player: int) -> int:
        return self.match_length - self.score[player]

    def board_of(self, player: int) -> np.ndarray:
        """The board26 from ``player``'s side."""
        return self.board.copy() if player == self.turn else flip(self.board)

    def owner_of(self, player: int) -> str:
        """The cube owner as ``player`` sees it: centered, player (its own) or opponent."""
        if self.owner is None:
            return "centered"
        return "player" if self.owner == player else "opponent"

    def position(self, player: int | None = None) -> Position:
        """:class:`playout.backgammon.ids.Position` from ``player``'s side (default: on turn)."""
        p = self.turn if player is None else player
        return Position(self.board_of(p), cube_value=self.cube, cube_owner=self.owner_of(p),
                        dice=self.dice if (p == self.turn and self.phase == "move") else None,
                        match_length=self.match_length, score=(self.score[p], self.score[1 - p]),
                        crawford=self.crawford_game, jacoby=self.jacoby,
                        beaver=self.beaver_allowed)

    def why_no_double(self, player: int) -> str | None:
        """Why ``player`` may not double now (one line), or ``None`` if it may."""
        if self.phase in ("over", "match_over"):
            return "the game is over"
        if self.phase == "opening":
            return "no one may double before the first play"
        if self.match_length and self.crawford_game:
            return "no doubling in the Crawford game"
        if self.owner is not None and self.owner != player:
            return f"the cube belongs to {self.names[1 - player]}"
        if self.match_length and self.away(player) <= self.cube:
            return (f"the cube is dead: {self.cube} point(s) already win the match for "
                    f"{self.names[player]}")
        if self.phase == "doubled":
            return "a double is already on the table"
        if self.turn != player:
            return "the cube is turned on one's own turn, before rolling"
        if self.phase == "move":
            return "the cube is turned before the roll, not after"
        if self._rolled_after_take:
            return "the double was just taken: roll"
        return None

    def may_double(self, player: int) -> bool:
        return self.why_no_double(player) is None

    # -- game flow ----------------------------------------------------------------------------
    def new_game(self, start=None, *, turn: int | None = None, cube: int = 1,
                 owner: int | None = None) -> None:
        """Start the next game: from the opening position (``phase`` becomes ``opening``), or
        from ``start`` (board26 from player 0's side) with player ``turn`` to roll (``preroll``)."""
        if self.phase == "match_over":
            raise HumanError("the match is over")
        if self.games and self.phase != "over":
            raise HumanError("the game in progress is not finished")
        self.games.append(GameRecord(tuple(self.score), self.crawford_game,
                                     start=None if start is None else [int(v) for v in start]))
        self.cube, self.owner, self.dice = int(cube), owner, None
        self._rolled_after_take = False
        if start is None:
            self.board = STARTING_BOARD.copy()
            self.phase = "opening"
        else:
            t = 0 if turn is None else int(turn)
            b0 = np.asarray(start, dtype=np.int8)
            self.board = b0.copy() if t == 0 else flip(b0)
            self.turn = t
            self.phase = "preroll"

    def opening(self, die0: int, die1: int) -> None:
        """The opening roll: player 0's die and player 1's; the higher starts with both."""
        self._need("opening")
        if die0 == die1:
            raise HumanError(f"both dice are {die0}: the opening roll is thrown again")
        for d in (die0, die1):
            if not 1 <= d <= 6:
                raise HumanError(f"die {d}: must be 1..6")
        self.turn = 0 if die0 > die1 else 1
        self.board = STARTING_BOARD.copy()
        self.dice = (die0, die1) if self.turn == 0 else (die1, die0)
        self.phase = "move"

    def double(self) -> None:
        """The side on turn doubles (before rolling)."""
        why = self.why_no_double(self.turn)
        if why:
            raise HumanError(f"cannot double: {why}")
        self.phase = "doubled"
        self.game.actions.append(Action("double", self.turn, cube=2 * self.cube))

    def take(self) -> None:
        """The side doubled takes: it owns the doubled cube; the doubler rolls."""
        self._need("doubled")
        self.cube *= 2
        self.owner = 1 - self.turn
        self.phase = "preroll"
        self._rolled_after_take = True
        self.game.actions.append(Action("take", 1 - self.turn, cube=self.cube))

    def beaver(self) -> None:
        """Money: the side doubled takes and redoubles at once, owning a cube of 4x the old value."""
        self._need("doubled")
        if self.match_length or not self.beaver_allowed:
            raise HumanError("beavers are not allowed" + (" in match play" if self.match_length
                                                         else " (play with --beaver)"))
        self.cube *= 4
        self.owner = 1 - self.turn
        self.phase = "preroll"
        self._rolled_after_take = True
        self.game.actions.append(Action("beaver", 1 - self.turn, cube=self.cube))

    def drop(self) -> None:
        """The side doubled drops: the doubler wins the cube's value before the double."""
        self._need("doubled")
        self.game.actions.append(Action("drop", 1 - self.turn))
        self._end(self.turn, self.cube)

    def roll(self, dice: tuple[int, int]) -> None:
        """The side on turn rolls ``dice``."""
        self._need("preroll")
        d = (int(dice[0]), int(dice[1]))
        if not all(1 <= v <= 6 for v in d):
            raise HumanError(f"dice {d}: each must be 1..6")
        self.dice = d
        self.phase = "move"
        self._rolled_after_take = False

    def legal_plays(self) -> np.ndarray:
        """int8[n, 26]: the boards the side on turn may reach with the dice (its view)."""
        self._need("move")
        return legal_moves(self.board, *self.dice)

    def play(self, after) -> int:
        """Play to board ``after`` (mover's view; must be legal).  Returns the points won by
        the mover if this ended the game (cube and Jacoby applied), else 0."""
        self._need("move")
        a = np.asarray(after, dtype=np.int8)
        legal = legal_moves(self.board, *self.dice)
        if not any(np.array_equal(a, b) for b in legal):
            raise HumanError(f"not a legal play with {self.dice[0]}-{self.dice[1]}")
        self.game.actions.append(Action("move", self.turn, self.dice, play_text(self.board, a, self.dice),
                                        [int(v) for v in self.board], [int(v) for v in a]))
        r = int(game_result(a))
        if r:
            level = 1 if (self.jacoby and not self.match_length and self.owner is None) else r
            pts = level * self.cube
            self._end(self.turn, pts)
            return pts
        self.board = flip(a)
        self.turn = 1 - self.turn
        self.dice = None
        self.phase = "preroll"
        return 0

    def play_text(self, text: str) -> int:
        """:meth:`play` of a play typed in gnubg notation (:func:`parse_play`)."""
        self._need("move")
        return self.play(parse_play(text, self.board, self.dice))

    def resign(self, player: int, level: int) -> int:
        """``player`` resigns a single (1), gammon (2) or backgammon (3) game and the opponent
        accepts: it wins ``level`` x the cube.  Returns those points."""
        if self.phase in ("over", "match_over", "opening"):
            raise HumanError("there is no game in progress to resign")
        if level not in (1, 2, 3):
            raise HumanError(f"resign level {level}: 1 single, 2 gammon, 3 backgammon")
        pts = level * self.cube
        self.game.actions.append(Action("resign", player, points=pts))
        self._end(1 - player, pts)
        return pts

    def _need(self, phase: str) -> None:
        if self.phase != phase:
            raise HumanError(f"not now: the game is at {self.phase!r}, this needs {phase!r}")

    def _end(self, winner: int, points: int) -> None:
        g = self.game
        g.winner, g.points = winner, int(points)
        g.actions.append(Action("win", winner, points=int(points)))
        self.score[winner] += int(points)
        self.dice = None
        self.phase = "over"
        if not self.match_length:
            return
        if self.crawford_game:
            self.crawford_game, self.crawford_done = False, True
        if max(self.score) >= self.match_length:
            self.phase = "match_over"
            return
        if not self.crawford_done and self.score[winner] == self.match_length - 1:
            self.crawford_game = True   # the first time a side is 1-away: the next game

    @property
    def winner(self) -> int | None:
        """The match winner (match play, once over), else ``None``."""
        if self.phase != "match_over":
            return None
        return 0 if self.score[0] >= self.match_length else 1


# -- the engine -------------------------------------------------------------------------------

class EngineSide:
    """The engine's decisions for player 1: checker play by cubeful equity at ``ply``
    (:func:`playout.backgammon.checkerplay.choose_play`) with ``evaluator``, cube actions by
    :func:`playout.backgammon.cube.cube_action` at ``ply`` with ``cube_evaluator`` (``None``:
    ``evaluator``; ``bg play --human`` passes the default cube network with the default net),
    which also values the position when a resignation is offered."""

    def __init__(self, evaluator, ply: int = 1, player: int = 1, cube_evaluator=None):
        self.ev, self.ply, self.me = evaluator, int(ply), player
        self.cube_ev = cube_evaluator if cube_evaluator is not None else evaluator

    def _cube(self, m: BgMatch, side: int):
        from playout.backgammon.cube import cube_action

        pos = m.position(side)
        return cube_action(pos.board, m.cube, m.owner_of(side), self.cube_ev, self.ply,
                           jacoby=m.jacoby, beaver=m.beaver_allowed,
                           match_length=m.match_length, score=pos.score,
                           crawford=m.crawford_game)

    def wants_double(self, m: BgMatch) -> bool:
        return m.may_double(self.me) and self._cube(m, self.me).double

    def answer(self, m: BgMatch) -> str:
        """``take``, ``drop`` or ``beaver`` to the double on the table (doubler on turn)."""
        d = self._cube(m, m.turn)
        if d.is_beaver and m.beaver_allowed and not m.match_length:
            return "beaver"
        return "take" if d.take else "drop"

    def cube_hint(self, m: BgMatch, side: int):
        return self._cube(m, side)

    def move(self, m: BgMatch):
        """The plays of the roll on the table, best first by cubeful equity for the cube and
        score of ``m`` (:func:`playout.backgammon.checkerplay.choose_play`, gnubg's ranking)."""
        from playout.backgammon.checkerplay import choose_play
        from playout.backgammon.search import MoveChoice

        pos = m.position(m.turn)
        plays = choose_play(m.board, m.dice, self.ev, self.ply, cube_value=m.cube,
                            cube_owner=m.owner_of(m.turn), jacoby=m.jacoby,
                            match_length=m.match_length, score=pos.score, crawford=m.crawford_game)
        return MoveChoice(plays[0].board, plays, self.ply)

    def accepts_resign(self, m: BgMatch, level: int) -> bool:
        """Whether the engine takes ``level`` x cube rather than play on (cubeless: money
        points, or match winning chances from the Kazaross-XG2 table at the score)."""
        from playout.backgammon.cube import _Score
        from playout.backgammon.search import pre_roll_probs

        if m.turn == self.me:
            p = pre_roll_probs(self.cube_ev, m.board_of(self.me), self.ply)
        else:
            q = pre_roll_probs(self.cube_ev, m.board_of(1 - self.me), self.ply)
            p = np.array([1 - q[0], q[3], q[4], q[1], q[2]])
        w, wg, wbg, lg, lbg = (float(v) for v in p)
        if not m.match_length:
            if m.jacoby and m.owner is None:
                return level >= 2 * w - 1 - 1e-9
            play_on = w + wg + wbg - (1 - w) - lg - lbg
            return level >= play_on - 1e-9
        s = _Score(m.away(self.me), m.away(1 - self.me), m.crawford_game)
        c = m.cube
        mine = [(w - wg, 1), (wg - wbg, 2), (wbg, 3)]
        theirs = [(1 - w - lg, 1), (lg - lbg, 2), (lbg, 3)]
        on = (sum(pr * s.mwc(0, 0, k * c) for pr, k in mine)
              + sum(pr * s.mwc(0, 1, k * c) for pr, k in theirs))
        return s.mwc(0, 0, level * c) >= on - 1e-9


def to_record(m: BgMatch, players=("human", "playout")):
    """The session as a :class:`playout.backgammon.matchfile.Match` (player 0 = the person).

    Games that never started (no action) are left out; an unfinished last game is kept
    without a winner.  A beaver is recorded as gnubg's ``.mat`` writes one: ``Doubles => 2``,
    ``Beavers => 4``, then the doubler's ``Takes``.  Raises :class:`HumanError` for a game
    that began from a set-up position (``--position``): ``.mat`` games start from the opening.
    """
    from playout.backgammon import matchfile as mf

    rec = mf.Match(players=tuple(players), length=m.match_length, jacoby=m.jacoby)
    for g in m.games:
        if not g.actions:
            continue
        if g.start is not None:
            raise HumanError("a game that starts from --position cannot be written as .mat/SGF "
                             "(their games start from the opening position)")
        out = mf.Game(score=tuple(g.score), crawford=g.crawford, winner=g.winner, points=g.points)
        for a in g.actions:
            if a.kind == "move":
                out.actions.append(mf.Action(a.player, "move", dice=tuple(a.dice),
                                             play="" if a.play == "(no play)" else a.play))
            elif a.kind in ("double", "take", "drop"):
                out.actions.append(mf.Action(a.player, a.kind, value=a.cube or 0))
            elif a.kind == "beaver":
                out.actions.append(mf.Action(a.player, "beaver", value=a.cube))
            elif a.kind == "resign":
                out.actions.append(mf.Action(a.player, "resign", value=_resign_level(m, g, a)))
        if g.winner is None:
            out.points = 0
        rec.games.append(out)
    return rec


def _resign_level(m: BgMatch, g: GameRecord, a: Action) -> int:
    """Points per cube of an accepted resignation (1, 2 or 3)."""
    cube = 1
    for b in g.actions:
        if b is a:
            break
        if b.kind in ("take", "beaver"):
            cube = b.cube
    return max(1, a.points // cube)


def save_match(m: BgMatch, path: str, kind: str, *, players=("human", "playout")) -> None:
    """Write the session as ``kind`` (``mat`` or ``sgf``) with
    :func:`playout.backgammon.matchfile.write_mat` / ``write_sgf``.  Raises
    :class:`HumanError` (see :func:`to_record`) and ``OSError``."""
    from playout.backgammon import matchfile as mf

    rec = to_record(m, players)
    (mf.write_mat if kind == "mat" else mf.write_sgf)(rec, path)
