"""The terminal session of ``playout bg play --human``: prompts, the board from the person's
side, the engine's turns, saving the match.

The rules and the record live in :mod:`playout.backgammon.human` (:class:`BgMatch`); this
module only reads lines, prints, and asks :class:`~playout.backgammon.human.EngineSide` for the
engine's decisions.  Prompts: ``roll or double?`` (only when the person may double),
``your play (6-3):``, ``the engine doubles to 2: take or drop?``, ``dice for you`` (with
``--dice entered``).  Every bad line gets one line back and the same prompt; ``quit`` or the end
of input ends the session (exit 0) with the score.
"""

from __future__ import annotations

import random

from playout.backgammon.human import (RESIGN_LEVELS, BgMatch, EngineSide, HumanError,
                                      parse_dice, renumber, save_match)
from playout.backgammon.ids import Position
from playout.backgammon.notation import play_text

HELP = ("commands: a play in gnubg notation (8/5 6/5, 24/18*/13, bar/22, 13/11(2), 6/off); "
        "roll; double; take / drop / beaver (when doubled); hint; board; "
        "resign [single|gammon|backgammon]; quit")


class Quit(Exception):
    """The person ended the session (``quit`` or the end of input); ``str`` says which."""


class Console:
    """Line I/O: ``ask(prompt)`` returns a stripped line (:class:`Quit` at end of input or on
    ``quit``/``exit``), ``say(text, nl=True)`` prints; ``readline`` as a file's.  ``echo``:
    print each line read after its prompt (input that is not a terminal)."""

    def __init__(self, say, readline, echo: bool = False):
        self.say, self._readline, self.echo = say, readline, echo

    def ask(self, prompt: str) -> str:
        self.say(prompt, nl=False)
        line = self._readline()
        if line == "":
            self.say("")
            raise Quit("end of input")
        line = line.strip()
        if self.echo:   # input from a file or a pipe: the transcript shows what was typed
            self.say(line)
        if line.lower() in ("quit", "exit", "q"):
            raise Quit("quit")
        return line


class Dice:
    """Dice from a seeded ``random.Random`` or typed by the person (``entered``)."""

    def __init__(self, console: Console, rng: random.Random | None = None):
        self.io, self.rng = console, rng
        self.command = lambda line: False   # other commands at the dice prompt (board, help)

    def roll(self, who: str) -> tuple[int, int]:
        if self.rng is not None:
            return self.rng.randint(1, 6), self.rng.randint(1, 6)
        while True:
            line = self.io.ask(f"dice for {who} (e.g. 63): ")
            if self.command(line):
                continue
            try:
                return parse_dice(line)
            except HumanError as exc:
                self.io.say(str(exc))

    def opening(self) -> tuple[int, int]:
        if self.rng is not None:
            while True:
                a, b = self.rng.randint(1, 6), self.rng.randint(1, 6)
                if a != b:
                    return a, b
        while True:
            line = self.io.ask("opening roll: your die, then the engine's (e.g. 42): ")
            if self.command(line):
                continue
            try:
                a, b = parse_dice(line)
            except HumanError as exc:
                self.io.say(str(exc))
                continue
            if a == b:
                self.io.say(f"both dice are {a}: throw again")
                continue
            return a, b


def status_line(m: BgMatch) -> str:
    """Score, Crawford state and cube in one line, as the person sees them."""
    if m.match_length:
        head = f"match to {m.match_length}: you {m.score[0]}, the engine {m.score[1]}"
        if m.crawford_game:
            head += " (Crawford game)"
        elif m.post_crawford:
            head += " (post-Crawford)"
    else:
        head = f"money: you {m.score[0] - m.score[1]:+d}" + (" (Jacoby)" if m.jacoby else "")
    own = {None: "centred", 0: "yours", 1: "the engine's"}[m.owner]
    return f"{head}   cube {m.cube} ({own})"


def board_text(m: BgMatch, ids: bool = False) -> str:
    """The ASCII board from the person's side (X, moving 24 -> 1), the dice if the person is to
    play, the status line; with ``ids`` the position as gnubg ID:match ID and XGID."""
    from playout.backgammon.ids import ascii_board, match_id, position_id, xgid

    dice = m.dice if (m.phase == "move" and m.turn == 0) else None
    lines = [ascii_board(m.board_of(0), names=("X", "O"), dice=dice),
             " you are X (home board bottom right), the engine O;  " + status_line(m)]
    if ids and m.phase not in ("over", "match_over"):
        pos = m.position()
        lines.append(f" {position_id(pos.board)}:{match_id(pos, turn=1 if m.turn == 0 else 0)}   "
                     f"{xgid(pos)}   (side on roll: {'you' if m.turn == 0 else 'the engine'})")
    return "\n".join(lines)


class HumanGame:
    """The terminal session: player 0 is the person (``console``), player 1 ``engine``.

    ``start``: a :class:`~playout.backgammon.ids.Position` from the person's side, the person
    to roll (or to play its dice): the first game starts there with its cube and score, the
    others from the opening position.
    """

    def __init__(self, match: BgMatch, engine: EngineSide, console: Console, dice: Dice,
                 start: Position | None = None):
        self.m, self.eng, self.io, self.dice, self.start = match, engine, console, dice, start
        dice.command = self._dice_command

    def _dice_command(self, line: str) -> bool:
        w = line.lower().split()
        if w and w[0] in ("board", "help", "?"):
            return self._common(line)
        if w and w[0] in ("resign", "hint", "double"):
            self.io.say(f"{w[0]}: not at the dice prompt; type the roll (e.g. 63)")
            return True
        return False

    # -- helpers ------------------------------------------------------------------------------
    def _common(self, line: str) -> bool:
        """Commands valid at every prompt; True if ``line`` was one of them."""
        w = line.lower().split()
        if not w:
            return False
        if w[0] in ("help", "?"):
            self.io.say(HELP)
        elif w[0] == "board":
            self.io.say(board_text(self.m, ids=True))
        elif w[0] == "resign":
            level = RESIGN_LEVELS.get(w[1] if len(w) > 1 else "single")
            if level is None:
                self.io.say("resign single, resign gammon or resign backgammon")
            elif self.eng.accepts_resign(self.m, level):
                pts = self.m.resign(0, level)
                self.io.say(f"the engine accepts your resignation and wins {pts} point(s)")
            else:
                self.io.say("the engine declines your resignation; play on")
        else:
            return False
        return True

    def _hint_cube(self, side: int) -> None:
        d = self.eng.cube_hint(self.m, side)
        unit = "MWC" if self.m.match_length else "equity per cube"
        who = "your" if side == 0 else "the engine's"
        self.io.say(f"cube ({who} double, {unit}): no double {d.equity_nd:+.4f}, double/take "
                    f"{d.equity_dt:+.4f}, double/pass {d.equity_dp:+.4f}: {d.optimal_action}")

    def _hint_play(self, top: int = 5) -> None:
        mc = self.eng.move(self.m)
        best = mc.candidates[0].equity
        for i, c in enumerate(mc.candidates[:top]):
            self.io.say(f"{i + 1:>3}. {play_text(self.m.board, c.board, self.m.dice):<26} "
                        f"{c.ply}-ply  eq {c.equity:+.4f} ({c.equity - best:+.4f})  cubeful"
                        f"{' EMG' if self.m.match_length else ''}")

    # -- turns --------------------------------------------------------------------------------
    def _human_preroll(self) -> None:
        m = self.m
        if not m.may_double(0):
            m.roll(self.dice.roll("you"))
            return
        self.io.say(board_text(m))
        while m.phase == "preroll":
            line = self.io.ask("roll or double? [roll] ")
            w = line.lower()
            if w in ("", "roll", "r"):
                m.roll(self.dice.roll("you"))
            elif w in ("double", "d"):
                m.double()
                self.io.say(f"you double to {2 * m.cube}")
            elif w == "hint":
                self._hint_cube(0)
            elif not self._common(line):
                self.io.say(f"{line!r}: type roll or double (help lists the commands)")

    def _human_move(self) -> None:
        m = self.m
        legal = m.legal_plays()
        d = f"{m.dice[0]}-{m.dice[1]}"
        if len(legal) == 1:
            text = play_text(m.board, legal[0], m.dice)
            self.io.say(f"you roll {d}: " + ("no legal play" if text == "(no play)" else
                                           f"forced play {text}"))
            self._report(m.play(legal[0]), 0)
            return
        self.io.say(board_text(m))
        while m.phase == "move":
            line = self.io.ask(f"your play ({d}): ")
            w = line.lower()
            if not line:
                continue
            if w == "hint":
                self._hint_play()
            elif w in ("double", "d"):
                self.io.say(f"cannot double: {m.why_no_double(0)}")
            elif w in ("take", "drop", "pass", "beaver", "roll"):
                self.io.say(f"{w}: not now; type your play for {d}")
            elif not self._common(line):
                try:
                    self._report(m.play_text(line), 0)
                except HumanError as exc:
                    self.io.say(str(exc))

    def _human_answer(self) -> None:
        m = self.m
        self.io.say(board_text(m))
        opts = "take, drop or beaver" if (m.beaver_allowed and not m.match_length) else "take or drop"
        while m.phase == "doubled":
            line = self.io.ask(f"the engine doubles to {2 * m.cube}: {opts}? ")
            w = line.lower()
            if w in ("take", "t"):
                m.take()
                self.io.say(f"you take; the cube is {m.cube} and yours")
            elif w in ("drop", "pass", "p"):
                m.drop()
                self._report(m.game.points, 1, how="you drop")
            elif w == "beaver":
                try:
                    m.beaver()
                    self.io.say(f"you beaver; the cube is {m.cube} and yours")
                except HumanError as exc:
                    self.io.say(str(exc))
            elif w == "hint":
                self._hint_cube(1)
            elif not self._common(line):
                self.io.say(f"{line!r}: type {opts}")

    def _engine_turn(self) -> None:
        m = self.m
        if m.phase == "preroll":
            if self.eng.wants_double(m):
                m.double()
                self._human_answer()
                if m.phase != "preroll":
                    return
            m.roll(self.dice.roll("the engine"))
        mc = self.eng.move(m)
        d, before = m.dice, m.board.copy()
        pts = m.play(mc.board)
        text = play_text(before, mc.board, d)
        if text == "(no play)":
            self.io.say(f"the engine rolls {d[0]}-{d[1]}: no legal play")
        else:
            self.io.say(f"the engine rolls {d[0]}-{d[1]}: {text}   (in your numbering: "
                        f"{renumber(text)})")
        self._report(pts, 1)

    def _report(self, points: int, winner: int, how: str | None = None) -> None:
        m = self.m
        if m.phase not in ("over", "match_over"):
            return
        who = "you win" if winner == 0 else "the engine wins"
        kind = {1: "", 2: " (gammon)", 3: " (backgammon)"}
        level = points // m.cube if m.cube else points
        extra = "" if how else kind.get(level, "")
        if how is None:
            self.io.say(board_text(m))
        self.io.say(f"{how + ': ' if how else ''}{who} {points} point(s){extra}. {status_line(m)}")

    # -- the session ---------------------------------------------------------------------------
    def run(self) -> str:
        """Play until the match ends (money: until quit); returns why it stopped."""
        m = self.m
        try:
            while True:
                if m.phase == "match_over":
                    w = m.winner
                    self.io.say(f"match over: {'you win' if w == 0 else 'the engine wins'} "
                                f"{max(m.score)}-{min(m.score)}")
                    return "match over"
                if m.phase == "over":
                    if m.games and not m.match_length:
                        self.io.ask("press enter for the next game (or quit) ")
                    self._new_game()
                elif m.phase == "opening":
                    a, b = self.dice.opening()
                    m.opening(a, b)
                    self.io.say(f"opening roll: you {a}, the engine {b}: "
                                f"{'you start' if m.turn == 0 else 'the engine starts'} with "
                                f"{m.dice[0]}-{m.dice[1]}")
                elif m.turn == 0 and m.phase == "preroll":
                    self._human_preroll()
                elif m.turn == 0 and m.phase == "move":
                    self._human_move()
                elif m.turn == 0 and m.phase == "doubled":
                    ans = self.eng.answer(m)
                    getattr(m, ans)()
                    if ans == "drop":
                        self._report(m.game.points, 0, how="the engine drops")
                    else:
                        self.io.say(f"the engine {'beavers' if ans == 'beaver' else 'takes'}; "
                                    f"the cube is {m.cube} and the engine's")
                else:
                    self._engine_turn()
        except Quit as why:
            self.io.say(f"session ended ({why}) after {len(m.games)} game(s). {status_line(m)}")
            return str(why)

    def _new_game(self) -> None:
        m = self.m
        if self.start is not None and not m.games:
            s = self.start
            m.score = [int(s.score[0]), int(s.score[1])]
            m.crawford_game = bool(s.crawford)
            m.crawford_done = bool(m.match_length) and not s.crawford and (
                m.match_length - 1 in m.score)
            owner = {"centered": None, "player": 0, "opponent": 1}[s.cube_owner]
            m.new_game(s.board, turn=0, cube=s.cube_value, owner=owner)
            if s.dice is not None:
                m.roll(s.dice)
        else:
            m.new_game()
        self.io.say(f"\ngame {len(m.games)}. {status_line(m)}")


def parse_match(text: str | None) -> int:
    """``--match``: ``"money"`` (or None) -> 0, ``"N"`` -> N >= 1; HumanError otherwise."""
    if text is None or text.strip().lower() == "money":
        return 0
    try:
        n = int(text)
    except ValueError:
        raise HumanError(f"--match: {text!r} is not a match length (a number, or money)") from None
    if not 1 <= n <= 64:
        raise HumanError(f"--match: {n} is out of range (1..64 points, or money)")
    return n


def run_cli(*, seed: int, ply: int, evaluator, cube_evaluator=None, match_text: str | None, dice_mode: str,
            save_path: str | None, sgf_path: str | None, jacoby: bool, beaver: bool,
            start: Position | None) -> BgMatch:
    """``playout bg play --human``: options checked (one-line errors), the session played on
    stdin/stdout, the match written to ``save_path`` / ``sgf_path`` at the end."""
    import sys

    import click

    try:
        n = parse_match(match_text)
        if start is not None and start.match_length:
            if match_text is not None and n != start.match_length:
                raise HumanError(f"--match {n} contradicts the position's match ID "
                                 f"({start.match_length}-point match)")
            n = start.match_length
        if start is not None and n and max(start.score) >= n:
            raise HumanError(f"--position: score {start.score} is not below the match length {n}")
        m = BgMatch(n, jacoby=jacoby, beaver=beaver)
    except HumanError as exc:
        raise click.BadParameter(str(exc), param_hint="--match" if "--" not in str(exc)
                                 else None) from None
    if start is not None and (save_path or sgf_path):
        raise click.BadParameter(".mat and SGF games start from the opening position; "
                                 "--save/--sgf cannot record a game from --position",
                                 param_hint="--position")
    if start is not None and not n:
        start = Position(start.board, cube_value=start.cube_value, cube_owner=start.cube_owner,
                         dice=start.dice)
    console = Console(click.echo, sys.stdin.readline, echo=not sys.stdin.isatty())
    dice = Dice(console, random.Random(seed) if dice_mode == "rolled" else None)
    eng = EngineSide(evaluator, ply, cube_evaluator=cube_evaluator)
    kind = f"a {n}-point match" if n else "money play" + (
        " (" + ", ".join(x for x, on in (("Jacoby", jacoby), ("beavers", beaver)) if on) + ")"
        if (jacoby or beaver) else "")
    console.say(f"{kind} against {evaluator.name} at {ply}-ply; dice {dice_mode}"
                f"{f' (seed {seed})' if dice_mode == 'rolled' else ''}. Type help for commands.")
    HumanGame(m, eng, console, dice, start).run()
    players = ("human", f"playout-{evaluator.name}-{ply}ply".replace(" ", "_"))
    for path, kind in ((save_path, "mat"), (sgf_path, "sgf")):
        if path:
            try:
                save_match(m, path, kind, players=players)
            except OSError as exc:
                raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None
            except (HumanError, ValueError) as exc:
                raise click.ClickException(f"cannot write {path}: {exc}") from None
            click.echo(f"saved {path}")
    return m
