"""``playout bg analyze MATCH``: rate every decision of a played match (``.mat`` or SGF).

See :mod:`playout.backgammon.analysis` for the definitions (gnubg's).  A bad file or engine
spec exits with one line naming it (code 1), never a traceback.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import click


@click.command("analyze")
@click.argument("match_path", metavar="MATCH", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--engine", default="ours:ply=2", show_default=True, metavar="SPEC",
              help="ours:ply=1|2|3, gnubg:ply=0|1 (gnubg numbering), bgsage:ply=1|2")
@click.option("--json", "as_json", is_flag=True,
              help='print {"players": [...], "decisions": [...]} (players in the file\'s order)')
@click.option("--out", "out_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="write a self-contained HTML report here")
@click.option("--top", default=10, show_default=True, type=click.IntRange(min=1),
              help="worst decisions to list")
@click.option("--no-luck", is_flag=True, help="skip the luck analysis (faster)")
def analyze_cmd(match_path: Path, engine: str, as_json: bool, out_path, top: int, no_luck: bool) -> None:
    """Rate every checker and cube decision of both players in MATCH (gnubg's units)."""
    from playout.backgammon.analysis import AnalysisError, analyze, make_rater, worst
    from playout.backgammon.matchfile import MatchFileError, read_match

    if not match_path.is_file():
        raise click.ClickException(f"{match_path}: no such file")
    try:
        match = read_match(match_path)
        rater, label = make_rater(engine)
        report = analyze(match, rater, luck=not no_luck)
    except (MatchFileError, AnalysisError) as exc:
        raise click.ClickException(str(exc)) from None
    report["engine"] = label
    if out_path is not None:
        out_path.write_text(html_report(match, report, top=top), encoding="utf-8")
    keys = ("name", "checker_error_rate_memg", "cube_error_rate_memg", "overall_error_rate_memg",
            "pr", "luck_rate_memg")
    if as_json:
        click.echo(json.dumps({"players": [{k: p[k] for k in keys} for p in report["players"]],
                               "decisions": report["decisions"]}))
        return
    unit = "MWC" if match.length else "money"
    click.echo(f"{match_path}: {match.length or 'money'}{' point match' if match.length else ' session'}, "
               f"{len(match.games)} game(s); engine {label}; equities in EMG ({unit})")
    head = f"{'':22}" + "".join(f"{p['name'][:20]:>22}" for p in report["players"])
    click.echo(head)
    rows = [("checker error rate mEMG", "checker_error_rate_memg"),
            ("cube error rate mEMG", "cube_error_rate_memg"),
            ("overall error rate mEMG", "overall_error_rate_memg"), ("PR", "pr"),
            ("luck rate mEMG", "luck_rate_memg"), ("unforced moves", "unforced_moves"),
            ("cube decisions (close)", "close_cube_decisions"), ("doubtful", "doubtful"),
            ("bad", "bad"), ("very bad", "very_bad")]
    for title, k in rows:
        click.echo(f"{title:22}" + "".join(f"{p[k]:>22}" for p in report["players"]))
    click.echo("")
    click.echo(f"worst {top} decisions:")
    for d in worst(report, top):
        click.echo(f"  game {d['game']} move {d['move']} {report['players'][d['player']]['name']}: "
                   f"{d['kind']} {d['dice'] or ''} played {d['play']}, best {d['best']}, "
                   f"-{d['error']:.3f} {d['mark']}  {d['position_id']}:{d['match_id']}  {d['xgid']}")


def _curve_svg(curve, w=480, h=140, key="equity_p0", who: str = "player 0") -> str:
    """A line graph of ``key`` over a game's plays (EMG in [-1, 1] or wider; MWC in [0, 1]) for
    ``who``, with the value axis (top, middle, bottom) and the play count labelled."""
    pts = [(i, c[key]) for i, c in enumerate(curve) if c.get(key) is not None]
    if len(pts) < 2:
        return ""
    n = max(p[0] for p in pts) or 1
    if key == "mwc_p0":
        lo, hi = 0.0, 1.0
    else:
        lo, hi = min(-1.0, min(p[1] for p in pts)), max(1.0, max(p[1] for p in pts))
    mid = 0.5 if key == "mwc_p0" else 0.0
    left, right, top, bottom = 44, 8, 18, 20  # margins for the labels
    pw, ph = w - left - right, h - top - bottom

    def y(v):
        return top + ph - ph * (v - lo) / (hi - lo)

    def fmt(v):
        return f"{100 * v:.0f}%" if key == "mwc_p0" else f"{v:+.1f}".replace("+0.0", "0")

    xy = " ".join(f"{left + pw * i / n:.1f},{y(v):.1f}" for i, v in pts)
    what = "MWC" if key == "mwc_p0" else "equity (EMG)"
    txt = 'font-family="sans-serif" font-size="10" fill="#555"'
    ticks = "".join(f'<text x="{left - 4}" y="{y(v) + 3:.1f}" text-anchor="end" {txt}>{fmt(v)}</text>'
                    for v in (hi, mid, lo))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}">'
            f'<rect width="{w}" height="{h}" fill="#fafafa" stroke="#ccc"/>'
            f'<text x="{left}" y="12" {txt}>{html.escape(who)}: {what} after each play</text>'
            f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#ddd"/>'
            f'<line x1="{left}" x2="{left + pw}" y1="{y(mid):.1f}" y2="{y(mid):.1f}" stroke="#999"/>'
            + ticks +
            f'<text x="{left}" y="{h - 6}" {txt}>play 0</text>'
            f'<text x="{left + pw}" y="{h - 6}" text-anchor="end" {txt}>play {n}</text>'
            f'<polyline fill="none" stroke="#1565c0" stroke-width="1.5" points="{xy}"/></svg>')


def html_report(match, report: dict, *, top: int = 10) -> str:
    """A self-contained HTML page: the per-player table, the worst decisions with their boards
    (:mod:`playout.backgammon.svg`) and each game's equity curve for player 0 (EMG after each
    checker play)."""
    from playout.backgammon.analysis import worst
    from playout.backgammon.ids import parse_xgid
    from playout.backgammon.svg import position_svg

    e = html.escape
    ps = report["players"]
    keys = [("checker error rate mEMG", "checker_error_rate_memg"), ("cube error rate mEMG", "cube_error_rate_memg"),
            ("overall error rate mEMG", "overall_error_rate_memg"), ("PR", "pr"),
            ("luck rate mEMG", "luck_rate_memg"), ("doubtful / bad / very bad", None)]
    rows = []
    for title, k in keys:
        cells = [f"{p['doubtful']} / {p['bad']} / {p['very_bad']}" if k is None else str(p[k]) for p in ps]
        rows.append(f"<tr><th>{e(title)}</th>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>")
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{e(' vs '.join(match.players))}</title>"
             "<style>body{font-family:sans-serif;margin:2em}td,th{padding:4px 10px;text-align:right}"
             "table{border-collapse:collapse}tr:nth-child(odd){background:#f3f3f3}.d{margin:1em 0}</style>"
             "</head><body>",
             f"<h1>{e(match.players[0])} vs {e(match.players[1])}</h1>",
             f"<p>{match.length or 'money'}{' point match' if match.length else ' session'}, "
             f"{len(match.games)} game(s), engine {e(report.get('engine', ''))}</p>",
             "<table><tr><th></th>" + "".join(f"<th>{e(p['name'])}</th>" for p in ps) + "</tr>",
             *rows, "</table>", f"<h2>Worst {top} decisions</h2>"]
    for d in worst(report, top):
        try:
            svg = position_svg(parse_xgid(d["xgid"]))
        except ValueError:  # a picture is a nicety; the text below still names the position
            svg = ""
        parts.append(f"<div class='d'><p>game {d['game']} move {d['move']}, {e(ps[d['player']]['name'])}: "
                     f"{e(d['kind'])} {e(d['dice'] or '')} played <b>{e(d['play'])}</b>, best "
                     f"<b>{e(d['best'])}</b>, error {d['error']:.3f} {e(d['mark'])}<br>"
                     f"<code>{e(d['position_id'])}:{e(d['match_id'])}</code> <code>{e(d['xgid'])}</code></p>{svg}</div>")
    what = "match winning chances" if match.length else "equity (EMG)"
    parts.append(f"<h2>{e(match.players[0])}'s {what} per game, after each checker play</h2>")
    for g in report["games"]:
        parts.append(f"<p>game {g['game']} (score {g['score'][0]}-{g['score'][1]}"
                     f"{', Crawford' if g['crawford'] else ''}; won by "
                     f"{e(ps[g['winner']]['name']) if g['winner'] is not None else '-'}, {g['points']} pt)</p>"
                     + _curve_svg(g["curve"], key="mwc_p0" if match.length else "equity_p0",
                                  who=match.players[0]))
    parts.append("</body></html>")
    return "\n".join(parts)
