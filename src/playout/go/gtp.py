"""GTP version 2 engine (Go Text Protocol, Farnebäck's draft 2 spec) over :class:`~playout.go.player.Player`.

Commands: protocol_version, name, version, known_command, list_commands, quit, boardsize,
clear_board, komi, fixed_handicap, place_free_handicap, set_free_handicap, play, genmove,
reg_genmove, undo, showboard, final_score, final_status_list, time_settings, time_left, loadsgf,
printsgf, is_legal, list_stones (as GNU Go 3.8 has them), kgs-genmove_cleanup, kgs-rules, and
the analysis extensions GUIs use (Sabaki, Lizzie): ``lz-analyze``/``analyze``, ``kata-analyze``,
``lz-genmove_analyze``/``genmove_analyze``, ``kata-genmove_analyze`` (:meth:`GtpEngine.stream`).
Legality follows the engine's ruleset (:mod:`playout.go.rulesets`; ``playout gtp --rules``).  Any malformed or unknown input answers ``? message`` and the
engine keeps running.  :meth:`GtpEngine.handle` takes one
line and returns the full response (``"= ...\\n\\n"``), so tests drive it in-process.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from playout.go.board import (
    BLACK,
    MAX_SIZE,
    MIN_SIZE,
    PASS,
    WHITE,
    Board,
    IllegalMove,
    gtp_to_point,
    point_to_gtp,
)
from playout.go.gtp_analysis import COLORS, AnalysisArgError, analysis_args, info_line
from playout.go.handicap import fixed_handicap_vertices, free_handicap_vertices
from playout.go.player import Player
from playout.go.tree import Snapshot
from playout.go.rulesets import DEFAULT_RULES, KGS_RULES, Ruleset, get_ruleset
from playout.go.search import AMAF_WEIGHT, FPU, PRIOR_N, UCT_C
from playout.go.sgf import SetupNode, SgfError, board_to_sgf, read_game
from playout.go.tables import DEFAULT_DATABASE, Table, load_table
from playout.go.timing import TimeUse

NAME = "playout"
VERSION = "0.1.0"


class GtpFailure(Exception):
    """A command that fails: answered ``? <message>``."""


def parse_color(s: str) -> int:
    c = COLORS.get(s.lower())
    if c is None:
        raise GtpFailure("invalid color")
    return c


class GtpEngine:
    """The engine state: a :class:`Board` with its undo stack and a :class:`Player`."""

    def __init__(self, size: int = 9, komi: float = 7.0, table: Table | None = None,
                 playouts: int | None = 10000, seconds: float | None = None, threads: int = 1,
                 seed: int = 1, resign: float = 0.08, rave_k: float = 1000.0,
                 transpositions: bool = True, rules: Ruleset | str = DEFAULT_RULES,
                 tactics: int = 0, reply: int = 0, lgrf: int = 0, twolib: int = 0,
                 uct_c: float = UCT_C, fpu: float = FPU, prior_n: float = PRIOR_N,
                 twolib_escape: int = 2, prior_table: Table | None = None,
                 parallel: str = "root", virtual_loss: float | None = None,
                 time_use: TimeUse | None = None, amaf_weight: int = AMAF_WEIGHT,
                 root_uct_c: float | None = None, nakade: int = 0):
        self.player = Player(table or load_table(DEFAULT_DATABASE), playouts=playouts,
                             seconds=seconds, threads=threads, parallel=parallel,
                             virtual_loss=virtual_loss, seed=seed,
                             resign=resign,
                             rave_k=rave_k, transpositions=transpositions, tactics=tactics,
                             reply=reply, lgrf=lgrf, twolib=twolib, uct_c=uct_c, fpu=fpu,
                             prior_n=prior_n, twolib_escape=twolib_escape,
                             prior_table=prior_table, time_use=time_use,
                             amaf_weight=amaf_weight, root_uct_c=root_uct_c, nakade=nakade)
        self.size = size
        self.komi = komi
        self.rules = get_ruleset(rules)
        self.board = Board(size, komi, rules=self.rules)
        self.undo_stack: list[Board] = []
        self.setup: Board | None = None  # the position before the first move (handicap, SGF setup)
        self.handicap = 0  # stones of fixed/place_free/set_free_handicap or the SGF's HA; printsgf's HA
        self.later_setup: list[SetupNode] = []  # SGF setup nodes after the first move (loadsgf)
        self.quit = False
        self.log = None  # a callable for analysis lines (stderr in the CLI)
        self.commands = {
            "protocol_version": self.cmd_protocol_version,
            "name": lambda a: NAME,
            "version": lambda a: VERSION,
            "known_command": self.cmd_known_command,
            "list_commands": lambda a: "\n".join(sorted(self.commands)),
            "quit": self.cmd_quit,
            "boardsize": self.cmd_boardsize,
            "clear_board": self.cmd_clear_board,
            "komi": self.cmd_komi,
            "fixed_handicap": self.cmd_fixed_handicap,
            "place_free_handicap": self.cmd_place_free_handicap,
            "set_free_handicap": self.cmd_set_free_handicap,
            "play": self.cmd_play,
            "genmove": self.cmd_genmove,
            "reg_genmove": self.cmd_reg_genmove,
            "kgs-genmove_cleanup": self.cmd_genmove_cleanup,
            "undo": self.cmd_undo,
            "showboard": lambda a: "\n" + str(self.board),
            "final_score": self.cmd_final_score,
            "final_status_list": self.cmd_final_status_list,
            "time_settings": self.cmd_time_settings,
            "time_left": self.cmd_time_left,
            "loadsgf": self.cmd_loadsgf,
            "printsgf": self.cmd_printsgf,
            "is_legal": self.cmd_is_legal,
            "list_stones": self.cmd_list_stones,
            "kgs-rules": self.cmd_kgs_rules,
        }
        #: commands whose answer is streamed (:meth:`stream`): name -> (format, commits a move)
        self.streaming = {
            "lz-analyze": ("lz", False), "analyze": ("lz", False), "kata-analyze": ("kata", False),
            "lz-genmove_analyze": ("lz", True), "genmove_analyze": ("lz", True),
            "kata-genmove_analyze": ("kata", True),
        }
        for name in self.streaming:
            self.commands[name] = None  # listed and known; run by handle() through stream()

    # -- protocol -------------------------------------------------------------------------------
    def handle(self, line: str, write: Callable[[str], None] | None = None,
               interrupted: Callable[[], bool] | None = None) -> str:
        """Response to one input line ("" for empty/comment lines), ids echoed.

        An analysis command (:attr:`streaming`) given ``write`` sends its answer through it
        as it goes and returns ""; ``lz-analyze``/``kata-analyze`` then search until
        ``interrupted()`` is true.  Without ``write`` (tests, scripts) they search for the
        engine's move budget (``--playouts``/``--seconds``) and return the whole answer."""
        text = "".join(ch if (ch == "\t" or ch == "\n" or 32 <= ord(ch) != 127) else "" for ch in line)
        text = text.split("#", 1)[0].replace("\t", " ").strip()
        if not text:
            return ""
        parts = text.split()
        cid = ""
        if parts[0].isdigit():
            cid = parts.pop(0)
            if not parts:
                return f"?{cid} missing command\n\n"
        cmd, args = parts[0], parts[1:]
        fn = self.commands.get(cmd)
        try:
            if cmd in self.streaming:
                return self.stream(cmd, args, cid, write, interrupted)
            if fn is None:
                raise GtpFailure("unknown command")
            out = fn(args)
        except GtpFailure as exc:
            return f"?{cid} {exc}\n\n"
        except Exception as exc:  # last line of defence: the engine keeps running
            return f"?{cid} internal error: {type(exc).__name__}: {exc}\n\n"
        out = "" if out is None else str(out)
        return f"={cid} {out}\n\n" if out else f"={cid}\n\n"

    def serve(self, stdin=None, stdout=None) -> None:
        """Read commands until ``quit`` or end of input.

        A reader thread queues the input lines, so that a running ``lz-analyze`` sees the next
        command (or an empty line) as soon as it arrives and stops (KataGo's GTP extensions:
        "will terminate upon any new GTP command being received, as well as upon a raw
        newline"); that line is then handled as usual."""
        stdin = stdin or sys.stdin
        stdout = stdout or sys.stdout
        lines: queue.Queue = queue.Queue()

        def reader() -> None:
            try:
                for ln in stdin:
                    lines.put(ln)
            finally:
                lines.put(None)

        threading.Thread(target=reader, daemon=True, name="gtp-stdin").start()

        def write(text: str) -> None:
            stdout.write(text)
            stdout.flush()

        while True:
            line = lines.get()
            if line is None:
                break
            resp = self.handle(line, write, lambda: not lines.empty())
            if resp:
                write(resp)
            if self.quit:
                break

    # -- analysis (Leela Zero / KataGo GTP extensions: playout.go.gtp_analysis) ----------------
    def stream(self, cmd: str, args: list[str], cid: str = "",
               write: Callable[[str], None] | None = None,
               interrupted: Callable[[], bool] | None = None) -> str:
        """``lz-analyze [color] [interval] ...`` and its kin (Leela Zero's GTP extensions as
        KataGo documents them, docs/GTP_Extensions.md).

        The answer is ``=`` on a line of its own, then one line of ``info move M visits V
        winrate W prior P lcb L order K pv M ...`` (every candidate of
        :meth:`Player.candidates`) each ``interval`` centiseconds (none with interval 0),
        ended by an empty line.  Values are the side to move's.  ``lz-analyze``/``analyze``/
        ``kata-analyze`` analyse the position (for ``color``, the side to move by default)
        without playing, until the next input line arrives (``interrupted``); the
        ``genmove_analyze`` forms search for the move budget as ``genmove`` does, play the
        move, and end with the line ``play VERTEX`` (or ``play resign``) after a last batch
        of the search's final statistics; they are not interrupted by input.  Without
        ``write`` (no live input) ``lz-analyze`` also ends with such a last batch.  Bad arguments answer ``? ...`` before any search.
        """
        fmt, commits = self.streaming[cmd]
        try:
            color, interval, opts = analysis_args(args, self.board.to_move)
        except AnalysisArgError as exc:
            raise GtpFailure(str(exc)) from None
        buf: list[str] = []
        out = write if write is not None else buf.append
        out(f"={cid}\n")
        last: list = []

        def report(snap) -> None:
            line = info_line(snap, fmt, opts, self.size, color)
            last[:] = [line]
            if line:
                out(line + "\n")

        if commits:
            b = self.board.copy()
            b.to_move = color
            mv = self._genmove(["b" if color == BLACK else "w"], True, report=report,
                               interval=interval)
            if interval > 0 and self._last_info.top:  # the final statistics of the search
                report(self._final_snapshot(b))
            out(f"play {mv}\n\n")
        else:
            b = self.board.copy()
            b.to_move = color
            pl = self.player
            if write is None or interrupted is None:  # no live input: the move budget
                sec, n = pl.budget(b, color)
                pl.analyze(b, sec, n, report=report, interval=interval)
            else:
                pl.analyze(b, stop=interrupted, report=report, interval=interval)
                while not interrupted():  # the search ended by itself (superko bans only)
                    time.sleep(0.01)
            if write is None and interval > 0:  # a last batch, so that the answer shows one
                report(self._final_snapshot(b))
            out("\n")
        return "".join(buf)

    def _final_snapshot(self, b: Board) -> Snapshot:
        """The finished search of ``b`` as a :class:`Snapshot`."""
        pl = self.player
        own = pl.owner / max(1, pl.owner_n) if pl.owner is not None else np.zeros(b.S.shape[1])
        return Snapshot(pl.candidates(b), pl.owner_n, 0.0, own)

    # -- commands -------------------------------------------------------------------------------
    def cmd_protocol_version(self, a):
        return "2"

    def cmd_known_command(self, a):
        if len(a) != 1:
            raise GtpFailure("syntax error")
        return "true" if a[0] in self.commands else "false"

    def cmd_quit(self, a):
        self.quit = True
        return ""

    def cmd_boardsize(self, a):
        if len(a) != 1 or not a[0].isdigit():
            raise GtpFailure("syntax error")
        n = int(a[0])
        if not MIN_SIZE <= n <= MAX_SIZE:
            raise GtpFailure("unacceptable size")
        self.size = n
        self.cmd_clear_board([])
        return ""

    def cmd_clear_board(self, a):
        self.board = Board(self.size, self.komi, rules=self.rules)
        self.undo_stack = []
        self.setup = None
        self.handicap = 0
        self.later_setup = []
        for t in self.player.trees:
            t.reset()
        return ""

    def cmd_komi(self, a):
        try:
            k = float(a[0]) if len(a) == 1 else None
        except ValueError:
            k = None
        if k is None or k != k or abs(k) > 1000:
            raise GtpFailure("syntax error")
        self.komi = k
        self.board.komi = k
        for t in self.player.trees:
            t.reset()
        return ""

    # -- handicap (GTP v2 sections 4.1 and 6.3.2) ----------------------------------------------
    def _check_empty(self):
        if self.board.stones(BLACK) or self.board.stones(WHITE):
            raise GtpFailure("board not empty")

    def _stone_count(self, a) -> int:
        if len(a) != 1 or not a[0].isdigit():
            raise GtpFailure("syntax error")
        return int(a[0])

    def _place_handicap(self, points: list[int]) -> None:
        """Black stones on ``points`` (not in the move record), White to move."""
        colors = self.board.S[0].copy()
        colors[points] = BLACK
        self.board = Board.from_colors(self.size, colors, WHITE, self.komi, self.rules)
        self.setup = self.board.copy()
        self.handicap = len(points)
        self.later_setup = []
        self.undo_stack = []
        for t in self.player.trees:
            t.reset()

    def cmd_fixed_handicap(self, a):
        n = self._stone_count(a)
        try:
            vertices = fixed_handicap_vertices(n, self.size)
        except ValueError:
            raise GtpFailure("invalid number of stones") from None
        self._check_empty()
        self._place_handicap([gtp_to_point(v, self.size) for v in vertices])
        return " ".join(vertices)

    def cmd_place_free_handicap(self, a):
        n = self._stone_count(a)
        if not 2 <= n < self.size * self.size:
            raise GtpFailure("invalid number of stones")
        self._check_empty()
        vertices = free_handicap_vertices(n, self.size)
        self._place_handicap([gtp_to_point(v, self.size) for v in vertices])
        return " ".join(vertices)

    def cmd_set_free_handicap(self, a):
        if not a:
            raise GtpFailure("syntax error")
        self._check_empty()
        try:
            points = [gtp_to_point(v, self.size) for v in a]
        except ValueError:
            raise GtpFailure("bad vertex list") from None
        if (PASS in points or len(set(points)) != len(points)
                or not 2 <= len(points) < self.size * self.size):
            raise GtpFailure("bad vertex list")
        self._place_handicap(points)
        return ""

    def _vertex(self, s: str) -> int:
        try:
            return gtp_to_point(s, self.size)
        except ValueError:
            raise GtpFailure("invalid vertex") from None

    def cmd_play(self, a):
        if len(a) != 2:
            raise GtpFailure("syntax error")
        c = parse_color(a[0])
        p = self._vertex(a[1])
        prev = self.board.copy()
        try:
            self.board.play(p, c)
        except IllegalMove:
            raise GtpFailure("illegal move") from None
        self.undo_stack.append(prev)
        return ""

    def _genmove(self, a, commit: bool, cleanup: bool = False, report=None, interval: float = 0.0):
        if len(a) != 1:
            raise GtpFailure("syntax error")
        c = parse_color(a[0])
        info = self.player.genmove(self.board, c, report=report, interval=interval)
        self._last_info = info
        mv = info.move
        if cleanup and mv == PASS:
            opp_dead = [p for p in self.player.dead_stones(self.board) if self.board.color[p] != c]
            if opp_dead:
                b = self.board.copy()
                b.to_move = c
                legal = set(b.legal_moves())
                for gtpv, _, _ in info.top:
                    p = gtp_to_point(gtpv, self.size)
                    if p != PASS and p in legal:
                        mv = p
                        break
        if self.log:
            self.log(f"{point_to_gtp(mv, self.size) if mv >= 0 else 'resign'} winrate "
                     f"{info.winrate:.3f} playouts {info.playouts} time {info.seconds:.2f}s "
                     f"top {', '.join(f'{v} {n} visits {w:.3f}' for v, n, w in info.top)}")
        if mv < 0:
            return "resign"
        if commit:
            prev = self.board.copy()
            try:
                self.board.play(mv, c)
            except IllegalMove:  # should not happen; fall back to a pass
                mv = PASS
                self.board.play(PASS, c)
            self.undo_stack.append(prev)
        return point_to_gtp(mv, self.size)

    def cmd_genmove(self, a):
        return self._genmove(a, True)

    def cmd_reg_genmove(self, a):
        return self._genmove(a, False)

    def cmd_genmove_cleanup(self, a):
        return self._genmove(a, True, cleanup=True)

    def cmd_undo(self, a):
        if not self.undo_stack:
            raise GtpFailure("cannot undo")
        self.board = self.undo_stack.pop()
        return ""

    def cmd_final_score(self, a):
        s = self.player.final_score(self.board)
        if s == 0:
            return "0"
        return f"B+{s:g}" if s > 0 else f"W+{-s:g}"

    def cmd_final_status_list(self, a):
        if len(a) != 1 or a[0] not in ("alive", "dead", "seki"):
            raise GtpFailure("syntax error")
        dead = set(self.player.dead_stones(self.board))
        if a[0] == "seki":
            return ""
        stones = [p for p in self.board.points() if self.board.color[p] in (BLACK, WHITE)]
        sel = [p for p in stones if (p in dead) == (a[0] == "dead")]
        return " ".join(point_to_gtp(p, self.size) for p in sel)

    def cmd_time_settings(self, a):
        try:
            main, byo, stones = float(a[0]), float(a[1]), int(a[2])
        except (ValueError, IndexError):
            raise GtpFailure("syntax error") from None
        if len(a) != 3 or main < 0 or byo < 0 or stones < 0:
            raise GtpFailure("syntax error")
        self.player.main_time = main
        self.player.byo_time = byo
        self.player.byo_stones = stones
        self.player.time_left = {}
        if main == 0 and byo > 0 and stones == 0:  # "no time limit" per the spec
            self.player.main_time = None
        return ""

    def cmd_time_left(self, a):
        try:
            c = parse_color(a[0])
            t, stones = float(a[1]), int(a[2])
        except (ValueError, IndexError):
            raise GtpFailure("syntax error") from None
        if len(a) != 3 or t != t:
            raise GtpFailure("syntax error")
        self.player.time_left[c] = (max(0.0, t), max(0, stones))
        return ""

    def cmd_loadsgf(self, a):
        """``loadsgf FILE [N]``: the position before move N (all moves without N).  Moves are
        counted, not nodes (GNU Go 3.8 does the same): setup-only nodes (``AB``/``AW``/``AE``/
        ``PL``) before move N, and the setup in move N's own node, are applied.  The root's
        ``HA`` becomes the engine's handicap, as after ``fixed_handicap``, so ``printsgf``
        writes it back; later setup nodes are kept for ``printsgf`` too.  ``undo`` takes back
        loaded moves one by one (GNU Go allows it too)."""
        if len(a) not in (1, 2):
            raise GtpFailure("syntax error")
        n = None
        if len(a) == 2:
            if not a[1].isdigit():
                raise GtpFailure("syntax error")
            n = max(0, int(a[1]) - 1)
        try:
            g = read_game(a[0], n, self.rules)
        except SgfError as exc:  # "cannot load file" (the spec's words), then the one-line reason
            raise GtpFailure(f"cannot load file: {exc}") from None
        self.size = g.board.size
        self.komi = g.board.komi
        self.board = g.board
        self.setup = g.setup
        self.handicap = g.handicap
        self.later_setup = g.later_setup
        # the loaded moves can be taken back, as in GNU Go: the position before each of them
        self.undo_stack = [b.copy() for b, _, _ in g.replay()]
        for t in self.player.trees:
            t.reset()
        return ""

    def cmd_is_legal(self, a):
        """``is_legal COLOR VERTEX``: ``1`` if the move is legal under the engine's rules
        (occupied point, simple ko, suicide, superko), else ``0`` (GNU Go 3.8's answer form)."""
        if len(a) != 2:
            raise GtpFailure("syntax error")
        c = parse_color(a[0])
        return "1" if self.board.is_legal(self._vertex(a[1]), c) else "0"

    def cmd_list_stones(self, a):
        """``list_stones COLOR``: the vertices of that colour's stones, row by row from the
        top (GNU Go 3.8's order)."""
        if len(a) != 1:
            raise GtpFailure("syntax error")
        c = parse_color(a[0])
        return " ".join(point_to_gtp(p, self.size) for p in self.board.stones(c))

    def cmd_kgs_rules(self, a):
        """``kgs-rules japanese|chinese|aga|new_zealand`` (KGS's GTP extension): the ko and
        suicide rules of that ruleset as KGS plays them (:data:`~playout.go.rulesets.KGS_RULES`:
        simple ko; positional superko; situational superko; situational superko with suicide).
        The scoring stays area scoring.  Applies to the game in progress and the moves taken
        back by ``undo``."""
        if len(a) != 1 or a[0].lower() not in KGS_RULES:
            raise GtpFailure(f"unknown rules (known: {', '.join(KGS_RULES)})")
        self.set_rules(KGS_RULES[a[0].lower()])
        return ""

    def set_rules(self, rules: Ruleset | str) -> None:
        """Use ``rules`` from now on, for the current position and its undo stack too."""
        self.rules = get_ruleset(rules)
        for b in [self.board, self.setup, *self.undo_stack]:
            if b is not None:
                b.rules = self.rules
        for t in self.player.trees:
            t.reset()

    def cmd_printsgf(self, a):
        data = board_to_sgf(self.board, self.setup, self.handicap, self.later_setup).decode()
        if a:
            try:
                Path(a[0]).write_text(data)
            except OSError as exc:
                raise GtpFailure(f"cannot write file: {exc.strerror}") from None
            return ""
        return data.strip()
