"""``playout bg``: hint, eval, cube, rollout, play (and ``pr`` / ``benchmark`` when present).

POSITION is a gnubg position ID, ``positionID:matchID``, an XGID, or 26
comma-separated board26 numbers.  Plies use XG numbering (1 = raw net); gnubg's
spelling is accepted as ``0g``/``1g``/``2g`` (= our 1/2/3).  Bad input exits
with code 2 and a one-line message naming the field.
"""

from __future__ import annotations

import functools
import importlib
import json
import random

import click

from playout.executor import ExecutorError
from playout.pictures import cli_write, picture_options


def _position(text: str):
    from playout.backgammon.board import checkers_off
    from playout.backgammon.ids import PositionError, parse_position

    try:
        pos = parse_position(text)
    except PositionError as exc:
        raise click.BadParameter(str(exc), param_hint="POSITION") from None
    off_me, off_opp = checkers_off(pos.board)
    if off_me == 15 or off_opp == 15:
        who = "both sides have" if off_me == off_opp else (
            "the side to act has" if off_me == 15 else "the opponent has")
        raise click.BadParameter(f"the game is over: {who} borne off all 15 checkers",
                                 param_hint="POSITION")
    return pos


def _dice(text: str | None, pos=None):
    if text is None:
        return pos.dice if pos is not None else None
    t = text.replace("-", "").replace(",", "").replace(" ", "")
    if len(t) != 2 or not t.isdigit() or not all("1" <= c <= "6" for c in t):
        raise click.BadParameter(f"impossible dice {text!r} (two digits 1..6, e.g. 31)",
                                 param_hint="--dice")
    return int(t[0]), int(t[1])


def _ply(text: str) -> int:
    from playout.backgammon.search import parse_ply

    try:
        return parse_ply(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--ply") from None


def _evaluator(name: str, option: str = "--evaluator", cube: bool = False, ply: int = 1):
    """The evaluator ``name`` names for a search ``ply`` deep (``net``: the shipped network for
    that depth, :func:`playout.backgammon.evaluators.default_net`; ``cube``: for cube decisions,
    where ``net`` is the default cube network,
    :func:`playout.backgammon.evaluators.get_cube_evaluator`)."""
    from playout.backgammon.evaluators import get_cube_evaluator, get_evaluator

    try:
        return get_cube_evaluator(name) if cube else get_evaluator(name, ply)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=option) from None


PLY_HELP = ("1..4, XG numbering (1 = raw net); gnubg's 0g/1g/2g also accepted (a bare 0 is "
            "gnubg's 0-ply = 1)")


def move_text(before, after, dice) -> str:
    """The play in standard notation (``8/5 6/5``, ``24/18*/13``, ``13/11(2)``), see
    :mod:`playout.backgammon.notation`."""
    from playout.backgammon.notation import play_text

    return play_text(before, after, dice)


_common = [
    click.option("--evaluator", "evaluator", default="net", show_default=True,
                 help="net (the shipped network: at 2 plies and deeper its value network) | "
                      "pubeval | gnubg | bgsage | path/to/net.npz"),
    click.option("--json", "as_json", is_flag=True, help="machine-readable output"),
]


def common(f):
    for opt in reversed(_common):
        f = opt(f)
    return f


class BgGroup(click.Group):
    """Adds ``pr`` and ``benchmark`` from ``playout.backgammon.cli_pr`` when that module exists."""

    _lazy = {"pr": "pr", "benchmark": "benchmark"}

    def list_commands(self, ctx):
        names = set(super().list_commands(ctx))
        try:
            mod = importlib.import_module("playout.backgammon.cli_pr")
            names |= {n for n, a in self._lazy.items() if hasattr(mod, a)}
        except ImportError:
            pass
        return sorted(names)

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is not None or name not in self._lazy:
            return cmd
        try:
            return getattr(importlib.import_module("playout.backgammon.cli_pr"), self._lazy[name])
        except (ImportError, AttributeError):
            return None


@click.group(cls=BgGroup)
def bg() -> None:
    """Backgammon analysis: hints, evaluations, cube actions, rollouts, self-play.

    \b
    POSITION (the side to act's view, before its roll) is one of:
      gnubg position ID          4HPwATDgc/ABMA
      position ID:match ID       4HPwATDgc/ABMA:cAkAAAAAAAAA  (dice, cube, score)
      XGID                       XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10
      board26                    26 comma-separated counts: [0] the opponent's bar
                                 (>= 0), [1..24] the points numbered from the side to
                                 act's home (positive = its checkers, negative = the
                                 opponent's), [25] the side to act's bar
    A POSITION that begins with '-' (a board26, an XGID without "XGID=") goes after
    '--', e.g.  playout bg eval -- -1,2,0,...
    Plays are written as gnubg and XG write them: 8/5 6/5, 24/18*/13, 13/11(2), bar/22.
    Plies use XG numbering (1 = raw net); gnubg's spelling 0g/1g/2g = our 1/2/3.
    """


@bg.command()
@click.argument("position")
@click.option("--dice", help="the roll to play, e.g. 31 (default: from the match ID/XGID)")
@click.option("--ply", default="1", show_default=True, help=PLY_HELP)
@click.option("--top", default=10, show_default=True, type=click.IntRange(min=1),
              help="candidates to show")
@click.option("--cubeful/--cubeless", default=True, show_default=True,
              help="rank by cubeful equity for the position's cube and score (gnubg's hint: "
                   "money per cube unit, match play EMG; cubeless equity shown beside), or by "
                   "cubeless money equity")
@picture_options
@common
def hint(position, dice, ply, top, cubeful, svg_path, png_path, evaluator, as_json):
    """Ranked plays for POSITION with --dice, by cubeful equity as gnubg's hint ranks them
    (for the position's cube and score; --cubeless: by cubeless money equity)."""
    from playout.backgammon.ids import position_id
    from playout.backgammon.search import choose_move
    from playout.backgammon.svg import position_svg

    pos = _position(position)
    d = _dice(dice, pos)
    if d is None:
        raise click.BadParameter("no dice given and none in the position", param_hint="--dice")
    cli_write(lambda: position_svg(pos, dice=d), svg_path, png_path)
    ev = _evaluator(evaluator, ply=_ply(ply))
    if cubeful:
        _hint_cubeful(pos, d, ev, _ply(ply), top, as_json)
        return
    try:
        mc = choose_move(pos.board, d, ev, _ply(ply))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    rows = [{"rank": i + 1, "move": move_text(pos.board, c.board, d), "position_id": position_id(c.board),
             **c.to_json()} for i, c in enumerate(mc.candidates[:top])]
    _emit_hint(pos, d, {"evaluator": ev.name, "ply": mc.ply}, rows, as_json, "eq")


def _emit_hint(pos, d, meta: dict, rows: list, as_json: bool, unit: str) -> None:
    """``bg hint``'s output: JSON (``meta`` beside the moves) or the board and one line a play."""
    from playout.backgammon.ids import ascii_board, position_id

    if as_json:
        click.echo(json.dumps({"position_id": position_id(pos.board), "dice": list(d), **meta,
                               "moves": rows}))
        return
    click.echo(ascii_board(pos.board, dice=d))
    best = rows[0]["equity"]
    for r in rows:
        extra = f"  cubeless {r['cubeless_equity']:+.4f}" if "cubeless_equity" in r else ""
        click.echo(f"{r['rank']:>3}. {r['move']:<28} {r['ply']}-ply  {unit} {r['equity']:+.4f} "
                   f"({r['equity'] - best:+.4f}){extra}  win {r['probs'][0]:.3f} "
                   f"g {r['probs'][1]:.3f} lg {r['probs'][3]:.3f}")


def _hint_cubeful(pos, d, ev, ply: int, top: int, as_json: bool) -> None:
    """``bg hint`` (cubeful, the default): :func:`playout.backgammon.checkerplay.choose_play` for ``pos``."""
    from playout.backgammon.checkerplay import choose_play
    import numpy as np

    from playout.backgammon.board import game_result
    from playout.backgammon.ids import position_id
    from playout.backgammon.net import money_equity
    from playout.backgammon.search import post_move_probs

    try:
        plays = choose_play(pos.board, d, ev, ply, cube_value=pos.cube_value,
                            cube_owner=pos.cube_owner, jacoby=pos.jacoby,
                            match_length=pos.match_length, score=pos.score, crawford=pos.crawford)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    deep = [c for c in plays[:top] if c.ply > 1 and game_result(c.board) == 0]
    if deep:  # the cubeless figures shown at the same ply as the cubeful ones
        for c, p in zip(deep, post_move_probs(ev, np.stack([c.board for c in deep]), ply)):
            c.probs = p
    rows = [{"rank": i + 1, "move": move_text(pos.board, c.board, d), "position_id": position_id(c.board),
             "board": [int(v) for v in c.board], "equity": round(c.equity, 6),
             "cubeless_equity": round(float(money_equity(c.probs)), 6),
             "probs": [round(float(p), 6) for p in c.probs], "ply": c.ply}
            for i, c in enumerate(plays[:top])]
    unit = "EMG" if pos.match_length else "cubeful"
    _emit_hint(pos, d, {"evaluator": ev.name, "ply": ply, "cubeful": True, "unit": unit}, rows,
               as_json, unit)


@bg.command("eval")
@click.argument("position")
@click.option("--ply", default="1", show_default=True, help=PLY_HELP)
@picture_options
@common
def eval_(position, ply, svg_path, png_path, evaluator, as_json):
    """Five probabilities and equity for the side to act in POSITION (pre-roll)."""
    from playout.backgammon.evaluators import equity
    from playout.backgammon.ids import ascii_board
    from playout.backgammon.search import pre_roll_probs
    from playout.backgammon.svg import position_svg

    pos = _position(position)
    cli_write(lambda: position_svg(pos, dice=None), svg_path, png_path)
    ev = _evaluator(evaluator, ply=_ply(ply))
    try:
        p = pre_roll_probs(ev, pos.board, _ply(ply))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    out = {"evaluator": ev.name, "ply": _ply(ply), "probs": [round(float(v), 6) for v in p],
           "cubeless_equity": round(float(equity(p)), 6)}
    if as_json:
        click.echo(json.dumps(out))
        return
    click.echo(ascii_board(pos.board))
    names = ("win", "win gammon", "win bg", "lose gammon", "lose bg")
    for n, v in zip(names, p):
        click.echo(f"  {n:<12} {v:.4f}")
    click.echo(f"  cubeless equity {out['cubeless_equity']:+.4f}  ({ev.name}, {out['ply']}-ply)")


@bg.command()
@click.argument("position")
@click.option("--ply", default="2", show_default=True,
              help=PLY_HELP + "; 2 (the cubeful search one roll deep, ~1 ms) errs a quarter less "
              "than 1 (docs/results.md, session 35)")
@click.option("--cube", "cube_value", type=int, default=None, help="cube value (default: from the ID)")
@click.option("--owner", type=click.Choice(["centered", "player", "opponent"]), default=None)
@click.option("--jacoby/--no-jacoby", default=True, show_default=True)
@click.option("--beaver/--no-beaver", default=True, show_default=True)
@click.option("--rollout", "rollout_trials", type=click.IntRange(min=1), default=None,
              metavar="TRIALS", help="roll the position out first (TRIALS cubeless games, "
              "1-ply plays, variance reduction; 1296 is a good size) and read the rolled-out "
              "probabilities with the 0-ply model; --ply is then ignored")
@click.option("--seed", default=1, show_default=True, help="seed of --rollout")
@common
def cube(position, ply, cube_value, owner, jacoby, beaver, rollout_trials, seed, evaluator, as_json):
    """Cube action as gnubg 1.07 (money: equity, match: MWC): ND, DT, DP, action.

    --ply 1 is gnubg's 0-ply model (Janowski's cubeful equity of the evaluator's
    probabilities); --ply 2 (the default since session 35) and 3 are its cubeful 1-ply and
    2-ply search (the cube decisions of both sides made at every level, Janowski only at
    the leaves).

    Match IDs and XGIDs give the score; a game with a side 1-away that is not the
    Crawford game is post-Crawford (free drop, the leader's cube dead).

    With the default --evaluator net the probabilities come from our cube network
    (net_cube128_g18ro, fitted to our own rollouts), --rollout plays with the checker network.
    """
    from playout.backgammon.cube import cube_action

    pos = _position(position)
    # a rollout plays checkers (the checker network); a decision at --ply reads the cube network
    ev = _evaluator(evaluator, cube=rollout_trials is None)
    args = dict(jacoby=jacoby and pos.jacoby, beaver=beaver and pos.beaver,
                match_length=pos.match_length, score=pos.score, crawford=pos.crawford)
    value, own = pos.cube_value if cube_value is None else cube_value, owner or pos.cube_owner
    row = None
    try:
        if rollout_trials is not None:
            from playout.backgammon.cube_rollout import rollout_cube

            d, row = rollout_cube(pos.board, value, own, ev, trials=rollout_trials, seed=seed, **args)
        else:
            d = cube_action(pos.board, value, own, ev, _ply(ply), **args)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--cube") from None
    rolled = pos.dice is not None
    if as_json:
        out = d.to_json()
        if row is not None:
            out["rollout"] = {k: row[k] for k in ("trials", "std_error") if k in row}
        if rolled:
            out["dice_ignored"] = list(pos.dice)
        click.echo(json.dumps(out))
        return
    if rolled:  # gnubg/XG: the cube is turned before the roll
        click.echo(f"(the position's dice {pos.dice[0]}{pos.dice[1]} are ignored: this is the "
                   f"decision before the roll)")
    unit = "MWC" if pos.match_length else "equity"
    click.echo(f"({unit})\nNo double      {d.equity_nd:+.4f}\nDouble, take   {d.equity_dt:+.4f}\n"
               f"Double, pass   {d.equity_dp:+.4f}\nProper action: {d.optimal_action}")
    if row is not None:
        click.echo(f"(cubeless rollout, {row['trials']} trials, {ev.name}: win {d.probs[0]:.3f} "
                   f"g {d.probs[1]:.3f} lg {d.probs[3]:.3f}, equity s.e. {row['std_error']:.4f})")


@bg.command()
@click.argument("position")
@click.option("--dice", help="roll out the candidate plays of this roll (else the position itself)")
@click.option("--trials", default=1296, show_default=True, type=click.IntRange(min=1))
@click.option("--truncate", default=0, show_default=True, type=click.IntRange(min=0),
              help="half-moves before truncation (0 = none)")
@click.option("--workers", default=None, type=click.IntRange(min=0),
              help="processes (0 = in-process; default one per core)")
@click.option("--candidates", default=5, show_default=True, type=click.IntRange(min=1),
              help="plays to roll out (best at 1-ply)")
@click.option("--seed", default=1, show_default=True)
@click.option("--no-vr", is_flag=True,
              help="no variance reduction (advisable with pubeval, whose probabilities are a "
                   "score squashed to a win chance: its luck terms can add variance)")
@click.option("--luck", type=click.Choice(["ranked", "full"]), default="ranked", show_default=True,
              help="how variance reduction values each roll's luck. ranked (our net): the best "
                   "of the 3 plays a linearised net ranks first; unbiased, same plays made, "
                   "~2.3x the games per second at equal standard error. full: every play of "
                   "every roll, as gnubg (always used for other evaluators)")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="JSONL results file (resumed if present)")
@click.option("--ray", "ray_address", default=None, help="run on Ray (auto, local or host:port)")
@click.option("--cubeful", is_flag=True, help="cubeful money trials (Janowski cube play, no VR)")
@click.option("--ply", "ply_text", default="1", show_default=True,
              help="ply schedule of the trials' plays (XG numbering, our net): 2 = 2-ply "
                   "throughout, 2:2 = 2-ply for the first 2 half-moves then 1-ply, 3:3,2 = 3-ply "
                   "for 3 half-moves then 2-ply (Open Sage's references); 8 plays within 0.16 "
                   "at 1-ply are searched (gnubg's filter)")
@common
def rollout(position, dice, trials, truncate, workers, candidates, seed, no_vr, luck, out_path,
            ray_address, cubeful, ply_text, evaluator, as_json):
    """Cubeless rollout of POSITION (or of the candidate plays for --dice), 1-ply play
    unless --ply says otherwise (playout.backgammon.rollout_ply).

    Results also show a cubeful money equity: the rolled-out probabilities
    converted by Janowski's model for the position's cube (the trials are cubeless).
    """
    from playout.backgammon.rollout import rollout as rollout1
    from playout.backgammon.rollout_ply import describe_schedule, parse_schedule, rollout_ply
    from playout.backgammon.search import choose_move

    try:
        sched = parse_schedule(ply_text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--ply") from None
    if any(p > 1 for p in sched):
        if cubeful:
            raise click.BadParameter("cubeful trials are played at 1-ply", param_hint="--ply")
    run = functools.partial(rollout_ply, ply=sched) if any(p > 1 for p in sched) else rollout1
    pos = _position(position)
    ev = _evaluator(evaluator)
    if ev.kernel_args() is None:
        raise click.BadParameter("rollouts need net, pubeval or a .npz", param_hint="--evaluator")
    if any(p > 1 for p in sched) and ev.kernel_args()[0] != 0:
        raise click.BadParameter("rollouts above 1-ply need our net or a .npz", param_hint="--ply")
    if cubeful and pos.match_length:
        raise click.BadParameter("cubeful rollouts are for money play only", param_hint="--cubeful")
    if cubeful and truncate:
        raise click.BadParameter("cubeful trials are played to the end", param_hint="--truncate")
    d = _dice(dice, pos)
    try:
        if d is not None:
            mc = choose_move(pos.board, d, ev, 1)
            boards = [c.board for c in mc.candidates[:candidates]]
            res = run(boards, evaluator=evaluator, trials=trials, truncate=truncate, vr=not no_vr,
                      luck=luck, seed=seed, workers=workers, out_path=out_path,
                      description="rollout", post_move=True, ray_address=ray_address,
                      cube_owner=None if pos.match_length else pos.cube_owner, cubeful=cubeful,
                      jacoby=pos.jacoby)
            for r, b in zip(res, boards):
                r["move"] = move_text(pos.board, b, d)
            res.sort(key=lambda r: -r["equity"])
        else:
            res = run([pos.board], evaluator=evaluator, trials=trials, truncate=truncate,
                      vr=not no_vr, luck=luck, seed=seed, workers=workers, out_path=out_path,
                      description="rollout", post_move=False, ray_address=ray_address,
                      cube_owner=None if pos.match_length else pos.cube_owner, cubeful=cubeful,
                      jacoby=pos.jacoby)
    except (ValueError, ExecutorError) as exc:  # a results file of another job, Ray missing
        raise click.ClickException(str(exc)) from None
    if as_json:
        vr_used = not no_vr and not cubeful
        luck_used = (luck if ev.kernel_args()[0] == 0 else "full") if vr_used else None
        click.echo(json.dumps({"evaluator": ev.name, "trials": trials, "truncate": truncate,
                               "vr": vr_used, "luck": luck_used, "ply": describe_schedule(sched),
                               "results": res}))
        return
    click.echo(f"plays: {describe_schedule(sched)}")
    for r in res:
        label = r.get("move", "position")
        cf = f"  cubeful {r['cubeful_equity']:+.4f}" if "cubeful_equity" in r else ""
        probs = (f"probs {' '.join(f'{v:.3f}' for v in r['probs'])}  " if "probs" in r
                 else "cubeful trials  ")
        click.echo(f"{label:<28} eq {r['equity']:+.4f} +- {r['std_error']:.4f}{cf}  "
                   f"{probs}({r['trials']} trials)")


@bg.command()
@click.option("--seed", default=1, show_default=True)
@click.option("--ply", default="1", show_default=True, help=PLY_HELP)
@click.option("--opponent", default=None, help="evaluator for the second side (default: same)")
@click.option("--quiet", is_flag=True, help="only the result")
@click.option("--human", is_flag=True,
              help="play yourself against the engine, with the cube (see below)")
@click.option("--match", "match_text", default=None,
              help="--human: N (a match to N points, Crawford rule) or money [default: money]")
@click.option("--dice", "dice_mode", type=click.Choice(["rolled", "entered"]), default="rolled",
              show_default=True, help="--human: dice rolled by the seeded generator or typed in")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), default=None,
              help="--human: write the match as Jellyfish .mat")
@click.option("--sgf", "sgf_path", type=click.Path(dir_okay=False), default=None,
              help="--human: write the match as gnubg SGF")
@click.option("--jacoby", is_flag=True, help="--human, money: the Jacoby rule")
@click.option("--beaver", is_flag=True, help="--human, money: beavers allowed")
@click.option("--position", "start", default=None,
              help="--human: start the first game from this position (ID, ID:matchID or XGID; "
                   "you are the side to act; a match ID gives the cube and score)")
@common
def play(seed, ply, opponent, quiet, human, match_text, dice_mode, save_path, sgf_path, jacoby,
         beaver, start, evaluator, as_json):
    """Self-play one cubeless game, printing the ASCII board after each play.

    \b
    With --human you play X against the engine (O) in the terminal: a match to
    --match N points (Crawford rule, post-Crawford doubling) or money play
    (double, take, drop; --beaver, --jacoby).  Type plays in gnubg notation
    (8/5 6/5, 24/18*/13, bar/22, 13/11(2), 6/off), or: roll, double, take,
    drop, beaver, hint, board, resign [single|gammon|backgammon], quit.  The
    engine plays at --ply with --evaluator and turns the cube by gnubg 1.07's
    0-ply cube model.  End of input ends the session (exit 0).
    """
    if human:
        from playout.backgammon.human_play import run_cli

        if opponent or quiet or as_json:
            raise click.BadParameter("--opponent, --quiet and --json are for self-play",
                                     param_hint="--human")
        run_cli(seed=seed, ply=_ply(ply), evaluator=_evaluator(evaluator, ply=_ply(ply)),
                cube_evaluator=_evaluator(evaluator, cube=True), match_text=match_text,
                dice_mode=dice_mode, save_path=save_path, sgf_path=sgf_path, jacoby=jacoby,
                beaver=beaver, start=_position(start) if start else None)
        return
    for name, given in (("--match", match_text), ("--save", save_path), ("--sgf", sgf_path),
                        ("--jacoby", jacoby), ("--beaver", beaver), ("--position", start),
                        ("--dice", dice_mode != "rolled")):
        if given:
            raise click.BadParameter("only with --human", param_hint=name)
    from playout.backgammon.board import STARTING_BOARD, flip, game_result
    from playout.backgammon.ids import ascii_board, position_id
    from playout.backgammon.search import choose_move

    n_ply = _ply(ply)
    evs = [_evaluator(evaluator, ply=n_ply), _evaluator(opponent or evaluator, "--opponent" if
                                                         opponent else "--evaluator", ply=n_ply)]
    rng = random.Random(seed)
    b = STARTING_BOARD.copy()
    side = 0
    while True:
        d = (rng.randint(1, 6), rng.randint(1, 6))
        if d[0] != d[1]:
            break
    record = []
    while True:
        mc = choose_move(b, d, evs[side], n_ply)
        record.append({"side": side, "position_id": position_id(b), "dice": list(d),
                       "move": move_text(b, mc.board, d), "equity": round(mc.equity, 4)})
        if not quiet and not as_json:
            mark = "XO"[side]
            click.echo(f"\nplayer {side} ({mark}, {evs[side].name}) rolls {d[0]}-{d[1]}: "
                       f"{record[-1]['move']}")
            # drawn from player 0's side (X at the bottom), numbered from the mover's, whose
            # play is written above in its own numbering (gnubg's show board, see ascii_board)
            click.echo(ascii_board(mc.board if side == 0 else flip(mc.board), names=("X", "O"),
                                   numbers=side))
        r = game_result(mc.board)
        if r:
            winner = side
            break
        b = flip(mc.board)
        side = 1 - side
        d = (rng.randint(1, 6), rng.randint(1, 6))
    out = {"winner": winner, "points": int(r), "plies": len(record), "seed": seed}
    if as_json:
        click.echo(json.dumps({**out, "record": record}))
    else:
        click.echo(f"{'' if quiet else chr(10)}player {winner} wins {r} point(s) after "
                   f"{len(record)} plies")



@bg.command("match")
@click.argument("engine_a", metavar="A")
@click.argument("engine_b", metavar="B")
@click.option("--games", type=click.IntRange(min=1), default=1000, show_default=True,
              help="games to play (A has the opening roll in even games)")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--dice", type=click.Choice(["duplicate", "independent"]), default="duplicate",
              show_default=True, help="duplicate: games 2k and 2k+1 share their dice, seats swapped")
@click.option("--out", "out_path", type=click.Path(dir_okay=False), default=None,
              help="JSONL file: one line per game; a rerun plays only the missing games")
@click.option("--python-loop", is_flag=True,
              help="play through Engine.choose_checker even when the compiled path applies")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def match_cmd(engine_a, engine_b, games, seed, dice, out_path, python_loop, as_json):
    """Cubeless money games between engines A and B (ENGINE SPECs, as for `bg pr --engine`).

    Colours alternate; dice are duplicate by default (see playout.backgammon.money_match).
    Prints A's wins, win rate [95% Wilson], points per game +- standard error, gammons and
    backgammons per side.
    """
    from playout.backgammon import money_match as mm
    from playout.backgammon.engines import EngineError

    try:
        res = mm.play_match(engine_a, engine_b, games, seed=seed, dice=dice, out=out_path,
                            compiled=not python_loop, progress=mm.ProgressLine())
    except (EngineError, mm.MatchError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(res) if as_json else mm.format_table(res))

from playout.backgammon.cli_data import data as _data  # noqa: E402  (playout bg data ...)

bg.add_command(_data)

from playout.backgammon.cli_cube_crosscheck import crosscheck_cube as _xcube  # noqa: E402

bg.add_command(_xcube)

from playout.backgammon.cli_train import train_cmd as _train  # noqa: E402  (playout bg train)

bg.add_command(_train)
bg.add_command(importlib.import_module("playout.backgammon.cli_analyze").analyze_cmd)  # playout bg analyze
