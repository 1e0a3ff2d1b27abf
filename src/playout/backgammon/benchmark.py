"""bgsage (Open Sage) benchmark files: ``starting.txt``, ``benchmark.txt``, ``rollout.jsonl``.

Formats (``../shared/docs/backgammon.md``, "Benchmark files"; checked on the real files in
``../shared/data/backgammon/bgsage/`` and ``reference/A/`` by ``tests/test_bg_pr_formats.py``):

* ``<family> starting.txt``: ``cube_value cube_owner board26`` per line.  The board and the
  cube owner are relative to *player 1* (the positive checkers), who is not necessarily on
  roll (bgsage's header says so; generation flips a coin for who starts).
* ``<family> benchmark.txt``: ``kind cube_value cube_owner d1 d2 board26`` per line; kind
  ``checker`` or ``cube`` (dice ``- -`` for cube).  Board and owner are from the side whose
  decision it is (positive = mover).
* ``<family> rollout.jsonl``: one JSON object per decision (see :class:`Reference`).  Checker
  candidates are *post-move* boards seen by the side that just moved (not flipped), with
  cubeful equities for that side, best first; cube records carry ND/DT/DP for the side on roll.

Comment lines start with ``#``; they are kept in :attr:`BenchmarkFile.header` so that a file
read and written again is byte-identical.  Every user error raises :class:`FormatError`
naming the file, line and field.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

CUBE_OWNERS = ("centered", "player", "opponent")
KINDS = ("checker", "cube")

#: Evaluation levels counted as rollout grade (bgsage writes ``"Rollout"``).
ROLLOUT_LEVEL = "Rollout"


class FormatError(ValueError):
    """A benchmark file is malformed; the message names file, line and field."""

    def __init__(self, path: str | os.PathLike | None, line: int | None, field_name: str, msg: str):
        where = f"{path}" if path is not None else "<input>"
        if line is not None:
            where += f":{line}"
        super().__init__(f"{where}: field {field_name!r}: {msg}")
        self.path, self.line, self.field = path, line, field_name


Board = tuple[int, ...]


def flip_owner(owner: str) -> str:
    """The cube owner seen by the other side (``player`` <-> ``opponent``)."""
    return {"centered": "centered", "player": "opponent", "opponent": "player"}[owner]


def flip_board(board: Iterable[int]) -> Board:
    """board26 seen by the other side: reverse and negate the points, swap the bars."""
    b = list(board)
    return tuple([b[25]] + [-b[25 - p] for p in range(1, 25)] + [b[0]])


def _parse_int(tok: str, path, line: int, name: str, lo: int | None = None, hi: int | None = None) -> int:
    try:
        v = int(tok)
    except ValueError:
        raise FormatError(path, line, name, f"expected an integer, got {tok!r}") from None
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise FormatError(path, line, name, f"{v} is out of range [{lo}, {hi}]")
    return v


def check_board(board: Iterable[int], path=None, line: int | None = None, name: str = "board") -> Board:
    """Validate a board26 (26 ints, bars non-negative, 15 checkers or fewer a side)."""
    b = tuple(int(x) for x in board)
    if len(b) != 26:
        raise FormatError(path, line, name, f"expected 26 ints, got {len(b)}")
    if b[0] < 0 or b[25] < 0:
        raise FormatError(path, line, name, "bar counts ([0] and [25]) must be >= 0")
    mine = b[25] + sum(x for x in b[1:25] if x > 0)
    theirs = b[0] - sum(x for x in b[1:25] if x < 0)
    if mine > 15 or theirs > 15:
        raise FormatError(path, line, name, f"more than 15 checkers a side ({mine}, {theirs})")
    return b


def _parse_cube(toks: list[str], path, line: int) -> tuple[int, str]:
    cv = _parse_int(toks[0], path, line, "cube_value", 1, 1 << 12)
    if cv & (cv - 1):
        raise FormatError(path, line, "cube_value", f"{cv} is not a power of two")
    owner = toks[1]
    if owner not in CUBE_OWNERS:
        raise FormatError(path, line, "cube_owner", f"{owner!r} is not one of {', '.join(CUBE_OWNERS)}")
    return cv, owner


def _board_text(board: Board) -> str:
    return " ".join(str(int(x)) for x in board)


# ---------------------------------------------------------------------------
# starting.txt
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StartingPosition:
    """One line of ``starting.txt``: board and cube owner relative to player 1."""

    cube_value: int
    cube_owner: str
    board: Board

    def line(self) -> str:
        return f"{self.cube_value} {self.cube_owner} {_board_text(self.board)}"


@dataclass(frozen=True)
class Decision:
    """One line of ``benchmark.txt``: a decision seen by the side that makes it.

    ``dice`` is ``(d1, d2)`` for a checker decision (file order kept) and ``None`` for a cube
    decision.
    """

    kind: str
    cube_value: int
    cube_owner: str
    dice: tuple[int, int] | None
    board: Board

    def line(self) -> str:
        d = "- -" if self.dice is None else f"{self.dice[0]} {self.dice[1]}"
        return f"{self.kind} {self.cube_value} {self.cube_owner} {d} {_board_text(self.board)}"

    @property
    def key(self) -> str:
        """Our decision key: md5 of the canonical line with the dice sorted high first.

        (bgsage's own keys in ``rollout.jsonl`` are opaque; records are matched to decisions by
        :meth:`match_key`, and our own files use this key.)
        """
        return hashlib.md5(self.match_key_text().encode()).hexdigest()

    def match_key_text(self) -> str:
        d = "- -" if self.dice is None else "%d %d" % tuple(sorted(self.dice, reverse=True))
        return f"{self.kind} {self.cube_value} {self.cube_owner} {d} {_board_text(self.board)}"

    def match_key(self) -> tuple:
        dice = None if self.dice is None else tuple(sorted(self.dice, reverse=True))
        return (self.kind, self.cube_value, self.cube_owner, dice, tuple(self.board))


@dataclass
class BenchmarkFile:
    """A ``starting.txt`` or ``benchmark.txt``: entries plus the comment lines.

    ``header`` holds ``(index, text)`` pairs: each comment line with the number of entries
    that precede it, so writing reproduces the original interleaving.
    """

    entries: list
    header: list[tuple[int, str]] = field(default_factory=list)

    def text(self) -> str:
        out: list[str] = []
        hi = 0
        for i, e in enumerate(self.entries + [None]):
            while hi < len(self.header) and self.header[hi][0] <= i:
                out.append(self.header[hi][1])
                hi += 1
            if e is not None:
                out.append(e.line())
        return "".join(s + "\n" for s in out)


def _iter_lines(path) -> Iterator[tuple[int, str]]:
    try:
        with open(path, encoding="utf-8") as fh:
            for n, raw in enumerate(fh, 1):
                yield n, raw.rstrip("\n").rstrip("\r")
    except FileNotFoundError:
        raise FormatError(path, None, "path", "no such file") from None


def read_starting(path) -> BenchmarkFile:
    """Read ``<family> starting.txt`` into :class:`StartingPosition` entries."""
    entries: list[StartingPosition] = []
    header: list[tuple[int, str]] = []
    for n, line in _iter_lines(path):
        if not line.strip() or line.lstrip().startswith("#"):
            header.append((len(entries), line))
            continue
        toks = line.split()
        if len(toks) != 28:
            raise FormatError(path, n, "line", f"expected 28 fields (cube_value cube_owner board26), got {len(toks)}")
        cv, owner = _parse_cube(toks, path, n)
        board = check_board([_parse_int(t, path, n, f"board[{i}]") for i, t in enumerate(toks[2:])], path, n)
        entries.append(StartingPosition(cv, owner, board))
    return BenchmarkFile(entries, header)


def parse_decision(line: str, path=None, n: int | None = None) -> Decision:
    """Parse one ``benchmark.txt`` decision line (errors name ``path``, line ``n`` and field)."""
    toks = line.split()
    if len(toks) != 31:
        raise FormatError(path, n, "line", f"expected 31 fields (kind cube_value cube_owner d1 d2 board26), got {len(toks)}")
    kind = toks[0]
    if kind not in KINDS:
        raise FormatError(path, n, "kind", f"{kind!r} is not 'checker' or 'cube'")
    cv, owner = _parse_cube(toks[1:3], path, n)
    if kind == "cube":
        if toks[3] != "-" or toks[4] != "-":
            raise FormatError(path, n, "dice", "a cube decision has dice '- -'")
        dice = None
    else:
        dice = (_parse_int(toks[3], path, n, "d1", 1, 6), _parse_int(toks[4], path, n, "d2", 1, 6))
    board = check_board([_parse_int(t, path, n, f"board[{i}]") for i, t in enumerate(toks[5:])], path, n)
    return Decision(kind, cv, owner, dice, board)


def read_benchmark(path) -> BenchmarkFile:
    """Read ``<family> benchmark.txt`` into :class:`Decision` entries."""
    entries: list[Decision] = []
    header: list[tuple[int, str]] = []
    for n, line in _iter_lines(path):
        if not line.strip() or line.lstrip().startswith("#"):
            header.append((len(entries), line))
            continue
        entries.append(parse_decision(line, path, n))
    return BenchmarkFile(entries, header)


def write_text(path, bf: BenchmarkFile) -> None:
    """Write a :class:`BenchmarkFile` (atomically: temp file then rename)."""
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(bf.text(), encoding="utf-8")
    os.replace(tmp, path)


# ---------------------------------------------------------------------------
# rollout.jsonl
# ---------------------------------------------------------------------------

_MOVE_FIELDS = ("board", "equity", "cubeless_equity", "probs", "eval_level", "std_error")
_REF_FIELDS = (
    "key", "kind", "board", "dice", "cube_value", "cube_owner", "n_trials", "eval_level",
    "moves", "equity_nd", "equity_dt", "equity_dp", "should_double_ref", "should_take_ref",
    "is_beaver", "optimal_action",
)


@dataclass
class MoveReference:
    """One candidate of a checker reference: post-move board (mover's view) and its values.

    ``equity`` is cubeful, for the side that moved; ``eval_level`` is ``"Rollout"``,
    ``"3-ply"``, ... (XG numbering); ``std_error`` only for rollouts.
    """

    board: Board
    equity: float
    cubeless_equity: float | None = None
    probs: list[float] | None = None
    eval_level: str = ""
    std_error: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return _ordered(self, _MOVE_FIELDS, self.order)


@dataclass
class Reference:
    """One ``rollout.jsonl`` record: the reference values of a decision.

    Checker: ``moves`` best first.  Cube: ``equity_nd``/``equity_dt``/``equity_dp`` (cubeful,
    normalised to the cube value, side on roll), ``should_double_ref``, ``should_take_ref``,
    ``is_beaver``.  Unknown fields are kept in ``extra`` and written back in their order.
    """

    kind: str
    board: Board
    dice: tuple[int, int] | None
    cube_value: int
    cube_owner: str
    key: str | None = None
    moves: list[MoveReference] = field(default_factory=list)
    equity_nd: float | None = None
    equity_dt: float | None = None
    equity_dp: float | None = None
    should_double_ref: bool | None = None
    should_take_ref: bool | None = None
    is_beaver: bool | None = None
    optimal_action: str | None = None
    eval_level: str | None = None
    n_trials: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    order: tuple[str, ...] = ()

    def decision(self) -> Decision:
        return Decision(self.kind, self.cube_value, self.cube_owner, self.dice, self.board)

    def match_key(self) -> tuple:
        return self.decision().match_key()

    @property
    def level(self) -> str:
        """The reference's own level: the record's ``eval_level``, else the best move's."""
        if self.eval_level:
            return self.eval_level
        if self.kind == "cube":
            return "Rollout" if self.n_trials else ""
        levels = [m.eval_level for m in self.moves]
        if ROLLOUT_LEVEL in levels:
            return ROLLOUT_LEVEL
        return self.moves[0].eval_level if self.moves else ""

    def to_dict(self) -> dict:
        d = _ordered(self, _REF_FIELDS, self.order)
        if "moves" in d:
            d["moves"] = [m.to_dict() for m in self.moves]
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))


def _ordered(obj, known: tuple[str, ...], order: tuple[str, ...]) -> dict:
    out: dict[str, Any] = {}
    names = list(order) if order else [k for k in known if getattr(obj, k) is not None] + list(obj.extra)
    for k in names:
        if k in known:
            v = getattr(obj, k)
            if isinstance(v, tuple):
                v = list(v)
            out[k] = v
        elif k in obj.extra:
            out[k] = obj.extra[k]
    for k in known:  # fields set after reading (e.g. a completed move) are written too
        if k not in out and getattr(obj, k) is not None and not (k == "moves" and not obj.moves):
            v = getattr(obj, k)
            out[k] = list(v) if isinstance(v, tuple) else v
    return out


def _num(d: dict, name: str, path, line: int, where: str, optional=False):
    v = d.get(name)
    if v is None:
        if optional:
            return None
        raise FormatError(path, line, where + name, "missing")
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise FormatError(path, line, where + name, f"expected a number, got {v!r}")
    return float(v)


def reference_from_dict(d: dict, path=None, line: int | None = None) -> Reference:
    """Build a :class:`Reference` from one parsed JSON record (errors name the field)."""
    if not isinstance(d, dict):
        raise FormatError(path, line, "record", "expected a JSON object")
    kind = d.get("kind") or ("checker" if d.get("moves") else "cube" if "equity_nd" in d else None)
    if kind not in KINDS:
        raise FormatError(path, line, "kind", f"{d.get('kind')!r} is not 'checker' or 'cube'")
    board = check_board(d.get("board") or [], path, line)
    cv = d.get("cube_value", 1)
    if not isinstance(cv, int) or cv < 1:
        raise FormatError(path, line, "cube_value", f"expected a positive int, got {cv!r}")
    owner = d.get("cube_owner", "centered")
    if owner not in CUBE_OWNERS:
        raise FormatError(path, line, "cube_owner", f"{owner!r} is not one of {', '.join(CUBE_OWNERS)}")
    dice = d.get("dice")
    if kind == "checker":
        if not (isinstance(dice, list) and len(dice) == 2 and all(isinstance(x, int) and 1 <= x <= 6 for x in dice)):
            raise FormatError(path, line, "dice", f"expected two dice 1..6, got {dice!r}")
        dice = (dice[0], dice[1])
    else:
        dice = None
    moves: list[MoveReference] = []
    if kind == "checker":
        raw_moves = d.get("moves")
        if not isinstance(raw_moves, list) or not raw_moves:
            raise FormatError(path, line, "moves", "a checker record needs a non-empty list")
        for i, m in enumerate(raw_moves):
            w = f"moves[{i}]."
            if not isinstance(m, dict):
                raise FormatError(path, line, f"moves[{i}]", "expected an object")
            mb = check_board(m.get("board") or [], path, line, w + "board")
            probs = m.get("probs")
            if probs is not None and (not isinstance(probs, list) or len(probs) != 5):
                raise FormatError(path, line, w + "probs", "expected 5 probabilities")
            moves.append(MoveReference(
                board=mb,
                equity=_num(m, "equity", path, line, w),
                cubeless_equity=_num(m, "cubeless_equity", path, line, w, optional=True),
                probs=probs,
                eval_level=str(m.get("eval_level", "")),
                std_error=_num(m, "std_error", path, line, w, optional=True),
                extra={k: v for k, v in m.items() if k not in _MOVE_FIELDS},
                order=tuple(m.keys()),
            ))
    ref = Reference(
        kind=kind, board=board, dice=dice, cube_value=cv, cube_owner=owner, key=d.get("key"),
        moves=moves,
        equity_nd=_num(d, "equity_nd", path, line, "", optional=kind == "checker"),
        equity_dt=_num(d, "equity_dt", path, line, "", optional=kind == "checker"),
        equity_dp=_num(d, "equity_dp", path, line, "", optional=kind == "checker"),
        should_double_ref=d.get("should_double_ref"),
        should_take_ref=d.get("should_take_ref"),
        is_beaver=d.get("is_beaver"),
        optimal_action=d.get("optimal_action"),
        eval_level=d.get("eval_level"),
        n_trials=d.get("n_trials"),
        extra={k: v for k, v in d.items() if k not in _REF_FIELDS},
        order=tuple(d.keys()),
    )
    return ref


def read_rollout(path, *, tolerate_truncated_tail: bool = False) -> list[Reference]:
    """Read ``rollout.jsonl``.

    With ``tolerate_truncated_tail`` a last line cut short (a writer killed mid-line) is
    ignored instead of raising; every other bad line raises :class:`FormatError`.
    """
    out: list[Reference] = []
    lines = list(_iter_lines(path))
    for idx, (n, line) in enumerate(lines):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            if tolerate_truncated_tail and idx == len(lines) - 1:
                break
            raise FormatError(path, n, "json", str(exc)) from None
        out.append(reference_from_dict(d, path, n))
    return out


def write_rollout(path, refs: Iterable[Reference]) -> None:
    """Write a whole ``rollout.jsonl`` (compact JSON, one record a line)."""
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for r in refs:
            fh.write(r.to_json() + "\n")
    os.replace(tmp, path)


def append_rollout(path, ref: Reference) -> None:
    """Append one record (one ``write`` call on an O_APPEND file, then fsync)."""
    data = (ref.to_json() + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------
# A benchmark directory
# ---------------------------------------------------------------------------


@dataclass
class BenchmarkSet:
    """Decisions of a benchmark directory with their references (``None`` where missing)."""

    benchmark_path: Path
    rollout_path: Path
    decisions: list[Decision]
    references: list[Reference | None]


def find_files(directory) -> tuple[Path, Path]:
    """``(benchmark.txt, rollout.jsonl)`` of a directory, with or without a family prefix.

    Raises :class:`FormatError` when the directory has no single benchmark file.
    """
    d = Path(directory)
    if not d.is_dir():
        raise FormatError(d, None, "directory", "not a directory")
    bench = sorted(p for p in d.iterdir() if p.name.endswith("benchmark.txt"))
    if len(bench) != 1:
        raise FormatError(d, None, "benchmark.txt", f"expected one *benchmark.txt, found {len(bench)}")
    roll = d / bench[0].name.replace("benchmark.txt", "rollout.jsonl")
    return bench[0], roll


def load_set(directory) -> BenchmarkSet:
    """Read a benchmark directory and pair each decision with its reference record."""
    bpath, rpath = find_files(directory)
    decisions = read_benchmark(bpath).entries
    refs = read_rollout(rpath, tolerate_truncated_tail=True) if rpath.exists() else []
    by_key = {r.match_key(): r for r in refs}
    return BenchmarkSet(bpath, rpath, decisions, [by_key.get(d.match_key()) for d in decisions])
