"""``playout go ...`` and ``playout gtp``: the Go engine's command line (click)."""

from __future__ import annotations

import json
import math
import os
import sys
import threading

import click

from playout.cli import LazyGroup

LAZY = {"patterns": "playout.go.cli_patterns:patterns",
        "selfplay": "playout.go.cli_patterns:selfplay",
        "tune-patterns": "playout.go.cli_patterns:tune_patterns",
        "balance-patterns": "playout.go.cli_patterns:balance_patterns"}


def _finite_komi(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """``--komi``'s check: a finite number within +-1000, as GTP ``komi`` (:mod:`playout.go.gtp`)
    and SGF ``KM`` accept."""
    if not (math.isfinite(value) and abs(value) <= 1000):
        raise click.BadParameter(f"komi must be a finite number within +-1000, not {value}")
    return value


#: the ``--komi`` option of every Go command (points given to White)
komi_option = click.option("--komi", type=float, default=7.0, show_default=True,
                           callback=_finite_komi, help="Points given to White.")

#: ``--rules`` choices (:data:`playout.go.rulesets.RULESETS`; kept here so that --help does not
#: import the engine)
RULE_NAMES = ("positional", "situational", "simple-ko", "tromp-taylor", "new-zealand")


class UserError(click.ClickException):
    """A bad file, name or option: one line on stderr, exit code 2."""

    exit_code = 2


class _GoGroup(LazyGroup):
    """The ``go`` group; ``patterns``, ``selfplay`` and ``tune-patterns`` are imported only
    when used."""

    LAZY = LAZY


def _table(mc_patterns: str | None, mc_load_patterns: str | None):
    """The playout table; a bad name or file is a :class:`UserError` with the same one line
    as ``playout go patterns`` gives (``FILE: is a directory``, ``FILE:LINE: ...``)."""
    from pathlib import Path

    from playout.go.tables import DEFAULT_DATABASE, load_table

    if mc_load_patterns is not None and not Path(mc_load_patterns).exists():
        raise UserError(f"{mc_load_patterns}: no such pattern file")
    try:
        return load_table(mc_patterns or DEFAULT_DATABASE, mc_load_patterns)
    except OSError as exc:
        raise UserError(f"{mc_load_patterns or mc_patterns}: cannot read: {exc.strerror or exc}") from None
    except ValueError as exc:  # the message names the file or the name already
        raise UserError(str(exc)) from None


def _budget(playouts: int | None, seconds: float | None, default: int) -> int | None:
    """Playouts per move: ``--playouts``, or ``default`` unless ``--seconds`` is given.
    Both together are a usage error (as ``playout solve`` treats --iterations/--seconds)."""
    if playouts is not None and seconds is not None:
        raise click.UsageError("give --playouts or --seconds, not both")
    return playouts if playouts or seconds else default


def engine_options(f):
    """Options shared by ``gtp`` and ``go analyze``."""
    opts = [
        click.option("--mc-patterns", default=None,
                     help="Built-in database: uniform, mogo_classic, montegnu_classic (default, as in GNU Go) "
                          "(with or without the mc_ prefix)."),
        click.option("--mc-load-patterns", type=click.Path(), default=None,
                     help="Database file in GNU Go's mc_*.db format (wins over --mc-patterns)."),
        click.option("--playouts", type=click.IntRange(1), default=None,
                     help="Simulations per move (default: 10000 for gtp, 3000 for analyze); "
                          "not with --seconds."),
        click.option("--seconds", type=click.FloatRange(0.01), default=None,
                     help="Thinking time per move; not with --playouts."),
        click.option("--threads", type=click.IntRange(1, 64), default=1,
                     help="Search threads (see --parallel)."),
        click.option("--parallel", type=click.Choice(["root", "tree"]), default="root",
                     show_default=True,
                     help="How threads share the search: independent trees summed at the root "
                          "(root) or one tree with a virtual loss (tree; transpositions off)."),
        click.option("--virtual-loss", type=click.FloatRange(0), default=0.0, show_default=True,
                     help="--parallel tree: visits without wins on the edges a thread walks."),
        click.option("--seed", type=int, default=1, help="Random seed."),
        click.option("--lgrf", type=click.IntRange(0, 2), default=0, show_default=True,
                     help="Last-good-reply playouts with forgetting (Baier & Drake 2010): "
                          "1 = LGRF-1, 2 = LGRF-2 (0: off)."),
        click.option("--twolib", type=click.IntRange(0, 100), default=0, show_default=True,
                     help="Percent of playout moves that answer the previous move's "
                          "two-liberty strings (race captures and ataris, extensions to 3+ "
                          "liberties) when no atari answer (--reply) was played (0: off)."),
        click.option("--twolib-escape", type=click.IntRange(1, 2), default=2, show_default=True,
                     help="--twolib's ataris: only where the escape leaves the string at most "
                          "this many liberties (1: in atari again)."),
        click.option("--nakade", type=click.IntRange(0, 100), default=0, show_default=True,
                     help="Percent of playout moves that play the vital point of a small eye "
                          "space (three points, pyramid four, crossed or bulky five) next to "
                          "the previous move when no atari answer was played (0: off)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


@click.group(cls=_GoGroup)
def go() -> None:
    """Go: pattern playouts, UCT player, GNU Go cross-checks."""


@click.command("gtp")
@click.option("--boardsize", type=click.IntRange(5, 19), default=9, show_default=True)
@komi_option
@click.option("--resign", type=click.FloatRange(0, 1), default=0.08, show_default=True,
              help="Resign below this win rate (0: never).")
@click.option("--verbose", is_flag=True, help="Print each genmove's analysis on stderr.")
@click.option("--rave-k", type=click.FloatRange(0), default=1000.0, show_default=True,
              help="RAVE equivalence parameter; 0 = plain UCT.")
@click.option("--uct-c", type=click.FloatRange(0), default=0.0, show_default=True,
              help="Exploration constant of the RAVE-UCT score (0: no exploration term).")
@click.option("--root-uct-c", type=click.FloatRange(0), default=None,
              help="Exploration constant at the root alone (default: --uct-c there too).")
@click.option("--amaf-weight", type=click.IntRange(0, 1), default=0, show_default=True,
              help="1: weighted AMAF updates (Fuego's: a move's weight falls from 2 right after "
                   "the node to 0 at the simulation's end); 0: every later move counts 1.")
@click.option("--fpu", type=click.FloatRange(0), default=1.1, show_default=True,
              help="First-play urgency: the score of a child never visited nor AMAF-sampled.")
@click.option("--prior-n", type=click.FloatRange(0), default=20.0, show_default=True,
              help="Virtual AMAF visits that carry each move's pattern prior.")
@click.option("--transpositions/--no-transpositions", default=True, show_default=True,
              help="Merge positions reached by different move orders (the tree becomes a DAG).")
@click.option("--warm-up/--no-warm-up", default=True, show_default=True,
              help="Compile the search kernels in a background thread at start-up.")
@click.option("--tactics", type=click.IntRange(0, 2), default=0, show_default=True,
              help="Tactical tree priors: 1 = captures, atari escapes, big self-ataris; "
                   "2 = also ladders read (0: off).")
@click.option("--reply", type=click.IntRange(0, 100), default=0, show_default=True,
              help="Percent of playout moves that answer an atari of the previous move first.")
@click.option("--rules", type=click.Choice(RULE_NAMES), default="positional", show_default=True,
              help="Ko and suicide rules: positional / situational superko (no suicide), "
                   "simple-ko (no superko), tromp-taylor (positional superko, suicide of more "
                   "than one stone legal), new-zealand (situational superko, same suicide); "
                   "area scoring in all.  GTP kgs-rules changes it.")
@click.option("--prior-patterns", default=None, metavar="NAME|FILE|own",
              help="Database whose values give the tree's priors (a built-in name or an mc_*.db "
                   "file; own: the playout database's own values); the playouts keep "
                   "--mc-patterns'.  [default: the package's data/mc_tuned_v1.db, MM-tuned]")
@click.option("--time-use", type=click.Choice(["fixed", "adaptive"]), default="fixed",
              show_default=True,
              help="With --seconds or a GTP clock: fixed = every move its time; adaptive = stop "
                   "once the choice is settled, run on (up to 3x, on the time saved) while it "
                   "is not; --seconds is then the mean a move over the game.")
@click.option("--time-loan", type=click.FloatRange(0, 20), default=0.0, show_default=True,
              help="--time-use adaptive: the bank of saved time starts each game with this "
                   "many moves' time, lent to the first moves and repaid by the last moves' "
                   "early stops (a game of n moves takes at most 1 + LOAN/n times --seconds "
                   "a move).")
@engine_options
def gtp(boardsize, komi, resign, verbose, rave_k, uct_c, root_uct_c, amaf_weight, fpu, prior_n, transpositions, warm_up, tactics, reply,
        rules, prior_patterns, time_use, time_loan, mc_patterns, mc_load_patterns, playouts, seconds, threads, parallel,
        virtual_loss, seed, lgrf, twolib, twolib_escape, nakade) -> None:
    """Speak GTP version 2 on stdin/stdout."""
    from pathlib import Path

    from playout.go.gtp import GtpEngine
    from playout.go.timing import TimeUse

    if time_loan and time_use != "adaptive":
        raise click.UsageError("--time-loan needs --time-use adaptive")
    playouts = _budget(playouts, seconds, 10000)
    table = _table(mc_patterns, mc_load_patterns)
    prior_table = None  # the Player's default: mc_tuned_v1
    if prior_patterns == "own":
        prior_table = table
    elif prior_patterns is not None:
        is_file = Path(prior_patterns).suffix == ".db" or "/" in prior_patterns
        prior_table = _table(None if is_file else prior_patterns, prior_patterns if is_file else None)
    eng = GtpEngine(boardsize, komi, table, playouts=playouts,
                    seconds=seconds, threads=threads, parallel=parallel, virtual_loss=virtual_loss,
                    seed=seed, resign=resign, rave_k=rave_k,
                    transpositions=transpositions, rules=rules, tactics=tactics,
                    reply=reply, lgrf=lgrf, twolib=twolib, uct_c=uct_c, fpu=fpu,
                    prior_n=prior_n, twolib_escape=twolib_escape, prior_table=prior_table,
                    time_use=TimeUse(loan=time_loan) if time_use == "adaptive" else None,
                    amaf_weight=amaf_weight, root_uct_c=root_uct_c, nakade=nakade)
    if verbose:
        eng.log = lambda s: print(s, file=sys.stderr, flush=True)
    if warm_up:
        threading.Thread(target=_warm_up, args=(table,), daemon=True, name="warm-up").start()
    eng.serve()


def _warm_up(table) -> None:
    """Compile (or load from numba's cache) the search kernels while GTP setup commands arrive.

    After an install the first ``genmove`` would otherwise spend ~45 s in the compiler, which a
    GUI or a clock counts against the engine.  A 5x5 search compiles the same kernels (their
    types do not depend on the board size); numba's compiler lock serialises this with the main
    thread, and its random streams are per thread, so the game's moves are unchanged.
    """
    from playout.go.board import Board
    from playout.go.player import Player

    try:
        p = Player(table, playouts=64, seed=0, capacity=4096)
        p.final_score(Board(5), playouts=8)
        p.genmove(Board(5))
    except Exception as exc:  # noqa: BLE001 - a warm-up failure must not stop the engine
        print(f"warm-up: {exc} (the first genmove compiles instead)", file=sys.stderr, flush=True)


go.add_command(gtp)


@go.command("analyze")
@click.argument("sgf_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per move.")
@click.option("--sgf-out", type=click.Path(dir_okay=False), default=None,
              help="The annotated record (win rates as Sabaki's SBKV, the engine's moves as "
                   "variations)  [default: SGF_FILE's name + '-analysis.sgf', beside it]")
@click.option("--graph", type=click.Path(dir_okay=False), default=None,
              help="Black's win rate per move as a PNG  [default: SGF_FILE's name + "
                   "'-winrate.png', beside it]")
@click.option("--no-files", is_flag=True, help="Print only; write neither the SGF nor the graph.")
@engine_options
def analyze(sgf_file, as_json, sgf_out, graph, no_files, mc_patterns, mc_load_patterns, playouts,
            seconds, threads, parallel, virtual_loss, seed, lgrf, twolib, twolib_escape, nakade):
    """Print the engine's choice and win rate before each move of SGF_FILE, the win rate of
    the move played and its loss; write the record annotated and a win-rate graph.

    Win rates are the mover's, under the record's komi (KM; 7 when it has none): ``win rate``
    is the engine's choice's in the position before the move, ``played`` the move played's,
    read from the search of the position after it; ``loss`` is their difference.
    """
    from pathlib import Path

    from playout.go.board import BLACK, point_to_gtp
    from playout.go.player import Player
    from playout.go.review import move_records, plot_winrates, review_positions, write_review_sgf
    from playout.go.sgf import SgfError, read_game

    playouts = _budget(playouts, seconds, 3000)
    table = _table(mc_patterns, mc_load_patterns)
    try:
        game = read_game(sgf_file)
    except SgfError as exc:
        raise UserError(str(exc)) from None
    pl = Player(table, playouts=playouts, seconds=seconds, threads=threads, parallel=parallel,
                virtual_loss=virtual_loss, seed=seed, resign=0,
                lgrf=lgrf, twolib=twolib, twolib_escape=twolib_escape, nakade=nakade)
    src = Path(sgf_file)
    sgf_out = sgf_out or str(src.with_name(src.stem + "-analysis.sgf"))
    graph = graph or str(src.with_name(src.stem + "-winrate.png"))
    positions = review_positions(game, pl, seconds, pl.playouts)
    if not game.board.moves:  # nothing to review: say so rather than write near-empty files
        p = positions[0]
        side = "Black" if p.to_move == BLACK else "White"
        click.echo(f"{src}: no moves to review; the position ({side} to move) was searched: "
                   f"engine {point_to_gtp(p.move, game.board.size)}, Black's win rate "
                   f"{p.black_winrate:.3f}", err=True)
    for rec in move_records(game, positions):
        if as_json:
            click.echo(json.dumps(rec))
        else:
            click.echo(f"{rec['move']:4d} {rec['color']} played {rec['played']:>4s} "
                       f"{rec['played_winrate']:.3f}  engine {rec['engine']:>4s}  win rate "
                       f"{rec['winrate']:.3f}  loss {rec['loss']:+.3f} ({rec['playouts']} playouts)")
    if no_files:
        return
    try:
        write_review_sgf(src, game, positions, move_records(game, positions), sgf_out)
        plot_winrates(positions, graph, title=src.name)
    except OSError as exc:
        raise UserError(f"{exc.filename}: cannot write: {exc.strerror or exc}") from None
    if not as_json:
        click.echo(f"wrote {sgf_out} and {graph}")


@go.command("crosscheck")
@click.option("--games", type=click.IntRange(1), default=1000, show_default=True)
@click.option("--size", type=click.IntRange(5, 19), default=9, show_default=True)
@click.option("--seed", type=int, default=1)
@click.option("--rules", type=click.Choice(RULE_NAMES), default="simple-ko", show_default=True,
              help="Our ruleset; GNU Go runs with the options of the same rules.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="seconds GNU Go may take per answer  [default: 300]")
def crosscheck(games, size, seed, rules, timeout):
    """Replay random legal games in our board and in GNU Go; report any difference.

    GNU Go 3.8 answers is_legal for a suicide without checking superko on the position after
    it (its stones still on the board); those answers are counted apart, not as differences.
    """
    from playout.go.match import GNUGO, GtpError, crosscheck_gnugo

    if GNUGO is None:
        raise click.ClickException("gnugo is not installed (apt-get install gnugo)")
    try:
        r = crosscheck_gnugo(games, size, seed, rules=rules, timeout=timeout)
    except GtpError as exc:
        raise UserError(str(exc)) from None
    for d in r["differences"][:50]:
        click.echo(d)
    click.echo(f"{r['games']} games, {r['moves']} moves, {r['legality_checks']} legality checks "
               f"({r['illegal']} illegal: {r['superko']} superko, {r['suicide_legal']} legal "
               f"suicides), {r['gnugo_suicide_superko']} suicides repeating a position "
               f"(GNU Go allows them), {len(r['differences'])} differences")
    if r["differences"]:
        sys.exit(1)


@go.command("match")
@click.argument("engine_a")
@click.argument("engine_b")
@click.option("--games", type=click.IntRange(1), default=10, show_default=True)
@click.option("--size", type=click.IntRange(5, 19), default=9, show_default=True)
@komi_option
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="JSONL results (resumed).")
@click.option("--names", default="A,B", show_default=True, help="Two names, comma-separated.")
@click.option("--transcript", type=click.Path(dir_okay=False), default=None,
              help="Write the GTP exchanges of the first game played here (Markdown).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="seconds an engine may take per answer, genmove included; past it (or on "
                   "an answer that is not GTP) the game is recorded unfinished and the match "
                   "stops (see --on-failure)  [default: 300]")
@click.option("--on-failure", type=click.Choice(["stop", "void"]), default="stop", show_default=True,
              help="When an engine dies, hangs or answers garbage mid-game: stop the match "
                   "(a rerun replays that game) or record the game void and go on (3 failed "
                   "games in a row still stop it).")
@click.option("--jobs", type=click.IntRange(1), default=1, show_default=True,
              help="Games played at once, each with its own two engine processes: give each "
                   "a core (time-limited engines play weaker when they share one).")
@click.option("--first", type=click.IntRange(0), default=0, show_default=True,
              help="Play games FIRST..GAMES-1 only (the rest of a match begun elsewhere: a "
                   "game's seeds and colours depend only on its number).")
def match(engine_a, engine_b, games, size, komi, out, names, transcript, timeout, on_failure,
          jobs, first):
    """Play ENGINE_A vs ENGINE_B (GTP command lines), colours alternated."""
    from playout.go.match import GtpError, MatchFileError, play_match

    na = names.split(",")
    if len(na) != 2:
        raise UserError("--names needs two names separated by a comma")
    if first >= games:
        raise UserError(f"--first {first}: must be below --games ({games})")
    cores = os.cpu_count() or 1
    if jobs > cores:
        click.echo(f"warning: --jobs {jobs} on {cores} cores: games share cores, so engines "
                   f"limited by time play weaker than alone", err=True)
    try:
        s = play_match(engine_a, engine_b, games, out, size, komi, names=(na[0], na[1]),
                       log=click.echo, transcript_path=transcript, timeout=timeout,
                       on_failure=on_failure, jobs=jobs, first=first)
    except (GtpError, MatchFileError) as exc:
        raise UserError(str(exc)) from None
    click.echo(json.dumps(s))


@go.command("board")
@click.argument("sgf_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--move", "move_number", type=click.IntRange(0), default=None,
              help="Show the position after this many moves (default: the last).")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False), default=None,
              help="Also draw the board to this SVG file (last move ringed).")
@click.option("--png", "png_path", type=click.Path(dir_okay=False), default=None,
              help="Also draw the board to this PNG file (needs cairosvg).")
@click.option("--size", "px", type=click.IntRange(64, 4096), default=None,
              help="Picture width in pixels (default: 40 per line).")
def board(sgf_file, move_number, svg_path, png_path, px):
    """Print the position of SGF_FILE after --move moves, as GTP showboard prints it."""
    from playout.go.board import point_to_gtp
    from playout.go.sgf import SgfError, read_game
    from playout.go.svg import board_svg
    from playout.pictures import cli_write

    try:
        game = read_game(sgf_file, move_number)
    except SgfError as exc:
        raise UserError(str(exc)) from None
    b = game.board
    n_moves = len(b.moves)
    if move_number is not None and move_number > n_moves:
        raise UserError(f"{sgf_file}: --move {move_number}: the record has {n_moves} moves")
    cli_write(lambda: board_svg(b, size=px), svg_path, png_path, scale=1.0 if px else 1.5)
    click.echo(str(b))
    last = f", last move {point_to_gtp(b.last_move, b.size)}" if n_moves and b.last_move >= 0 else ""
    click.echo(f"after {n_moves} moves{last}; {'Black' if b.to_move == 1 else 'White'} to move")
