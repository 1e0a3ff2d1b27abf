"""GTP engines as subprocesses: a client, engine-vs-engine matches, and the GNU Go rules cross-check.

* :class:`GtpClient` -- talk GTP v2 to a program (``gnugo --mode gtp``, ``playout gtp``, ...);
* :func:`play_match` -- games between two GTP commands, colours alternated, each game appended to
  a JSONL file as it ends (a rerun skips the games already there);
* :func:`crosscheck_gnugo` -- random legal games replayed move by move in our
  :class:`~playout.go.board.Board` and in GNU Go (``is_legal`` for every empty point,
  ``play``, ``list_stones``); returns every difference found.
"""

from __future__ import annotations

import json
import random
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from playout.go.board import BLACK, PASS, WHITE, Board, gtp_to_point, point_to_gtp
from playout.stats import wilson_interval

GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)


class GtpError(RuntimeError):
    """A GTP engine answered ``? ...`` or died; the message has the command and the answer."""


class GtpClient:
    """A GTP engine in a subprocess.  ``send("genmove b") -> "D4"``; raises :class:`GtpError`.

    ``transcript`` (a list) receives every command and answer when given.
    """

    def __init__(self, command: str | list[str], transcript: list | None = None, name: str = ""):
        args = shlex.split(command) if isinstance(command, str) else list(command)
        if not args:
            raise GtpError("empty engine command")
        self.name = name or args[0]
        if args[0] == "gnugo" and GNUGO and not shutil.which("gnugo"):
            args[0] = GNUGO  # Debian installs it in /usr/games, often not on PATH
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as exc:
            raise GtpError(f"cannot start engine {args[0]!r}: {exc.strerror or exc}") from None
        self.transcript = transcript

    def send_many(self, commands: list[str]) -> list[tuple[bool, str]]:
        """Send several commands at once; return ``(ok, answer)`` for each, in order."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("".join(c + "\n" for c in commands))
        self.proc.stdin.flush()
        out = []
        for cmd in commands:
            lines = []
            while True:
                line = self.proc.stdout.readline()
                if line == "":
                    raise GtpError(f"{self.name}: engine exited during {cmd!r}")
                line = line.rstrip("\r\n")
                if line == "" and lines:
                    break
                if line == "" and not lines:
                    continue
                lines.append(line)
            text = "\n".join(lines)
            ok = text.startswith("=")
            answer = text[1:].strip()
            if self.transcript is not None:
                self.transcript.append((self.name, cmd, text))
            out.append((ok, answer))
        return out

    def send(self, command: str) -> str:
        ok, answer = self.send_many([command])[0]
        if not ok:
            raise GtpError(f"{self.name}: {command!r} -> ? {answer}")
        return answer

    def close(self) -> None:
        try:
            self.send_many(["quit"])
        except (GtpError, OSError, ValueError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def __enter__(self) -> "GtpClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---------------------------------------------------------------------------------------------
# rules cross-check
# ---------------------------------------------------------------------------------------------
def crosscheck_gnugo(n_games: int = 20, size: int = 9, seed: int = 1, max_moves: int | None = None,
                     gnugo: str | None = None) -> dict:
    """Replay ``n_games`` random legal games in our board and in GNU Go; count differences.

    Each move: compare ``is_legal`` of the side to move on every empty point
    (our board without superko, as GNU Go's ``is_legal`` checks simple ko only), play a random
    legal move (sometimes a pass), then compare ``list_stones`` of both colours.
    Returns ``{"games", "moves", "legality_checks", "differences": [...]}``.
    """
    exe = gnugo or GNUGO
    if exe is None:
        raise FileNotFoundError("gnugo is not installed")
    rng = random.Random(seed)
    max_moves = max_moves if max_moves is not None else 3 * size * size
    diffs: list[str] = []
    n_moves = 0
    n_checks = 0
    with GtpClient([exe, "--mode", "gtp", "--level", "0"], name="gnugo") as gg:
        for game in range(n_games):
            gg.send(f"boardsize {size}")
            gg.send("clear_board")
            b = Board(size, superko=False)
            for mv in range(max_moves):
                c = b.to_move
                cname = "b" if c == BLACK else "w"
                empties = [p for p in b.points() if b.color[p] == 0]
                answers = gg.send_many([f"is_legal {cname} {point_to_gtp(p, size)}" for p in empties])
                n_checks += len(empties)
                legal = []
                for p, (ok, ans) in zip(empties, answers):
                    ours = b.is_legal(p, c)
                    theirs = ok and ans == "1"
                    if ours != theirs:
                        diffs.append(f"game {game} move {mv}: {cname} {point_to_gtp(p, size)} "
                                     f"legal ours={ours} gnugo={theirs}")
                    if ours:
                        legal.append(p)
                p = rng.choice(legal) if legal and rng.random() > 0.02 else PASS
                b.play(p, c)
                gg.send(f"play {cname} {point_to_gtp(p, size)}")
                n_moves += 1
                for col, colname in ((BLACK, "black"), (WHITE, "white")):
                    theirs_s = gg.send(f"list_stones {colname}").split()
                    theirs_set = {gtp_to_point(v, size) for v in theirs_s}
                    if theirs_set != set(b.stones(col)):
                        diffs.append(f"game {game} move {mv}: {colname} stones differ after "
                                     f"{cname} {point_to_gtp(p, size)}")
                if b.passes >= 2:
                    break
    return {"games": n_games, "moves": n_moves, "legality_checks": n_checks, "differences": diffs}


# ---------------------------------------------------------------------------------------------
# matches
# ---------------------------------------------------------------------------------------------
@dataclass
class GameRecord:
    key: str
    black: str
    white: str
    winner: str  # "B", "W" or "?" (disagreement/error)
    score: str
    moves: list


def play_game(black_cmd: str, white_cmd: str, size: int = 9, komi: float = 7.0,
              max_moves: int = 400, referee: str | None = None, transcript: list | None = None,
              names: tuple[str, str] = ("black", "white")) -> dict:
    """One game between two GTP engines; scored by GNU Go (``final_score``) when available.

    Returns ``{"winner": "B"|"W", "result": "B+3.0", "moves": [...], "resigned": bool}``.
    """
    engines = {BLACK: GtpClient(black_cmd, transcript, names[0]),
               WHITE: GtpClient(white_cmd, transcript, names[1])}
    moves: list[str] = []
    result = None
    try:
        for e in engines.values():
            e.send(f"boardsize {size}")
            e.send("clear_board")
            e.send(f"komi {komi}")
        c = BLACK
        passes = 0
        while len(moves) < max_moves:
            cname = "b" if c == BLACK else "w"
            mv = engines[c].send(f"genmove {cname}")
            if mv.lower() == "resign":
                result = ("W" if c == BLACK else "B") + "+Resign"
                break
            moves.append(f"{cname} {mv}")
            engines[3 - c].send(f"play {cname} {mv}")
            passes = passes + 1 if mv.lower() == "pass" else 0
            if passes >= 2:
                break
            c = 3 - c
        if result is None:
            ref_cmd = referee or (f"{GNUGO} --mode gtp --chinese-rules" if GNUGO else None)
            if ref_cmd:
                with GtpClient(ref_cmd, None, "referee") as ref:
                    ref.send(f"boardsize {size}")
                    ref.send("clear_board")
                    ref.send(f"komi {komi}")
                    for m in moves:
                        ref.send(f"play {m}")
                    result = ref.send("final_score")
            else:
                result = engines[BLACK].send("final_score")
    finally:
        for e in engines.values():
            e.close()
    if result and result[0] in "BWbw":
        winner = result[0].upper()
    elif result and result.strip() == "0":
        winner = "draw"
    else:
        winner = "?"
    return {"winner": winner, "result": result, "moves": moves}


def play_match(engine_a: str, engine_b: str, games: int, out_path: str | Path, size: int = 9,
               komi: float = 7.0, names: tuple[str, str] = ("A", "B"), log=print,
               transcript_path: str | Path | None = None) -> dict:
    """``games`` games, A Black in even games; each result appended to ``out_path`` (JSONL).

    A rerun reads ``out_path`` and plays only the missing games.  ``{seed}`` in an engine
    command is replaced by a per-game number (deterministic engines would repeat games).  Returns a summary with A's
    score rate (a draw counts 1/2) and its 95 % Wilson interval.  ``transcript_path``: the GTP
    exchanges of the first game played are written there as Markdown.
    """
    out = Path(out_path)
    done: dict[str, dict] = {}
    if out.exists():
        for line in out.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                done[rec["key"]] = rec
    for g in range(games):
        key = f"{names[0]}-vs-{names[1]}-{size}-{komi}-{g}"
        if key in done:
            continue
        a_black = g % 2 == 0
        t0 = time.time()
        tr: list | None = [] if transcript_path else None
        ea = engine_a.replace("{seed}", str(g + 1))
        eb = engine_b.replace("{seed}", str(g + 1001))
        if a_black:
            r = play_game(ea, eb, size, komi, names=names, transcript=tr)
        else:
            r = play_game(eb, ea, size, komi, names=(names[1], names[0]), transcript=tr)
        if tr is not None:
            write_transcript(transcript_path, tr, r, ea if a_black else eb, eb if a_black else ea)
            transcript_path = None
        if r["winner"] in ("B", "W"):
            a_won = (r["winner"] == "B") == a_black
        elif r["winner"] == "draw":
            a_won = 0.5
        else:
            a_won = None
        rec = {"key": key, "a_black": a_black, "a_won": a_won, "result": r["result"],
               "n_moves": len(r["moves"]), "seconds": round(time.time() - t0, 1),
               "moves": r["moves"]}
        with out.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        done[key] = rec
        log(f"game {g}: {names[0]} {'black' if a_black else 'white'} -> {r['result']}")
    recs = [r for r in done.values() if r["key"].startswith(f"{names[0]}-vs-{names[1]}-{size}-{komi}-")]
    scored = [r for r in recs if r["a_won"] is not None]
    wins = sum(float(r["a_won"]) for r in scored)
    lo, hi = wilson_interval(wins, len(scored))
    return {"games": len(scored), "a_wins": wins, "a_rate": wins / max(1, len(scored)),
            "wilson95": (round(lo, 3), round(hi, 3))}


def write_transcript(path: str | Path, exchanges: list, result: dict, black_cmd: str,
                     white_cmd: str) -> None:
    """Markdown transcript of one game: every GTP command sent and every answer received."""
    lines = ["# GTP transcript of a real game", "",
             f"Black: `{black_cmd}`  ", f"White: `{white_cmd}`  ",
             f"Result (GNU Go `final_score`, Chinese rules, or resignation): **{result['result']}** "
             f"after {len(result['moves'])} moves.", "",
             "Each line: engine, the command sent, the engine's answer.", "", "```"]
    for name, cmd, answer in exchanges:
        lines.append(f"{name:>16s} <- {cmd}")
        for ln in answer.splitlines() or [""]:
            lines.append(f"{'':>16s} -> {ln}")
    lines += ["```", ""]
    Path(path).write_text("\n".join(lines))
