"""Our Go rules against GNU Go's, move by move: :func:`crosscheck_gnugo` replays random legal
games in our :class:`~playout.go.board.Board` and in GNU Go (``is_legal`` for every empty point,
``play``, ``list_stones``) and returns every difference found (``playout go crosscheck``).
"""

from __future__ import annotations

import random

from playout.go.board import BLACK, PASS, WHITE, Board, gtp_to_point, point_to_gtp
from playout.go.gtp_client import GNUGO, GtpClient
from playout.go.rules import is_suicide
from playout.go.rulesets import SIMPLE, Ruleset, get_ruleset

def crosscheck_gnugo(n_games: int = 20, size: int = 9, seed: int = 1, max_moves: int | None = None,
                     gnugo: str | None = None, rules: Ruleset | str = "simple-ko",
                     pass_rate: float | None = None, timeout: float | None = None) -> dict:
    """Replay ``n_games`` random legal games in our board and in GNU Go; count differences.

    Both sides play ``rules`` (:mod:`playout.go.rulesets`): our :class:`Board` with that
    ruleset, GNU Go with its options for it (``Ruleset.gnugo``, e.g. ``--positional-superko
    --allow-suicide`` for Tromp-Taylor).  Each move: compare ``is_legal`` of the side to move on
    every empty point (GNU Go 3.8's GTP ``is_legal`` is its ``is_allowed_move``: ko, suicide
    and superko rules in play), play a random legal move (suicides too where legal) or, with
    probability ``pass_rate``, a pass, then compare ``list_stones`` of both colours.  Under
    simple ko a game ends at two passes in a row (``pass_rate`` 0.02 by default); under a
    superko rule it goes on to ``max_moves`` (``pass_rate`` 0.25): a ko taken back after passes
    is where superko decides, and random games repeat a position almost only that way.

    One disagreement is GNU Go's and is counted apart (``gnugo_suicide_superko``), not as a
    difference: a suicide that recreates an earlier position, which GNU Go 3.8 allows (its
    superko test hashes the board with the suicided stones still on it; see
    :mod:`playout.go.rulesets`).  Returns ``{"games", "moves", "legality_checks", "illegal",
    "superko", "suicide_legal", "gnugo_suicide_superko", "differences": [...]}`` (``superko``:
    our answers "illegal by superko" that GNU Go confirmed; ``suicide_legal``: legal suicides).
    ``timeout``: seconds GNU Go may take per answer (:class:`GtpClient`; a hung or garbage
    answer raises :class:`GtpError`).
    """
    exe = gnugo or GNUGO
    if exe is None:
        raise FileNotFoundError("gnugo is not installed")
    ruleset = get_ruleset(rules)
    superko = ruleset.superko != SIMPLE
    if pass_rate is None:
        pass_rate = 0.25 if superko else 0.02
    rng = random.Random(seed)
    max_moves = max_moves if max_moves is not None else 3 * size * size
    diffs: list[str] = []
    counts = {"illegal": 0, "superko": 0, "suicide_legal": 0, "gnugo_suicide_superko": 0}
    n_moves = 0
    n_checks = 0
    with GtpClient([exe, "--mode", "gtp", "--level", "0", *ruleset.gnugo], name="gnugo",
                   timeout=timeout) as gg:
        for game in range(n_games):
            gg.send(f"boardsize {size}")
            gg.send("clear_board")
            b = Board(size, rules=ruleset)
            for mv in range(max_moves):
                c = b.to_move
                cname = "b" if c == BLACK else "w"
                empties = [p for p in b.points() if b.color[p] == 0]
                answers = gg.send_many([f"is_legal {cname} {point_to_gtp(p, size)}" for p in empties])
                n_checks += len(empties)
                legal = []
                for p, (ok, ans) in zip(empties, answers):
                    why = b.why_illegal(p, c)
                    ours = why is None
                    theirs = ok and ans == "1"
                    suicide = bool(is_suicide(b.S, p, c))
                    counts["illegal"] += not ours
                    counts["suicide_legal"] += ours and suicide
                    if why == "superko" and suicide and theirs:
                        counts["gnugo_suicide_superko"] += 1
                    elif ours != theirs:
                        diffs.append(f"game {game} move {mv}: {cname} {point_to_gtp(p, size)} "
                                     f"legal ours={ours} ({why}) gnugo={theirs}")
                    elif why == "superko":
                        counts["superko"] += 1
                    if ours:
                        legal.append(p)
                p = rng.choice(legal) if legal and rng.random() >= pass_rate else PASS
                b.play(p, c)
                gg.send(f"play {cname} {point_to_gtp(p, size)}")
                n_moves += 1
                for col, colname in ((BLACK, "black"), (WHITE, "white")):
                    theirs_s = gg.send(f"list_stones {colname}").split()
                    theirs_set = {gtp_to_point(v, size) for v in theirs_s}
                    if theirs_set != set(b.stones(col)):
                        diffs.append(f"game {game} move {mv}: {colname} stones differ after "
                                     f"{cname} {point_to_gtp(p, size)}")
                if b.passes >= 2 and not superko:
                    break
    return {"games": n_games, "moves": n_moves, "legality_checks": n_checks, **counts,
            "differences": diffs}
