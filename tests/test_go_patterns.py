"""GNU Go mc_*.db pattern databases: parser, compiler, built-ins, CLI.

Reference figures (cells per value, per-rule geometry counts) come from GNU Go
3.8's own files, read from ../shared/data/go beside the checkout (never copied).
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from playout.go.cli_patterns import patterns as patterns_command
from playout.go.pattern_compiler import (
    CLASS_COUNTS,
    N_CLASSES,
    compile_rules,
    geometry_classes,
    load_patterns,
    verify_against_reference,
)
from playout.go.patterns import (
    EMPTY,
    NEIGHBOURS,
    OFF_BOARD,
    OPPONENT,
    OWN,
    PROPERTY_NAMES,
    PatternError,
    neighbourhood_index,
    parse_pattern_file,
    parse_patterns,
    property_code,
    property_code_mask,
    reference_value,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GNUGO_DIR = SHARED / "data" / "go"
needs_gnugo_files = pytest.mark.skipif(
    not (GNUGO_DIR / "mc_mogo_classic.db").is_file(),
    reason="GNU Go's mc_*.db files (../shared/data/go) are not available",
)

GNUGO_CELLS = {
    "uniform": {0: 4352, 1: 279040},
    "mogo_classic": {0: 4352, 1: 197052, 100: 31192, 10000: 50796},
    "montegnu_classic": {
        0: 4352, 1: 114864, 3: 9752, 30: 13488, 40: 26976, 60: 26976, 100: 288,
        400: 84, 1000: 1448, 2000: 5908, 4000: 5908, 6000: 5908, 10000: 13488,
        13000: 26976, 20000: 26976,
    },
}


def gnugo(name: str):
    return compile_rules(parse_pattern_file(GNUGO_DIR / f"mc_{name}.db"), name=name)


def board_from_index(index: int) -> list[list[int]]:
    """3x3 states (centre empty) of a neighbourhood index."""
    board = [[EMPTY] * 3 for _ in range(3)]
    for i, (dr, dc) in enumerate(NEIGHBOURS):
        board[1 + dr][1 + dc] = (index >> (2 * i)) & 3
    return board


def board(text: str) -> list[list[int]]:
    """3x3 board from a picture: . empty, O own, X opponent, # off-board, * centre."""
    states = {".": EMPTY, "*": EMPTY, "O": OWN, "X": OPPONENT, "#": OFF_BOARD}
    rows = text.split()
    assert len(rows) == 3 and all(len(r) == 3 for r in rows)
    return [[states[ch] for ch in row] for row in rows]


def rotate(b):
    return [[b[2 - c][r] for c in range(3)] for r in range(3)]


def mirror(b):
    return [row[::-1] for row in b]


# ------------------------------------------------------------------ encoding/geometry


def test_neighbourhood_index_encoding_order():
    # NW, N, NE, W, E, SW, S, SE at bit pairs 0, 2, ..., 14
    assert neighbourhood_index(board("O.. .*. ...")) == 1
    assert neighbourhood_index(board(".X. .*. ...")) == 2 << 2
    assert neighbourhood_index(board("... X*. ...")) == 2 << 6
    assert neighbourhood_index(board("... .*. ..O")) == 1 << 14
    assert neighbourhood_index(board("### #*. #..")) == 3 | 3 << 2 | 3 << 4 | 3 << 6 | 3 << 10
    assert property_code(near=True) == 1
    assert property_code(opponent_captures=2) == 2 << 1
    assert property_code(own_captures=7) == 3 << 3
    assert property_code(opponent_self_atari=True) == 1 << 5
    assert property_code(own_self_atari=True) == 1 << 6
    assert property_code(opponent_suicide=True) == 1 << 7


def test_geometry_classes_match_gnugo_layout():
    geo = geometry_classes()
    assert CLASS_COUNTS == (954, 135, 18) and N_CLASSES == 1107
    assert [int((geo.kind == k).sum()) for k in range(3)] == [954, 135, 18]
    g = geo.index_class
    assert g.shape == (65536,) and g.dtype == np.int32
    assert set(np.unique(g[g >= 0]).tolist()) == set(range(1107))
    # valid indices: 3^8 centre + 4 sides * 3^5 + 4 corners * 3^3
    assert int((g >= 0).sum()) == 3**8 + 4 * 3**5 + 4 * 3**3
    # off-board on opposite sides, or a lone off-board point, is impossible
    assert g[neighbourhood_index(board("### .*. ###"))] == -1
    assert g[neighbourhood_index(board("#.. .*. ..."))] == -1
    # every index shares its class with its rotations and reflections
    rng = random.Random(3)
    for index in rng.sample(np.flatnonzero(g >= 0).tolist(), 300):
        b = board_from_index(index)
        images = set()
        for _ in range(4):
            b = rotate(b)
            for img in (b, mirror(b)):
                images.add(neighbourhood_index(img))
                assert g[neighbourhood_index(img)] == g[index]
        assert len(images) in (1, 2, 4, 8)
    # representatives are the smallest member; ids ordered centre, edge, corner
    assert (g[geo.representatives] == np.arange(1107)).all()
    assert (np.diff(geo.kind.astype(int)) >= 0).all()


# ------------------------------------------------------------------ GNU Go figures


@needs_gnugo_files
@pytest.mark.parametrize("name", sorted(GNUGO_CELLS))
def test_gnugo_databases_cells_per_value(name):
    compiled = gnugo(name)
    assert compiled.values.shape == (1107, 256) and compiled.values.dtype == np.uint32
    assert compiled.cells_per_value() == GNUGO_CELLS[name]
    assert sum(compiled.cells_per_value().values()) == 283_392


@needs_gnugo_files
def test_gnugo_per_rule_geometry_counts():
    mogo = {s.rule.label(): s for s in gnugo("mogo_classic").rule_stats}
    assert mogo[":10000,ocap1+,osafe,near"].geometries == 741
    assert mogo[":10000,ocap1+,osafe,near"].codes == 48
    assert mogo[":10000,ocap1+,osafe,near"].cells == 741 * 48
    monte = {s.rule.label(): s for s in gnugo("montegnu_classic").rule_stats}
    assert monte[":10000,ocap1,near,osafe"].geometries == 843
    assert monte[":1"].geometries == 1107
    # the three eye shapes: 12 centre + 3 edge + 2 corner classes
    assert [s.geometries for s in gnugo("uniform").rule_stats] == [12, 3, 2]


@needs_gnugo_files
@pytest.mark.parametrize("name", sorted(GNUGO_CELLS))
def test_compiled_table_agrees_with_direct_matching(name):
    """The numpy table against pure-Python rule-by-rule matching: every cell, then a
    sample through the neighbourhood-index path (geometry lookup included)."""
    compiled = gnugo(name)
    assert verify_against_reference(compiled) == []
    rng = random.Random(hash(name) & 0xFFFF)
    valid = np.flatnonzero(compiled.geometry >= 0).tolist()
    for _ in range(1500):
        index, code = rng.choice(valid), rng.randrange(256)
        expected = reference_value(compiled.rules, board_from_index(index), code)
        assert compiled.value(index, code) == expected, (index, code)


# ------------------------------------------------------------------ semantics


def test_first_match_wins_default_one_and_multiple_colon_lines():
    compiled = compile_rules(parse_patterns(
        "?X?\n?*?\n???\n:50,ocap1\n:60,ocap2+\n%%%\n%*%\n%%%\n:7,ocap1\n:8,near\n"
    ))
    contact = neighbourhood_index(board(".X. .*. ..."))
    open_ = neighbourhood_index(board("... .*. ..."))
    assert [r.value for r in compiled.rules] == [50, 60, 7, 8]
    assert compiled.value(contact, property_code(own_captures=1)) == 50
    assert compiled.value(contact, property_code(own_captures=2)) == 60
    assert compiled.value(contact, property_code(own_captures=1, near=True)) == 50  # not 8
    assert compiled.value(open_, property_code(own_captures=1, near=True)) == 7  # not 8
    assert compiled.value(open_, property_code(near=True)) == 8
    assert compiled.value(open_, property_code()) == 1  # unset -> 1
    # centre classes with an opponent stone beside the move: 741 (as in GNU Go's mogo)
    assert [s.geometries for s in compiled.rule_stats] == [741, 741, 1107, 1107]
    assert [s.codes for s in compiled.rule_stats] == [64, 128, 64, 128]
    # later rules only fill cells still unset
    assert [s.cells for s in compiled.rule_stats] == [
        741 * 64, 741 * 128, (1107 - 741) * 64, 741 * 32 + (1107 - 741) * 96
    ]
    assert int((compiled.values == 1).sum()) == 283_392 - sum(s.cells for s in compiled.rule_stats)


def test_colour_is_relative_and_all_orientations_match():
    compiled = compile_rules(parse_patterns("XO.\n.*.\n...\n:9\n"))
    b = board("XO. .*. ...")
    for _ in range(4):
        for img in (b, mirror(b)):
            assert compiled.value(neighbourhood_index(img), 0) == 9
        b = rotate(b)
    assert compiled.value(neighbourhood_index(board("OX. .*. ...")), 0) == 1  # colours swapped
    assert compiled.value(neighbourhood_index(board("XO. .*. ..O")), 0) == 1  # '.' means empty


def test_question_mark_never_matches_off_board_but_percent_does():
    compiled = compile_rules(parse_patterns("?X?\n?*?\n???\n:5\n%O%\n%*%\n%%%\n:6\n"))
    assert compiled.value(neighbourhood_index(board(".X. .*. ...")), 0) == 5
    assert compiled.value(neighbourhood_index(board("### .*. .X.")), 0) == 1
    assert compiled.value(neighbourhood_index(board("### .*. .O.")), 0) == 6
    assert compiled.value(neighbourhood_index(board("### #*O #..")), 0) == 6  # corner
    # an explicit edge matches only off-board points
    edge = compile_rules(parse_patterns("---\n.*.\n...\n:4\n"))
    assert edge.value(neighbourhood_index(board("### .*. ...")), 0) == 4
    assert edge.value(neighbourhood_index(board("### #*. #..")), 0) == 1  # corner is not an edge
    assert edge.value(neighbourhood_index(board("... .*. ...")), 0) == 1


def test_capture_forms_and_flags():
    assert len(PROPERTY_NAMES) == 24
    codes = np.arange(256)
    own, opp = (codes >> 3) & 3, (codes >> 1) & 3
    expect = {
        "ocap0": own == 0, "ocap3": own == 3, "ocap1+": own >= 1, "ocap2+": own >= 2,
        "ocap1-": own <= 1, "ocap2-": own <= 2, "xcap2": opp == 2, "xcap1+": opp >= 1,
        "xcap2-": opp <= 2, "near": codes & 1 == 1, "far": codes & 1 == 0,
        "osafe": codes & 64 == 0, "ounsafe": codes & 64 != 0,
        "xsafe": codes & 32 == 0, "xunsafe": codes & 32 != 0,
        "xsuicide": codes & 128 != 0, "xnosuicide": codes & 128 == 0,
    }
    for word, mask in expect.items():
        assert (property_code_mask([word]) == mask).all(), word
    assert property_code_mask(["ocap1+", "osafe", "near"]).sum() == 48


@pytest.mark.parametrize("props", ["near,far", "ocap0,ocap1+", "osafe,ounsafe", "xcap2-,xcap3"])
def test_contradictory_properties_never_match(props):
    compiled = compile_rules(parse_patterns(f"%%%\n%*%\n%%%\n:0,{props}\n:9\n"))
    assert compiled.rule_stats[0].codes == 0 and compiled.rule_stats[0].cells == 0
    assert compiled.cells_per_value() == {9: 283_392}


@st.composite
def databases(draw):
    """Random well-formed databases: diagrams with edges, several colon lines each."""
    chunks = []
    for _ in range(draw(st.integers(1, 6))):
        grid = [list(draw(st.text(".OXoxx?%", min_size=3, max_size=3))) for _ in range(3)]
        grid[1][1] = "*"
        edge = draw(st.sampled_from(["", "top", "bottom", "left", "right", "top-left", "bottom-right"]))
        for side in edge.split("-") if edge else []:
            if side in ("top", "bottom"):
                grid[0 if side == "top" else 2] = ["-"] * 3
        for side in edge.split("-") if edge else []:
            if side in ("left", "right"):
                c = 0 if side == "left" else 2
                for r in range(3):
                    grid[r][c] = "+" if grid[r][c] == "-" else "|"
        lines = ["".join(row) for row in grid]
        for _ in range(draw(st.integers(1, 3))):
            props = draw(st.lists(st.sampled_from(PROPERTY_NAMES), max_size=3))
            value = draw(st.integers(0, 2**32 - 1))
            lines.append(":" + ",".join([str(value), *props]))
        chunks.append("\n".join(lines))
    return "\n\n".join(chunks) + "\n"


@settings(max_examples=25, deadline=None)
@given(databases())
def test_random_databases_compile_to_the_reference(text):
    compiled = compile_rules(parse_patterns(text))
    assert verify_against_reference(compiled) == []
    for s in compiled.rule_stats:
        assert s.cells <= s.geometries * s.codes
    assert sum(s.cells for s in compiled.rule_stats) <= 283_392


def test_value_is_unsigned_32_bit():
    compiled = compile_rules(parse_patterns("%%%\n%*%\n%%%\n:4294967295,near\n"))
    assert compiled.value(0, 1) == 4294967295 and compiled.value(0, 0) == 1


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "text, line, words",
    [
        (".X.\n.*.\n...\n:5,nearr\n", 4, "unknown property 'nearr'"),
        (".X.\n.*.\n...\n:5,ocap3+\n", 4, "unknown property 'ocap3+'"),
        (".Y.\n.*.\n...\n:5\n", 1, "unknown symbol 'Y'"),
        (".X.\n...\n...\n:5\n", 2, "centre"),
        (".X.\n.**\n...\n:5\n", 2, "only at the centre"),
        ("# c\n.X.\n.*.\n\n:5\n", 2, "2 line(s)"),
        (".X.\n.*.\n...\n....\n:5\n", 1, "more than 3 lines"),
        ("|.X.\n|.*.\n|...\n:5\n", 1, "take the place of the off-board"),
        (":5\n", 1, "without a diagram"),
        ("...\n.*.\n...\n\n...\n.*.\n...\n:1\n", 1, "no ':VALUE' line"),
        ("...\n.*.\n...\n# end\n", 1, "no ':VALUE' line"),
        ("...\n.*.\n...\n:4294967296\n", 4, "32-bit"),
        ("...\n.*.\n...\n:-3\n", 4, "not an unsigned integer"),
        ("...\n.*.\n...\n:3,,near\n", 4, "stray comma"),
        ("...\n-*.\n...\n:3\n", 2, "edge symbol '-'"),
        ("---\n.*.\n---\n:3\n", 1, "do not form a board edge"),
        ("|..\n.*.\n...\n:3\n", 1, "do not form a board edge"),
    ],
)
def test_parse_errors_name_file_line_and_problem(text, line, words):
    with pytest.raises(PatternError) as info:
        parse_patterns(text, source="my.db")
    message = str(info.value)
    assert message.startswith(f"my.db:{line}: "), message
    assert words in message and "\n" not in message
    assert info.value.line == line


def test_gnugo_style_layouts_parse():
    rules = parse_patterns(
        "# comment\n\noOo\nO*O\n---   \n\n:0\n \n\t\n|Oo\n|*O\n+--\n\n:0\n"
        "?X|\nO*|\n%%%\n:1000 , near , osafe\n"
    )
    assert [(r.value, r.properties, r.line, r.diagram_line) for r in rules] == [
        (0, (), 7, 3), (0, (), 14, 10), (1000, ("near", "osafe"), 18, 15)
    ]


# ------------------------------------------------------------------ built-ins


@pytest.mark.parametrize("name", ["uniform", "mc_uniform", "mogo_classic", "mc_montegnu_classic"])
def test_builtins_load_by_either_name(name):
    compiled = load_patterns(name)
    assert compiled.values.shape == (1107, 256)
    assert compiled is load_patterns("mc_" + name.removeprefix("mc_"))  # cached
    assert compiled.cells_per_value()[0] == 4352  # the three eye shapes


def test_unknown_name_lists_builtins_and_existing_path_wins(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="built-ins: montegnu_classic, mogo_classic, uniform"):
        load_patterns("mogo")
    monkeypatch.chdir(tmp_path)
    Path("uniform").write_text("%%%\n%*%\n%%%\n:7\n")
    assert load_patterns("uniform").cells_per_value() == {7: 283_392}


def test_builtin_uniform_is_the_light_policy():
    compiled = load_patterns("uniform")
    assert compiled.cells_per_value() == {0: 4352, 1: 279040}
    eye = neighbourhood_index(board("OO. O*O .OX"))
    assert compiled.value(eye, 0) == 0
    assert compiled.value(neighbourhood_index(board("XO. O*O .OX")), 0) == 1  # false eye
    assert compiled.value(neighbourhood_index(board("### O*O .O.")), 5) == 0  # edge eye
    assert compiled.value(neighbourhood_index(board("### #*O #OO")), 9) == 0  # corner eye
    assert compiled.value(neighbourhood_index(board("### #*O #OX")), 9) == 1  # false in the corner
    assert compiled.value(neighbourhood_index(board("### #*O #.O")), 9) == 1


@needs_gnugo_files
def test_our_uniform_and_montegnu_compile_to_gnugo_tables():
    for name in ("uniform", "montegnu_classic"):
        assert (load_patterns(name).values == gnugo(name).values).all(), name


def _gnugo_mogo_with_fixes() -> str:
    text = (GNUGO_DIR / "mc_mogo_classic.db").read_bytes().decode("latin-1")
    fixed = text.replace("?X?\n?*?\n???", "%X%\n%*%\n%%%").replace("?O?\n?*?\n???", "%O%\n%*%\n%%%")
    dup = "OX?\nX*.\n?.?"
    assert text.count(dup) == 2 and text.count("OX?\nX*O\n???") == 0
    i = fixed.rindex(dup)
    return fixed[:i] + "OX?\nX*O\n???" + fixed[i + len(dup):]


@needs_gnugo_files
def test_our_mogo_is_gnugo_mogo_with_its_two_defects_fixed():
    ours, theirs = load_patterns("mogo_classic"), gnugo("mogo_classic")
    fixed = compile_rules(parse_patterns(_gnugo_mogo_with_fixes()))
    assert (ours.values == fixed.values).all()
    # measured differences from GNU Go's own table
    assert ours.cells_per_value() == {0: 4352, 1: 189048, 100: 31804, 10000: 58188}
    changed = ours.values != theirs.values
    assert int(changed.sum()) == 11_676
    assert int(((ours.values == 10000) & (theirs.values == 1)).sum()) == 3_720
    assert int(((ours.values == 10000) & (theirs.values == 100)).sum()) == 3_672
    assert int(((ours.values == 100) & (theirs.values == 1)).sum()) == 4_284  # the cut twin
    assert int((ours.values < theirs.values).sum()) == 0
    stats = {s.rule.label(): s for s in ours.rule_stats}
    assert stats[":10000,ocap1+,osafe,near"].geometries == 843  # GNU Go's: 741


def test_our_mogo_fixes_fire_on_the_board():
    ours = load_patterns("mogo_classic")
    capture = property_code(near=True, own_captures=1)
    escape = property_code(near=True, opponent_captures=1)
    assert ours.value(neighbourhood_index(board("### .*X ...")), capture) == 10000  # first line
    assert ours.value(neighbourhood_index(board("### #*X #..")), capture) == 10000  # corner
    assert ours.value(neighbourhood_index(board("### O*. ...")), escape) == 10000
    assert ours.value(neighbourhood_index(board("### O*. ...")), escape | 64) == 1  # unsafe
    twin = neighbourhood_index(board("OX. X*O ..."))
    assert ours.value(twin, 1) == 100 and ours.value(twin, 0) == 1
    assert reference_value(ours, board("OX. X*O ..."), 1) == 100


@needs_gnugo_files
def test_gnugo_mogo_defects_are_real():
    theirs = gnugo("mogo_classic")
    capture = property_code(near=True, own_captures=1)
    assert theirs.value(neighbourhood_index(board("### .*X ...")), capture) == 1
    assert theirs.value(neighbourhood_index(board("OX. X*O ...")), 1) == 1
    assert theirs.value(neighbourhood_index(board("XO. O*X ...")), 1) == 100


@pytest.mark.parametrize("name", ["uniform", "mogo_classic", "montegnu_classic"])
def test_builtin_table_agrees_with_direct_matching(name):
    compiled = load_patterns(name)
    assert verify_against_reference(compiled) == []
    rng = random.Random(len(name))
    valid = np.flatnonzero(compiled.geometry >= 0).tolist()
    for _ in range(800):
        index, code = rng.choice(valid), rng.randrange(256)
        assert compiled.value(index, code) == reference_value(compiled, board_from_index(index), code)


def test_verification_catches_a_wrong_cell():
    compiled = load_patterns("mogo_classic")
    assert not compiled.values.flags.writeable  # shared by the cache
    values = compiled.values.copy()
    values[17, 33] += 1
    broken = dataclasses.replace(compiled, values=values)
    assert verify_against_reference(broken) == [(17, 33, int(values[17, 33]), int(values[17, 33]) - 1)]


def test_value_rejects_impossible_inputs():
    compiled = load_patterns("uniform")
    with pytest.raises(ValueError, match="impossible"):
        compiled.value(neighbourhood_index(board("### .*. ###")), 0)
    with pytest.raises(ValueError, match="outside 0..255"):
        compiled.value(0, 256)


# ------------------------------------------------------------------ CLI


@needs_gnugo_files
def test_cli_stats_json_reproduces_gnugo_figures():
    result = CliRunner().invoke(
        patterns_command, [str(GNUGO_DIR / "mc_montegnu_classic.db"), "--stats", "--json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out == {"cells_per_value": {str(k): v for k, v in GNUGO_CELLS["montegnu_classic"].items()}}
    assert list(out["cells_per_value"]) == [str(k) for k in sorted(GNUGO_CELLS["montegnu_classic"])]


def test_cli_rules_and_tables():
    runner = CliRunner()
    result = runner.invoke(patterns_command, ["mogo_classic", "--rules", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["rules"]
    assert rows[3]["value"] == 10000 and rows[3]["geometries"] == 843
    assert rows[3]["properties"] == ["ocap1+", "osafe", "near"]
    result = runner.invoke(patterns_command, ["mc_uniform", "--stats", "--verify"])
    assert result.exit_code == 0 and "283,392" in result.output and "279,040" in result.output
    assert "verified: all 283,392 cells" in result.output


def test_cli_errors_are_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_text("oOo\nO*O\n---\n\n:0,nearr\n")
    result = CliRunner().invoke(patterns_command, [str(bad)])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"Error: {bad}:5: unknown property 'nearr' (known: {', '.join(PROPERTY_NAMES)})"
    )
    result = CliRunner().invoke(patterns_command, ["no_such_db"])
    assert result.exit_code == 2 and "built-ins" in result.output
    assert len(result.output.strip().splitlines()) == 1
