"""Training data for backgammon networks: positions sampled, labelled by *our own* rollouts.

A data set is a list of pre-roll positions, each with the cubeless five probabilities of the
side on roll as rolled out by our engine, their standard errors and where both came from.
It grows over several sittings: :func:`label` plans the positions (a function of the plan's
sizes and seed only), skips those already in the file, rolls out the rest through
:func:`playout.executor.run_tasks` (in-process, a process pool or Ray) and appends each row
the moment it is done, so a killed job loses nothing finished and a rerun with larger sizes
adds positions without touching the old ones.

**Positions** (``source`` of a row; a board planned twice is labelled once, under the first
source in this order):

* ``family``: Open Sage's family starting positions, read at run time from
  ``../shared/data/backgammon/bgsage/``: the snake family's ``snake starting.txt`` (each line
  with either side on roll: bgsage's generator flips a coin for who starts) and, for the
  back-game family, boards of ``player-backgame-rollout.txt`` (evenly spaced lines; the
  post-move board with either side on roll).  Only the *positions* are taken from bgsage;
  the labels are ours.
* ``exit``: exit successors of family positions: for one seeded roll, up to ``exits`` of the
  legal plays after which the position is no longer in its family
  (:func:`playout.backgammon.families.in_family`), seen pre-roll by the side to act next.
  These are the candidate plays of a benchmark decision that leave the family.
* ``family-selfplay``: positions of 1-ply self-play games from the family starts (``per_game``
  random pre-roll positions of each game that are still in the family).
* ``bgsage-board``: boards of bgsage's ``cubeful-pr-rollouts.jsonl`` (evenly spaced lines; the
  published post-move board flipped to the side on roll), labelled by us: the rows that
  bgsage's own rollout of the same board checks (:func:`bgsage_rows`).
* ``selfplay``: ``per_game`` random pre-roll positions of each 1-ply self-play game of our
  engine from the opening (standard opening roll), so every game phase occurs as often as
  it does in play: opening, middle game, bear-in, bear-off.

**Labels**: a cubeless money rollout of the pre-roll board (:func:`playout.backgammon.rollout.
rollout_trials`): ``trials`` games (1,296 = every pair of first two rolls once), both sides at
1-ply, variance reduction by luck (``ranked`` luck by default), truncated after ``truncate``
half-moves and then valued by the engine's 1-ply evaluation (0 = played to the end; the
accuracy of truncation was measured by ``benchmarks/bg_truncation.py``: see
:data:`DEFAULT_TRUNCATE`).
Standard errors are the trials' standard deviation / sqrt(trials), per probability and for
the equity (the quasi-random first two rolls make them slight over-estimates).

**File format** (one JSON object per line, UTF-8; ``.jsonl``, or ``.jsonl.gz`` for a finished
shard -- the same lines gzipped, sorted by key), the executor's journal layout::

    {"setup": {"kind": "bg-data", "format": 1, "engine": "net-net_td80",
               "weights_sha256": "3f2a...", "trials": 1296, "truncate": 0,
               "luck": "ranked", "seed": 1}}
    {"key": "4HPwATDgc/ABMA", "result": ROW}

``key`` is the gnubg position ID of the board (side on roll = gnubg's player on roll): the
dedup key, and the held-out split (:func:`is_holdout`).  ``ROW``:

* ``board``: board26 from the side on roll, before its roll (:mod:`playout.backgammon.board`);
* ``probs``: [win, win gammon, win backgammon, lose gammon, lose backgammon] of the side on
  roll (cumulative: a gammon counts as a win too), clipped to [0, 1] and made consistent
  (win >= gammon >= backgammon), as the evaluators output them;
* ``se``: the standard error of each of the five (before clipping);
* ``equity``, ``equity_se``: cubeless money equity of the side on roll (the unclipped mean)
  and its standard error;
* ``source`` (see above), ``family`` (the family of a ``family``/``exit``/``family-selfplay``
  row, else null), ``families`` (every family the board is in, either side owning the
  feature), ``phase`` (``contact`` or ``race``);
* ``label``: provenance -- ``engine`` (evaluator name), ``weights_sha256`` (first 16 hex digits
  of the SHA-256 of the weights file), ``trials``, ``truncate``, ``vr`` (the luck mode:
  ``ranked``, ``full`` or ``none``), ``seed`` (the rollout's seed for this row),
  ``code_sha256`` (:func:`code_sha256`: the rules/evaluation/rollout source the label came
  from; a file may hold rows of several versions, the setup line checks only the fields
  above).

bgsage's published rollouts (``player-backgame-rollout.txt``, ``cubeful-pr-rollouts.jsonl``:
post-move boards with the probabilities of the side that moved) are read with
:func:`bgsage_rows` into the same row layout, flipped to the side on roll and inverted
(sources ``bgsage-backgame``, ``bgsage-cubeful``; ``label.engine`` = ``bgsage-rollout``); they
are rollout targets, never copied into the project.  Peers' *evaluations* never label rows.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
from numba import njit

from playout.backgammon.board import STARTING_BOARD, BoardError, as_board, flip, game_result, is_race, opening_roll
from playout.backgammon.moves import MAX_MOVES, legal_moves, new_workspace
from playout.backgammon.search import best_reply
from playout.jitcache import flush_stale_caches, siblings

FORMAT = 1
#: Row sources, in dedup priority order (a board planned twice keeps the first).
SOURCES = ("family", "exit", "family-selfplay", "bgsage-board", "selfplay", "bgsage-backgame",
           "bgsage-cubeful", "lookahead")
_PLANNED = SOURCES[:5]  # the sources :func:`plan` draws; then bgsage's labels, and the
# n-ply lookahead labels of :mod:`playout.backgammon.lookahead` (a folder of shards)
#: The families a row is tagged with (:mod:`playout.backgammon.families`).
FAMILIES = ("snake", "backgame", "massive-backgame", "containment")
#: Longest self-play game kept (half-moves); a 1-ply game is ~55 half-moves, the longest
#: prime-versus-prime games a few hundred.
MAX_PLIES = 1000

SHARED_BGSAGE = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "backgammon" / "bgsage"
SNAKE_STARTS = "snake starting.txt"
BACKGAME_ROLLOUTS = "player-backgame-rollout.txt"
CUBEFUL_ROLLOUTS = "cubeful-pr-rollouts.jsonl"


class DataError(ValueError):
    """A data file cannot be read or resumed; the message names the file and line."""


# -- self-play -------------------------------------------------------------------------------

@njit(cache=True)
def selfplay_game(kind, W1, b1, W2, b2, pr, pc, start, seed, opening, explore, out):
    """One cubeless game from pre-roll ``start``, both sides at 1-ply; returns its length n.

    ``out[k]`` (``int8[MAX, 26]``) gets the pre-roll board before half-move ``k`` from the side
    to act, for ``k < n`` (the game's end or ``out``'s length, whichever comes first).
    ``opening``: the first roll is an opening roll (no doubles).  With probability ``explore``
    a half-move plays a uniformly random legal play instead of the best.  Seeded (numba's
    generator): the same arguments give the same game.
    """
    np.random.seed(seed)
    moves = np.empty((MAX_MOVES, 26), dtype=np.int8)
    ws = new_workspace()
    x = np.zeros(W1.shape[1])
    h = np.zeros(W1.shape[2])
    o = np.zeros(5)
    oi = np.zeros(5)
    b = start.copy()
    n = 0
    while n < out.shape[0]:
        if game_result(b) != 0:
            break
        out[n] = b
        n += 1
        if opening and n == 1:
            d1, d2 = opening_roll()
        else:
            d1 = np.random.randint(1, 7)
            d2 = np.random.randint(1, 7)
        bi, nm = best_reply(kind, W1, b1, W2, b2, pr, pc, b, d1, d2, moves, ws, x, h, o, oi)
        if explore > 0.0 and nm > 1 and np.random.random() < explore:
            bi = np.random.randint(0, nm)
        b = flip(moves[bi])
    return n


def game_positions(evaluator, start, seed: int, *, opening: bool = False,
                   explore: float = 0.0) -> np.ndarray:
    """``int8[n, 26]``: the pre-roll boards of one self-play game (:func:`selfplay_game`)."""
    out = np.zeros((MAX_PLIES, 26), dtype=np.int8)
    n = selfplay_game(*evaluator.kernel_args(), np.ascontiguousarray(start, dtype=np.int8),
                      int(seed) % (2**32), bool(opening), float(explore), out)
    return out[:n].copy()


# -- keys, tags, provenance ------------------------------------------------------------------

def board_key(board) -> str:
    """The row key: the gnubg position ID (14 characters) of a pre-roll board26."""
    from playout.backgammon.ids import position_id

    return position_id(np.asarray(board, dtype=np.int8))


def is_holdout(key: str, k: int = 10) -> bool:
    """True for the held-out ``1/k`` of the keys (by SHA-256 of the key: stable across runs)."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % k == 0


def families_of(board) -> list[str]:
    """The families of :data:`FAMILIES` that ``board`` is in (either side owning the feature)."""
    from playout.backgammon.families import in_family

    return [f for f in FAMILIES if in_family(f, board)]


def weights_sha256(evaluator) -> str:
    """First 16 hex digits of the SHA-256 of the evaluator's weights (file bytes, or arrays)."""
    path = getattr(evaluator, "path", None)
    hsh = hashlib.sha256()
    if path is not None and Path(path).exists():
        hsh.update(Path(path).read_bytes())
    else:
        for name in ("W1", "b1", "W2", "b2"):
            arr = getattr(evaluator, name, None)
            if arr is not None:
                hsh.update(np.ascontiguousarray(arr, dtype=np.float64).tobytes())
        hsh.update(evaluator.name.encode())
    return hsh.hexdigest()[:16]


#: The modules whose code decides a label (rules, evaluation, rollout kernels).
LABEL_CODE = ("board.py", "moves.py", "features.py", "shots.py", "blockade.py", "contact.py",
              "net.py", "evaluators.py", "bearoff.py", "incremental.py", "luck.py", "search.py",
              "rollout.py", "data.py")


def code_sha256() -> str:
    """First 16 hex digits of the SHA-256 of the :data:`LABEL_CODE` source files (those present):
    rows labelled by different code say so."""
    here = Path(__file__).parent
    hsh = hashlib.sha256()
    for name in LABEL_CODE:
        p = here / name
        if p.exists():
            hsh.update(name.encode() + b"\0" + p.read_bytes())
    return hsh.hexdigest()[:16]


def _seed_of(seed: int, key: str) -> int:
    """The rollout seed of the row ``key`` (independent of the plan's order)."""
    return int(hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()[:8], 16)


# -- the plan ----------------------------------------------------------------------------------

def _read_backgame_boards(path: Path, k: int) -> list[tuple[int, np.ndarray]]:
    """(line number, post-move board) of ``k`` evenly spaced lines of the back-game file."""
    lines = _read_text(path).splitlines()
    if k <= 0 or not lines:
        return []
    picks = sorted(set(np.linspace(0, len(lines) - 1, min(k, len(lines))).astype(int).tolist()))
    out = []
    for i in picks:
        board, _ = _parse_backgame_line(lines[i], path, i + 1)
        out.append((i + 1, board))
    return out


def plan(*, selfplay_games: int = 0, per_game: int = 3, family_games: int = 1,
         backgame_starts: int = 0, snake: bool = True, exits: int = 2, bgsage_boards: int = 0,
         seed: int = 1,
         explore: float = 0.0, evaluator=None, shared: str | os.PathLike | None = None
         ) -> list[dict]:
    """The positions to label, deduplicated, as tasks ``{"key", "board", "source", "family"}``.

    A function of the arguments only: game ``g`` of a stream is seeded by ``(seed, stream,
    g)``, so a larger ``selfplay_games`` keeps every position of a smaller one.  Sources are
    interleaved (one of each in turn) so that a job stopped early holds a mix.

    Args:
        selfplay_games: 1-ply games from the opening; ``per_game`` positions of each.
        family_games: self-play games from each family start (``per_game`` in-family
            positions of each).
        backgame_starts: back-game boards taken from bgsage's ``player-backgame-rollout.txt``
            (each with either side on roll).
        snake: take the 74 snake starting positions (each with either side on roll).
        exits: exit successors per family position (one seeded roll).
        bgsage_boards: boards taken from bgsage's ``cubeful-pr-rollouts.jsonl``.
        explore: chance of a random play per half-move in the self-play games.
        shared: bgsage's data folder (default ``../shared/data/backgammon/bgsage``).

    Raises:
        DataError: a bgsage file is missing or malformed (names the file and line).
    """
    from playout.backgammon.benchmark import FormatError, read_starting
    from playout.backgammon.evaluators import get_evaluator
    from playout.backgammon.families import in_family

    ev = evaluator or get_evaluator("net")
    shared = Path(shared) if shared is not None else SHARED_BGSAGE
    streams: dict[str, list[tuple[np.ndarray, str | None]]] = {s: [] for s in _PLANNED}

    starts: list[tuple[np.ndarray, str]] = []
    if snake:
        try:
            entries = read_starting(shared / SNAKE_STARTS).entries
        except FormatError as exc:
            raise DataError(str(exc)) from None
        for e in entries:
            b = np.array(e.board, dtype=np.int8)
            starts += [(b, "snake"), (flip(b), "snake")]
    for _, b in _read_backgame_boards(shared / BACKGAME_ROLLOUTS, backgame_starts):
        starts += [(flip(b), "backgame"), (b, "backgame")]
    streams["family"] = [(b, f) for b, f in starts]

    family_positions = [(b, f) for b, f in starts if in_family(f, b)]
    for i, (b, fam) in enumerate(starts):
        for g in range(family_games):
            s = np.random.SeedSequence([seed, 2, i, g])
            game = game_positions(ev, b, int(s.generate_state(1)[0]), explore=explore)
            inside = [j for j in range(1, len(game)) if in_family(fam, game[j])]
            rng = np.random.default_rng(s)
            for j in sorted(rng.choice(inside, min(per_game, len(inside)), replace=False).tolist()
                            if inside else []):
                streams["family-selfplay"].append((game[j], fam))
                family_positions.append((game[j], fam))

    for i, (b, fam) in enumerate(family_positions):
        rng = np.random.default_rng([seed, 3, i])
        d = rng.integers(1, 7, 2)
        out = [m for m in legal_moves(b, int(d[0]), int(d[1]))
               if game_result(m) == 0 and not in_family(fam, m)]
        if out and exits > 0:
            for j in sorted(rng.choice(len(out), min(exits, len(out)), replace=False).tolist()):
                streams["exit"].append((flip(out[j]), fam))

    if bgsage_boards > 0:
        path = shared / CUBEFUL_ROLLOUTS
        lines = _read_text(path).splitlines()
        picks = np.linspace(0, len(lines) - 1, min(bgsage_boards, len(lines))).astype(int)
        for i in sorted(set(picks.tolist())):
            board, _, _, _ = _parse_cubeful_line(lines[i], path, i + 1)
            streams["bgsage-board"].append((flip(board), None))

    for g in range(selfplay_games):
        s = np.random.SeedSequence([seed, 1, g])
        game = game_positions(ev, STARTING_BOARD, int(s.generate_state(1)[0]), opening=True,
                              explore=explore)
        rng = np.random.default_rng(s)
        k = min(per_game, len(game) - 1)
        for j in sorted(rng.choice(np.arange(1, len(game)), k, replace=False).tolist() if k > 0 else []):
            streams["selfplay"].append((game[j], None))

    seen: set[str] = set()
    per_source: list[list[dict]] = []
    for src in _PLANNED:
        rows = []
        for b, fam in streams[src]:
            key = board_key(b)
            if key in seen:
                continue
            seen.add(key)
            rows.append({"key": key, "board": [int(v) for v in b], "source": src, "family": fam})
        per_source.append(rows)
    tasks = []
    for i in range(max((len(r) for r in per_source), default=0)):
        tasks += [r[i] for r in per_source if i < len(r)]
    return tasks


# -- labelling ---------------------------------------------------------------------------------

_EVALUATORS: dict = {}


def _evaluator(name: str):
    from playout.backgammon.evaluators import get_evaluator

    if name not in _EVALUATORS:
        _EVALUATORS[name] = get_evaluator(name)
    return _EVALUATORS[name]


def _equity(p):
    return 2 * p[..., 0] - 1 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def label_task(task: dict) -> dict:
    """Executor task: roll out one pre-roll board; returns its row (see the module docstring).

    Task fields: ``board``, ``source``, ``family``, ``evaluator``, ``engine``,
    ``weights_sha256``, ``trials``, ``truncate``, ``luck``, ``seed`` (the row's own).
    """
    from playout.backgammon.luck import DEFAULT_KEEP
    from playout.backgammon.net import sanitize
    from playout.backgammon.rollout import rollout_trials

    ev = _evaluator(task["evaluator"])
    board = np.array(task["board"], dtype=np.int8)
    n = int(task["trials"])
    luck = task["luck"]
    keep = {"ranked": DEFAULT_KEEP, "full": 0, "none": 0}[luck]
    out = np.zeros((n, 5))
    rollout_trials(*ev.kernel_args(), board, 0, n, int(task["seed"]), int(task["truncate"]),
                   luck != "none", keep, out)
    mean = out.mean(axis=0)
    eq = _equity(out)
    sd = out.std(axis=0, ddof=1) if n > 1 else np.zeros(5)
    shown = np.clip(mean, 0.0, 1.0)
    sanitize(shown)
    return {
        "board": [int(v) for v in board],
        "probs": [round(float(v), 6) for v in shown],
        "se": [round(float(v), 6) for v in sd / np.sqrt(n)],
        "equity": round(float(eq.mean()), 6),
        "equity_se": round(float(eq.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0, 6),
        "source": task["source"], "family": task.get("family"),
        "families": families_of(board), "phase": "race" if is_race(board) else "contact",
        "label": {"engine": task["engine"], "weights_sha256": task["weights_sha256"],
                  "trials": n, "truncate": int(task["truncate"]), "vr": luck,
                  "seed": int(task["seed"]), "code_sha256": task.get("code_sha256")},
    }


#: Trials per position: 1,296 plays every pair of first two rolls once.  Use a multiple of
#: 1,296: trial ``t`` takes roll ``t mod 36`` first and ``(t div 36) mod 36`` second, so fewer
#: trials would draw the second roll from part of the 36 only.
DEFAULT_TRIALS = 1296
#: Full rollouts by default.  ``benchmarks/bg_truncation.py`` (30 self-play positions, 1,296
#: trials, paired with the full rollout) measured the truncated rollouts' mean |error| in
#: equity at 0.018 / 0.016 / 0.013 / 0.010 after 5 / 7 / 9 / 11 half-moves (bias -0.006 to
#: -0.002; P(win) 0.007 to 0.004, P(gammon) 0.008 to 0.006), against the full rollout's own
#: standard error of 0.007 and a paired standard error of 0.007: 57% / 53% / 40% / 20% of the
#: positions were off by more than two paired standard errors, for 0.14 / 0.22 / 0.30 / 0.38 of
#: the time.  That error is our net's own error at the leaves, which labels for a better net
#: must not inherit, so labels are played to the end.
DEFAULT_TRUNCATE = 0


def label(out_path, tasks: list[dict], *, evaluator: str = "net", trials: int = DEFAULT_TRIALS,
          truncate: int = DEFAULT_TRUNCATE, luck: str = "ranked", seed: int = 1,
          workers: int | None = 0, ray_address: str | None = None, limit: int | None = None,
          description: str | None = None) -> dict:
    """Label ``tasks`` (from :func:`plan`) not yet in ``out_path``; returns counts.

    The file's setup line (engine, weights hash, trials, truncation, luck, seed) must match a
    rerun's, else :class:`DataError` says which field differs.  ``limit``: label at most the
    first ``limit`` planned positions (done ones included).  Returns ``{"planned", "done",
    "new"}``.
    """
    from playout.executor import ResultsFileError, load_results, run_tasks

    if luck not in ("ranked", "full", "none"):
        raise ValueError(f"luck: {luck!r} (ranked, full or none)")
    ev = _evaluator(evaluator)
    setup = {"kind": "bg-data", "format": FORMAT, "engine": ev.name,
             "weights_sha256": weights_sha256(ev), "trials": int(trials),
             "truncate": int(truncate), "luck": luck, "seed": int(seed)}
    seen: set[str] = set()
    unique = []
    for t in tasks:  # dedup: the first task of a board labels it
        if t["key"] not in seen:
            seen.add(t["key"])
            unique.append(t)
    code = code_sha256()
    todo_tasks = unique[:limit] if limit is not None else unique
    full = [dict(t, evaluator=evaluator, engine=ev.name, weights_sha256=setup["weights_sha256"],
                 trials=int(trials), truncate=int(truncate), luck=luck, code_sha256=code,
                 seed=_seed_of(seed, t["key"])) for t in todo_tasks]
    try:
        done = load_results(out_path, setup)
        new = [t for t in full if t["key"] not in done]
        if new and (workers != 0 or ray_address):
            label_task(dict(new[0], trials=2))  # compile once here; workers load numba's cache
        run_tasks(label_task, new, out_path=out_path, workers=workers, ray_address=ray_address,
                  description=description, setup=setup)
    except ResultsFileError as exc:
        raise DataError(str(exc)) from None
    return {"planned": len(unique), "done": len(done) + len(new), "new": len(new)}


# -- reading -------------------------------------------------------------------------------------

def _read_text(path: Path) -> str:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if str(path).endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise DataError(f"{path}: not a gzip file ({exc})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text ({exc.reason})") from None


def _check_row(row, path, n: int) -> dict:
    where = f"{path}:{n}"
    if not isinstance(row, dict):
        raise DataError(f"{where}: 'result' must be an object")
    for name in ("board", "probs", "source", "label"):
        if name not in row:
            raise DataError(f"{where}: field {name!r} missing")
    try:
        as_board(row["board"])
    except (BoardError, TypeError, ValueError) as exc:
        raise DataError(f"{where}: field 'board': {exc}") from None
    for name in ("probs", "se"):
        v = row.get(name)
        if v is None and name == "se":
            continue
        if (not isinstance(v, list) or len(v) != 5
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)):
            raise DataError(f"{where}: field {name!r}: expected 5 numbers")
        lo = 0.0
        if not all(lo <= x <= 1.0 for x in v):
            raise DataError(f"{where}: field {name!r}: values must lie in [0, 1]")
    if row["source"] not in SOURCES:
        raise DataError(f"{where}: field 'source': {row['source']!r} (one of {', '.join(SOURCES)})")
    if not isinstance(row["label"], dict) or "engine" not in row["label"]:
        raise DataError(f"{where}: field 'label': needs at least 'engine'")
    return row


def read_rows(path) -> tuple[dict | None, dict[str, dict]]:
    """``(setup, key -> row)`` of a data file (``.jsonl`` or ``.jsonl.gz``), validated.

    A torn last line (a writer killed mid-line) is ignored.  Raises :class:`DataError` naming
    the file and line for anything else malformed.
    """
    text = _read_text(Path(path))
    lines = text.split("\n")
    torn = lines[-1] != ""  # no newline at the end: the last line may be incomplete
    if not torn:
        lines = lines[:-1]
    setup = None
    rows: dict[str, dict] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            if torn and n == len(lines):
                break
            raise DataError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
        if not isinstance(rec, dict):
            raise DataError(f"{path}:{n}: expected a JSON object")
        if "setup" in rec:
            setup = rec["setup"]
            continue
        if "key" not in rec or "result" not in rec:
            raise DataError(f"{path}:{n}: a record needs 'key' and 'result'")
        row = _check_row(rec["result"], path, n)
        if board_key(row["board"]) != rec["key"]:
            raise DataError(f"{path}:{n}: field 'key': {rec['key']!r} is not the board's "
                            f"position ID {board_key(row['board'])!r}")
        rows.setdefault(str(rec["key"]), row)
    return setup, rows


def export(src, dst) -> int:
    """Write the rows of ``src`` as a finished shard ``dst`` (``.jsonl.gz``, sorted by key,
    byte-identical for the same rows); returns the row count."""
    setup, rows = read_rows(src)
    buf = io.StringIO()
    if setup is not None:
        buf.write(json.dumps({"setup": setup}, sort_keys=True) + "\n")
    for key in sorted(rows):
        buf.write(json.dumps({"key": key, "result": rows[key]}) + "\n")
    Path(dst).parent.mkdir(parents=True, exist_ok=True)
    with open(dst, "wb") as fh, gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0) as gz:
        gz.write(buf.getvalue().encode("utf-8"))
    return len(rows)


# -- bgsage's published rollouts ---------------------------------------------------------------

def _parse_backgame_line(line: str, path, n: int) -> tuple[np.ndarray, np.ndarray]:
    toks = line.split()
    if len(toks) != 31:
        raise DataError(f"{path}:{n}: expected 31 fields (board26 and 5 probabilities), got {len(toks)}")
    try:
        board = as_board([int(t) for t in toks[:26]])
    except ValueError as exc:
        raise DataError(f"{path}:{n}: field 'board': {exc}") from None
    try:
        probs = np.array([float(t) for t in toks[26:]])
    except ValueError:
        raise DataError(f"{path}:{n}: field 'probs': not numbers") from None
    return board, probs


def _parse_cubeful_line(line: str, path, n: int):
    """(post-move board, probabilities, equity or None, se or None) of one published record."""
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
    try:
        board = as_board(rec["board"])
        probs = [float(x) for x in rec["probs"]]
        if len(probs) != 5:
            raise ValueError("expected 5 probabilities")
    except KeyError as exc:
        raise DataError(f"{path}:{n}: field {exc.args[0]!r} missing") from None
    except (TypeError, ValueError) as exc:
        raise DataError(f"{path}:{n}: {exc}") from None
    return board, probs, rec.get("equity"), rec.get("se")


def _to_side_on_roll(board, probs) -> tuple[np.ndarray, np.ndarray]:
    """A post-move board and the mover's probabilities -> the pre-roll board of the side to
    act next and *its* probabilities (flip the board, swap wins and losses)."""
    p = np.asarray(probs, dtype=np.float64)
    return flip(np.asarray(board, dtype=np.int8)), np.array([1.0 - p[0], p[3], p[4], p[1], p[2]])


def bgsage_rows(shared: str | os.PathLike | None = None) -> Iterator[tuple[str, dict]]:
    """``(key, row)`` for bgsage's published rollouts, converted to our row layout.

    ``player-backgame-rollout.txt`` (source ``bgsage-backgame``; board26 + five probabilities
    per line, no standard errors) and ``cubeful-pr-rollouts.jsonl`` (``bgsage-cubeful``;
    ``board``, ``probs``, cubeless ``equity`` and its ``se``): both hold *post-move* boards
    with the probabilities of the side that moved (``tests/test_bg_pr_formats.py``), so each
    row is flipped to the side on roll and its probabilities inverted.  Slightly negative
    published probabilities (variance reduction) are clipped and made consistent; ``equity``
    is the published one negated (or, without one, that of the unclipped probabilities).
    Raises :class:`DataError` naming the file and line of a malformed record.
    """
    from playout.backgammon.net import sanitize

    shared = Path(shared) if shared is not None else SHARED_BGSAGE

    def row(board, probs, src, name, n, equity=None, eq_se=None):
        b, p = _to_side_on_roll(board, probs)
        shown = np.clip(p, 0.0, 1.0)
        sanitize(shown)
        eq = float(_equity(p)) if equity is None else -float(equity)
        return board_key(b), {
            "board": [int(v) for v in b], "probs": [round(float(v), 6) for v in shown],
            "se": None, "equity": round(eq, 6),
            "equity_se": None if eq_se is None else round(float(eq_se), 6),
            "source": src, "family": "backgame" if src == "bgsage-backgame" else None,
            "families": families_of(b), "phase": "race" if is_race(b) else "contact",
            "label": {"engine": "bgsage-rollout", "file": name, "line": n,
                      "trials": 1296 if src == "bgsage-cubeful" else None},
        }

    path = shared / BACKGAME_ROLLOUTS
    for n, line in enumerate(_read_text(path).splitlines(), 1):
        if line.strip():
            board, probs = _parse_backgame_line(line, path, n)
            yield row(board, probs, "bgsage-backgame", BACKGAME_ROLLOUTS, n)
    path = shared / CUBEFUL_ROLLOUTS
    for n, line in enumerate(_read_text(path).splitlines(), 1):
        if line.strip():
            board, probs, eq, se = _parse_cubeful_line(line, path, n)
            yield row(board, probs, "bgsage-cubeful", CUBEFUL_ROLLOUTS, n, eq, se)


def load(paths: Iterable, *, bgsage: bool = False, shared=None) -> dict[str, dict]:
    """key -> row over data files (and bgsage's rollouts with ``bgsage``); the first file
    holding a key wins (our labels before bgsage's).  A folder is read as n-ply lookahead
    shards (:func:`playout.backgammon.lookahead.rows`)."""
    rows: dict[str, dict] = {}
    for p in paths:
        if Path(p).is_dir():
            from playout.backgammon.lookahead import rows as lookahead_rows

            got = lookahead_rows(p)
        else:
            got = read_rows(p)[1]
        for k, r in got.items():
            rows.setdefault(k, r)
    if bgsage:
        for k, r in bgsage_rows(shared):
            rows.setdefault(k, r)
    return rows


# numba re-validates a cached kernel only against its own file (see playout.jitcache).
flush_stale_caches(globals(), siblings(__file__, "board.py", "moves.py", "net.py", "evaluators.py",
                                       "search.py", "features.py"))
