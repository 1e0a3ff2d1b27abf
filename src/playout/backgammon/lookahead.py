"""Positions labelled by our own n-ply lookahead: cheap distillation targets for the network.

A rollout label costs ~5.6 CPU s a position (:mod:`playout.backgammon.data`); the 3-ply value of
a pre-roll position (:func:`playout.backgammon.search.value_ply`: every one of the 21 rolls,
the best reply at 1-ply, then the 21 rolls after it, each leaf valued by the network) costs
~15 ms, and its plays are far better than the network's own (checker PR on reference set A,
net_td80: 7.74 at 1-ply, 4.83 at 2-ply, 3.25 at 3-ply; ``docs/results.md``).  Fitting the
1-ply network to its own 3-ply values (search distillation; gnubg's training positions were
evaluated by deeper search the same way) moves the fast evaluator towards the slow one; the
targets are computed by this project's engine, no peer takes part.

**Positions**: games of 1-ply self-play of the labelling network from the opening (the
standard opening roll first), with probability ``explore`` a uniformly random legal play per
half-move (so positions off the network's own path occur); ``per_game`` random pre-roll
positions of each game, finished games and pure bear-offs (answered exactly by the bear-off
database) left out.  Game ``g`` is seeded by ``(seed, g)``: a set is a function of its
arguments, and more games keep the earlier ones.

**Candidate plays** (``candidates`` = K > 0): a checker play is chosen by comparing the
positions its legal plays lead to, most of which self-play never reaches (a play the network
would not make).  So for each sampled position one roll is drawn (seeded by the game), its
legal plays ranked by the labelling network at 1-ply, and the positions after the best K
(flipped: pre-roll for the side to act next) are labelled too -- the candidates a 1-ply
decision weighs, as gnubg's move filters keep the best few for deeper search.  They are rows
like the others (game ``g``), after the sampled position; a board already in the shard is kept
once.

**Rollout labels** (``rollout`` = N > 0): each position is labelled instead by N trials of
our own 1-ply rollout with variance reduction, cut after ``truncate`` half-moves
(:func:`rollout_labels`; Open Sage's and gnubg's networks learn from rollouts).  Measured
against bgsage's published rollouts of 100 of its cubeful-PR boards
(``python benchmarks/bg_label_kinds.py``, net_cand128_g16, session 22): mean |equity error| of
our 3-ply value 0.031 (mean signed error +0.004; 0.027 CPU s a position), of truncated
rollouts (11 half-moves) 0.027 / 0.023 / 0.021 with 72 / 144 / 432 trials (signed -0.002 /
+0.000 / +0.002; 0.09 / 0.18 / 0.51 s).  The rollouts' error is mostly noise, which a fit over
many positions averages out; the lookahead's is systematic, and shared with the net it distils.

**Files**: a folder of shards ``shard-00000.npz``, ``shard-00001.npz``, ... (``numpy.savez``,
``allow_pickle=False``), shard ``i`` holding games ``i * games_per_shard`` up to the next
shard's first, with

* ``boards``: ``int8[n, 26]`` pre-roll board26 from the side on roll
  (:mod:`playout.backgammon.board`);
* ``probs``: ``float32[n, 5]`` the side on roll's [win, win gammon, win backgammon, lose gammon,
  lose backgammon] at ``ply`` or by the rollout (cumulative, sanitised as the evaluator
  outputs them);
* ``games``: ``int64[n]`` the game each board came from;
* ``meta``: a JSON string -- ``kind`` ``"bg-lookahead"``, ``format``, ``engine``,
  ``weights_sha256`` (:func:`playout.backgammon.data.weights_sha256`), ``code_sha256``,
  ``ply``, ``explore``, ``per_game``, ``seed``, ``games_per_shard``, ``shard`` (and
  ``candidates``, ``rollout`` -- ``{"trials", "truncate", "luck"}`` -- when used).

Each shard is written to a temporary name and renamed when complete, so a killed job loses at
most the shards in flight; a rerun labels only the missing shards and refuses a folder made
with other settings (naming the field).  :func:`rows` reads a folder into the row layout of
:mod:`playout.backgammon.data` (source ``lookahead``) for :mod:`playout.backgammon.supervised`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from playout.backgammon.data import DataError
from playout.backgammon.data import _evaluator  # one evaluator per name and process

FORMAT = 1
KIND = "bg-lookahead"


class LookaheadError(DataError):
    """A bad or mismatched lookahead folder or shard (the message names the file)."""


def settings(*, evaluator: str = "net", ply: int = 3, explore: float = 0.05, per_game: int = 4,
             seed: int = 1, games_per_shard: int = 100, candidates: int = 0, rollout: int = 0,
             truncate: int = 11) -> dict:
    """The meta fields every shard of one folder shares (see the module docstring).

    ``rollout`` > 0 labels by truncated rollouts of that many trials (:func:`rollout_labels`,
    cut after ``truncate`` half-moves) instead of the ``ply`` lookahead (``ply`` is then
    recorded as 1, the rollout player's).  ``candidates`` and ``rollout`` are recorded only when
    > 0, so folders made before they existed still match.
    """
    from playout.backgammon.data import code_sha256, weights_sha256

    if rollout < 0 or truncate < 1:
        raise ValueError(f"rollout: {rollout} trials, truncate: {truncate} half-moves "
                         "(trials >= 0, 0 = the n-ply label; truncate >= 1)")
    if rollout:
        ply = 1
    elif ply < 2:
        raise ValueError(f"ply: {ply} (a lookahead label needs ply >= 2; 1-ply is the net itself)")
    if candidates < 0:
        raise ValueError(f"candidates: {candidates} (the number of best plays labelled, >= 0)")
    ev = _evaluator(evaluator)
    out = {"kind": KIND, "format": FORMAT, "engine": ev.name, "evaluator": evaluator,
           "weights_sha256": weights_sha256(ev), "code_sha256": code_sha256(),
           "ply": int(ply), "explore": float(explore), "per_game": int(per_game),
           "seed": int(seed), "games_per_shard": int(games_per_shard)}
    if candidates:
        out["candidates"] = int(candidates)
    if rollout:
        out["rollout"] = {"trials": int(rollout), "truncate": int(truncate), "luck": "ranked"}
    return out


def candidate_positions(ev, board, dice, k: int) -> list[np.ndarray]:
    """The pre-roll boards (side to act next) after the ``k`` best plays of ``dice`` from
    pre-roll ``board``, best first, as ranked by evaluator ``ev`` at 1-ply (the mover's
    cubeless money equity of each flipped post-move board; ties keep move-generator order)."""
    from playout.backgammon.board import flip
    from playout.backgammon.evaluators import equity
    from playout.backgammon.moves import legal_moves

    after = np.stack([flip(m) for m in legal_moves(board, int(dice[0]), int(dice[1]))])
    mover = -np.asarray(equity(ev.evaluate(after)), dtype=np.float64).reshape(-1)
    order = np.argsort(-mover, kind="stable")[:k]
    return [after[i] for i in order]


def shard_positions(setup: dict, shard: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(boards int8[n, 26], games int64[n], parents int64[n])``: the positions of ``shard``
    (no labels yet); ``parents[i]`` is the row of the sampled position whose candidate play
    row ``i`` follows (-1 for a sampled position; see :func:`candidate_parents`)."""
    from playout.backgammon.board import STARTING_BOARD, game_result
    from playout.backgammon.classes import is_bearoff
    from playout.backgammon.data import game_positions

    ev = _evaluator(setup["evaluator"])
    g0 = shard * setup["games_per_shard"]
    ncand = int(setup.get("candidates", 0))
    boards, games, parents, seen = [], [], [], {}
    for g in range(g0, g0 + setup["games_per_shard"]):
        ss = np.random.SeedSequence([setup["seed"], 7, g])
        game = game_positions(ev, STARTING_BOARD, int(ss.generate_state(1)[0]), opening=True,
                              explore=setup["explore"])
        ok = [j for j in range(1, len(game))
              if game_result(game[j]) == 0 and not is_bearoff(game[j])]
        rng = np.random.default_rng(ss)
        k = min(setup["per_game"], len(ok))
        for j in sorted(rng.choice(ok, k, replace=False).tolist()) if k else []:
            found = [game[j]]
            if ncand:
                found += candidate_positions(ev, game[j], rng.integers(1, 7, 2), ncand)
            parent = -1
            for c, b in enumerate(found):
                raw = b.tobytes()
                if raw not in seen and game_result(b) == 0 and not is_bearoff(b):
                    seen[raw] = len(boards)
                    boards.append(b)
                    games.append(g)
                    parents.append(-1 if c == 0 else parent)
                if c == 0:
                    parent = seen.get(raw, -1)
    return (np.array(boards, dtype=np.int8).reshape(-1, 26), np.array(games, dtype=np.int64),
            np.array(parents, dtype=np.int64))


@njit(cache=True)
def moved_pips(before, after):
    """Pips the side on roll in pre-roll ``before`` moved to reach ``after`` (the pre-roll board
    of the other side after its play, so ``flip(after)`` is the board it left), or -1 when
    ``after`` cannot follow one play from ``before``: the other side's checkers may only have
    been hit (sent to its bar), and the mover's pip count must fall by 0 to 24 (a play moves at
    most 4 x 6 pips; 0: a roll that cannot be played, as when the mover dances on the bar).
    Board convention of :mod:`playout.backgammon.board`."""
    hits = 0
    for p in range(1, 25):
        so = -before[p] if before[p] < 0 else 0  # the other side's checkers on p ...
        fo = after[25 - p] if after[25 - p] > 0 else 0  # ... after the play (its own view)
        if fo > so:
            return -1
        hits += so - fo
    if after[25] - before[0] != hits:
        return -1
    pb = 25 * before[25]
    pa = 25 * after[0]
    for p in range(1, 25):
        if before[p] > 0:
            pb += p * before[p]
        if after[25 - p] < 0:
            pa -= p * after[25 - p]
    d = pb - pa
    return d if 0 <= d <= 24 else -1


def candidate_parents(boards, candidates: int) -> np.ndarray:
    """``int64[n]``: for each row of a shard made before shards stored ``parents``, the row of
    the sampled position whose candidate play it is (-1: a sampled position), reconstructed:
    after a sampled row come up to ``candidates`` rows that can follow it by one play
    (:func:`moved_pips`) all moving the same number of pips (one roll), except plays that bear
    a checker off, which may use a die larger than the pips it needs (a bear-off with contact
    left is a row).  The rare next sampled position that happens to be such a play of the
    previous one is taken for a candidate: the groups are exact in shards that store
    ``parents``."""
    b = np.asarray(boards, dtype=np.int64)
    out = np.full(len(b), -1, dtype=np.int64)
    i = 0
    while i < len(b):
        j, d0, off0 = i + 1, -1, False
        while j < len(b) and j - i <= candidates:
            d = moved_pips(b[i], b[j])
            off = d >= 0 and _bore_off(b[i], b[j])
            if d < 0 or (d0 >= 0 and d != d0 and not (off or off0)):
                break
            d0, off0 = d, off0 or off
            out[j] = i
            j += 1
        i = j
    return out


def _bore_off(before, after) -> bool:
    """Whether the play from pre-roll ``before`` to ``after`` (the other side's pre-roll view,
    as for :func:`moved_pips`) bore a checker off."""
    from playout.backgammon.board import checkers_off

    return checkers_off(after)[1] > checkers_off(before)[0]


def label_boards(evaluator, boards, ply: int) -> np.ndarray:
    """``float64[n, 5]``: :func:`~playout.backgammon.search.value_ply` of each pre-roll board."""
    from playout.backgammon.search import value_ply

    args = evaluator.kernel_args()
    out = np.zeros((len(boards), 5))
    tmp = np.zeros(5)
    for i, b in enumerate(boards):
        value_ply(*args, np.ascontiguousarray(b, dtype=np.int8), int(ply), tmp)
        out[i] = tmp
    return out


def rollout_labels(evaluator, boards, parents, *, trials: int, truncate: int, seed: int,
                   shard: int) -> np.ndarray:
    """``float64[n, 5]``: truncated rollouts of each pre-roll board (the side to act's view).

    ``trials`` trials of 1-ply play with ranked-luck variance reduction
    (:func:`playout.backgammon.rollout.rollout_trials`, :mod:`playout.backgammon.luck`), each
    cut after ``truncate`` half-moves by the net's value (``evaluator``: our net).  The trials'
    seed and first quasi-random trial come from ``(seed, shard, group)``, the group being the
    row itself or, for a candidate play's row, its sampled position's (``parents``): the
    candidates of one roll are rolled out with the same dice (common random numbers), so the
    differences the ranking term learns carry less noise than the values.  The first trial is
    drawn from 0..1295 because the first two rolls of trial ``t`` are the ``t``-th pair of the
    36 x 36 grid (stratified only over whole grids): with fewer trials a fixed start would fix
    the second roll, while a random start keeps every label unbiased.  Means are clipped to
    [0, 1] and made consistent (:func:`playout.backgammon.net.sanitize`), as
    :func:`playout.backgammon.rollout.rollout` reports them.
    """
    from playout.backgammon.luck import DEFAULT_KEEP
    from playout.backgammon.net import sanitize
    from playout.backgammon.rollout import rollout_trials

    args = evaluator.kernel_args()
    out = np.zeros((len(boards), 5))
    tr = np.zeros((int(trials), 5))
    for i, b in enumerate(boards):
        group = int(parents[i]) if parents[i] >= 0 else i
        rng = np.random.default_rng([int(seed), int(shard), group])
        s = int(rng.integers(1, 2**31 - 1))
        first = int(rng.integers(0, 1296))
        rollout_trials(*args, np.ascontiguousarray(b, dtype=np.int8), first, int(trials), s,
                       int(truncate), True, DEFAULT_KEEP, tr)
        p = np.clip(tr.mean(axis=0), 0.0, 1.0)
        sanitize(p)
        out[i] = p
    return out


def _shard_path(folder: Path, i: int) -> Path:
    return folder / f"shard-{i:05d}.npz"


def make_shard(task: tuple) -> tuple[int, int, float]:
    """Worker: label shard ``i`` of ``folder`` and write it; returns (i, rows, seconds)."""
    folder, setup, i = task
    t0 = time.process_time()
    boards, games, parents = shard_positions(setup, i)
    ev = _evaluator(setup["evaluator"])
    ro = setup.get("rollout")
    if ro:
        probs = rollout_labels(ev, boards, parents, trials=ro["trials"], truncate=ro["truncate"],
                               seed=setup["seed"], shard=i)
    else:
        probs = label_boards(ev, boards, setup["ply"])
    path = _shard_path(Path(folder), i)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}.npz")
    extra = {"parents": parents} if setup.get("candidates") else {}
    np.savez_compressed(tmp, boards=boards, probs=probs.astype(np.float32), games=games,
                        meta=json.dumps(dict(setup, shard=i), sort_keys=True), **extra)
    os.replace(tmp, path)
    return i, len(boards), time.process_time() - t0


def read_shard(path) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray]:
    """``(meta, boards, probs, parents)`` of one shard (``parents``: stored, or rebuilt for
    older shards, :func:`shard_parents`); :class:`LookaheadError` naming the file."""
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            boards = z["boards"].astype(np.int8)
            probs = z["probs"].astype(np.float64)
            stored = z["parents"].astype(np.int64) if "parents" in z.files else None
    except (OSError, KeyError, ValueError, json.JSONDecodeError) as exc:
        raise LookaheadError(f"{path}: not a lookahead shard ({exc})") from None
    if meta.get("kind") != KIND or boards.ndim != 2 or boards.shape[1:] != (26,) \
            or probs.shape != (len(boards), 5):
        raise LookaheadError(f"{path}: not a lookahead shard (kind {meta.get('kind')!r}, "
                             f"boards {boards.shape}, probs {probs.shape})")
    return meta, boards, probs, shard_parents(meta, boards, stored)


def _check_folder(folder: Path, setup: dict) -> list[int]:
    done = []
    for p in sorted(folder.glob("shard-*.npz")):
        if ".tmp" in p.name:
            continue
        meta = read_shard(p)[0]
        # the network is named by its weights' hash: "net" and the same file's path agree
        diff = sorted(k for k in setup if meta.get(k) != setup[k]
                      and k not in ("code_sha256", "evaluator", "engine"))
        if diff:
            raise LookaheadError(f"{p}: made with other settings ("
                                 + ", ".join(f"{k} {meta.get(k)!r}, asked {setup[k]!r}"
                                             for k in diff) + "); use another folder")
        done.append(int(meta["shard"]))
    return done


def generate(folder, *, games: int, workers: int = 1, progress: bool = True, **kw) -> dict:
    """Label the missing shards of ``folder`` for ``games`` games (a multiple of the shard
    size is used: ``ceil(games / games_per_shard)`` shards); returns counts.

    ``kw``: :func:`settings`.  ``workers`` > 1 runs shards in a process pool.
    Raises :class:`LookaheadError` for a folder made with other settings.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    setup = settings(**kw)
    for stale in folder.glob("shard-*.npz.tmp*"):  # left by a worker killed mid-write
        stale.unlink()
    n_shards = -(-int(games) // setup["games_per_shard"])
    done = set(_check_folder(folder, setup))
    todo = [i for i in range(n_shards) if i not in done]
    tasks = [(str(folder), setup, i) for i in todo]
    rows = 0
    t0 = time.time()

    def report(k, res):
        nonlocal rows
        i, n, cpu = res
        rows += n
        if progress:
            print(f"shard {i}: {n} positions, {cpu:.1f} CPU s ({k}/{len(tasks)} new shards, "
                  f"{time.time() - t0:.0f} s)", file=sys.stderr, flush=True)

    if tasks and workers > 1:
        import multiprocessing as mp

        from playout.backgammon.board import STARTING_BOARD

        # compile (or load from numba's cache) here once, before the workers fork
        ev = _evaluator(setup["evaluator"])
        if setup.get("rollout"):
            rollout_labels(ev, STARTING_BOARD[None], np.array([-1]), trials=1, truncate=2,
                           seed=0, shard=0)
        else:
            label_boards(ev, STARTING_BOARD[None], 2)
        with mp.get_context("fork").Pool(workers) as pool:
            for k, res in enumerate(pool.imap_unordered(make_shard, tasks), 1):
                report(k, res)
    else:
        for k, t in enumerate(tasks, 1):
            report(k, make_shard(t))
    return {"shards": n_shards, "done": len(done), "new": len(tasks), "new_rows": rows}


def shard_parents(meta: dict, boards, stored=None) -> np.ndarray:
    """The ``parents`` of a shard (``int64[n]``): ``stored`` (the shard's own array), or for
    older shards reconstructed (:func:`candidate_parents`); all -1 in a folder made without
    ``candidates``."""
    if stored is not None:
        return stored
    k = int(meta.get("candidates", 0))
    return candidate_parents(boards, k) if k else np.full(len(boards), -1, dtype=np.int64)


def rows(folder) -> dict[str, dict]:
    """key -> row (the layout of :mod:`playout.backgammon.data`, source ``lookahead``) over
    the shards of ``folder``; a board in several shards keeps the first.  A candidate play's
    row (folders made with ``candidates``) carries ``group``: a string naming its shard and
    sampled position, shared by the candidates of one roll (the ranking term,
    :mod:`playout.backgammon.ranking`)."""
    from playout.backgammon.board import is_race
    from playout.backgammon.data import board_key

    folder = Path(folder)
    paths = sorted(p for p in folder.glob("shard-*.npz") if ".tmp" not in p.name)
    if not paths:
        raise LookaheadError(f"{folder}: no lookahead shards (shard-*.npz)")
    out: dict[str, dict] = {}
    for p in paths:
        meta, boards, probs, parents = read_shard(p)
        label = {"engine": meta["engine"], "weights_sha256": meta["weights_sha256"],
                 "ply": meta["ply"], "seed": meta["seed"], "code_sha256": meta.get("code_sha256")}
        if meta.get("rollout"):
            label["rollout"] = meta["rollout"]
        for b, pr, par in zip(boards, probs, parents):
            key = board_key(b)
            if key not in out:
                out[key] = {"board": b.tolist(), "probs": [float(v) for v in pr],
                            "source": "lookahead", "family": None,
                            "phase": "race" if is_race(b) else "contact", "label": label}
                if par >= 0:
                    out[key]["group"] = f"{folder}/{p.name}/{int(par)}"
    return out
