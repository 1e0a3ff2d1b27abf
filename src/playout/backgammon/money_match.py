"""Cubeless money games between two engines (``playout bg match A B``), with duplicate dice.

Engines are ENGINE SPECs (:mod:`playout.backgammon.engines`: ``ours:ply=1``, ``gnubg:ply=0``,
``pubeval``, ``bgsage:ply=1``, ...).  Each game starts from the standard opening position,
the opening roll is never a double (standard rules: each player throws one die, the higher
plays both), the cube is never turned, and the game is played to the end.

Scoring (cubeless money, the standard rules of backgammon; e.g. the glossary entries "Single
game", "Gammon" and "Backgammon" of nextgammon.com, and the same rule as ``human.py``'s): the
winner scores 1 point for a single game, 2 for a gammon (the loser has borne off no checker)
and 3 for a backgammon (a gammon where the loser also still has a checker on the bar or in
the winner's home board);
:func:`playout.backgammon.board.game_result` implements the rule.  Points are always given
from engine A's view (+ = A won).

Colours alternate: A plays first in even games (0, 2, ...), B in odd ones.  Dice are
*duplicate* (common random numbers) by default: games ``2k`` and ``2k+1`` (pair ``k``) use the
same dice sequence -- the ``t``-th roll of one game is the ``t``-th roll of the other -- with
the engines' seats swapped, so the luck of the dice largely cancels within a pair.  The pairs
are then the independent units, and standard errors are computed over pairs (a
cluster-robust standard error; it equals the plain ``s / sqrt(n)`` with ``dice="independent"``,
where every game has its own dice).  The Wilson interval of the win rate
(:func:`playout.stats.wilson_interval`) assumes independent games, so with duplicate dice it
is conservative; ``win_rate_se`` is the pair-based standard error.

Seeds: the dice of pair ``k`` come from numba's Mersenne Twister seeded with
``numpy.random.SeedSequence([seed, k]).generate_state(1)[0]`` (``[seed, game, 1]`` for
independent dice); the first roll is :func:`playout.backgammon.board.opening_roll`, then two
``randint(1, 7)`` per turn -- the draws :func:`playout.backgammon.rollout.play_games` makes,
so the compiled path (both engines our 1-ply kernel evaluators) and the Python loop over
:meth:`Engine.choose_checker` play the same games.

Resume: with ``out=FILE.jsonl`` the first line is the setup (engines, seed, games, dice) and
each finished game appends one line; a rerun reads the file, refuses one made with other
settings (naming the field), and plays only the missing games.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from numba import njit

from playout.backgammon.board import STARTING_BOARD, flip, game_result, opening_roll
from playout.stats import wilson_interval

#: Version of the JSONL layout (the setup line's ``format``).
FORMAT = 1
DICE_MODES = ("duplicate", "independent")
#: A game longer than this many half-moves is reported as an engine fault (real games take
#: ~50-60; none of our 10^5 self-play games came near 1,000).
MAX_TURNS = 5000


class MatchError(ValueError):
    """A user-facing match failure (bad match file, illegal play); one-line message."""


# ---------------------------------------------------------------------------
# Dice
# ---------------------------------------------------------------------------


def game_seed(seed: int, game: int, dice: str = "duplicate") -> int:
    """The 32-bit seed of game ``game``'s dice; equal for games 2k and 2k+1 when duplicate."""
    if dice == "duplicate":
        key = [int(seed), int(game) // 2]
    elif dice == "independent":
        key = [int(seed), int(game), 1]
    else:
        raise ValueError(f"dice: {dice!r} is not one of {', '.join(DICE_MODES)}")
    return int(np.random.SeedSequence(key).generate_state(1)[0])


@njit(cache=True)
def _dice_stream(seed, n):
    np.random.seed(seed)
    out = np.empty((n, 2), dtype=np.int64)
    d1, d2 = opening_roll()
    out[0, 0] = d1
    out[0, 1] = d2
    for t in range(1, n):
        out[t, 0] = np.random.randint(1, 7)
        out[t, 1] = np.random.randint(1, 7)
    return out


def dice_sequence(seed32: int, n: int) -> np.ndarray:
    """``int64[n, 2]``: the first ``n`` rolls of a game whose dice seed is ``seed32``
    (roll 0 = the opening roll, never a double)."""
    return _dice_stream(int(seed32), int(n))


# ---------------------------------------------------------------------------
# One game
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GameResult:
    """One finished game: ``points`` from A's view (+-1 single, +-2 gammon, +-3 backgammon),
    ``a_first`` (A had the opening roll), ``turns`` (half-moves played; ``None`` from the
    compiled path, which does not count them)."""

    game: int
    a_first: bool
    points: int
    turns: int | None = None


def play_engine_game(first, second, seed32: int, on_turn: Callable | None = None) -> tuple[int, int]:
    """Play one game through :meth:`Engine.choose_checker`; ``(points, turns)``.

    ``first`` has the opening roll; ``points`` are from ``first``'s view.  A roll with no
    legal play is passed without asking the engine.  ``on_turn(turn, mover_index, dice)``
    is called before each half-move (tests use it to check the dice).  Raises
    :class:`MatchError` naming the engine, the gnubg position ID and the dice when an
    engine answers a board that is not a legal play, or fails.
    """
    from playout.backgammon.ids import position_id
    from playout.backgammon.moves import legal_moves

    engines = (first, second)
    n_dice = 256
    dice = dice_sequence(seed32, n_dice)
    board = STARTING_BOARD.copy()
    side = 0
    for t in range(MAX_TURNS):
        if t >= n_dice:
            n_dice *= 2
            dice = dice_sequence(seed32, n_dice)  # same seed: the same prefix, longer
        d1, d2 = int(dice[t, 0]), int(dice[t, 1])
        if on_turn is not None:
            on_turn(t, side, (d1, d2))
        legal = legal_moves(board, d1, d2)
        if len(legal) == 1 and np.array_equal(legal[0], board):
            nb = board  # no legal play: the roll is passed
        else:
            eng = engines[side]
            where = f"position {position_id(board)} dice {d1}{d2}"
            try:
                here = tuple(int(x) for x in board)
                # cubeless games: our engine ranks plays cubeless (gammons always count)
                answer = (eng.choose_cubeless(here, (d1, d2)) if hasattr(eng, "choose_cubeless")
                          else eng.choose_checker(here, (d1, d2), 1, "centered"))
                nb = np.asarray(answer, dtype=np.int8).reshape(26)
            except Exception as exc:  # an engine's failure is reported, not a traceback
                raise MatchError(f"engine {eng.name!r} failed at {where}: {exc}") from None
            if not (legal == nb).all(axis=1).any():
                raise MatchError(f"engine {eng.name!r} answered an illegal play at {where}: "
                                 f"{','.join(str(int(x)) for x in nb)}")
        r = int(game_result(nb))
        if r != 0:
            return (r if side == 0 else -r), t + 1
        board = flip(nb)
        side = 1 - side
    raise MatchError(f"game did not end after {MAX_TURNS} half-moves "
                     f"({first.name} vs {second.name}, dice seed {seed32})")


def _kernel_args(engine):
    """The compiled-kernel arguments of an engine that is our 1-ply evaluator, else ``None``."""
    from playout.backgammon.engines import OursEngine

    ev = engine.kernel_evaluator() if isinstance(engine, OursEngine) else None
    return None if ev is None else ev.kernel_args()


# ---------------------------------------------------------------------------
# Match file
# ---------------------------------------------------------------------------


def _spec_record(text: str) -> dict:
    from playout.backgammon.engines import parse_spec

    s = asdict(parse_spec(text))
    if s.get("weights"):
        s["weights_sha256"] = hashlib.sha256(Path(s["weights"]).read_bytes()).hexdigest()[:16]
    return s


def setup_record(a: str, b: str, seed: int, games: int, dice: str) -> dict:
    """The setup line of a match file (the engines' parsed specs, seed, games, dice)."""
    return {"setup": {"format": FORMAT, "a": a, "b": b, "a_spec": _spec_record(a),
                      "b_spec": _spec_record(b), "seed": int(seed), "games": int(games),
                      "dice": dice}}


_COMPARED = (("format", "format"), ("a_spec", "A (engine spec)"), ("b_spec", "B (engine spec)"),
             ("seed", "seed"), ("games", "games"), ("dice", "dice"))


def load_match_file(path: Path, setup: dict) -> dict[int, GameResult]:
    """Games already in ``path`` (``{}`` if absent or empty), after checking its setup line.

    Raises :class:`MatchError` naming the file, line and field for a file made with other
    settings or a malformed line.  A last line cut short by a kill (no newline, not JSON) is
    dropped from the file.
    """
    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:
        return {}
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    if not raw.endswith(b"\n"):
        try:
            json.loads(lines[-1])
        except ValueError:  # a line cut short by a kill: drop it
            keep = len(raw) - len(lines[-1])
            with open(path, "r+b") as f:
                f.truncate(keep)
            lines = lines[:-1]
            print(f"{path}: dropped a last line cut short", file=sys.stderr)
    want = setup["setup"]
    done: dict[int, GameResult] = {}
    for i, line in enumerate(lines, 1):
        if not line.strip() and i > 1:
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            raise MatchError(f"{path}:{i}: not a JSON line") from None
        if i == 1:
            have = rec.get("setup") if isinstance(rec, dict) else None
            if not isinstance(have, dict):
                raise MatchError(f"{path}:1: not a match file (the first line has no 'setup')")
            for key, label in _COMPARED:
                if have.get(key) != want[key]:
                    shown = have.get(key.replace("_spec", "")) if key.endswith("_spec") else have.get(key)
                    mine = want[key.replace("_spec", "")] if key.endswith("_spec") else want[key]
                    raise MatchError(f"{path}:1: made with other settings: {label} is {shown!r} "
                                     f"in the file, {mine!r} now (use another --out)")
            continue
        try:
            g, first, pts = int(rec["game"]), bool(rec["a_first"]), int(rec["points"])
        except (KeyError, TypeError, ValueError):
            raise MatchError(f"{path}:{i}: a game line needs 'game', 'a_first' and 'points'") from None
        if not 0 <= g < want["games"]:
            raise MatchError(f"{path}:{i}: game {g} is outside 0..{want['games'] - 1}")
        if first != (g % 2 == 0) or pts not in (-3, -2, -1, 1, 2, 3):
            raise MatchError(f"{path}:{i}: game {g}: bad 'a_first' or 'points' ({first}, {pts})")
        if g in done:
            raise MatchError(f"{path}:{i}: game {g} is recorded twice")
        done[g] = GameResult(g, first, pts, rec.get("turns"))
    return done


# ---------------------------------------------------------------------------
# Match
# ---------------------------------------------------------------------------


def play_match(a: str, b: str, games: int, *, seed: int = 1, dice: str = "duplicate",
               out: Path | str | None = None, compiled: bool = True,
               progress: Callable[[int, int, list[GameResult], float], None] | None = None,
               engines: tuple | None = None) -> dict:
    """Play (or finish) a cubeless money match of ``games`` games, A vs B; :func:`summarize`'s dict.

    ``a``/``b`` are ENGINE SPECs; ``engines`` may pass already built engines for them (tests).
    ``compiled=True`` uses :func:`playout.backgammon.rollout.play_games` when both engines
    are our 1-ply kernel evaluators (``ours:ply=1``, ``pubeval``, ``ours:ply=1,weights=...``),
    otherwise (or with ``compiled=False``) a Python loop over ``Engine.choose_checker``.
    ``progress(done, games, results, seconds)`` is called after each game.  With ``out``,
    games are appended to that JSONL file and a rerun plays only the missing ones.

    Raises :class:`playout.backgammon.engines.EngineError` for a bad spec or a missing peer
    and :class:`MatchError` for a bad match file or an illegal play.
    """
    from playout.backgammon.engines import make_engine

    if dice not in DICE_MODES:
        raise MatchError(f"dice: {dice!r} is not one of {', '.join(DICE_MODES)}")
    setup = setup_record(a, b, seed, games, dice)
    done = load_match_file(Path(out), setup) if out is not None else {}
    ea, eb = engines if engines is not None else (make_engine(a), make_engine(b))
    ka, kb = _kernel_args(ea), _kernel_args(eb)
    fast = compiled and ka is not None and kb is not None
    fh = None
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        fresh = not Path(out).exists() or Path(out).stat().st_size == 0
        fh = open(out, "a", encoding="utf-8")
        if fresh:
            fh.write(json.dumps(setup) + "\n")
            fh.flush()
    results = [done[g] for g in sorted(done)]
    t0 = time.perf_counter()
    played = 0
    try:
        if fast:
            from playout.backgammon.rollout import play_games
            pts = np.zeros(1, dtype=np.int64)
        for g in range(games):
            if g in done:
                continue
            s = game_seed(seed, g, dice)
            a_first = g % 2 == 0
            if fast:
                # play_games(X, Y, 1, s): X has the opening roll, dice seeded with s (its g = 0)
                if a_first:
                    play_games(*ka, *kb, 1, s, pts)
                    res = GameResult(g, True, int(pts[0]))
                else:
                    play_games(*kb, *ka, 1, s, pts)
                    res = GameResult(g, False, -int(pts[0]))
            else:
                first, second = (ea, eb) if a_first else (eb, ea)
                p, turns = play_engine_game(first, second, s)
                res = GameResult(g, a_first, p if a_first else -p, turns)
            results.append(res)
            played += 1
            if fh is not None:
                rec = {"game": res.game, "a_first": res.a_first, "points": res.points}
                if res.turns is not None:
                    rec["turns"] = res.turns
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
            if progress is not None:
                progress(len(results), games, results, time.perf_counter() - t0)
    finally:
        if fh is not None:
            fh.close()
    elapsed = time.perf_counter() - t0
    results.sort(key=lambda r: r.game)
    summary = summarize(results, dice=dice)
    summary.update({"a": ea.name, "b": eb.name, "a_spec": a, "b_spec": b, "seed": seed,
                    "games_asked": games, "played_now": played,
                    "seconds_now": round(elapsed, 3),
                    "games_per_second": round(played / elapsed, 2) if played and elapsed > 0 else None,
                    "path": "compiled" if fast else "python"})
    if out is not None:
        summary["out"] = str(out)
    return summary


def _cluster_se(values: np.ndarray, units: np.ndarray) -> float:
    """Cluster-robust standard error of ``values.mean()`` with clusters ``units``
    (Liang & Zeger 1986 / the ratio estimator's variance, small-sample factor G/(G-1));
    equals ``std(ddof=1)/sqrt(n)`` when every unit holds one value."""
    n = len(values)
    if n < 2:
        return 0.0
    m = values.mean()
    sums: dict[int, float] = {}
    for v, u in zip(values, units):
        sums[int(u)] = sums.get(int(u), 0.0) + float(v) - m
    g = len(sums)
    if g < 2:
        return 0.0
    return math.sqrt(g / (g - 1) * sum(s * s for s in sums.values())) / n


def summarize(results: list[GameResult], dice: str = "duplicate") -> dict:
    """Match figures from A's view.

    ``wins`` (A's), ``win_rate`` with ``wilson95`` ([lo, hi], :func:`playout.stats.wilson_interval`)
    and ``win_rate_se``; ``points_per_game`` (points / game, single 1, gammon 2, backgammon 3)
    with ``ppg_se``; both standard errors over pairs with duplicate dice (over games
    otherwise).  ``ppg_se_if_independent`` is the plain ``s / sqrt(n)`` of the same games,
    ``pair_correlation`` the correlation of A's points in the two games of complete pairs
    (duplicate only); ``gammons``/``backgammons``/``singles`` count each side's wins of each
    kind.
    """
    pts = np.array([r.points for r in results], dtype=np.int64)
    n = len(pts)
    wins = int((pts > 0).sum())
    lo, hi = wilson_interval(wins, n)
    units = np.array([r.game // 2 if dice == "duplicate" else r.game for r in results], dtype=np.int64)
    w = (pts > 0).astype(np.float64)
    out = {
        "games": n, "dice": dice, "wins": wins, "losses": n - wins,
        "win_rate": wins / n if n else float("nan"),
        "wilson95": [round(lo, 4), round(hi, 4)],
        "win_rate_se": _cluster_se(w, units),
        "points_per_game": float(pts.mean()) if n else float("nan"),
        "ppg_se": _cluster_se(pts.astype(np.float64), units),
        "ppg_se_if_independent": float(pts.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0,
        "singles": {"a": int((pts == 1).sum()), "b": int((pts == -1).sum())},
        "gammons": {"a": int((pts == 2).sum()), "b": int((pts == -2).sum())},
        "backgammons": {"a": int((pts == 3).sum()), "b": int((pts == -3).sum())},
        "a_first_wins": int(sum(1 for r in results if r.a_first and r.points > 0)),
        "a_first_games": int(sum(1 for r in results if r.a_first)),
    }
    if dice == "duplicate":
        by = {r.game: r.points for r in results}
        pairs = [(by[k], by[k + 1]) for k in range(0, max(by, default=-1) + 1, 2) if k in by and k + 1 in by]
        if len(pairs) > 2:
            x = np.array(pairs, dtype=np.float64)
            sd = x.std(axis=0)
            out["pair_correlation"] = (float(np.corrcoef(x[:, 0], x[:, 1])[0, 1])
                                       if (sd > 0).all() else float("nan"))
        out["complete_pairs"] = len(pairs)
    return out


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


class ProgressLine:
    """A progress line on stderr: games done, A's win rate and points per game, games/s.

    On a terminal it is redrawn in place (at most 4 times a second); elsewhere (a log, a
    pipe) a line is written every 30 s and at the end.
    """

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.last = time.perf_counter()  # the first line after one interval, not at game 1
        self.new = 0

    def __call__(self, done: int, games: int, results: list[GameResult], seconds: float) -> None:
        self.new += 1
        now = time.perf_counter()
        end = done == games
        if not end and now - self.last < (0.25 if self.tty else 30.0):
            return
        self.last = now
        pts = [r.points for r in results]
        wr = sum(p > 0 for p in pts) / len(pts)
        rate = self.new / seconds if seconds > 0 else float("nan")
        text = (f"game {done}/{games}  A wins {100 * wr:.1f}%  ppg {np.mean(pts):+.3f}  "
                f"{rate:.1f} games/s")
        if self.tty:
            self.stream.write("\r" + text + ("\n" if end else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def format_table(res: dict) -> str:
    """The match summary as a small plain-text table (A and B columns)."""
    n = res["games"]
    a, b = res["a"], res["b"]
    lo, hi = res["wilson95"]
    w = max(len(a), len(b), 8)
    rows = [("wins", str(res["wins"]), str(res["losses"])),
            ("win rate", f"{100 * res['win_rate']:.1f}%", f"{100 * (1 - res['win_rate']):.1f}%"),
            ("singles", str(res["singles"]["a"]), str(res["singles"]["b"])),
            ("gammons", str(res["gammons"]["a"]), str(res["gammons"]["b"])),
            ("backgammons", str(res["backgammons"]["a"]), str(res["backgammons"]["b"]))]
    lines = [f"{a} vs {b}: {n} cubeless money games, {res['dice']} dice, seed {res['seed']}"
             + (f" ({res['played_now']} played now)" if res["played_now"] != n else ""),
             f"{'':<12} {a:>{w}} {b:>{w}}"]
    lines += [f"{k:<12} {x:>{w}} {y:>{w}}" for k, x, y in rows]
    lines.append(f"A's win rate {100 * res['win_rate']:.1f}% [95% Wilson {100 * lo:.1f}-{100 * hi:.1f}]"
                 f" (se {100 * res['win_rate_se']:.1f}%)")
    lines.append(f"A's points per game {res['points_per_game']:+.3f} +- {res['ppg_se']:.3f} (se"
                 + (f"; {res['ppg_se_if_independent']:.3f} as if independent" if res["dice"] == "duplicate" else "")
                 + ")")
    if res.get("games_per_second"):
        lines.append(f"{res['games_per_second']:.1f} games/s ({res['path']} path)")
    return "\n".join(lines)
