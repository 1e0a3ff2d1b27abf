"""Board pictures: the backgammon and Go SVG drawings, ``_repr_svg_``, PNG output, --svg/--png."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from click.testing import CliRunner

from playout.backgammon import svg as bgsvg
from playout.backgammon.board import STARTING_BOARD
from playout.backgammon.ids import parse_position
from playout.go import svg as gosvg

NS = "{http://www.w3.org/2000/svg}"
START = "4HPwATDgc/ABMA"


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == NS + "svg"
    return root


def elems(root, tag: str, *classes: str) -> list[ET.Element]:
    """Elements ``tag`` whose class attribute holds every one of ``classes``."""
    return [e for e in root.iter(NS + tag)
            if set(classes) <= set(e.get("class", "").split())]


def texts(root, cls: str) -> list[tuple[float, float, str]]:
    return [(float(e.get("x")), float(e.get("y")), e.text) for e in elems(root, "text", cls)]


def bar_off_board():
    """Side on roll: 2 on the bar, 7 on its 6 point, 2 on 5, 1 on 3 (3 off); opponent: 1 on
    the bar, 3 on its 5 point (our 20), 6 on its 3 point (our 22), 1 on our 13 (4 off)."""
    b = np.zeros(26, np.int64)
    b[25], b[6], b[5], b[3] = 2, 7, 2, 1
    b[0], b[20], b[22], b[13] = 1, -3, -6, -1
    return b


# -- backgammon ----------------------------------------------------------------------------------
def test_opening_position_checkers_and_numbers():
    root = parse(bgsvg.board_svg(STARTING_BOARD, dice=(3, 1)))
    assert len(elems(root, "circle", "checker", "on-roll")) == 15
    assert len(elems(root, "circle", "checker", "opponent")) == 15
    assert not elems(root, "text", "count")  # no stack taller than 5
    nums = texts(root, "point-number")
    bottom = [t for x, y, t in sorted(nums) if y > bgsvg.Y_MID]
    top = [t for x, y, t in sorted(nums) if y < bgsvg.Y_MID]
    # gnubg/XG: the side on roll's 1..12 along the bottom (home at the right), 13..24 on top
    assert bottom == [str(p) for p in range(12, 0, -1)]
    assert top == [str(p) for p in range(13, 25)]
    # the side on roll's five checkers on its 6 point stand under the number 6, at the bottom
    x6 = next(x for x, y, t in nums if t == "6")
    on6 = [e for e in elems(root, "circle", "checker", "on-roll") if float(e.get("cx")) == x6]
    assert len(on6) == 5 and all(float(e.get("cy")) > bgsvg.Y_MID for e in on6)
    # its two back checkers on 24, top right, under the number 24
    x24 = next(x for x, y, t in nums if t == "24")
    on24 = [e for e in elems(root, "circle", "checker")
            if float(e.get("cx")) == x24 and float(e.get("cy")) < bgsvg.Y_MID]
    assert len(on24) == 2 and all("on-roll" in e.get("class") for e in on24)
    # the opponent's two back checkers are on our 1 point
    x1 = next(x for x, y, t in nums if t == "1")
    on1 = [e for e in elems(root, "circle", "checker")
           if float(e.get("cx")) == x1 and float(e.get("cy")) > bgsvg.Y_MID]
    assert len(on1) == 2 and all("opponent" in e.get("class") for e in on1)
    captions = " ".join(t for _, _, t in texts(root, "caption"))
    assert captions.count("pips 167") == 2 and "on roll 31" in captions


def test_bar_borne_off_tall_stacks_cube_and_dice():
    root = parse(bgsvg.board_svg(bar_off_board(), dice=(6, 5), cube_value=4,
                                 cube_owner="opponent", names=("Alice", "Bob")))
    # 5 + 2 + 1 drawn on points, 2 on the bar; the 7-stack's fifth checker says 7
    assert len(elems(root, "circle", "checker", "on-roll")) == 10
    assert len(elems(root, "circle", "checker", "bar", "on-roll")) == 2
    assert len(elems(root, "circle", "checker", "bar", "opponent")) == 1
    assert len(elems(root, "circle", "checker", "opponent")) == 3 + 5 + 1 + 1
    assert sorted(t for _, _, t in texts(root, "count")) == ["6", "7"]
    assert len(elems(root, "rect", "off", "on-roll")) == 3
    assert len(elems(root, "rect", "off", "opponent")) == 4
    # the side on roll's off checkers lie in the bottom half of the tray, the opponent's on top
    assert all(float(e.get("y")) > bgsvg.Y_MID for e in elems(root, "rect", "off", "on-roll"))
    assert all(float(e.get("y")) < bgsvg.Y_MID for e in elems(root, "rect", "off", "opponent"))
    (cube,) = elems(root, "g", "cube")
    assert cube.get("data-value") == "4" and cube.find(NS + "text").text == "4"
    assert float(cube.find(NS + "rect").get("y")) < bgsvg.Y_MID  # owner at the top
    dice = elems(root, "g", "die")
    assert [d.get("data-value") for d in dice] == ["6", "5"]
    assert [len(d.findall(NS + "circle")) for d in dice] == [6, 5]
    captions = {t.split(" ")[0]: t for _, _, t in texts(root, "caption")}
    # pips: 2*25 + 7*6 + 2*5 + 3 = 105; 25 + 3*5 + 6*3 + 12 = 70
    assert "pips 105" in captions["Alice"] and "off 3" in captions["Alice"]
    assert "pips 70" in captions["Bob"] and "off 4" in captions["Bob"]


def test_centred_cube_shows_64_and_owned_by_the_side_on_roll_sits_at_the_bottom():
    root = parse(bgsvg.board_svg(STARTING_BOARD))
    (cube,) = elems(root, "g", "cube")
    assert cube.find(NS + "text").text == "64" and cube.get("data-value") == "1"
    assert not elems(root, "g", "die")
    root = parse(bgsvg.board_svg(STARTING_BOARD, cube_value=2, cube_owner="player"))
    (cube,) = elems(root, "g", "cube")
    assert cube.find(NS + "text").text == "2"
    assert float(cube.find(NS + "rect").get("y")) > bgsvg.Y_MID


def test_flipped_and_home_left_keep_the_numbers_of_the_side_on_roll():
    b = bar_off_board()
    root = parse(bgsvg.board_svg(b, dice=(2, 1), flipped=True))
    nums = texts(root, "point-number")
    assert [t for x, y, t in sorted(nums) if y > bgsvg.Y_MID] == [str(p) for p in range(13, 25)]
    assert [t for x, y, t in sorted(nums) if y < bgsvg.Y_MID] == [str(p) for p in range(12, 0, -1)]
    x6 = next(x for x, y, t in nums if t == "6")
    on6 = [e for e in elems(root, "circle", "checker", "on-roll") if float(e.get("cx")) == x6]
    assert len(on6) == 5 and all(float(e.get("cy")) < bgsvg.Y_MID for e in on6)  # at the top
    assert sorted(t for _, _, t in texts(root, "count")) == ["6", "7"]
    # the roller is at the top: its dice on the left half (gnubg)
    assert all(float(d.find(NS + "rect").get("x")) < bgsvg.WIDTH / 2 for d in elems(root, "g", "die"))
    root = parse(bgsvg.board_svg(b, home="left"))
    nums = texts(root, "point-number")
    assert [t for x, y, t in sorted(nums) if y > bgsvg.Y_MID] == [str(p) for p in range(1, 13)]
    assert [t for x, y, t in sorted(nums) if y < bgsvg.Y_MID] == [str(p) for p in range(24, 12, -1)]


def test_position_repr_svg_uses_its_dice_cube_and_score():
    pos = parse_position("XGID=-b----E-C---eE---c-e----B-:1:1:1:31:2:5:0:7:10")
    text = pos._repr_svg_()
    assert text == bgsvg.position_svg(pos)
    root = parse(text)
    assert [d.get("data-value") for d in elems(root, "g", "die")] == ["3", "1"]
    (cube,) = elems(root, "g", "cube")
    assert cube.get("data-value") == "2" and cube.get("data-owner") == "player"
    captions = " ".join(t for _, _, t in texts(root, "caption"))
    assert "score 2 (match to 7)" in captions and "score 5 (match to 7)" in captions


@pytest.mark.parametrize("kw,field", [
    (dict(board=[0] * 25), "board: 25 values"),
    (dict(board=[0, 16] + [0] * 24), "more than 15"),
    (dict(board=STARTING_BOARD, dice=(0, 3)), "dice"),
    (dict(board=STARTING_BOARD, cube_owner="me"), "cube_owner"),
])
def test_bg_bad_arguments_name_the_field(kw, field):
    b = kw.pop("board")
    if field == "more than 15":
        b = np.array(b)
        b[1] = -16
    with pytest.raises(ValueError, match=field):
        bgsvg.board_svg(b, **kw)


# -- Go ------------------------------------------------------------------------------------------
def go_board(size: int, moves: str):
    from playout.go.board import Board, gtp_to_point

    b = Board(size)
    for v in moves.split():
        b.play(gtp_to_point(v, size))
    return b


def test_go_9x9_stones_coordinates_star_points_last_move():
    b = go_board(9, "E5 C4 G3 D6 E3 C7 F6 D3 D4 E4")  # D4 keeps its liberty at D5
    root = parse(b._repr_svg_())
    assert b._repr_svg_() == gosvg.board_svg(b)
    assert len(elems(root, "circle", "stone", "black")) == 5
    assert len(elems(root, "circle", "stone", "white")) == 5
    cols = texts(root, "col")
    top_cols = [t for x, y, t in sorted(cols) if y < 50]
    assert top_cols == list("ABCDEFGHJ")  # no I
    rows = sorted((y, t) for x, y, t in texts(root, "row") if x < 50)
    assert [t for _, t in rows] == [str(r) for r in range(9, 0, -1)]  # 1 at the bottom
    assert len(elems(root, "circle", "hoshi")) == 5
    (ring,) = elems(root, "circle", "last-move")
    xE = next(x for x, y, t in cols if t == "E")
    assert float(ring.get("cx")) == xE
    assert min(rows, key=lambda yt: abs(yt[0] - float(ring.get("cy"))))[1] == "4"
    # the ring sits on a white stone (White played E4), drawn in the black stones' colour
    assert ring.get("stroke") == gosvg.DEFAULT_COLORS["black"][0]


def test_go_19x19_letters_skip_i_nine_star_points_and_explicit_last_move():
    b = go_board(19, "Q16 D4 Q3 D16 T1")
    root = parse(gosvg.board_svg(b, last_move="D4", size=600))
    assert root.get("width") == "600"
    cols = [t for x, y, t in sorted(texts(root, "col")) if y < 50]
    assert cols == list("ABCDEFGHJKLMNOPQRST") and "I" not in cols
    assert len(elems(root, "circle", "hoshi")) == 9
    assert len(elems(root, "circle", "stone")) == 5
    (ring,) = elems(root, "circle", "last-move")
    (d4,) = [e for e in elems(root, "circle", "stone", "white")
             if (e.get("cx"), e.get("cy")) == (ring.get("cx"), ring.get("cy"))]
    assert not elems(parse(gosvg.board_svg(b, last_move=False)), "circle", "last-move")
    assert not elems(parse(gosvg.board_svg(b, coordinates=False)), "text", "coord")


def test_go_star_points_of_the_usual_sizes():
    assert gosvg.star_points(9) == [(2, 2), (2, 6), (4, 4), (6, 2), (6, 6)]
    assert gosvg.star_points(13) == [(3, 3), (3, 9), (6, 6), (9, 3), (9, 9)]
    assert len(gosvg.star_points(19)) == 9 and (9, 3) in gosvg.star_points(19)


def test_go_array_input_and_bad_arguments():
    grid = np.zeros((5, 5), int)
    grid[0, 0], grid[4, 4] = 1, 2
    root = parse(gosvg.board_svg(grid, last_move="A5"))
    assert len(elems(root, "circle", "stone")) == 2 and elems(root, "circle", "last-move")
    with pytest.raises(ValueError, match="last_move: invalid vertex 'I3'"):
        gosvg.board_svg(grid, last_move="I3")
    with pytest.raises(ValueError, match="board: shape"):
        gosvg.board_svg(np.zeros((3, 4)))


# -- PNG -------------------------------------------------------------------------------------------
def test_png_renders_checkers_and_stones_where_the_svg_puts_them():
    pytest.importorskip("cairosvg")
    from PIL import Image

    from playout.pictures import svg_to_png

    text = bgsvg.board_svg(STARTING_BOARD, dice=(3, 1))
    img = Image.open(io.BytesIO(svg_to_png(text))).convert("RGB")
    assert img.size == (bgsvg.WIDTH, bgsvg.HEIGHT)
    root = parse(text)

    def rgb(hexcolor):
        return tuple(int(hexcolor[i:i + 2], 16) for i in (1, 3, 5))

    for side in ("on-roll", "opponent"):
        for e in elems(root, "circle", "checker", side):
            px = img.getpixel((round(float(e.get("cx"))), round(float(e.get("cy")))))
            assert max(abs(a - b) for a, b in zip(px, rgb(bgsvg.DEFAULT_COLORS[side][0]))) < 8
    assert len(img.getcolors(1 << 20)) > 20  # a picture, not a blank
    g = go_board(9, "E5 C4")
    text = gosvg.board_svg(g, size=360)
    img = Image.open(io.BytesIO(svg_to_png(text))).convert("RGB")
    assert img.size == (360, 360)
    scale = 360 / float(parse(text).get("viewBox").split()[2])
    for e in elems(parse(text), "circle", "stone"):
        px = img.getpixel((round(float(e.get("cx")) * scale) + 6, round(float(e.get("cy")) * scale)))
        dark = sum(px) < 150
        assert dark == ("black" in e.get("class"))


# -- command lines ---------------------------------------------------------------------------------
def test_bg_hint_and_eval_write_pictures(tmp_path):
    from playout.backgammon.cli import bg

    svg, png = tmp_path / "h.svg", tmp_path / "h.png"
    r = CliRunner().invoke(bg, ["hint", START, "--dice", "31", "--top", "1", "--svg", str(svg),
                                "--png", str(png)])
    assert r.exit_code == 0, r.output
    root = parse(svg.read_text())
    assert [d.get("data-value") for d in elems(root, "g", "die")] == ["3", "1"]
    assert len(elems(root, "circle", "checker")) == 30
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    r = CliRunner().invoke(bg, ["eval", START, "--svg", str(tmp_path / "e.svg")])
    assert r.exit_code == 0, r.output
    assert not elems(parse((tmp_path / "e.svg").read_text()), "g", "die")  # pre-roll


@pytest.mark.parametrize("cmd", [["hint", START, "--dice", "31"], ["eval", START]])
def test_bg_picture_to_a_missing_folder_is_one_line_exit_2(tmp_path, cmd):
    from playout.backgammon.cli import bg

    bad = tmp_path / "no" / "b.svg"
    r = CliRunner().invoke(bg, cmd + ["--svg", str(bad)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert r.output.strip() == f"Error: {bad}: cannot write: No such file or directory"


def test_go_board_command_prints_and_draws(tmp_path):
    from playout.go.cli import go

    sgf = tmp_path / "g.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cf];B[gg];W[de];B[eg];W[cc];B[fd];W[dg]"
                   ";B[df];W[ef])")
    out = tmp_path / "g.svg"
    r = CliRunner().invoke(go, ["board", str(sgf), "--move", "9", "--svg", str(out)])
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[-1] == "after 9 moves, last move D4; White to move"
    root = parse(out.read_text())
    assert len(elems(root, "circle", "stone", "black")) == 5
    assert len(elems(root, "circle", "stone", "white")) == 4
    # the 10th move, W E4, captures D4: 4 black and 5 white stones, E4 ringed
    r = CliRunner().invoke(go, ["board", str(sgf), "--svg", str(out), "--png", str(tmp_path / "g.png")])
    assert r.exit_code == 0, r.output
    root = parse(out.read_text())
    assert len(elems(root, "circle", "stone", "black")) == 4
    assert len(elems(root, "circle", "stone", "white")) == 5
    assert "last move E4" in r.output and (tmp_path / "g.png").stat().st_size > 1000
    r = CliRunner().invoke(go, ["board", str(sgf), "--move", "11"])
    assert r.exit_code == 2 and r.output.strip() == f"Error: {sgf}: --move 11: the record has 10 moves"
    bad = tmp_path / "no" / "g.png"
    r = CliRunner().invoke(go, ["board", str(sgf), "--png", str(bad)])
    assert r.exit_code == 2
    assert r.output.strip() == f"Error: {bad}: cannot write: No such file or directory"
