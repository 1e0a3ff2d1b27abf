"""GNU Go 3.8's Monte Carlo mode as a test oracle for our pattern files."""

from __future__ import annotations

import subprocess

from playout.go.match import GNUGO


def gnugo_mc_genmove(db_path, moves: list[str], colour: str) -> str:
    """The move GNU Go 3.8 (``--monte-carlo --level 1``, 100 simulations a level) generates for
    ``colour`` ("b"/"w") on 9x9 after ``moves`` (e.g. ``["b E5", "w C3"]``) with the pattern
    file ``db_path`` loaded (``--mc-load-patterns``); fails the test if GNU Go exits with an
    error or answers anything but a board point."""
    gtp = "boardsize 9\nclear_board\n" + "".join(f"play {m}\n" for m in moves)
    gtp += f"genmove {colour}\nquit\n"
    r = subprocess.run([GNUGO, "--mode", "gtp", "--monte-carlo", "--level", "1",
                        "--mc-games-per-level", "100", "--mc-load-patterns", str(db_path)],
                       input=gtp, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    answers = [a for a in r.stdout.split("\n\n") if a.strip()]
    answer = answers[2 + len(moves)]
    assert answer.startswith("= ") and answer[2:].strip()[0] in "ABCDEFGHJ", answer
    return answer[2:].strip()
