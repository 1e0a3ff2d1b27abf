"""A life-and-death test suite from our own match games, with GNU Go 3.8's owl reader as judge.

Issue 18's losses are capturing races and life and death (``benchmarks/go_loss_kinds.py``), and
a 200-game match cannot see a change smaller than ~+-0.09 (paired). This suite measures the
engine where those games are decided, move by move, and many times more sensitively.

``build``: replays the games of ``playout go match`` results files (JSONL, ``.xz`` allowed) in
GNU Go and, before each of engine A's moves from move ``--from`` on, asks ``dragon_status``;
a position joins the suite when exactly one dragon of at least ``--min-stones`` stones is
*critical* (GNU Go: whoever moves first decides its life), at most ``--per-game`` positions a
game and one per dragon, from the first ``--max-games`` games of each file (by game number).
Rows are appended game by game; a killed build resumes where it stopped. Row: the moves before, the colour to move, the dragon (a vertex), its
owner, its stones and GNU Go's attack and defence points.

``score``: our engine (``Player`` with ``--playouts`` and ``--opt key=value`` keyword arguments,
seed = ``--seed`` (1) + the row's index) chooses a move in each position; GNU Go plays it and answers
``dragon_status`` for the dragon: the move *solves* the position when our own dragon is then
``alive`` (not ``critical`` nor ``dead``: the opponent moves next), or when the opponent's is
``dead`` or captured. ``--gnugo-move`` scores GNU Go's own attack / defence point instead (the
judge's agreement with itself: a check of the suite, ~100 %). Prints solved / total with a
Wilson interval and writes each row's outcome (``--out``); ``--baseline FILE`` adds the paired
difference against another ``score`` output.

``forced``: for the rows a ``score`` output (``--rows``) did not solve, how our own search values
GNU Go's point: our move's win rate at the root (``Player.candidates``) against the win rate
after GNU Go's attack / defence point is played (one minus the best win rate of a search from
the opponent's side, seed + 1000).  When our search values GNU Go's point lower, the miss is
our evaluation's (playouts and tree agree on another move), not a search that ran out of time.

``playoff``: which of the two moves wins more against GNU Go.  For each miss (``--rows``), each
*arm* (our move, GNU Go's point) is played in the position and the game is then played out by
our engine (``--playouts``) against ``gnugo --level 10`` (seed ``--seed`` + row) from there,
scored by GNU Go's ``final_score``; one JSON line per game is appended to ``--out`` (a killed
run resumes), and the summary gives each arm's score and their paired difference.

Run (the suite of issue 18, session 34)::

    python benchmarks/go_tactics_suite.py build data/go/match-tunedprior/tunedprior-p5000.jsonl.xz \\
        data/go/match-rootuct005-p5000/rootuct005-p5000.jsonl.xz --out data/go/tactics-suite/suite.jsonl
    python benchmarks/go_tactics_suite.py score data/go/tactics-suite/suite.jsonl --playouts 5000 \\
        --out out/suite-default.json [--opt nakade=100] [--baseline out/suite-default.json]
"""

from __future__ import annotations

import argparse
import json
import lzma
import math
import sys
import time

from playout.go.board import BLACK, PASS, WHITE, Board, gtp_to_point, point_to_gtp
from playout.go.gtp_client import GNUGO, GtpClient, GtpError


def _open(path: str):
    return lzma.open(path, "rt") if path.endswith(".xz") else open(path)


def _status(gg: GtpClient) -> dict[str, list[str]]:
    """``dragon_status`` of every dragon: vertex -> [status, attack?, defence?]."""
    out = {}
    for line in gg.send("dragon_status").splitlines():
        if ":" in line:
            v, rest = line.split(":", 1)
            out[v.strip()] = rest.split()
    return out


def _gnugo() -> GtpClient:
    if GNUGO is None:
        sys.exit("gnugo (GNU Go 3.8) is not installed")
    gg = GtpClient([GNUGO, "--mode", "gtp"], name="gnugo", timeout=120)
    gg.send_many(["boardsize 9", "clear_board", "komi 7"])
    return gg


def build(args) -> None:
    """Append rows to ``args.out`` game by game (flushed); games already there are skipped,
    so a killed build resumes."""
    done: set[str] = set()
    try:
        with open(args.out) as f:
            done = {json.loads(ln)["game"] for ln in f if ln.strip()}
        with open(args.out + ".games") as f:
            done |= {ln.strip() for ln in f}
    except FileNotFoundError:
        pass
    total = 0
    with open(args.out, "a") as out, open(args.out + ".games", "a") as games:
        for path in args.records:
            with _open(path) as f:
                recs = [json.loads(ln) for ln in f if ln.strip()]
            recs.sort(key=lambda r: int(r["key"].rsplit("-", 1)[1]))
            for rec in recs[: args.max_games or None]:
                if rec.get("void") or not rec.get("moves") or rec["key"] in done:
                    continue
                kept = _positions(rec, args, out)
                total += kept
                games.write(rec["key"] + "\n")
                out.flush()
                games.flush()
                print(f"{rec['key']}: {kept} positions ({total} this run)", file=sys.stderr)


def _positions(rec: dict, args, out) -> int:
    """Write the suite rows of one game record; return their number."""
    ours = "b" if rec["a_black"] else "w"
    seen: set[str] = set()
    kept = 0
    gg = _gnugo()
    try:
        for i, mv in enumerate(rec["moves"]):
            col, v = mv.split()
            if col.lower() == ours and i >= args.start and kept < args.per_game:
                crit = []
                for d, st in _status(gg).items():
                    if st and st[0] == "critical" and d not in seen:
                        stones = gg.send(f"dragon_stones {d}").split()
                        if len(stones) >= args.min_stones:
                            crit.append((d, st, stones))
                if len(crit) == 1:
                    d, st, stones = crit[0]
                    n = len(stones)
                    owner = gg.send(f"color {d}").strip().lower()[0]
                    seen.update(stones)
                    out.write(json.dumps({
                        "game": rec["key"], "moves": rec["moves"][:i], "to_move": col.lower(),
                        "dragon": d, "owner": owner, "stones": n,
                        "attack": st[1] if len(st) > 1 else None,
                        "defend": st[2] if len(st) > 2 else None}) + "\n")
                    kept += 1
            if v.lower() == "resign":
                break
            gg.send(f"play {col} {v}")
    finally:
        gg.close()
    return kept


def _judge(gg: GtpClient, r: dict, v: str) -> str:
    """GNU Go's status of the row's dragon after the row's moves and ``v``."""
    gg.send_many(["clear_board"])
    for ok, ans in gg.send_many([f"play {m}" for m in r["moves"]]):
        assert ok, ans
    gg.send(f"play {r['to_move']} {v}")
    if gg.send(f"color {r['dragon']}").strip().lower() == "empty":
        return "captured"
    return gg.send(f"dragon_status {r['dragon']}").split()[0]


def _board(moves: list[str]) -> Board:
    b = Board(9, 7.0)
    for mv in moves:
        col, v = mv.split()
        p = PASS if v.lower() == "pass" else gtp_to_point(v, 9)
        b.play(p, BLACK if col.lower() == "b" else WHITE)
    return b


def _value(s: str):
    for t in (int, float):
        try:
            return t(s)
        except ValueError:
            pass
    return s


def score(args) -> None:
    from playout.go.player import Player
    from playout.go.tables import DEFAULT_DATABASE, load_table

    table = load_table(DEFAULT_DATABASE)
    opts = dict((k, _value(v)) for k, v in (o.split("=", 1) for o in args.opt))
    if "seed" in opts or "playouts" in opts:
        sys.exit("--opt: give the seed and playouts as --seed and --playouts")
    with open(args.suite) as f:
        rows = [json.loads(ln) for ln in f if ln.strip()]
    if args.first:
        rows = rows[: args.first]
    out = []
    t0 = time.perf_counter()
    gg = _gnugo()
    try:
        for k, r in enumerate(rows):
            if args.gnugo_move:
                mine = r["owner"] == r["to_move"]
                v = r["defend"] if mine else r["attack"]
            else:
                pl = Player(table, playouts=args.playouts, seed=args.seed + k, resign=0, **opts)
                mv = pl.genmove(_board(r["moves"])).move
                v = "pass" if mv == PASS else point_to_gtp(mv, 9)
            try:
                status = _judge(gg, r, v)
            except GtpError:  # GNU Go 3.8 can crash in its reading: a fresh one, judged again
                gg.close()
                gg = _gnugo()
                try:
                    status = _judge(gg, r, v)
                except GtpError:
                    gg.close()
                    gg = _gnugo()
                    status = "judge-failed"
            if r["owner"] == r["to_move"]:
                solved = status == "alive"
            else:
                solved = status in ("dead", "captured")
            out.append({"i": k, "move": v, "status": status, "solved": solved})
    finally:
        gg.close()
    n = len(out)
    s = sum(o["solved"] for o in out)
    z = 1.96
    p = s / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    mine = [o for o, r in zip(out, rows) if r["owner"] == r["to_move"]]
    res = {"positions": n, "solved": s, "rate": round(p, 4), "wilson95": [round(c - h, 3), round(c + h, 3)],
           "defence": f"{sum(o['solved'] for o in mine)}/{len(mine)}",
           "attack": f"{s - sum(o['solved'] for o in mine)}/{n - len(mine)}",
           "playouts": args.playouts, "seed": args.seed, "opts": opts, "gnugo_move": args.gnugo_move,
           "seconds": round(time.perf_counter() - t0, 1)}
    if args.baseline:
        with open(args.baseline) as f:
            base = json.load(f)["rows"][:n]
        d = [o["solved"] - b["solved"] for o, b in zip(out, base)]
        mean = sum(d) / len(d)
        var = sum((x - mean) ** 2 for x in d) / max(1, len(d) - 1)
        res["paired_difference"] = round(mean, 4)
        res["paired_halfwidth95"] = round(1.96 * math.sqrt(var / len(d)), 4)
    res["judge_failed"] = sum(o["status"] == "judge-failed" for o in out)
    print(json.dumps(res))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"summary": res, "rows": out}, f)


def _suite_and_misses(args) -> tuple[list[dict], list[dict]]:
    """The suite's rows and the unsolved rows of the ``--rows`` score output (its ``rows``, or
    results.json's ``default_rows``), the first ``--first`` of them."""
    with open(args.suite) as f:
        rows = [json.loads(ln) for ln in f if ln.strip()]
    with open(args.rows) as f:
        res = json.load(f)
    res = res.get("rows", res.get("default_rows"))
    return rows, [o for o in res if not o["solved"]][: args.first or None]


def forced(args) -> None:
    from playout.go.player import Player
    from playout.go.tables import DEFAULT_DATABASE, load_table

    table = load_table(DEFAULT_DATABASE)
    rows, res = _suite_and_misses(args)
    misses = [o["i"] for o in res]
    scored = {o["i"]: o["move"] for o in res}
    out = []
    for i in misses:
        r = rows[i]
        g = r["defend"] if r["owner"] == r["to_move"] else r["attack"]
        b = _board(r["moves"])
        pl = Player(table, playouts=args.playouts, seed=args.seed + i, resign=0)
        mv = pl.genmove(b).move
        cands = {c.move: c for c in pl.candidates(b)}
        gp = gtp_to_point(g, 9)
        b2 = _board(r["moves"])
        b2.play(gp, b2.to_move)
        pl2 = Player(table, playouts=args.playouts, seed=args.seed + 1000 + i, resign=0)
        pl2.genmove(b2)
        after = 1.0 - pl2.candidates(b2)[0].winrate
        row = {"i": i, "task": "save" if r["owner"] == r["to_move"] else "kill",
               "ours": "pass" if mv == PASS else point_to_gtp(mv, 9),
               "scored_move": scored[i], "ours_winrate": round(cands[mv].winrate, 4), "gnugo": g,
               "gnugo_root_visits": cands[gp].visits if gp in cands else 0,
               "gnugo_forced_winrate": round(after, 4)}
        out.append(row)
        print(json.dumps(row), flush=True)
    d = [o["ours_winrate"] - o["gnugo_forced_winrate"] for o in out]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / max(1, n - 1))
    summary = {"misses": n, "ours_minus_forced_mean": round(mean, 4),
               "halfwidth95": round(1.96 * sd / math.sqrt(n), 4),
               "forced_lower": sum(x > 0 for x in d), "playouts": args.playouts, "seed": args.seed}
    print(json.dumps(summary))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"summary": summary, "rows": out}, f)


def _play_out(r: dict, first: str, playouts: int, seed: int) -> tuple[float, int, str]:
    """Our result (1, 1/2, 0) of the game from row ``r`` with ``first`` played, then our engine
    against GNU Go level 10 to the end; (result, moves played, how it ended)."""
    from playout.go.player import Player
    from playout.go.tables import DEFAULT_DATABASE, load_table

    ours = BLACK if r["to_move"] == "b" else WHITE
    b = _board(r["moves"])
    gg = GtpClient([GNUGO, "--mode", "gtp", "--level", "10", "--seed", str(seed)], name="gnugo",
                   timeout=120)
    try:
        gg.send_many(["boardsize 9", "clear_board", "komi 7"])
        for ok, ans in gg.send_many([f"play {m}" for m in r["moves"]]):
            assert ok, ans
        pl = Player(load_table(DEFAULT_DATABASE), playouts=playouts, seed=seed)
        col = "b" if ours == BLACK else "w"
        gg.send(f"play {col} {first}")
        b.play(gtp_to_point(first, 9), ours)
        passes, n = 0, 1
        while n < 200:
            c = b.to_move
            if c == ours:
                mv = pl.genmove(b).move
                if mv == -1:
                    return 0.0, n, "we resigned"
                v = "pass" if mv == PASS else point_to_gtp(mv, 9)
                gg.send(f"play {col} {v}")
            else:
                v = gg.send(f"genmove {'w' if col == 'b' else 'b'}").strip()
                if v.lower() == "resign":
                    return 1.0, n, "GNU Go resigned"
                mv = PASS if v.lower() == "pass" else gtp_to_point(v, 9)
            b.play(mv, c)
            n += 1
            passes = passes + 1 if mv == PASS else 0
            if passes == 2:
                break
        score = gg.send("final_score").strip()
        if score.startswith("0"):
            return 0.5, n, score
        winner = BLACK if score.upper().startswith("B") else WHITE
        return (1.0 if winner == ours else 0.0), n, score
    finally:
        gg.close()


def playoff(args) -> None:
    if GNUGO is None:
        sys.exit("gnugo (GNU Go 3.8) is not installed")
    rows, misses = _suite_and_misses(args)
    done = {}
    try:
        with open(args.out) as f:
            for ln in f:
                if ln.strip():
                    g = json.loads(ln)
                    done[(g["i"], g["arm"])] = g
    except FileNotFoundError:
        pass
    for o in misses:
        r = rows[o["i"]]
        gnugo_point = r["defend"] if r["owner"] == r["to_move"] else r["attack"]
        for arm, first in (("ours", o["move"]), ("gnugo", gnugo_point)):
            if (o["i"], arm) in done or first.lower() == "pass":
                continue
            result, n, how = _play_out(r, first, args.playouts, args.seed + o["i"])
            g = {"i": o["i"], "arm": arm, "first": first, "result": result, "moves": n,
                 "end": how, "playouts": args.playouts, "seed": args.seed + o["i"]}
            done[(o["i"], arm)] = g
            with open(args.out, "a") as f:
                f.write(json.dumps(g) + "\n")
            print(json.dumps(g), flush=True)
    pairs = [(done[(o["i"], "ours")]["result"], done[(o["i"], "gnugo")]["result"])
             for o in misses if (o["i"], "ours") in done and (o["i"], "gnugo") in done]
    n = len(pairs)
    d = [b - a for a, b in pairs]
    mean = sum(d) / max(1, n)
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / max(1, n - 1))
    print(json.dumps({"positions": n, "ours_arm": sum(a for a, _ in pairs),
                      "gnugo_arm": sum(b for _, b in pairs), "gnugo_minus_ours": round(mean, 4),
                      "halfwidth95": round(1.96 * sd / math.sqrt(max(1, n)), 4)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("records", nargs="+")
    b.add_argument("--out", required=True)
    b.add_argument("--start", type=int, default=10, help="first move number considered")
    b.add_argument("--per-game", type=int, default=3)
    b.add_argument("--min-stones", type=int, default=3)
    b.add_argument("--max-games", type=int, default=0, help="the first N games of each file")
    s = sub.add_parser("score")
    s.add_argument("suite")
    s.add_argument("--playouts", type=int, default=5000)
    s.add_argument("--opt", action="append", default=[], help="Player keyword: key=value")
    s.add_argument("--gnugo-move", action="store_true")
    s.add_argument("--seed", type=int, default=1, help="row k's search has seed SEED + k")
    s.add_argument("--first", type=int, default=0)
    s.add_argument("--out")
    s.add_argument("--baseline")
    for name, out_help in (("forced", None), ("playoff", "JSONL, appended game by game (resumes)")):
        m = sub.add_parser(name)
        m.add_argument("suite")
        m.add_argument("--rows", required=True, help="a score output (rows, or results.json's default_rows)")
        m.add_argument("--playouts", type=int, default=5000)
        m.add_argument("--seed", type=int, default=1)
        m.add_argument("--first", type=int, default=0, help="only the first N misses")
        m.add_argument("--out", required=out_help is not None, help=out_help)
    args = ap.parse_args()
    {"build": build, "score": score, "forced": forced, "playoff": playoff}[args.cmd](args)


if __name__ == "__main__":
    main()
