"""``playout solve``, ``playout play`` and ``playout trace``: the MCTS library's commands.
(``play --human``'s terminal side: :mod:`playout.cli.human`.)

A DOMAIN is a built-in name (``gridworld``, ``push_your_luck``, ``twenty48``,
``connect4``, ``reversi``), ``openspiel:GAME`` (any OpenSpiel game, needs the
``openspiel`` extra) or ``module:NAME`` naming a user MDP class or instance, or a
user :class:`~playout.mcts.compiled_domain.CompiledDomain` (or a zero-argument
function returning one), importable from the current directory; ``path/to/file.py:NAME``
loads the file.  A compiled domain is searched by the numba kernel like the
built-ins (``playout solve`` only: ``play`` and ``trace`` need a Python MDP).

Exploration (``--exploration``, issue 16 item 4): ``normalized`` (the default)
runs UCT on means normalised to [0, 1] by the range of the returns backed up in
the tree, with ``C = 1.0`` unless ``--c`` says otherwise (:data:`NORMALIZED_C`),
which answers sensibly whatever the reward scale; ``anchor`` runs
mctreesearch4j's raw-mean UCT with the domain's anchor constant
(:data:`playout.domains.DOMAINS`), for like-for-like benchmarks.  Both run in the
compiled kernel where :func:`playout.mcts.compiled.search` takes
``exploration=`` (:func:`kernel_normalizes`); a kernel without it runs
``normalized`` decisions on the Python solver, unless ``--engine compiled`` is
given explicitly (the kernel then runs ``anchor`` and says so on stderr).
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import click

from playout.cli.human import HumanQuit, ask_move, game_result, visit_share
from playout.mdp import MDP, Game, MDPError, player_of


@dataclass
class Problem:
    """A resolved DOMAIN argument: the MDP and its default solver settings."""

    name: str
    mdp: MDP[Any, Any] | None
    c: float = 1.4
    discount: float = 1.0
    depth: int = 1000
    solver: str = "generic"
    builtin: bool = False
    action_name: Callable[[Any], str] = str
    render: Callable[[Any], str] | None = None
    compiled: Any = None  # a user's CompiledDomain (then mdp is None)


def _load_user_object(spec: str, module: str, attr: str, bad: Callable[[str], Exception]) -> Any:
    """``attr`` of ``module`` (a module name importable from the current folder, or a .py file)."""
    if module.endswith(".py") or "/" in module:
        path = Path(module)
        if not path.is_file():
            raise bad(f"{spec!r}: no file {module!r} (name the module, not the file, e.g. "
                      f"{path.stem}:{attr or 'MyMDP'} run from its folder, or give an existing .py file)")
        from importlib.util import module_from_spec, spec_from_file_location

        name = path.stem
        loader_spec = spec_from_file_location(name, path.resolve())
        mod = module_from_spec(loader_spec)
        sys.modules[name] = mod  # numba and pickling find the primitives' module by name
        try:
            loader_spec.loader.exec_module(mod)
        except Exception as exc:  # noqa: BLE001 - the user's file: one line, not a traceback
            sys.modules.pop(name, None)
            raise bad(f"cannot load {spec!r}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
        try:
            return getattr(mod, attr)
        except AttributeError as exc:
            raise bad(f"cannot load {spec!r}: {exc}") from None
    sys.path.insert(0, str(Path.cwd()))
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as exc:
        raise bad(f"cannot load {spec!r}: {exc}") from None


def _compiled_problem(spec: str, dom: Any, bad: Callable[[str], Exception]) -> Problem:
    from playout.mcts.compiled_domain import check_domain

    try:
        check_domain(dom)
    except ValueError as exc:
        raise bad(f"{spec!r}: {exc}") from None
    if dom.initial_state is None:
        raise bad(f"{spec!r}: compiled domain {dom.name!r}: field 'initial_state' is missing "
                  "(playout solve starts from it)")
    return Problem(spec, None, 1.4 if dom.c is None else dom.c, 1.0 if dom.discount is None else dom.discount,
                   1000 if dom.depth is None else dom.depth, "generic",
                   action_name=lambda a: dom.action_name(a), compiled=dom)


def resolve_domain(spec: str, param_hint: str = "DOMAIN") -> Problem:
    """Turn a DOMAIN argument into a :class:`Problem`; ``click.BadParameter`` if it cannot be used."""
    from playout.domains import DOMAINS, get_domain

    def bad(message: str) -> click.BadParameter:
        return click.BadParameter(message, param_hint=param_hint)

    if spec in DOMAINS:
        d = get_domain(spec)
        mdp = d.factory()
        return Problem(spec, mdp, d.c, d.discount, d.depth, d.solver, builtin=True,
                       action_name=getattr(mdp, "action_name", str),
                       render=getattr(mdp, "render", None))
    if spec.startswith("openspiel:"):
        try:
            from playout.interop.openspiel import OpenSpielGame
        except ImportError as exc:
            raise bad(f"OpenSpiel support needs the 'openspiel' extra ({exc})") from None
        try:
            game = OpenSpielGame(spec.split(":", 1)[1])
        except ValueError as exc:
            raise bad(str(exc).splitlines()[0]) from None
        if game.hidden_information:
            click.echo(f"note: {spec} has hidden information; the search plans on the true state "
                       "(it sees every card)", err=True)
        return Problem(spec, game, c=2.0, discount=1.0, depth=10_000, solver="generic",
                       action_name=game.action_name, render=game.render)
    if ":" in spec:
        module, _, attr = spec.rpartition(":") if spec.count(":") > 1 else spec.partition(":")
        if not module or not attr:
            raise bad(f"{spec!r}: use module:Class, e.g. mymodule:MyMDP")
        obj = _load_user_object(spec, module, attr, bad)
        from playout.mcts.compiled_domain import CompiledDomain

        if isinstance(obj, CompiledDomain):
            return _compiled_problem(spec, obj, bad)
        try:
            mdp = obj() if isinstance(obj, type) or (callable(obj) and not isinstance(obj, MDP)) else obj
        except TypeError as exc:
            raise bad(f"cannot build {spec!r} without arguments: {exc}") from None
        if isinstance(mdp, CompiledDomain):
            return _compiled_problem(spec, mdp, bad)
        if not isinstance(mdp, MDP):
            raise bad(f"{spec!r} is not a playout.mdp.MDP or a playout.mcts.CompiledDomain")
        return Problem(spec, mdp, render=getattr(mdp, "render", None),
                       action_name=getattr(mdp, "action_name", str))
    names = ", ".join(sorted(DOMAINS))
    raise bad(f"unknown {param_hint.lower()} {spec!r}; choose one of {names}, openspiel:GAME or module:Class")


#: UCT's constant on normalised values (``--exploration normalized``; UCB1's premise of
#: returns in [0, 1] holds there), measured at 1,000 iterations with the Python solvers
#: (seeds 0-5 or 0-2): Push Your Luck plays "roll" on 5 seeds of 6 (roll and cashout
#: differ by about 1% of the value, one wasted discounted step), 2048 "left" with >= 137
#: visits on every move (the anchor: 997 on one), GridWorld left or down (its two
#: optimal moves), a bandit paying 5 or (10 w.p. 0.6, else 0) "risky" on 10 seeds of 10
#: (C = 0.5: 8; the anchor: 3), and the MCTS-Solver's proofs in tests/test_mcts_solver.py
#: hold (C = 0.5 and 0.7 starve a solved sibling: proofs not reached in 1,000 iterations).
#: Connect 4's initial position is a coin flip at this budget whatever C (every
#: column's mean is within 0.01 at discount 0.7).
NORMALIZED_C = 1.0


def make_solver(problem: Problem, kind: str, *, c: float, discount: float, depth: int, seed: int | None,
                root_state: Any = None, heuristic: bool = False, exploration: str = "anchor",
                **extra: Any):
    """A Python solver of the given kind for ``problem``.

    ``heuristic`` selects Reversi's weight-table simulation policy;
    ``exploration`` is ``"anchor"`` (raw means, the default here: like-for-like
    with the compiled kernel) or ``"normalized"``; ``extra`` goes to the solver
    (``max_tree_depth``, ``trace``, ...).
    """
    from playout.mcts import GenericSolver, StatefulSolver

    cls = StatefulSolver if kind == "stateful" else GenericSolver
    if heuristic:
        from playout.domains.reversi import HeuristicPolicy

        extra["rollout_policy"] = HeuristicPolicy()
    return cls(problem.mdp, exploration_constant=c, discount_factor=discount,
               simulation_depth_limit=depth, seed=seed, root_state=root_state,
               exploration=exploration, **extra)


#: built-in domains whose transitions sample (the compiled kernel's tree is generic there)
STOCHASTIC = frozenset({"gridworld", "push_your_luck", "twenty48"})


def uses_compiled(problem: Problem, engine: str | None, solver: str, exploration: str = "anchor") -> bool:
    """Whether a decision on a built-in runs in the numba kernel.

    Built-in domains only.  The kernel's tree is the generic one; on the
    deterministic built-ins (connect4, reversi) the stateful tree is the same tree,
    so ``--solver stateful`` runs compiled there too; on stochastic ones it needs
    the Python :class:`~playout.mcts.StatefulSolver`.  ``engine=None`` (the CLI's
    default) means compiled where the kernel runs ``exploration``
    (:func:`kernel_normalizes`), else Python; ``"compiled"`` insists on the kernel.
    """
    if engine == "python" or not problem.builtin or (solver == "stateful" and problem.name in STOCHASTIC):
        return False
    return engine == "compiled" or exploration == "anchor" or kernel_normalizes()


def kernel_normalizes() -> bool:
    """Whether :func:`playout.mcts.compiled.search` takes ``exploration=`` (normalised UCT)."""
    from playout.mcts import compiled

    return "exploration" in inspect.signature(compiled.search).parameters


_warned_anchor = False


def _kernel_exploration(kw: dict[str, Any], exploration: str) -> None:
    """Pass ``exploration`` to the kernel where it takes it; else say once on stderr that
    the kernel runs the anchor's rule."""
    global _warned_anchor
    if kernel_normalizes():
        kw["exploration"] = exploration
    elif exploration != "anchor" and not _warned_anchor:
        _warned_anchor = True
        click.echo("note: the compiled kernel has no normalised exploration yet; it runs the "
                   "anchor's raw-mean UCT (--engine python for normalised)", err=True)


def search(problem: Problem, state: Any, *, engine: str | None, solver: str, iterations: int | None,
           seconds: float | None, c: float, discount: float, depth: int, seed: int | None,
           max_tree_depth: int | None = None, heuristic: bool = False, exploration: str = "anchor"):
    """One decision from ``state``: the numba kernel where it applies, else the Python solver.

    ``heuristic`` selects Reversi's weight-table simulation policy; ``exploration``
    is ``"anchor"`` (default here) or ``"normalized"`` (see the module docstring
    and :func:`uses_compiled` for where each runs).
    """
    if problem.compiled is not None:
        from playout.mcts import compiled

        if engine == "python" or solver == "stateful":
            raise click.UsageError(f"{problem.name} is a compiled domain: it runs on the numba kernel's "
                                   "generic tree (--engine python and --solver stateful need a Python MDP)")
        kw: dict[str, Any] = dict(c=c, discount=discount, depth=depth, seed=seed,
                                  max_tree_depth=max_tree_depth,
                                  policy="heuristic" if heuristic else "uniform")
        _kernel_exploration(kw, exploration)
        try:
            return compiled.search(problem.compiled, None if state is None else state, iterations,
                                   seconds=seconds, **kw)
        except ValueError as exc:
            raise click.ClickException(str(exc).splitlines()[0]) from None
    if uses_compiled(problem, engine, solver, exploration):
        from playout.mcts import compiled

        kw = dict(c=c, discount=discount, depth=depth, seed=seed,
                  policy="heuristic" if heuristic else "uniform")
        if max_tree_depth:
            kw["max_tree_depth"] = max_tree_depth
        _kernel_exploration(kw, exploration)
        return compiled.search(problem.name, state, iterations, seconds=seconds, **kw)
    s = make_solver(problem, solver, c=c, discount=discount, depth=depth, seed=seed,
                    root_state=state, max_tree_depth=max_tree_depth, heuristic=heuristic,
                    exploration=exploration)
    return s.run_tree_search(iterations=iterations, seconds=seconds)


def _needs_mdp(problem: Problem, command: str) -> None:
    if problem.mdp is None:
        raise click.BadParameter(f"{problem.name} is a compiled domain; playout {command} needs a "
                                 "playout.mdp.MDP (playout solve searches a compiled domain)",
                                 param_hint="DOMAIN")


def _finite_c(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and (not math.isfinite(value) or value < 0):
        raise click.BadParameter(f"must be a finite number >= 0, got {value}")
    return value


_exploration_option = click.option(
    "--exploration", type=click.Choice(["normalized", "anchor"]), default="normalized", show_default=True,
    help="UCT on means normalised to [0, 1] by the tree's observed range (C default 1.0), or "
         "mctreesearch4j's raw means with the domain's anchor C (like-for-like benchmarks).")


def _common(f):
    opts = [
        click.option("--iterations", "-n", type=click.IntRange(1), default=None,
                     help="Iterations per decision (default 1000 unless --seconds)."),
        click.option("--seconds", "-s", type=click.FloatRange(0, min_open=True), default=None,
                     help="Wall-time budget per decision instead of a count."),
        click.option("--c", "c", type=float, default=None, callback=_finite_c, help="Exploration constant C (>= 0)."),
        click.option("--discount", type=click.FloatRange(0, 1, min_open=True), default=None,
                     help="Reward discount factor."),
        click.option("--depth", type=click.IntRange(0), default=None, help="Simulation depth limit."),
        click.option("--max-tree-depth", type=click.IntRange(1), default=None, help="Maximum tree depth."),
        click.option("--seed", type=int, default=0, show_default=True, help="RNG seed."),
        click.option("--solver", type=click.Choice(["generic", "stateful"]), default=None,
                     help="Action-node (generic) or state-node (stateful) tree."),
        click.option("--engine", type=click.Choice(["compiled", "python"]), default=None,
                     help="numba kernel (built-in domains) or the Python solver (default: the kernel "
                          "where it runs the chosen --exploration, else Python)."),
        _exploration_option,
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _settings(problem: Problem, c, discount, depth, solver, iterations, seconds, exploration="anchor"):
    if iterations is not None and seconds is not None:
        raise click.UsageError("give --iterations or --seconds, not both")
    default_c = NORMALIZED_C if exploration == "normalized" else problem.c
    return dict(
        exploration=exploration,
        c=default_c if c is None else c,
        discount=problem.discount if discount is None else discount,
        depth=problem.depth if depth is None else depth,
        solver=solver or problem.solver,
        iterations=iterations if (iterations or seconds) else 1000,
        seconds=seconds,
    )


@click.command()
@click.argument("domain")
@_common
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def solve(domain, iterations, seconds, c, discount, depth, max_tree_depth, seed, solver, engine, exploration,
          as_json):
    """Plan one decision from DOMAIN's initial state and print the root statistics.

    DOMAIN: gridworld, push_your_luck, twenty48, connect4, reversi,
    openspiel:GAME, or module:NAME / file.py:NAME (your own MDP, or your own
    playout.mcts.CompiledDomain, searched by the numba kernel).
    """
    problem = resolve_domain(domain)
    st = _settings(problem, c, discount, depth, solver, iterations, seconds, exploration)
    state = None if problem.mdp is None else problem.mdp.initial_state()
    try:
        res = search(problem, state, engine=engine, solver=st["solver"], iterations=st["iterations"],
                     seconds=st["seconds"], c=st["c"], discount=st["discount"], depth=st["depth"],
                     seed=seed, max_tree_depth=max_tree_depth, exploration=exploration)
    except MDPError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        out = res.as_dict()
        out["action"] = problem.action_name(res.action)
        for s in out["stats"]:
            s["exploration"] = None if math.isinf(s["exploration"]) else s["exploration"]
        for s, raw in zip(out["stats"], res.stats):
            s["action"] = problem.action_name(raw.action)
        out.update(domain=domain, settings={k: v for k, v in st.items()}, seed=seed)
        click.echo(json.dumps(out))
        return
    _print_result(problem, res, st, seed)


def _print_result(problem: Problem, res, st, seed) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{problem.name}: {res.iterations} iterations in {res.seconds * 1000:.1f} ms "
                        f"(C={st['c']}, {st['exploration']}, discount={st['discount']}, depth={st['depth']}, "
                        f"seed={seed})")
    for col in ("action", "visits", "mean reward", "max reward", "exploration term"):
        table.add_column(col, justify="right" if col != "action" else "left")
    for s in res.stats:
        mark = " *" if s.action == res.action else ""
        table.add_row(problem.action_name(s.action) + mark, str(s.visits), f"{s.mean_reward:.4f}",
                      f"{s.max_reward:.4f}", f"{s.exploration:.4f}")
    console = Console()
    console.print(table)
    proven = {1: " (proven win)", -1: " (proven loss)"}.get(res.proven, "")
    console.print(f"recommended action: [bold]{problem.action_name(res.action)}[/bold]{proven}")


@click.command()
@click.argument("domain")
@_common
@click.option("--max-steps", type=click.IntRange(1), default=200, show_default=True,
              help="Stop an episode after this many steps.")
@click.option("--quiet", is_flag=True, help="Print only the summary line.")
@click.option("--reuse", is_flag=True,
              help="Keep the searched subtree between moves (Python solver; its visits carry over).")
@click.option("--human", type=click.Choice(["first", "second"]), default=None,
              help="Play yourself against the engine (two-player games): first = player 0, who "
                   "moves first (X in connect4 and reversi, black in reversi), second = player 1. "
                   "Type moves in the game's notation (connect4: a column 1-7; reversi: a square "
                   "such as d3, or pass; openspiel:GAME: the move's OpenSpiel name); quit or "
                   "end of input stops the game (exit 0).")
def play(domain, iterations, seconds, c, discount, depth, max_tree_depth, seed, solver, engine, exploration,
         max_steps, quiet, reuse, human):
    """Play a whole episode (MDP) or self-play game (Game), showing each move.

    With --human first|second you play one side of a two-player game against
    the search: the board is printed before each of your moves, illegal input is
    answered with one line and asked again, and each engine move is shown with
    its share of the root visits.
    """
    import random

    from playout.mcts.reuse import advance_root

    problem = resolve_domain(domain)
    _needs_mdp(problem, "play")
    st = _settings(problem, c, discount, depth, solver, iterations, seconds, exploration)
    mdp = problem.mdp
    if human is not None and not isinstance(mdp, Game):
        raise click.BadParameter(f"{domain} is not a two-player game; --human needs one", param_hint="--human")
    me = {"first": 0, "second": 1}.get(human)
    rng = random.Random(seed)
    state = mdp.initial_state()
    total = [0.0, 0.0]
    steps = 0
    show = (lambda s: click.echo(problem.render(s))) if problem.render and not quiet else (lambda s: None)
    if me is not None:
        names = getattr(mdp, "player_name", None) or (lambda p: f"player {p}")
        click.echo(f"you play {names(me)} ({human}); the engine plays {names(1 - me)}")
    show(state)
    kept = None  # the solver whose tree is reused (--reuse)
    try:
        while not mdp.is_terminal(state) and steps < max_steps:
            player = player_of(mdp, state)
            if player == me:
                if quiet and problem.render:
                    click.echo(problem.render(state))
                try:
                    action = ask_move(mdp, state, problem.action_name)
                except HumanQuit as why:
                    click.echo(f"game abandoned after {steps} moves ({why})")
                    return
                res = None
            elif reuse:
                if kept is None:
                    kept = make_solver(problem, st["solver"], c=st["c"], discount=st["discount"],
                                       depth=st["depth"], seed=rng.randrange(2**31), root_state=state,
                                       max_tree_depth=max_tree_depth, exploration=exploration)
                carried = kept.root.visits
                res = kept.run_tree_search(iterations=st["iterations"], seconds=st["seconds"])
                action = res.action
                if not quiet:
                    click.echo(f"(reused {carried} visits)")
            else:
                res = search(problem, state, engine=engine, solver=st["solver"], iterations=st["iterations"],
                             seconds=st["seconds"], c=st["c"], discount=st["discount"], depth=st["depth"],
                             seed=rng.randrange(2**31), max_tree_depth=max_tree_depth,
                             exploration=exploration)
                action = res.action
            nxt = mdp.transition(state, action, rng)
            if kept is not None:
                kept = advance_root(kept, action, nxt)
            r = mdp.checked_reward(state, action, nxt)
            total[player] += r
            total[1 - player] -= r if isinstance(mdp, Game) else 0.0
            steps += 1
            if me is not None and res is not None:
                click.echo(f"engine plays {problem.action_name(action)} ({visit_share(res)})")
            elif not quiet and me is None:
                who = f"player {player}: " if isinstance(mdp, Game) else ""
                click.echo(f"step {steps}: {who}{problem.action_name(action)}  reward {r:+.3f}")
            state = nxt
            if me is None or player != me or mdp.is_terminal(state):
                show(state)
    except MDPError as exc:
        raise click.ClickException(str(exc)) from None
    if isinstance(mdp, Game):
        if mdp.is_terminal(state):
            result = game_result(mdp, state, total[0])
            if me is not None:
                names = getattr(mdp, "player_name", None) or (lambda p: f"player {p}")
                result += f"; you played {names(me)}"
            click.echo(f"game over after {steps} moves: {result}; "
                       f"player 0 reward {total[0]:+.3f}")
        else:
            click.echo(f"stopped at the {max_steps}-move limit after {steps} moves; "
                       f"player 0 reward {total[0]:+.3f}")
    else:
        end = "episode over" if mdp.is_terminal(state) else f"stopped at the {max_steps}-step limit"
        click.echo(f"{end} after {steps} steps; total reward {total[0]:.3f}")


@click.command()
@click.argument("domain")
@click.option("--iterations", "-n", type=click.IntRange(1), default=1000, show_default=True)
@click.option("--c", "c", type=float, default=None, callback=_finite_c, help="Exploration constant C (>= 0).")
@click.option("--discount", type=click.FloatRange(0, 1, min_open=True), default=None,
              help="Discount factor in (0, 1] (default: the domain's).")
@click.option("--depth", type=click.IntRange(0), default=None, help="Simulation depth limit.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option("--solver", type=click.Choice(["generic", "stateful"]), default=None,
              help="Solver (default: the domain's).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for trace.csv and the three PNG plots.")
@_exploration_option
def trace(domain, iterations, c, discount, depth, seed, solver, out_dir, exploration):
    """Record per-iteration root statistics and plot convergence (the paper's Figs. 10-12)."""
    from playout.mcts.trace import plot_trace, write_trace_csv

    problem = resolve_domain(domain)
    _needs_mdp(problem, "trace")
    st = _settings(problem, c, discount, depth, solver, iterations, None, exploration)
    s = make_solver(problem, st["solver"], c=st["c"], discount=st["discount"], depth=st["depth"],
                    seed=seed, trace=True, exploration=exploration)
    try:
        res = s.run_tree_search(iterations=iterations)
    except MDPError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        csv_path = write_trace_csv(s.trace, out_dir / "trace.csv", problem.action_name)
        pngs = plot_trace(s.trace, out_dir, title=f"{problem.name}, C={st['c']}, discount={st['discount']}",
                          action_name=problem.action_name)
    except OSError as exc:
        raise click.ClickException(f"cannot write the trace to {out_dir}: {exc.strerror or exc}") from None
    click.echo(f"recommended action: {problem.action_name(res.action)}")
    for p in [csv_path, *pngs]:
        click.echo(f"wrote {p}")
