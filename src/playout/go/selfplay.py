"""Seeded, resumable collections of Go game records (SGF) for learning pattern values.

``generate(out_dir, games, ...)`` plays ``games`` games of one engine against itself through
GTP (:func:`playout.go.match.play_game`, scored by GNU Go's ``final_score`` under Chinese rules)
and writes each as ``OUT_DIR/NAME.sgf``:

* ``NAME`` is ``{engine tag}-{size}x{size}-s{seed}-{index:05d}``, e.g.
  ``gnugo-l10-9x9-s1-00007``; the engine tag is ``gnugo-l{level}`` (GNU Go 3.8 at
  ``--level``) or ``ours-p{playouts}`` (``playout gtp --playouts``), followed by ``-o{K}``
  for a collection with a random opening of ``K`` stones (``gnugo-l10-o3-9x9-s1-00007``).
* A random opening (:func:`random_opening`) makes the games differ: GNU Go 3.8 at level 10
  barely uses its ``--seed`` (of 1,600 games from the empty board, 509 were distinct).  Its
  stones are the record's root setup (``AB``/``AW``, ``PL``), so that only the engines' moves
  are moves.
* Game ``index`` of collection ``seed`` gives Black the engine seed ``2 * k + 1`` and White
  ``2 * k + 2`` with ``k = seed * 100000 + index`` (GNU Go's ``--seed``; ours ``--seed``), so a
  game is a function of (engine, level or playouts, size, komi, seed, index).
* A file is written whole (a temporary file renamed over it), so a killed run loses at most the
  game in progress; a rerun skips every game whose file exists.
* :func:`is_held_out` puts a game in the held-out tenth by a stable hash (SHA-256) of its file
  name, independent of the order or number of games generated.

The root comment (``GC``) names the two engine command lines, the seeds and the game's wall
time; every move node holds ``C[time S s]`` (its ``genmove``).  Engines run under ``nice``.
An engine that does not answer within ``timeout`` seconds, answers garbage or dies raises
:class:`SelfplayError` (one line); the game is not written.
"""

from __future__ import annotations

import hashlib
import os
import resource
import shlex
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from playout.go.match import GNUGO, GtpError, game_sgf, play_game

__all__ = ["SelfplayError", "GameSpec", "game_specs", "fold", "is_held_out", "split_files", "generate"]

ENGINES = ("gnugo", "ours")


class SelfplayError(RuntimeError):
    """An engine failed (timeout, garbage, death, not installed); the message is one line."""


@dataclass(frozen=True)
class GameSpec:
    """One game of a collection: its file ``name`` (no ``.sgf``) and the two GTP commands."""

    index: int
    name: str
    black_cmd: str
    white_cmd: str
    black_seed: int
    white_seed: int
    opening: tuple[str, ...] = ()


def random_opening(size: int, stones: int, k: int) -> tuple[str, ...]:
    """``stones`` moves (``"b E5"``, colours alternating from Black) on distinct points off the
    first line, uniform (numpy ``default_rng(k)``; ``k`` as in the module docstring).  Raises
    ``ValueError`` when the board has fewer such points."""
    import numpy as np

    from playout.go.board import COLUMNS

    inner = [(c, r) for r in range(2, size) for c in range(1, size - 1)]
    if stones > len(inner):
        raise ValueError(f"a random opening of {stones} stones does not fit off the first line "
                         f"of a {size}x{size} board")
    pick = np.random.default_rng(k).choice(len(inner), size=stones, replace=False)
    return tuple(f"{'bw'[i % 2]} {COLUMNS[inner[j][0]]}{inner[j][1]}"
                 for i, j in enumerate(pick.tolist()))


def _nice() -> list[str]:
    exe = shutil.which("nice")
    return [exe, "-n", "10"] if exe else []


def engine_command(engine: str, seed: int, size: int, komi: float, level: int = 10,
                   playouts: int = 2000) -> str:
    """GTP command line (niced) of ``engine`` (``gnugo`` or ``ours``) with its ``seed``.

    Raises :class:`SelfplayError` when ``engine`` is unknown or GNU Go is not installed.
    """
    if engine == "gnugo":
        if GNUGO is None:
            raise SelfplayError("gnugo: not installed (Debian package gnugo, /usr/games/gnugo)")
        argv = [GNUGO, "--mode", "gtp", "--level", str(level), "--seed", str(seed),
                "--chinese-rules", "--boardsize", str(size), "--komi", str(komi)]
    elif engine == "ours":
        argv = [sys.executable, "-c", "from playout.cli import main; main()", "gtp",
                "--boardsize", str(size), "--komi", str(komi), "--playouts", str(playouts),
                "--seed", str(seed), "--resign", "0"]
    else:
        raise SelfplayError(f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")
    return shlex.join(_nice() + argv)


def engine_tag(engine: str, level: int, playouts: int, opening: int = 0) -> str:
    """``gnugo-l10`` / ``ours-p2000`` (/ ``gnugo-l10-o3`` with a random opening of 3 stones):
    the engine part of a game's file name."""
    tag = f"gnugo-l{level}" if engine == "gnugo" else f"ours-p{playouts}"
    return f"{tag}-o{opening}" if opening else tag


def game_specs(games: int, size: int = 9, komi: float = 7.0, level: int = 10,
               engine: str = "gnugo", seed: int = 1, playouts: int = 2000,
               opening: int = 0) -> list[GameSpec]:
    """The ``games`` games of a collection (see the module docstring for names and seeds);
    ``opening``: stones of each game's :func:`random_opening` (0: the empty board)."""
    tag = engine_tag(engine, level, playouts, opening)
    specs = []
    for i in range(games):
        k = seed * 100000 + i
        bs, ws = 2 * k + 1, 2 * k + 2
        specs.append(GameSpec(i, f"{tag}-{size}x{size}-s{seed}-{i:05d}",
                              engine_command(engine, bs, size, komi, level, playouts),
                              engine_command(engine, ws, size, komi, level, playouts), bs, ws,
                              random_opening(size, opening, k) if opening else ()))
    return specs


def fold(name: str | Path, folds: int = 10) -> int:
    """The fold (0..folds-1) of a game file: SHA-256 of its base name modulo ``folds``; fold 0
    of 10 is the held-out tenth."""
    base = Path(name).name.removesuffix(".sgf")
    return int(hashlib.sha256(base.encode()).hexdigest(), 16) % folds


def is_held_out(name: str | Path) -> bool:
    """Whether a game file is in the held-out tenth: SHA-256 of its base name (``.sgf`` kept
    or not) taken as an integer is 0 modulo 10."""
    return fold(name) == 0


def split_files(games_dir: str | Path) -> tuple[list[Path], list[Path]]:
    """(training, held-out) ``*.sgf`` files of a folder, each sorted by name.

    Raises ``ValueError`` (one line naming the folder) when it is missing or has no SGF file.
    """
    d = Path(games_dir)
    if not d.is_dir():
        raise ValueError(f"{d}: no such folder of game records")
    files = sorted(d.glob("*.sgf"))
    if not files:
        raise ValueError(f"{d}: no *.sgf game records")
    held = [f for f in files if is_held_out(f)]
    train = [f for f in files if not is_held_out(f)]
    return train, held


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def generate(out_dir: str | Path, games: int, size: int = 9, komi: float = 7.0, level: int = 10,
             engine: str = "gnugo", seed: int = 1, playouts: int = 2000,
             timeout: float = 120.0, log=print, referee: str | None = None,
             opening: int = 0) -> dict:
    """Play the missing games of a collection into ``out_dir`` (created); see the module doc.
    ``opening``: stones of each game's :func:`random_opening` (0: from the empty board).

    ``timeout``: seconds an engine may take per GTP answer; ``referee``: the GTP command that
    scores a game ending in two passes (default GNU Go, Chinese rules).  Returns ``{"played": n,
    "skipped": n, "files": [...all the collection's paths...], "seconds_per_game": mean wall
    seconds of the games played now (None if none), "cpu_seconds_per_game": the engines' and
    referee's CPU seconds (user + system, ``getrusage`` of the ended child processes),
    "moves_per_game": ...}``.
    Raises :class:`SelfplayError` (one line) when an engine fails; the games before it stay.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    specs = game_specs(games, size, komi, level, engine, seed, playouts, opening)
    played, skipped, secs, cpus, nmoves = 0, 0, [], [], []
    for spec in specs:
        path = out / f"{spec.name}.sgf"
        if path.exists():
            skipped += 1
            continue
        t0 = time.monotonic()
        cpu0 = _children_cpu()
        try:
            r = play_game(spec.black_cmd, spec.white_cmd, size, komi, timeout=timeout,
                          names=("black", "white"), referee=referee, opening=spec.opening)
        except GtpError as exc:
            raise SelfplayError(f"game {spec.name}: {exc} (not written; a rerun plays it "
                                "again)") from None
        wall = time.monotonic() - t0
        cpu = _children_cpu() - cpu0
        tag = engine_tag(engine, level, playouts, opening)
        moves, seconds = r["moves"][len(spec.opening):], r["seconds"][len(spec.opening):]
        label = f"GNU Go level {level}" if engine == "gnugo" else f"playout {playouts} playouts"
        comment = "\n".join([
            f"selfplay {tag} size {size} komi {komi} collection seed {seed} game {spec.index}",
            f"Black: {spec.black_cmd}", f"White: {spec.white_cmd}",
            f"programs: {r['programs'][0]} / {r['programs'][1]}",
            *([f"random opening (setup stones): {', '.join(spec.opening)}"] if spec.opening
              else []),
            f"wall time {wall:.1f} s, engines' CPU {cpu:.1f} s, {len(moves)} moves",
        ])
        data = game_sgf(size, komi, moves, r["result"],
                        f"{label} seed {spec.black_seed}", f"{label} seed {spec.white_seed}",
                        seconds, comment=comment, setup=spec.opening)
        _write_atomic(path, data)
        played += 1
        secs.append(wall)
        cpus.append(cpu)
        nmoves.append(len(moves))
        log(f"{spec.name}: {r['result']} in {len(moves)} moves, {wall:.1f} s")
    return {
        "played": played, "skipped": skipped,
        "files": [str(out / f"{s.name}.sgf") for s in specs],
        "seconds_per_game": round(sum(secs) / len(secs), 2) if secs else None,
        "cpu_seconds_per_game": round(sum(cpus) / len(cpus), 2) if cpus else None,
        "moves_per_game": round(sum(nmoves) / len(nmoves), 1) if nmoves else None,
    }
