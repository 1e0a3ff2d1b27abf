"""Were our resignations right?  Play every game engine A resigned on from the resigning position.

For each game of a ``playout go match`` results file (JSONL, ``.xz`` allowed) that A lost by
resigning, the moves before the resignation are played on both engines
(:func:`playout.go.match.play_game`'s ``opening``) and the game goes on with A's command given
``--resign 0`` (our GTP engine; any other ``--resign`` option is replaced) until two passes; GNU
Go referees.  A resignation is *premature* when the continued game is a draw or A's win.

Results go to ``--out`` (JSONL, one line per game, resumable: games already there are skipped).
Run (issue 18)::

    python benchmarks/go_resign_check.py data/go/match-s1-uct0/s1c0.jsonl.xz \\
        "playout gtp --seconds 1 --seed {seed}" "gnugo --mode gtp --level 10 --seed {seed}" \\
        --out /tmp/resign-check.jsonl

``{seed}``: as in ``go match`` (A's game + 1, B's game + 1001).
"""

from __future__ import annotations

import argparse
import json
import lzma
import re
from pathlib import Path

from playout.go.match import play_game
from playout.stats import wilson_interval


def _records(path: str) -> list[dict]:
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results")
    ap.add_argument("engine_a")
    ap.add_argument("engine_b")
    ap.add_argument("--out", required=True)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--komi", type=float, default=7.0)
    ap.add_argument("--limit", type=int, default=0, help="at most this many games (0: all)")
    args = ap.parse_args()
    a_cmd = re.sub(r"--resign\s+\S+", "", args.engine_a).strip() + " --resign 0"
    done = {}
    out = Path(args.out)
    if out.exists():
        done = {json.loads(x)["key"]: json.loads(x) for x in out.read_text().splitlines() if x.strip()}
    todo = [r for r in _records(args.results)
            if not r["a_won"] and str(r.get("result", "")).endswith("Resign")]
    if args.limit:
        todo = todo[: args.limit]
    for r in todo:
        if r["key"] in done:
            continue
        g = int(r["key"].rsplit("-", 1)[1])
        a = a_cmd.replace("{seed}", str(g + 1))
        b = args.engine_b.replace("{seed}", str(g + 1001))
        black, white = (a, b) if r["a_black"] else (b, a)
        res = play_game(black, white, args.size, args.komi, opening=r["moves"])
        winner = res["winner"]
        ours = "B" if r["a_black"] else "W"
        line = {"key": r["key"], "a_black": r["a_black"], "resigned_at": len(r["moves"]),
                "result": res["result"], "n_moves": len(res["moves"]),
                "a_score": 1.0 if winner == ours else 0.5 if winner == "draw" else 0.0}
        done[r["key"]] = line
        with out.open("a") as f:
            f.write(json.dumps(line) + "\n")
        print(f"{r['key']}: resigned at move {line['resigned_at']}, played on to {line['n_moves']}:"
              f" {res['result']} (A {line['a_score']})", flush=True)
    rows = [done[r["key"]] for r in todo if r["key"] in done]
    saved = sum(x["a_score"] for x in rows)
    lo, hi = wilson_interval(saved, len(rows)) if rows else (0.0, 0.0)
    print(f"{len(rows)} resignations played on: A scored {saved:g} "
          f"({saved / max(1, len(rows)):.3f} [{lo:.3f}-{hi:.3f}] of a point each)")


if __name__ == "__main__":
    main()
