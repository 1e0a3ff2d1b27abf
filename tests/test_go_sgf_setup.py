"""SGF setup after the first move and the handicap (HA) through GTP ``loadsgf``/``printsgf``.

Setup (AB/AW/AE, and PL) in any main-line node is applied as sgfmill's
``Tree_node.get_setup_stones`` reads it and GNU Go 3.8's ``loadsgf`` applies it; ``loadsgf FILE
N`` counts moves, not nodes.  The random cross-check replays files through sgfmill's own
``boards.Board`` (``apply_setup``, ``play``) as the independent reference.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from sgfmill import boards, sgf

from playout.go.board import BLACK, WHITE, Board, gtp_to_point
from playout.go.gtp import GtpEngine
from playout.go.rules import COLOR, EMPTY, M_CAPB, M_CAPW, META
from playout.go.sgf import SgfError, read_game, read_sgf
from playout.go.tables import load_table


def engine(**kw) -> GtpEngine:
    kw.setdefault("playouts", 50)
    return GtpEngine(table=load_table("uniform"), **kw)


def pts(*vs: str, size: int = 9) -> list[int]:
    return sorted(gtp_to_point(v, size) for v in vs)


def stones(b: Board) -> tuple[list[int], list[int]]:
    return sorted(b.stones(BLACK)), sorted(b.stones(WHITE))


# ---------------------------------------------------------------------------- HA
HA4 = "(;GM[1]SZ[9]KM[0.5]HA[4]AB[cc][gc][cg][gg];W[ee];B[dd])"


def test_loadsgf_keeps_ha_and_printsgf_writes_it_back(tmp_path):
    f = tmp_path / "ha.sgf"
    f.write_text(HA4)
    e = engine()
    assert e.handle(f"loadsgf {f}") == "=\n\n"
    assert e.handicap == 4 and e.komi == 0.5
    assert stones(e.setup) == (pts("C7", "G7", "C3", "G3"), []) and e.setup.to_move == WHITE
    assert e.board.moves == [(WHITE, gtp_to_point("E5", 9)), (BLACK, gtp_to_point("D6", 9))]
    assert e.board.to_move == WHITE
    out = e.handle("printsgf")
    assert "HA[4]" in out and "AB[cc][cg][gc][gg]" in out and "PL[W]" in out
    # the printed record loads back to the same position, handicap and record
    g = tmp_path / "back.sgf"
    assert e.handle(f"printsgf {g}") == "=\n\n"
    e2 = engine()
    assert e2.handle(f"loadsgf {g}") == "=\n\n"
    assert e2.handicap == 4 and e2.board.moves == e.board.moves
    assert np.array_equal(e2.board.S[COLOR], e.board.S[COLOR]) and e2.board.to_move == WHITE
    # loadsgf FILE 1: before the first move, handicap kept; clear_board forgets it
    assert e2.handle(f"loadsgf {f} 1") == "=\n\n"
    assert e2.handicap == 4 and e2.board.moves == [] and e2.board.to_move == WHITE
    assert e2.handle("clear_board") == "=\n\n" and e2.handicap == 0
    assert "HA[" not in e2.handle("printsgf")


def test_ha_0_or_1_is_no_handicap_and_a_bad_ha_is_one_line(tmp_path):
    f = tmp_path / "h.sgf"
    for ha in ("0", "1"):
        f.write_text(f"(;GM[1]SZ[9]HA[{ha}];B[ee])")
        assert read_game(f).handicap == 0
    e = engine()
    e.handle("fixed_handicap 2")
    for ha in ("-1", "81", "2.5"):
        f.write_text(f"(;GM[1]SZ[9]HA[{ha}]AB[cc][gg])")
        with pytest.raises(SgfError) as err:
            read_game(f)
        assert str(err.value) == f"{f}: bad HA value '{ha}'"
        assert e.handle(f"loadsgf {f}") == f"? cannot load file: {f}: bad HA value '{ha}'\n\n"
        assert e.handicap == 2 and len(e.board.stones(BLACK)) == 2  # a failed load changes nothing


# ---------------------------------------------------------------------------- later setup
# B B9, W A9, B A8 captures A9 (1 prisoner for Black); then setup: AE empties B9, AB E5 with
# white E6 F5 E4 around it; W D5 captures the set-up E5 (1 prisoner for White).
LATER = "(;GM[1]SZ[9];B[ba];W[aa];B[ab];AE[ba]AB[ee]AW[ed][fe][ef];W[de])"


def test_setup_after_moves_is_applied_with_captures_and_side_to_move(tmp_path):
    f = tmp_path / "later.sgf"
    f.write_text(LATER)
    g = read_game(f)
    b = g.board
    assert stones(b) == (pts("A8"), pts("E6", "F5", "E4", "D5"))
    assert int(b.S[META, M_CAPB]) == 1 and int(b.S[META, M_CAPW]) == 1
    assert b.to_move == BLACK and len(b.moves) == 4
    assert [(sn.after, sn.black, sn.white, sn.empty, sn.to_move) for sn in g.later_setup] == [
        (3, pts("E5"), pts("E6", "F5", "E4"), pts("B9"), None)]
    b.check()  # strings and liberties equal a recomputation
    e5 = gtp_to_point("E5", 9)  # the captured point: surrounded by White now
    assert b.why_illegal(e5, BLACK) == "suicide" and b.why_illegal(e5, WHITE) is None
    b.play(gtp_to_point("B9", 9), BLACK)  # the point AE emptied
    b.check()
    # loadsgf counts moves, not nodes: "4" is before W D5, with the setup before it applied
    e = engine()
    assert e.handle(f"loadsgf {f} 4") == "=\n\n"
    assert stones(e.board) == (pts("A8", "E5"), pts("E6", "F5", "E4"))
    assert e.board.to_move == WHITE and int(e.board.S[META, M_CAPB]) == 1
    assert e.handle("play w D5") == "=\n\n"
    assert stones(e.board) == (pts("A8"), pts("E6", "F5", "E4", "D5"))
    assert e.handle(f"loadsgf {f} 3") == "=\n\n"  # before B A8: no setup yet
    assert stones(e.board) == (pts("B9"), pts("A9")) and e.board.to_move == BLACK


def test_setup_replaces_stones_and_pl_sets_the_side_to_move(tmp_path):
    f = tmp_path / "r.sgf"
    f.write_text("(;GM[1]SZ[9];B[ee];W[cc];AW[ee]AB[cc])")  # colours swapped by setup
    b = read_sgf(f)[1]
    assert stones(b) == (pts("C7"), pts("E5")) and b.to_move == BLACK
    f.write_text("(;GM[1]SZ[9];B[ee];AB[cc])")
    assert read_sgf(f)[1].to_move == WHITE
    f.write_text("(;GM[1]SZ[9];B[ee];AB[cc]PL[B])")
    b = read_sgf(f)[1]
    assert stones(b) == (pts("E5", "C7"), []) and b.to_move == BLACK
    # setup beside a move (FF[4] forbids the mix) is applied before the move
    f.write_text("(;GM[1]SZ[9];B[ee];AB[cc]W[dc])")
    b = read_sgf(f)[1]
    assert stones(b) == (pts("E5", "C7"), pts("D7")) and b.to_move == BLACK


def test_setup_position_joins_the_superko_history(tmp_path):
    f = tmp_path / "k.sgf"
    f.write_text("(;GM[1]SZ[9];B[ee];AE[ee]PL[B])")  # back to the empty board
    b = read_sgf(f)[1]
    assert b.stones(BLACK) == [] and b.to_move == BLACK
    assert b.why_illegal(gtp_to_point("E5", 9)) == "superko"  # the position after move 1
    assert b.why_illegal(gtp_to_point("D5", 9)) is None


def test_replay_gives_the_position_before_each_move(tmp_path):
    f = tmp_path / "later.sgf"
    f.write_text(LATER)
    g = read_game(f)
    seen = [(stones(b), b.to_move, c, p) for b, c, p in g.replay()]
    assert seen[0] == (([], []), BLACK, BLACK, gtp_to_point("B9", 9))
    assert seen[3] == ((pts("A8", "E5"), pts("E6", "F5", "E4")), WHITE, WHITE, gtp_to_point("D5", 9))


def test_printsgf_round_trips_later_setup(tmp_path):
    f = tmp_path / "later.sgf"
    f.write_text(LATER)
    e = engine()
    assert e.handle(f"loadsgf {f}") == "=\n\n"
    assert e.handle("play b C3") == "=\n\n"
    out = e.handle("printsgf")
    # a node of its own between move 3 and move 4 (FF[4]: setup and moves not mixed)
    assert ";B[ab];AB[ee]AE[ba]AW[ed][ef][fe];W[de];B[cg])" in out.replace("\n", "")
    g = tmp_path / "back.sgf"
    e.handle(f"printsgf {g}")
    b = read_sgf(g)[1]
    assert np.array_equal(b.S[COLOR], e.board.S[COLOR]) and b.moves == e.board.moves
    assert b.to_move == e.board.to_move and int(b.S[META, M_CAPW]) == 1
    # after an undo back to the loaded position the setup node is still written
    assert e.handle("undo") == "=\n\n"
    assert e.handle("printsgf").replace("\n", "").endswith(";W[de])")


# ---------------------------------------------------------------------------- cross-check
def _random_record(rng: random.Random, size: int, moves: int) -> str:
    """A legal random game with setup nodes (some beside a move) as SGF text."""
    b = Board(size)
    nodes = []
    letters = "abcdefghijklmnopqrs"

    def sgfp(p):
        r, k = divmod(p, size + 2)
        return letters[k - 1] + letters[r - 1]

    for _ in range(moves):
        node = ""
        if rng.random() < 0.2:
            for _ in range(20):  # a setup that leaves every string a liberty
                chosen = rng.sample(b.points(), rng.randint(1, 6))
                kinds = [rng.choice((BLACK, WHITE, EMPTY)) for _ in chosen]
                colors = b.S[COLOR].copy()
                for p, c in zip(chosen, kinds):
                    colors[p] = c
                t = Board.from_colors(size, colors, b.to_move)
                if all(t.string_libs(p) for p in t.stones(BLACK) + t.stones(WHITE)):
                    break
            else:
                continue
            for c, prop in ((BLACK, "AB"), (WHITE, "AW"), (EMPTY, "AE")):
                ps = [sgfp(p) for p, k in zip(chosen, kinds) if k == c]
                if ps:
                    node += prop + "".join(f"[{x}]" for x in ps)
            t.history = b.history + [t.position_hash]
            t.moves = b.moves
            b = t
            if rng.random() < 0.5:
                nodes.append(node)
                node = ""
        legal = b.legal_moves()
        p = rng.choice(legal) if legal and rng.random() < 0.95 else 0
        node += f"{'B' if b.to_move == BLACK else 'W'}[{sgfp(p) if p else ''}]"
        b.play(p)
        nodes.append(node)
    return f"(;GM[1]SZ[{size}]" + "".join(";" + n for n in nodes) + ")"


def _reference(text: str, stop: int | None):
    """sgfmill's position and prisoners before move ``stop + 1`` (all moves if None)."""
    game = sgf.Sgf_game.from_string(text)
    ref = boards.Board(game.get_size())
    caps = {"b": 0, "w": 0}
    n = 0
    for node in game.get_main_sequence():
        assert ref.apply_setup(*node.get_setup_stones())
        colour, move = node.get_move()
        if colour is None:
            continue
        if stop is not None and n >= stop:
            break
        if move is not None:
            other = "w" if colour == "b" else "b"
            before = sum(c == other for c, _ in ref.list_occupied_points())
            ref.play(move[0], move[1], colour)
            caps[colour] += before - sum(c == other for c, _ in ref.list_occupied_points())
        n += 1
    return ref, caps


@pytest.mark.parametrize("seed", range(12))
def test_random_records_match_sgfmill(tmp_path, seed):
    rng = random.Random(seed)
    size = rng.choice((7, 9))
    text = _random_record(rng, size, 30)
    f = tmp_path / "r.sgf"
    f.write_text(text)
    for stop in (None, *rng.sample(range(31), 3)):
        b = read_game(f, stop).board
        ref, caps = _reference(text, stop)
        mine = {(size - 1 - (p // (size + 2) - 1), p % (size + 2) - 1): "b" if b.color[p] == BLACK else "w"
                for p in b.stones(BLACK) + b.stones(WHITE)}
        assert mine == {rc: c for c, rc in ref.list_occupied_points()}, (stop, text)
        assert (int(b.S[META, M_CAPB]), int(b.S[META, M_CAPW])) == (caps["b"], caps["w"])
        b.check()


@pytest.mark.parametrize("seed", range(4))
def test_random_records_round_trip_through_printsgf(tmp_path, seed):
    rng = random.Random(100 + seed)
    text = _random_record(rng, 9, 30)
    f, g = tmp_path / "r.sgf", tmp_path / "back.sgf"
    f.write_text(text)
    e = engine()
    assert e.handle(f"loadsgf {f}") == "=\n\n" and e.later_setup
    assert e.handle(f"printsgf {g}") == "=\n\n"
    a, b = read_game(f), read_game(g)
    assert np.array_equal(a.board.S[COLOR], b.board.S[COLOR]) and a.board.moves == b.board.moves
    def nodes(g):  # (after, stones) of each setup node; sgfmill writes points in its own order
        return [(s.after, sorted(s.black), sorted(s.white), sorted(s.empty)) for s in g.later_setup]

    assert nodes(a) == nodes(b) and len(nodes(a)) >= 2
    assert a.board.to_move == b.board.to_move and a.board.S[META, M_CAPW] == b.board.S[META, M_CAPW]


def test_analyze_applies_setup_after_the_first_move(tmp_path):
    from click.testing import CliRunner

    from playout.go.cli import go

    f = tmp_path / "g.sgf"
    f.write_text("(;GM[1]SZ[9];B[ee];AE[ee];W[ee])")  # W E5 is legal only once AE has emptied it
    r = CliRunner().invoke(go, ["analyze", str(f), "--playouts", "10", "--mc-patterns", "uniform", "--json"])
    assert r.exit_code == 0, r.output
    assert [ln.split('"played": ')[1][:4] for ln in r.stdout.splitlines()] == ['"E5"', '"E5"']
