"""Compile parsed ``mc_*.db`` rules into GNU Go's value table (numpy, vectorised).

Layout (the interface the playout kernel reads; GNU Go 3.8's own layout):

* A point's *neighbourhood index* is ``sum(state_i << 2i)`` over its 8 neighbours
  in the order [NW, N, NE, W, E, SW, S, SE] (N = towards row 0), states 0 empty,
  1 own (colour to move), 2 opponent, 3 off-board: 0..65535.
* ``geometry[index]`` folds the index under the 8 rotations/reflections into one
  of 1,107 classes: ids 0..953 centre shapes (no off-board neighbour), 954..1088
  edge shapes (one side off-board), 1089..1106 corner shapes (two adjacent sides
  off-board), each group ordered by its smallest member index.  Other off-board
  layouts cannot occur on a board of at least 2x2 and map to -1.
* ``values[class, code]`` (uint32, 1,107 x 256) is the value of a move with that
  neighbourhood and property code (bits: 7 opponent suicide, 6 own self-atari,
  5 opponent self-atari, 4-3 own captures 0..3+, 2-1 opponent captures 0..3+,
  0 near).  The kernel reads ``values[geometry[index], code]``.

Rules fill the table in file order; a rule writes only cells still unset (first
match wins) and unset cells end as 1 (GNU Go's default).  Class counts 954/135/18
are GNU Go's (its 3.8 binary asserts ``n == 1107 + 1`` table rows).

:func:`load_patterns` parses (:mod:`playout.go.patterns`) and compiles a file or a
built-in database; the parser does not import this module.

Speed: the 1,107 classes are built once per process (~0.06 s); compiling a
database tests each diagram's 8 orientations on the class representatives only
(a class is closed under the symmetries), ~0.01-0.02 s for GNU Go's files.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from playout.go.patterns import (
    BUILTIN_NAMES,
    OFF_BOARD,
    Rule,
    _OFF_BOARD_LAYOUTS,
    _SYMMETRY_PERMUTATIONS,
    builtin_path,
    parse_pattern_file,
    property_code_mask,
)

__all__ = [
    "N_INDICES",
    "N_CODES",
    "N_CLASSES",
    "CLASS_COUNTS",
    "Geometry",
    "geometry_classes",
    "CompiledPatterns",
    "RuleStats",
    "compile_rules",
    "verify_against_reference",
    "load_patterns",
]

N_INDICES = 4**8  # 65,536 neighbourhood indices
N_CODES = 256  # property codes
#: (centre, edge, corner) class counts: GNU Go's 954 + 135 + 18 = 1,107.
CLASS_COUNTS = (954, 135, 18)
N_CLASSES = sum(CLASS_COUNTS)


@dataclass(frozen=True)
class Geometry:
    """The neighbourhood classes (computed once per process by :func:`geometry_classes`).

    ``index_class``: int32[65536] class id or -1; ``representatives``: int32[1107]
    the smallest index of each class; ``states``: uint8[1107, 8] neighbour states of
    each representative; ``kind``: uint8[1107] 0 centre, 1 edge, 2 corner.
    """

    index_class: np.ndarray
    representatives: np.ndarray
    states: np.ndarray
    kind: np.ndarray


@functools.lru_cache(maxsize=1)
def geometry_classes() -> Geometry:
    """Fold the 65,536 neighbourhood indices into GNU Go's 1,107 classes."""
    index = np.arange(N_INDICES, dtype=np.int64)
    shifts = 2 * np.arange(8, dtype=np.int64)
    states = ((index[:, None] >> shifts[None, :]) & 3).astype(np.int64)
    # image of each index under each symmetry; canonical = smallest image
    images = np.stack(
        [(states << (2 * np.asarray(perm, dtype=np.int64))[None, :]).sum(axis=1)
         for perm in _SYMMETRY_PERMUTATIONS]
    )
    canonical = images.min(axis=0)
    off = ((states == OFF_BOARD) << np.arange(8)[None, :]).sum(axis=1)
    n_off = (states == OFF_BOARD).sum(axis=1)
    valid = np.isin(off, _OFF_BOARD_LAYOUTS)
    kind = np.where(n_off == 0, 0, np.where(n_off == 3, 1, 2))
    key = kind * N_INDICES + canonical
    reps_key, inverse = np.unique(key[valid], return_inverse=True)
    index_class = np.full(N_INDICES, -1, dtype=np.int32)
    index_class[valid] = inverse.astype(np.int32)
    representatives = (reps_key % N_INDICES).astype(np.int32)
    rep_kind = (reps_key // N_INDICES).astype(np.uint8)
    counts = tuple(int((rep_kind == k).sum()) for k in range(3))
    if counts != CLASS_COUNTS:  # pragma: no cover - a broken symmetry table
        raise AssertionError(f"neighbourhood classes {counts}, expected {CLASS_COUNTS}")
    rep_states = states[representatives].astype(np.uint8)
    for array in (index_class, representatives, rep_states, rep_kind):
        array.setflags(write=False)
    return Geometry(index_class, representatives, rep_states, rep_kind)


@dataclass(frozen=True)
class RuleStats:
    """What one rule contributed: ``geometries`` classes its diagram matches (in any
    orientation, regardless of earlier rules), ``codes`` property codes its
    properties allow (0 = contradictory), ``cells`` table cells it set (first match)."""

    rule: Rule
    geometries: int
    codes: int
    cells: int


@dataclass(frozen=True)
class CompiledPatterns:
    """A compiled database: ``values[geometry[nbr_index], code]`` is a move's value.

    ``geometry``: int32[65536] class id per neighbourhood index (-1: impossible);
    ``values``: uint32[1107, 256]; ``rules``: the parsed rules in file order;
    ``rule_stats``: one :class:`RuleStats` per rule; ``name``: file or built-in name.
    """

    name: str
    geometry: np.ndarray
    values: np.ndarray
    rules: tuple[Rule, ...]
    rule_stats: tuple[RuleStats, ...] = field(repr=False)

    @property
    def n_classes(self) -> int:
        return int(self.values.shape[0])

    def value(self, nbr_index: int, code: int) -> int:
        """Value of a move with neighbourhood index ``nbr_index`` and property ``code``.

        Raises ``ValueError`` for an index no board position can have.
        """
        if not 0 <= code < N_CODES:
            raise ValueError(f"property code {code} outside 0..255")
        cls = int(self.geometry[nbr_index])
        if cls < 0:
            raise ValueError(f"neighbourhood index {nbr_index} has an impossible off-board layout")
        return int(self.values[cls, code])

    def cells_per_value(self) -> dict[int, int]:
        """{value: number of (class, code) cells with it}, sorted by value."""
        vals, counts = np.unique(self.values, return_counts=True)
        return {int(v): int(c) for v, c in zip(vals, counts)}

    def rule_geometries(self) -> list[int]:
        """Per rule (file order) the number of classes its diagram matches."""
        return [s.geometries for s in self.rule_stats]


def diagram_class_match(masks: Sequence[int]) -> np.ndarray:
    """bool[1107]: the classes a diagram (8 neighbour state masks) matches in any orientation.

    A class is closed under the symmetries, so testing its representative against
    the 8 orientations of the diagram decides the whole class.
    """
    geo = geometry_classes()
    masks = np.asarray(masks, dtype=np.int64)
    match = np.zeros(N_CLASSES, dtype=bool)
    states = geo.states.astype(np.int64)
    for perm in _SYMMETRY_PERMUTATIONS:
        placed = np.empty(8, dtype=np.int64)
        placed[np.asarray(perm)] = masks  # diagram slot i lands on perm[i]
        match |= ((placed[None, :] >> states) & 1).all(axis=1)
    return match


def compile_rules(rules: Sequence[Rule], name: str = "<patterns>") -> CompiledPatterns:
    """Compile rules (file order, first match wins, default 1) into a value table."""
    geo = geometry_classes()
    values = np.zeros((N_CLASSES, N_CODES), dtype=np.uint32)
    filled = np.zeros((N_CLASSES, N_CODES), dtype=bool)
    stats = []
    diagram_cache: dict[tuple[int, ...], np.ndarray] = {}
    for rule in rules:
        classes = diagram_cache.get(rule.masks)
        if classes is None:
            classes = diagram_cache[rule.masks] = diagram_class_match(rule.masks)
        codes = property_code_mask(rule.properties)
        new = classes[:, None] & codes[None, :] & ~filled
        values[new] = rule.value
        filled |= new
        stats.append(RuleStats(rule, int(classes.sum()), int(codes.sum()), int(new.sum())))
    values[~filled] = 1
    values.setflags(write=False)  # built-ins are cached and shared
    return CompiledPatterns(name, geo.index_class, values, tuple(rules), tuple(stats))


def verify_against_reference(compiled: CompiledPatterns) -> list[tuple[int, int, int, int]]:
    """Check every (class, code) cell against rule-by-rule matching in pure Python.

    Uses :meth:`Rule.diagram_matches` / :meth:`Rule.code_matches` on each class's
    representative (the same definitions as :func:`playout.go.patterns.reference_value`),
    not the vectorised code above.  Returns the mismatches as
    ``(class, code, table value, reference value)``; empty when the table is right.
    Takes a few seconds for GNU Go's databases.
    """
    geo = geometry_classes()
    code_ok = [[rule.code_matches(code) for code in range(N_CODES)] for rule in compiled.rules]
    bad = []
    for cls in range(N_CLASSES):
        states = [int(s) for s in geo.states[cls]]
        hits = [i for i, rule in enumerate(compiled.rules) if rule.diagram_matches(states)]
        row = compiled.values[cls]
        for code in range(N_CODES):
            expected = next((compiled.rules[i].value for i in hits if code_ok[i][code]), 1)
            if int(row[code]) != expected:
                bad.append((cls, code, int(row[code]), expected))
    return bad


# --------------------------------------------------------------------------- loading


@functools.lru_cache(maxsize=8)
def _load_builtin(key: str):
    path = builtin_path(key)
    assert path is not None
    return compile_rules(parse_pattern_file(path), name=f"mc_{key}")


def load_patterns(name_or_path: str | Path):
    """Parse and compile a database: a file path (an existing path wins) or a built-in name.

    Built-in names: ``montegnu_classic`` (GNU Go's default), ``mogo_classic``,
    ``uniform``, each also with the ``mc_`` prefix.  Built-ins are compiled once per
    process and shared: treat the returned arrays as read-only.

    Returns :class:`CompiledPatterns`.
    Raises :class:`PatternError` for a malformed file, ``ValueError`` (one line naming the
    path) for a directory, a file without any pattern (``FILE: no patterns found``) and a
    name that is neither an existing file nor a built-in (the message lists the built-ins),
    ``OSError`` for an unreadable file.
    """
    path = Path(name_or_path)
    if path.is_dir():
        raise ValueError(f"{path}: is a directory, not a pattern file")
    if path.is_file():
        rules = parse_pattern_file(path)
        if not rules:
            raise ValueError(f"{path}: no patterns found")
        return compile_rules(rules, name=str(path))
    if builtin_path(str(name_or_path)) is not None:
        return _load_builtin(str(name_or_path).removeprefix("mc_").removesuffix(".db"))
    raise ValueError(
        f"no pattern file or built-in database named {str(name_or_path)!r}; "
        f"built-ins: {', '.join(BUILTIN_NAMES)} (also with the mc_ prefix)"
    )
