"""Summary of a ``playout go match`` results file (JSONL): score, colours, interval, timings.

Reads the records ``playout.go.match.play_match`` appends (one game a line; unfinished games
skipped) and prints one JSON object:

* ``games``, ``a_score`` (a draw counts 1/2), ``a_rate`` and ``wilson95`` (95 % Wilson score
  interval, :func:`playout.stats.wilson_interval`);
* ``a_black`` / ``a_white``: A's score and games with each colour;
* ``resignations``: games ended by a resignation, split by who resigned (``a`` / ``b``);
  ``draws``; ``passes_ended``: games ended by two passes and scored by the referee (GNU Go's
  ``final_score``, Chinese rules);
* ``moves_per_game`` (mean plies, passes included), ``seconds_per_game`` (mean wall seconds,
  engine start-up and scoring included);
* ``a_seconds_per_move`` / ``b_seconds_per_move``: mean wall seconds of each side's ``genmove``
  (the answer's transfer included); with ``--a-playouts N`` also ``a_playouts_per_s`` =
  N / that mean (a lower bound on the search's rate: the GTP round trip is in the time);
* with ``--japanese``: ``japanese`` = A's score, rate and interval when every game that ended
  by two passes is scored again from its SGF record by GNU Go's default rules (Japanese:
  territory + captures, GTP ``final_score`` after ``loadsgf``), resignations unchanged. GNU Go
  plays by those rules unless given ``--chinese-rules``, while the match referee counts area;
* with ``--baseline OTHER.jsonl``: ``baseline_same_games`` = OTHER's A score and rate over the
  game numbers both files finished (``play_match`` seeds game ``g`` the same way in every
  match: ``{seed}`` = g + 1 for A, g + 1001 for B), this file's score over the same games, and
  the paired difference per game with its 95 % half-width (1.96 standard errors of the mean
  of the per-game differences).

Files may be xz-compressed (``.xz``), as the match files under ``data/go/`` are.

Run: ``python benchmarks/go_match_summary.py out/go-match-5000/ours-p5000-vs-gnugo-l10.jsonl
--a-playouts 5000``
"""

from __future__ import annotations

import argparse
import json
import lzma
import math
import sys
from pathlib import Path

from playout.go.match import GNUGO, GtpClient
from playout.stats import wilson_interval


def japanese_winner(sgf_path: Path) -> str:
    """``"B"``, ``"W"`` or ``"draw"``: GNU Go's default-rules ``final_score`` of a record
    (``loadsgf`` takes the komi from its ``KM``)."""
    with GtpClient([GNUGO or "gnugo", "--mode", "gtp"], name="gnugo", timeout=60) as gg:
        gg.send(f"loadsgf {sgf_path}")
        res = gg.send("final_score")
    return "draw" if res.strip() == "0" else res[0].upper()


def _text(path: Path) -> str:
    return lzma.decompress(path.read_bytes()).decode() if path.suffix == ".xz" else path.read_text()


def finished(path: Path) -> list[dict]:
    """The finished games of a match file (JSONL, or JSONL.xz), in file order."""
    recs = []
    for lineno, line in enumerate(_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
        if not r.get("unfinished") and r.get("a_won") is not None:
            recs.append(r)
    return recs


def game_number(rec: dict) -> int:
    """The game number ``g`` of a record (its key ends in ``-g``)."""
    return int(str(rec["key"]).rsplit("-", 1)[1])


def same_games(recs: list[dict], baseline: Path) -> dict:
    """Scores of ``recs`` and of ``baseline``'s records over the game numbers both finished."""
    base = {game_number(r): float(r["a_won"]) for r in finished(baseline)}
    ours = {game_number(r): float(r["a_won"]) for r in recs}
    common = sorted(set(base) & set(ours))
    n = len(common)
    d = [ours[g] - base[g] for g in common]
    mean = sum(d) / max(n, 1)
    var = sum((x - mean) ** 2 for x in d) / max(n - 1, 1)
    return {"source": str(baseline), "games": n,
            "a_score": sum(ours[g] for g in common), "baseline_a_score": sum(base[g] for g in common),
            "a_rate": round(sum(ours[g] for g in common) / max(n, 1), 4),
            "baseline_a_rate": round(sum(base[g] for g in common) / max(n, 1), 4),
            "paired_difference": round(mean, 4),
            "paired_halfwidth95": round(1.96 * math.sqrt(var / max(n, 1)), 4)}


def summarise(path: Path, a_playouts: int | None = None, japanese: bool = False,
              baseline: Path | None = None) -> dict:
    """The summary above of the finished games in ``path`` (a JSONL match file)."""
    recs = finished(path)
    n = len(recs)
    score = sum(float(r["a_won"]) for r in recs)
    lo, hi = wilson_interval(score, n)
    side = {}
    for name, black in (("a_black", True), ("a_white", False)):
        sub = [r for r in recs if r["a_black"] == black]
        side[name] = {"score": sum(float(r["a_won"]) for r in sub), "games": len(sub)}
    resign = {"a": 0, "b": 0}
    for r in recs:
        res = str(r["result"])
        if res.endswith("Resign"):
            winner_black = res.startswith("B")
            a_won = winner_black == r["a_black"]
            resign["b" if a_won else "a"] += 1
    a_sec: list[float] = []
    b_sec: list[float] = []
    for r in recs:
        for i, s in enumerate(r.get("seconds_per_move", [])):
            black_move = i % 2 == 0
            (a_sec if black_move == r["a_black"] else b_sec).append(float(s))
    out = {
        "file": str(path),
        "games": n,
        "a_score": score,
        "a_rate": round(score / max(n, 1), 4),
        "wilson95": [round(lo, 3), round(hi, 3)],
        **side,
        "resignations": {"total": resign["a"] + resign["b"], **resign},
        "draws": sum(1 for r in recs if r["a_won"] == 0.5),
        "passes_ended": sum(1 for r in recs if not str(r["result"]).endswith("Resign")),
        "moves_per_game": round(sum(r["n_moves"] for r in recs) / max(n, 1), 1),
        "seconds_per_game": round(sum(r["seconds"] for r in recs) / max(n, 1), 1),
        "a_seconds_per_move": round(sum(a_sec) / max(len(a_sec), 1), 4),
        "b_seconds_per_move": round(sum(b_sec) / max(len(b_sec), 1), 4),
    }
    if a_playouts and a_sec:
        out["a_playouts_per_s"] = round(a_playouts / (sum(a_sec) / len(a_sec)))
    if japanese:
        jscore = 0.0
        for r in recs:
            if str(r["result"]).endswith("Resign"):
                jscore += float(r["a_won"])
                continue
            w = japanese_winner(path.parent / r["sgf"])
            jscore += 0.5 if w == "draw" else float((w == "B") == r["a_black"])
        jlo, jhi = wilson_interval(jscore, n)
        out["japanese"] = {"a_score": jscore, "a_rate": round(jscore / max(n, 1), 4),
                           "wilson95": [round(jlo, 3), round(jhi, 3)]}
    if baseline is not None:
        out["baseline_same_games"] = same_games(recs, baseline)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("jsonl", type=Path)
    ap.add_argument("--a-playouts", type=int, default=None,
                    help="A's playouts a move, to report the rate its genmove times imply")
    ap.add_argument("--japanese", action="store_true",
                    help="also score the games ended by passes by GNU Go's default rules")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="another match file (same seeds): its score on the same game numbers")
    args = ap.parse_args()
    for p in (args.jsonl, args.baseline):
        if p is not None and not p.is_file():
            sys.exit(f"{p}: no such match file")
    print(json.dumps(summarise(args.jsonl, args.a_playouts, args.japanese, args.baseline), indent=1))


if __name__ == "__main__":
    main()
