"""GNU Go 3.8 ``mc_*.db`` Monte Carlo pattern databases: parser, loader, reference matcher.

A database is a list of 3x3 diagrams with the candidate move ``*`` at the centre,
each followed by one or more rules ``:VALUE[,PROP...]``.  The playout samples a
legal move with probability proportional to its value.  Format and semantics
follow GNU Go 3.8: its manual (chapter "Monte Carlo Go"), its three ``mc_*.db``
files, and the cells-per-value figures its compiler gives for them, which
:mod:`playout.go.pattern_compiler` reproduces exactly (project doc
``go-mc-patterns.md``).

Diagram symbols (colour is relative to the player to move):

====== ================================================
``*``  the move (centre only)
``.``  empty
``O``  own stone
``X``  opponent stone
``o``  own stone or empty
``x``  opponent stone or empty
``?``  own, opponent or empty (never off-board)
``%``  own, opponent, empty or off-board
``|``  off-board, vertical edge (left or right column)
``-``  off-board, horizontal edge (top or bottom row)
``+``  off-board, corner of the board
====== ================================================

Edges are drawn *in place of* the off-board neighbours, so every diagram is
exactly three lines of three characters: GNU Go's edge eye is ``oOo / O*O /
---`` and its corner eye ``|Oo / |*O / +--``.  (The 4-wide framing of GNU Go's
ordinary ``patterns.db`` does not exist in this format: a 3x3 neighbourhood
cannot see an edge two lines away.)

Properties (all listed must hold; the property code bits are GNU Go's):

======================  ==========================================================
``near`` / ``far``      bit 0: the point is / is not near the previous move
``osafe`` / ``ounsafe`` bit 6: our move here is not / is a self-atari
``xsafe`` / ``xunsafe`` bit 5: an opponent move here would not / would be self-atari
``xsuicide`` /          bit 7: an opponent move here would / would not be suicide
``xnosuicide``
``ocap0..ocap3``        bits 4-3: stones our move captures (3 = three or more)
``ocap1+ ocap2+``       ... at least 1 / at least 2
``ocap1- ocap2-``       ... at most 1 / at most 2
``xcap...``             bits 2-1, the same forms for an opponent move here
======================  ==========================================================

These eighteen capture forms are exactly the words GNU Go 3.8 recognises (read
from its binary); ``ocap0+``, ``ocap3+`` etc. are not part of the format.
Contradictory properties (``near,far``) make a rule that never matches.

Semantics (compiled in :mod:`playout.go.pattern_compiler`): the first matching
rule in file order gives the value; cells no rule matches get 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Sequence

import numpy as np

__all__ = [
    "EMPTY",
    "OWN",
    "OPPONENT",
    "OFF_BOARD",
    "NEIGHBOURS",
    "PROPERTY_NAMES",
    "BUILTIN_NAMES",
    "PatternError",
    "Rule",
    "parse_patterns",
    "parse_pattern_file",
    "property_code_mask",
    "builtin_path",
    "neighbourhood_index",
    "property_code",
    "reference_value",
]

#: Neighbour states, 2 bits each in a neighbourhood index.
EMPTY, OWN, OPPONENT, OFF_BOARD = 0, 1, 2, 3

#: (row offset, column offset) of the 8 neighbours in index order
#: [NW, N, NE, W, E, SW, S, SE]; N is one row up (towards row 0).
NEIGHBOURS: tuple[tuple[int, int], ...] = (
    (-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1),
)

# Symbol -> bit mask over the states (bit s set = state s allowed).
_E, _O, _X, _OFF = 1 << EMPTY, 1 << OWN, 1 << OPPONENT, 1 << OFF_BOARD
SYMBOL_MASKS: dict[str, int] = {
    ".": _E,
    "O": _O,
    "X": _X,
    "o": _E | _O,
    "x": _E | _X,
    "?": _E | _O | _X,
    "%": _E | _O | _X | _OFF,
    "|": _OFF,
    "-": _OFF,
    "+": _OFF,
}
_EDGE_SYMBOLS = "|-+"

# Property code bits (GNU Go 3.8): see the module docstring.
BIT_NEAR = 1 << 0
OPPONENT_CAPTURES_SHIFT = 1
OWN_CAPTURES_SHIFT = 3
BIT_OPPONENT_SELF_ATARI = 1 << 5
BIT_OWN_SELF_ATARI = 1 << 6
BIT_OPPONENT_SUICIDE = 1 << 7


def _capture_tests(prefix: str, shift: int) -> dict[str, tuple[int, int, int]]:
    """(shift, low, high) inclusive capture-count ranges for ``ocap``/``xcap`` words."""
    tests = {f"{prefix}{n}": (shift, n, n) for n in range(4)}
    tests.update({f"{prefix}1+": (shift, 1, 3), f"{prefix}2+": (shift, 2, 3)})
    tests.update({f"{prefix}1-": (shift, 0, 1), f"{prefix}2-": (shift, 0, 2)})
    return tests


# word -> (bit, required value) for the one-bit properties
_FLAG_PROPERTIES: dict[str, tuple[int, bool]] = {
    "near": (BIT_NEAR, True),
    "far": (BIT_NEAR, False),
    "osafe": (BIT_OWN_SELF_ATARI, False),
    "ounsafe": (BIT_OWN_SELF_ATARI, True),
    "xsafe": (BIT_OPPONENT_SELF_ATARI, False),
    "xunsafe": (BIT_OPPONENT_SELF_ATARI, True),
    "xsuicide": (BIT_OPPONENT_SUICIDE, True),
    "xnosuicide": (BIT_OPPONENT_SUICIDE, False),
}
_CAPTURE_PROPERTIES = {
    **_capture_tests("ocap", OWN_CAPTURES_SHIFT),
    **_capture_tests("xcap", OPPONENT_CAPTURES_SHIFT),
}
#: Every property word the format knows.
PROPERTY_NAMES: tuple[str, ...] = tuple(_FLAG_PROPERTIES) + tuple(_CAPTURE_PROPERTIES)

#: Built-in databases shipped in ``playout/go/data`` (names without ``mc_``).
BUILTIN_NAMES: tuple[str, ...] = ("montegnu_classic", "mogo_classic", "uniform")

#: Largest value: values are unsigned 32-bit (GNU Go advises < 10,000,000).
MAX_VALUE = 2**32 - 1


class PatternError(ValueError):
    """A malformed pattern database; ``str()`` is one line ``FILE:LINE: what is wrong``."""

    def __init__(self, source: str, line: int, reason: str):
        self.source, self.line, self.reason = source, line, reason
        super().__init__(f"{source}:{line}: {reason}")


@dataclass(frozen=True)
class Rule:
    """One ``:VALUE[,PROP...]`` line with the diagram above it.

    ``diagram`` is the 3 lines of 3 symbols as written; ``masks[i]`` is the set of
    allowed states (bit mask over EMPTY/OWN/OPPONENT/OFF_BOARD) of neighbour ``i``
    in :data:`NEIGHBOURS` order; ``line`` is the colon line's number (1-based) and
    ``diagram_line`` the diagram's first line.
    """

    value: int
    properties: tuple[str, ...]
    diagram: tuple[str, str, str]
    masks: tuple[int, ...]
    line: int
    diagram_line: int
    source: str = "<string>"

    def label(self) -> str:
        """``:VALUE,PROP,...`` as written (normalised spacing)."""
        return ":" + ",".join([str(self.value), *self.properties])

    def code_matches(self, code: int) -> bool:
        """Whether property code ``code`` (0..255) satisfies all properties."""
        return all(_property_holds(p, code) for p in self.properties)

    def diagram_matches(self, states: Sequence[int]) -> bool:
        """Whether 8 neighbour states match the diagram in one of its 8 orientations."""
        for perm in _SYMMETRY_PERMUTATIONS:
            if all((self.masks[i] >> states[perm[i]]) & 1 for i in range(8)):
                return True
        return False


def _property_holds(word: str, code: int) -> bool:
    if word in _FLAG_PROPERTIES:
        bit, required = _FLAG_PROPERTIES[word]
        return bool(code & bit) == required
    shift, low, high = _CAPTURE_PROPERTIES[word]
    return low <= (code >> shift) & 3 <= high


def property_code_mask(properties: Sequence[str]) -> np.ndarray:
    """bool[256]: which property codes satisfy all ``properties`` (empty if contradictory)."""
    codes = np.arange(256)
    mask = np.ones(256, dtype=bool)
    for word in properties:
        if word in _FLAG_PROPERTIES:
            bit, required = _FLAG_PROPERTIES[word]
            mask &= ((codes & bit) != 0) == required
        else:
            shift, low, high = _CAPTURE_PROPERTIES[word]
            count = (codes >> shift) & 3
            mask &= (count >= low) & (count <= high)
    return mask


def _symmetry_permutations() -> tuple[tuple[int, ...], ...]:
    """The 8 rotations/reflections as permutations of neighbour slots.

    ``perm[i]`` is the slot that diagram slot ``i`` lands on.
    """
    slot = {offset: i for i, offset in enumerate(NEIGHBOURS)}
    perms = []
    for swap in (False, True):
        for sr in (1, -1):
            for sc in (1, -1):
                perm = []
                for dr, dc in NEIGHBOURS:
                    r, c = (dc, dr) if swap else (dr, dc)
                    perm.append(slot[(r * sr, c * sc)])
                perms.append(tuple(perm))
    return tuple(perms)


_SYMMETRY_PERMUTATIONS = _symmetry_permutations()

_COLON = re.compile(r"^\s*:(.*)$")


def _check_diagram(lines: list[tuple[int, str]], source: str) -> tuple[int, ...]:
    """Validate a 3x3 diagram and return its 8 neighbour masks."""
    first = lines[0][0]
    if len(lines) != 3:
        raise PatternError(source, first, f"diagram has {len(lines)} line(s), expected 3")
    for number, text in lines:
        if len(text) != 3:
            hint = ""
            if len(text) == 4 and any(ch in _EDGE_SYMBOLS for ch in text):
                hint = " (edges |, -, + take the place of the off-board neighbours)"
            raise PatternError(
                source, number, f"diagram line {text!r} has {len(text)} characters, expected 3{hint}"
            )
        for ch in text:
            if ch != "*" and ch not in SYMBOL_MASKS:
                raise PatternError(
                    source, number,
                    f"unknown symbol {ch!r} in diagram line {text!r} (known: * . O X o x ? % | - +)",
                )
    grid = [text for _, text in lines]
    if grid[1][1] != "*":
        raise PatternError(source, lines[1][0], f"the centre of the diagram must be '*', not {grid[1][1]!r}")
    for r in range(3):
        for c in range(3):
            if (r, c) != (1, 1) and grid[r][c] == "*":
                raise PatternError(source, lines[r][0], "'*' may appear only at the centre")
    # Edge symbols: '-' on the top or bottom row, '|' on the left or right column,
    # '+' in a corner; and the diagram must fit at least one real layout (no edge,
    # one side, or two adjacent sides off-board), e.g. '?X|' over 'O*|' over '%%%'.
    for r in range(3):
        for c in range(3):
            ch = grid[r][c]
            if (ch == "-" and r == 1) or (ch == "|" and c == 1) or (ch == "+" and 1 in (r, c)):
                raise PatternError(
                    source, lines[r][0],
                    f"edge symbol {ch!r} at row {r + 1}, column {c + 1}: '-' belongs on the top "
                    "or bottom row, '|' on the left or right column, '+' in a corner",
                )
    masks = tuple(SYMBOL_MASKS[grid[1 + dr][1 + dc]] for dr, dc in NEIGHBOURS)
    if not any(_fits_layout(masks, layout) for layout in _OFF_BOARD_LAYOUTS):
        raise PatternError(
            source, first,
            "the off-board points (| - +) do not form a board edge or corner "
            "(one whole side, or two adjacent sides, of the diagram)",
        )
    return masks


def _off_board_layouts() -> tuple[int, ...]:
    """8-bit masks (bit i = neighbour i off-board) of the layouts a board allows:
    none, one side (3 points) or two adjacent sides (5 points)."""
    side = {
        "N": [i for i, (dr, _) in enumerate(NEIGHBOURS) if dr == -1],
        "S": [i for i, (dr, _) in enumerate(NEIGHBOURS) if dr == 1],
        "W": [i for i, (_, dc) in enumerate(NEIGHBOURS) if dc == -1],
        "E": [i for i, (_, dc) in enumerate(NEIGHBOURS) if dc == 1],
    }
    bits = {k: sum(1 << i for i in v) for k, v in side.items()}
    corners = [bits[a] | bits[b] for a in "NS" for b in "WE"]
    return (0, *bits.values(), *corners)


_OFF_BOARD_LAYOUTS = _off_board_layouts()


def _fits_layout(masks: Sequence[int], layout: int) -> bool:
    """Whether neighbour masks admit the given off-board layout."""
    for i, mask in enumerate(masks):
        if (layout >> i) & 1:
            if not mask & _OFF:
                return False
        elif not mask & (_E | _O | _X):
            return False
    return True


def _parse_rule(text: str, number: int, source: str) -> tuple[int, tuple[str, ...]]:
    fields = [f.strip() for f in text.split(",")]
    value_text = fields[0]
    if not value_text.isdigit() or not value_text.isascii():
        raise PatternError(source, number, f"value {value_text!r} is not an unsigned integer")
    value = int(value_text)
    if value > MAX_VALUE:
        raise PatternError(source, number, f"value {value} exceeds the 32-bit limit {MAX_VALUE}")
    props = []
    for word in fields[1:]:
        if not word:
            raise PatternError(source, number, "empty property (stray comma)")
        if word not in _FLAG_PROPERTIES and word not in _CAPTURE_PROPERTIES:
            raise PatternError(
                source, number, f"unknown property {word!r} (known: {', '.join(PROPERTY_NAMES)})"
            )
        props.append(word)
    return value, tuple(props)


def parse_patterns(text: str, source: str = "<string>") -> list[Rule]:
    """Parse database text into rules in file order.

    Lines are ``#`` comments, blank lines, diagram lines (exactly 3 symbols; trailing
    whitespace ignored) or colon lines.  A diagram is 3 consecutive diagram lines
    followed (blank and comment lines allowed in between) by one or more colon
    lines, each its own rule over that diagram.

    Raises :class:`PatternError` naming ``source`` and the line for: a diagram that
    is not 3x3, an unknown symbol, a centre that is not ``*``, badly placed edges,
    a colon line with no diagram, a diagram with no colon line, a bad value, or an
    unknown property word.

    >>> rules = parse_patterns("oOo\\nO*O\\n---\\n\\n:0\\n:5,near,ocap1+\\n")
    >>> [(r.value, r.properties, r.line) for r in rules]
    [(0, (), 5), (5, ('near', 'ocap1+'), 6)]
    """
    rules: list[Rule] = []
    pending: list[tuple[int, str]] = []  # diagram lines being collected
    masks: tuple[int, ...] | None = None  # current diagram, once complete
    diagram_start = 0
    has_rule = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#"):
            if pending:  # a diagram interrupted before its colon line
                masks = _check_diagram(pending, source)
                diagram, diagram_start, pending = tuple(t for _, t in pending), pending[0][0], []
            continue
        colon = _COLON.match(line)
        if colon:
            if pending:
                masks = _check_diagram(pending, source)
                diagram, diagram_start, pending = tuple(t for _, t in pending), pending[0][0], []
            if masks is None:
                raise PatternError(source, number, "':' rule line without a diagram above it")
            value, props = _parse_rule(colon.group(1), number, source)
            rules.append(Rule(value, props, diagram, masks, number, diagram_start, source))
            has_rule = True
            continue
        # a diagram line
        if masks is not None and not has_rule:
            raise PatternError(source, diagram_start, "diagram has no ':VALUE' line")
        if masks is not None:
            masks, has_rule = None, False
        pending.append((number, line))
        if len(pending) > 3:
            raise PatternError(source, pending[0][0], "diagram has more than 3 lines, expected 3")
    if pending:
        masks = _check_diagram(pending, source)
        diagram_start = pending[0][0]
        has_rule = False
    if masks is not None and not has_rule:
        raise PatternError(source, diagram_start, "diagram has no ':VALUE' line")
    return rules


def parse_pattern_file(path: str | Path) -> list[Rule]:
    """Parse a database file (comments may hold any bytes; they are not decoded strictly).

    Raises :class:`PatternError` (``FILE:LINE: reason``) or ``OSError`` if unreadable.
    """
    path = Path(path)
    text = path.read_bytes().decode("utf-8", errors="replace")
    return parse_patterns(text, source=str(path))


# --------------------------------------------------------------------------- loading


def builtin_path(name: str) -> Path | None:
    """Path of built-in database ``name`` (with or without ``mc_``), or None."""
    key = name.removeprefix("mc_").removesuffix(".db")
    if key not in BUILTIN_NAMES:
        return None
    return Path(str(resources.files("playout.go") / "data" / f"mc_{key}.db"))


# ---------------------------------------------------------------- reference encoding


def neighbourhood_index(board3: Sequence[Sequence[int]]) -> int:
    """Neighbourhood index (0..65535) of the centre of a 3x3 block of states.

    ``board3[r][c]`` is EMPTY/OWN/OPPONENT/OFF_BOARD (0/1/2/3), row 0 on top (north);
    the centre is ignored.  Index = sum(state_i << 2i) over :data:`NEIGHBOURS`.

    >>> neighbourhood_index([[0, 1, 0], [2, 0, 0], [3, 3, 3]])  # N own, W opponent, S edge
    64644
    """
    return sum(int(board3[1 + dr][1 + dc]) << (2 * i) for i, (dr, dc) in enumerate(NEIGHBOURS))


def property_code(
    *,
    near: bool = False,
    own_captures: int = 0,
    opponent_captures: int = 0,
    own_self_atari: bool = False,
    opponent_self_atari: bool = False,
    opponent_suicide: bool = False,
) -> int:
    """The property code (0..255) of a point; capture counts are clipped to 3 ("3 or more").

    >>> property_code(near=True, own_captures=5)
    25
    """
    return (
        (BIT_NEAR if near else 0)
        | min(opponent_captures, 3) << OPPONENT_CAPTURES_SHIFT
        | min(own_captures, 3) << OWN_CAPTURES_SHIFT
        | (BIT_OPPONENT_SELF_ATARI if opponent_self_atari else 0)
        | (BIT_OWN_SELF_ATARI if own_self_atari else 0)
        | (BIT_OPPONENT_SUICIDE if opponent_suicide else 0)
    )


def reference_value(rules, board3: Sequence[Sequence[int]], code: int) -> int:
    """Value of a move by direct rule matching in pure Python (no compiled table).

    ``rules`` is a list of :class:`Rule` or anything with a ``rules`` attribute (a
    compiled database); ``board3`` as in :func:`neighbourhood_index`; ``code`` as in
    :func:`property_code`.  The first rule in file order whose diagram matches in
    one of its 8 orientations and whose properties hold gives the value; otherwise 1.
    This is the executable definition the compiled table is tested against.
    """
    rules = getattr(rules, "rules", rules)
    states = [int(board3[1 + dr][1 + dc]) for dr, dc in NEIGHBOURS]
    for rule in rules:
        if rule.code_matches(code) and rule.diagram_matches(states):
            return rule.value
    return 1
