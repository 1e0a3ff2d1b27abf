"""Engine-vs-engine Go matches over GTP.

* :func:`play_game` -- one game between two GTP commands, refereed by GNU Go when it ends in
  two passes;
* :func:`play_match` -- games between two GTP commands, colours alternated, each game appended to
  a JSONL file as it ends (a rerun skips the games already there) and written as an SGF record
  (:func:`game_sgf`) in a folder beside it; ``jobs`` games at once.

The GTP client (:class:`GtpClient`, :class:`GtpError`, ``GNUGO``) lives in
:mod:`playout.go.gtp_client` and the rules cross-check (:func:`crosscheck_gnugo`) in
:mod:`playout.go.crosscheck`; both are importable from here too.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sgfmill import sgf

from playout.go.board import BLACK, PASS, WHITE, gtp_to_point
from playout.go.crosscheck import crosscheck_gnugo
from playout.go.gtp_client import DEFAULT_TIMEOUT_S, GNUGO, GtpClient, GtpError
from playout.go.sgf import move_value
from playout.stats import wilson_interval

__all__ = ["DEFAULT_TIMEOUT_S", "GNUGO", "GameRecord", "GtpClient", "GtpError", "MatchFileError",
           "crosscheck_gnugo", "game_sgf", "play_game", "play_match", "sgf_dir", "write_transcript"]

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
              names: tuple[str, str] = ("black", "white"), timeout: float | None = None,
              opening: list[str] | tuple[str, ...] = ()) -> dict:
    """One game between two GTP engines; scored by GNU Go (``final_score``) when available.

    ``timeout``: seconds each engine (and the referee) may take per answer
    (default :data:`DEFAULT_TIMEOUT_S`).  ``opening``: moves (``"b D4"``, ``"w pass"``, colours
    alternating from Black) played on both engines with GTP ``play`` before the first
    ``genmove``; they start ``moves`` (with 0.0 in ``seconds``), so a game can be continued
    from a position of another game.
    Returns ``{"winner": "B"|"W"|"draw"|"?", "result": "B+3.0", "moves": ["b D4", ...],
    "seconds": [...], "programs": (black, white)}``: ``seconds`` per move, the wall time of its
    ``genmove`` (the answer's transfer included); ``programs`` each engine's GTP ``name`` and
    ``version`` ("" when it answers neither); ``void``: None, or why the game stopped when one
    engine refused the other's move as illegal (rules that differ, e.g. simple ko against
    positional superko: the game has no result, ``winner`` "?").  Raises :class:`GtpError` (its ``moves``,
    ``seconds``, ``programs``: those of the moves played) when an engine fails.
    """
    engines = {BLACK: GtpClient(black_cmd, transcript, names[0], timeout)}
    try:
        engines[WHITE] = GtpClient(white_cmd, transcript, names[1], timeout)
    except GtpError:  # cannot start: no game, nothing to record
        engines[BLACK].close()
        raise
    moves: list[str] = []
    seconds: list[float] = []
    programs = ["", ""]
    result = None
    void = None
    try:
        for i, e in enumerate(engines.values()):
            e.send(f"boardsize {size}")
            e.send("clear_board")
            e.send(f"komi {komi}")
            (ok_n, name), (ok_v, version) = e.send_many(["name", "version"])
            programs[i] = " ".join(x for x in (name if ok_n else "", version if ok_v else "") if x)
        c = BLACK
        passes = 0
        for m in opening:
            colour, vertex = m.split()
            for e in engines.values():
                e.send(f"play {colour} {vertex}")
            moves.append(f"{colour.lower()} {vertex}")
            seconds.append(0.0)
            c = WHITE if colour.lower().startswith("b") else BLACK
            passes = passes + 1 if vertex.lower() == "pass" else 0
        while len(moves) < max_moves and passes < 2:
            cname = "b" if c == BLACK else "w"
            t0 = time.monotonic()
            mv = engines[c].send(f"genmove {cname}")
            seconds.append(time.monotonic() - t0)
            if mv.lower() == "resign":
                result = ("W" if c == BLACK else "B") + "+Resign"
                break
            try:
                gtp_to_point(mv, size)
            except ValueError:  # the mover answered garbage: its fault, not the other's
                raise GtpError(f"engine {names[c - 1]}: 'genmove {cname}' -> {mv!r}, "
                               f"not a vertex of the {size}x{size} board, pass or resign") from None
            moves.append(f"{cname} {mv}")
            ok, answer = engines[3 - c].send_many([f"play {cname} {mv}"])[0]
            if not ok and "illegal" in answer.lower():
                # the engines' rules disagree (e.g. GNU Go plays simple ko, ours positional
                # superko): neither may judge the other, so the game is void, not a hang-up
                void = (f"{cname.upper()}'s move {len(moves)} {mv} refused as illegal by "
                        f"{names[2 - c]}: {answer}")
                break
            if not ok:
                raise GtpError(f"engine {names[2 - c]}: 'play {cname} {mv}' -> ? {answer}")
            passes = passes + 1 if mv.lower() == "pass" else 0
            if passes >= 2:
                break
            c = 3 - c
        if result is None and void is None:
            ref_cmd = referee or (f"{GNUGO} --mode gtp --chinese-rules" if GNUGO else None)
            if ref_cmd:
                with GtpClient(ref_cmd, None, "referee", timeout) as ref:
                    ref.send(f"boardsize {size}")
                    ref.send("clear_board")
                    ref.send(f"komi {komi}")
                    for m in moves:
                        ref.send(f"play {m}")
                    result = ref.send("final_score")
            else:
                result = engines[BLACK].send("final_score")
    except GtpError as exc:
        exc.moves = moves
        exc.seconds = seconds[: len(moves)]
        exc.programs = tuple(programs)
        raise
    finally:
        for e in engines.values():
            e.close()
    if result and result[0] in "BWbw":
        winner = result[0].upper()
    elif result and result.strip() == "0":
        winner = "draw"
    else:
        winner = "?"
    return {"winner": winner, "result": result, "moves": moves, "seconds": seconds[: len(moves)],
            "programs": tuple(programs), "void": void}


def game_sgf(size: int, komi: float, moves: list[str], result: str | None,
             black: str, white: str, seconds: list | None = None, played: date | None = None,
             comment: str = "", setup: list[str] | tuple[str, ...] = ()) -> bytes:
    """SGF FF[4] record of a match game: ``PB``/``PW`` (``black``/``white``), ``KM``, ``SZ``,
    ``DT`` (``played``, today by default, ISO), ``RE`` (``result`` as GTP ``final_score``
    gives it, ``B+3.0`` / ``W+Resign``; ``0`` a draw; ``Void`` when ``result`` is None: an
    unfinished game), ``GC`` (``comment``), and the ``moves`` (``"b D4"``, as
    :func:`play_game` lists them; passes ``B[]``), each node with ``C[time 1.234 s]`` from
    ``seconds`` (the seconds of its ``genmove``).  A move that is no vertex of the board
    ends the record there, noted in ``GC``.  ``setup``: stones (``"b E5"``, as ``moves``; no
    capture among them) written as the root's ``AB``/``AW``, with ``PL`` the colour of the
    first move, so that a reader learns from ``moves`` alone (a random opening).
    Raises ``ValueError`` for a setup stone off the board or on another.
    Property values: https://www.red-bean.com/sgf/."""
    game = sgf.Sgf_game(size=size)
    root = game.get_root()
    if setup:
        stones: dict[str, set] = {"b": set(), "w": set()}
        for m in setup:
            colour, vertex = m.lower().split()
            p = gtp_to_point(vertex, size)
            if p == PASS or any(p in v for v in stones.values()):
                raise ValueError(f"setup stone {m!r}: not an empty vertex of the board")
            stones[colour[0]].add(p)
        for prop, colour in (("AB", "b"), ("AW", "w")):
            if stones[colour]:
                root.set_raw_list(prop, [move_value(p, size) for p in sorted(stones[colour])])
        if moves:
            root.set("PL", moves[0].split()[0][0].lower())
    root.set("AP", ("playout", "0.1"))
    root.set("KM", float(komi))
    root.set("PB", black)
    root.set("PW", white)
    root.set("DT", (played or date.today()).isoformat())
    root.set("RE", result if result else "Void")
    notes = [comment] if comment else []
    for i, m in enumerate(moves):
        parts = m.split()
        try:
            if len(parts) != 2 or parts[0].lower() not in ("b", "w"):
                raise ValueError(f"bad move {m!r}")
            p = gtp_to_point(parts[1], size)
        except ValueError as exc:
            notes.append(f"move {i + 1}: {exc}; the record stops before it")
            break
        node = game.extend_main_sequence()
        node.set_raw(parts[0].upper(), move_value(p, size))
        if seconds is not None and i < len(seconds):
            node.set("C", f"time {seconds[i]:.3f} s")
    if notes:
        root.set("GC", "\n".join(notes))
    return game.serialise()


def sgf_dir(out: str | Path) -> Path:
    """The folder of a match file's SGF records: ``m.jsonl`` -> ``m-sgf`` beside it."""
    out = Path(out)
    return out.with_name(out.stem + "-sgf")


class MatchFileError(ValueError):
    """A match results file that cannot be resumed from (names the file and line)."""


def _read_match(out: Path) -> dict[str, dict]:
    """Finished games of a match file by key (an unfinished game's record is skipped: replayed).

    A torn last line (a killed writer: no final newline) is cut off the file, as
    :func:`playout.executor.load_results` does.  Raises :class:`MatchFileError` naming the
    file and line for a corrupt line before the last or a record without its ``key``.
    """
    done: dict[str, dict] = {}
    if not out.exists():
        return done
    raw = out.read_bytes()
    if raw and not raw.endswith(b"\n"):
        cut = raw.rfind(b"\n") + 1
        with open(out, "r+b") as fh:
            fh.truncate(cut)
        raw = raw[:cut]
    for lineno, line in enumerate(raw.decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise MatchFileError(f"{out}:{lineno}: not valid JSON ({exc.msg}); "
                                 f"fix or remove the line, or use another --out file") from None
        if not isinstance(rec, dict) or "key" not in rec:
            raise MatchFileError(f"{out}:{lineno}: a game record needs a 'key'")
        if not rec.get("unfinished"):
            done[rec["key"]] = rec
    return done


#: ``on_failure="void"`` stops the match after this many failed games in a row.
MAX_FAILURES_IN_A_ROW = 3


def play_match(engine_a: str, engine_b: str, games: int, out_path: str | Path, size: int = 9,
               komi: float = 7.0, names: tuple[str, str] = ("A", "B"), log=print,
               transcript_path: str | Path | None = None, timeout: float | None = None,
               referee: str | None = None, on_failure: str = "stop", jobs: int = 1,
               first: int = 0) -> dict:
    """Games ``first`` .. ``games - 1``, A Black in even games; each result appended to
    ``out_path`` (JSONL).  ``first`` > 0 plays the rest of a match begun elsewhere (another
    machine's file): a game's seeds and colours depend only on its number.

    A rerun reads ``out_path`` and plays only the missing games.  ``{seed}`` in an engine
    command is replaced by a per-game number (deterministic engines would repeat games).  Returns a summary with A's
    score rate (a draw counts 1/2) and its 95 % Wilson interval.  ``transcript_path``: the GTP
    exchanges of the first game played are written there as Markdown.  ``timeout``: seconds
    an engine may take per answer (default :data:`DEFAULT_TIMEOUT_S`).  ``referee``: the GTP
    command that scores games ending in two passes (default GNU Go, see :func:`play_game`).
    ``jobs``: games played at once (each its own pair of engine processes; the records are
    appended as games end, so the file's order is then not the game order).  A game's engines
    and seeds depend only on its number, so a match played with any ``jobs`` holds the same
    games as one played in sequence, up to the engines' own timing: give each game a core of
    its own, or time-limited engines play weaker than they would alone.

    Every game played is also written as an SGF record (:func:`game_sgf`) to
    :func:`sgf_dir` ``/KEY.sgf`` (``m.jsonl`` -> ``m-sgf/A-vs-B-9-7.0-0.sgf``), players named
    by ``names`` and their GTP name and version in the root comment; the record's ``sgf``
    field holds that path relative to the JSONL's folder, and ``seconds_per_move`` the time of
    each move.  An unfinished game's record is written too (``RE[Void]``, the error in ``GC``).

    Raises :class:`GtpError` when an engine hangs, answers garbage or dies: that game is first
    appended as unfinished (``"unfinished": "<the error>"``, its moves so far; a rerun plays it
    again) and the message says so; the games after it are not played (with ``jobs`` > 1 the
    games already under way are finished first).  With
    ``on_failure="void"`` a game that fails once both engines have started is instead recorded
    void (``"void": "engine failure: <the error>"``, not scored, not replayed: an engine that
    crashes deterministically, as GNU Go 3.8 does in some 19x19 positions, would crash again on
    the replay with the same seeds) and the match goes on; it still stops, with the error, after
    :data:`MAX_FAILURES_IN_A_ROW` such games in a row (an engine that is broken, not unlucky).
    """
    if on_failure not in ("stop", "void"):
        raise ValueError(f"on_failure: {on_failure!r} (stop or void)")
    if jobs < 1:
        raise ValueError(f"jobs: {jobs} (at least 1)")
    if not 0 <= first < games:
        raise ValueError(f"first: {first} (0 .. games - 1 = {games - 1})")
    out = Path(out_path)
    done = _read_match(out)
    todo = [g for g in range(first, games) if f"{names[0]}-vs-{names[1]}-{size}-{komi}-{g}" not in done]
    lock = threading.Lock()
    state = {"failures": 0, "transcript": transcript_path, "stopping": False}

    def one(g: int) -> None:
        if state["stopping"]:
            return
        key = f"{names[0]}-vs-{names[1]}-{size}-{komi}-{g}"
        a_black = g % 2 == 0
        t0 = time.time()
        with lock:
            tpath, state["transcript"] = state["transcript"], None
        tr: list | None = [] if tpath else None
        ea = engine_a.replace("{seed}", str(g + 1))
        eb = engine_b.replace("{seed}", str(g + 1001))
        try:
            if a_black:
                r = play_game(ea, eb, size, komi, names=names, transcript=tr, timeout=timeout,
                              referee=referee)
            else:
                r = play_game(eb, ea, size, komi, names=(names[1], names[0]), transcript=tr,
                              timeout=timeout, referee=referee)
        except GtpError as exc:
            if exc.moves is None:  # an engine that cannot start: nothing was played
                raise
            if state["stopping"]:  # the engines died of the user's interrupt: not a failure
                return
            with lock:
                state["failures"] += 1
                failures = state["failures"]
                void = on_failure == "void" and failures < MAX_FAILURES_IN_A_ROW
                note = f"void: engine failure: {exc}" if void else f"unfinished: {exc}"
                sgf_rel = _write_game_sgf(out, key, size, komi, exc.moves, None, names, a_black,
                                          exc.seconds, exc.programs, note)
                rec = {"key": key, "a_black": a_black, "a_won": None, "result": None,
                       "n_moves": len(exc.moves), "seconds": round(time.time() - t0, 1),
                       "moves": exc.moves,
                       "seconds_per_move": [round(x, 3) for x in exc.seconds or []],
                       "sgf": sgf_rel}
                rec.update({"void": f"engine failure: {exc}"} if void else {"unfinished": str(exc)})
                with out.open("a") as f:
                    f.write(json.dumps(rec) + "\n")
                if void:
                    done[key] = rec
                    log(f"game {g}: void (engine failure: {exc})")
                    return
            again = (f"; {failures} games in a row failed" if failures > 1 else "")
            raise GtpError(f"{exc} (game {g} recorded as unfinished in {out}; a rerun plays it "
                           f"again{again})") from None
        if tr is not None:
            write_transcript(tpath, tr, r, ea if a_black else eb, eb if a_black else ea)
        if r["winner"] in ("B", "W"):
            a_won = (r["winner"] == "B") == a_black
        elif r["winner"] == "draw":
            a_won = 0.5
        else:
            a_won = None
        with lock:
            state["failures"] = 0
            sgf_rel = _write_game_sgf(out, key, size, komi, r["moves"], r["result"], names,
                                      a_black, r["seconds"], r["programs"],
                                      f"void: {r['void']}" if r.get("void") else "")
            rec = {"key": key, "a_black": a_black, "a_won": a_won, "result": r["result"],
                   "n_moves": len(r["moves"]), "seconds": round(time.time() - t0, 1),
                   "moves": r["moves"], "seconds_per_move": [round(x, 3) for x in r["seconds"]],
                   "sgf": sgf_rel}
            if r.get("void"):
                rec["void"] = r["void"]
            with out.open("a") as f:
                f.write(json.dumps(rec) + "\n")
            done[key] = rec
            log(f"game {g}: {names[0]} {'black' if a_black else 'white'} -> "
                + (f"void ({r['void']})" if r.get("void") else str(r["result"])))

    if jobs == 1:
        for g in todo:
            one(g)
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(one, g) for g in todo]
            try:
                for fut in futures:
                    fut.result()
            except BaseException:
                state["stopping"] = True  # Ctrl-C kills the engines too: record no voids
                for fut in futures:
                    fut.cancel()
                raise
    recs = [r for r in done.values() if r["key"].startswith(f"{names[0]}-vs-{names[1]}-{size}-{komi}-")]
    scored = [r for r in recs if r["a_won"] is not None]
    wins = sum(float(r["a_won"]) for r in scored)
    lo, hi = wilson_interval(wins, len(scored))
    return {"games": len(scored), "a_wins": wins, "a_rate": wins / max(1, len(scored)),
            "wilson95": (round(lo, 3), round(hi, 3)), "void": sum(1 for r in recs if r.get("void"))}


def _write_game_sgf(out: Path, key: str, size: int, komi: float, moves: list, result, names,
                    a_black: bool, seconds, programs, note: str = "") -> str:
    """Write one game's SGF record beside the match file; its path relative to that folder."""
    black, white = (names[0], names[1]) if a_black else (names[1], names[0])
    progs = programs or ("", "")
    lines = [f"{who}: {name} ({prog})" if prog else f"{who}: {name}"
             for who, name, prog in (("Black", black, progs[0]), ("White", white, progs[1]))]
    if note:
        lines.append(note)
    d = sgf_dir(out)
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{key}.sgf"
    path.write_bytes(game_sgf(size, komi, moves, result, black, white, seconds,
                              comment="\n".join(lines)))
    return str(path.relative_to(out.parent))


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
