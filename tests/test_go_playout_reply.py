"""The playouts' atari-answer rule (issue 18; ``Player(reply=...)``, ``playout gtp --reply``)."""

from __future__ import annotations

from playout.go.board import BLACK, WHITE, Board, gtp_to_point
from playout.go.playout import PlayoutState, atari_reply
from playout.go.tables import load_table

TABLE = load_table("mc_montegnu_classic")

def test_atari_reply_escapes_captures_and_takes():
    # White's E6 has just put Black's C6 D6 D5 in atari (liberty D4): Black extends at D4,
    # three liberties after it
    b = Board.from_ascii("""
        . . . . . . . . .
        . . . . . . . . .
        . . O O . . . . .
        . O X X . . . . .
        . . O X O . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, to_move=WHITE)
    b.play(gtp_to_point("E6", 9))
    st = PlayoutState(b, TABLE)
    assert atari_reply(st.S, st.B, BLACK) == gtp_to_point("D4", 9)
    # the previous move is itself in atari: take it (White's lone F2 next to Black's E2/F3/G2)
    b2 = Board.from_ascii("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . X . . .
        . . . . X . X . .
        . . . . . . . . .
    """, to_move=WHITE)
    b2.play(gtp_to_point("F2", 9))
    st2 = PlayoutState(b2, TABLE)
    assert atari_reply(st2.S, st2.B, BLACK) == gtp_to_point("F1", 9)
    # Black's A2 B2 C2 C1 in atari from White's A1, itself in atari: capture it at B1
    b3 = Board.from_ascii("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        O O O O . . . . .
        X X X O . . . . .
        . . X O . . . . .
    """, to_move=WHITE)
    b3.play(gtp_to_point("A1", 9))
    st3 = PlayoutState(b3, TABLE)
    assert b3.string_libs(gtp_to_point("A2", 9)) == [gtp_to_point("B1", 9)]
    assert atari_reply(st3.S, st3.B, BLACK) == gtp_to_point("B1", 9)
    # no atari next to the previous move: no answer
    b3.play(gtp_to_point("B1", 9))
    b3.play(gtp_to_point("J9", 9))
    st4 = PlayoutState(b3, TABLE)
    assert atari_reply(st4.S, st4.B, BLACK) == 0
