"""Playing a two-player :class:`~playout.mdp.Game` against a person at the terminal
(``playout play --human``): reading a typed move, prompting until a legal one, and the lines
shown after each engine move and at the end of the game.

>>> from playout.domains.connect4 import Connect4
>>> game = Connect4()
>>> parse_move(game, game.initial_state(), " 4 ")  # Connect 4's column 4 is action 3
3
>>> parse_move(game, game.initial_state(), "8")
Traceback (most recent call last):
ValueError: not a Connect 4 column (1-7): '8'
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import click

from playout.mdp import Game


def parse_move(game: Any, state: Any, text: str, action_name: Callable[[Any], str] = str) -> Any:
    """The legal action of ``game`` in ``state`` that a person typed as ``text``.

    The protocol, for a :class:`~playout.mdp.Game` (all of it optional):
    ``parse_action(text) -> action`` turns the domain's notation into an action
    (raising ``ValueError`` with a one-line reason on text it cannot read, e.g.
    Connect 4's columns ``1``-``7``, Reversi's squares ``d3`` and ``pass``);
    without it, ``text`` must equal (ignoring case and surrounding spaces) the
    ``action_name`` (default ``str``) of one of the legal actions.  An action that
    parses but is not legal is rejected with the reason the game's ``transition``
    gives (e.g. ``column 4 is full``) where it raises ``ValueError``.

    Raises:
        ValueError: one line saying why ``text`` is not a legal move here.
    """
    legal = list(game.actions(state))
    t = text.strip()
    parse = getattr(game, "parse_action", None)
    if parse is None:
        by_name = {action_name(a).strip().lower(): a for a in legal}
        if t.lower() in by_name:
            return by_name[t.lower()]
        raise ValueError(f"{t!r} is not a legal move here")
    action = parse(t)  # ValueError: the domain's own reason
    if action in legal:
        return action
    try:
        game.transition(state, action, None)
    except ValueError as exc:
        raise ValueError(f"{action_name(action)} is not legal here: {str(exc).splitlines()[0]}") from None
    raise ValueError(f"{action_name(action)} is not legal here")


class HumanQuit(Exception):
    """The person typed ``quit`` or the input ended (EOF)."""


def ask_move(game: Any, state: Any, action_name: Callable[[Any], str] = str,
             readline: Callable[[], str] | None = None) -> Any:
    """Prompt for a move until a legal one is typed; return that action.

    The prompt lists the legal moves in the domain's notation; text that is not a
    legal move (see :func:`parse_move`) is answered with one line and asked
    again.  Raises :class:`HumanQuit` on ``quit`` / ``q`` / ``exit`` or at the end
    of input.  ``readline`` defaults to standard input's.
    """
    read = readline or sys.stdin.readline
    names = ", ".join(action_name(a) for a in game.actions(state))
    while True:
        click.echo(f"your move ({names}; quit to stop): ", nl=False)
        line = read()
        if not line:
            click.echo()
            raise HumanQuit("end of input")
        if line.strip().lower() in ("quit", "q", "exit"):
            raise HumanQuit("quit")
        if not line.strip():
            continue
        try:
            return parse_move(game, state, line, action_name)
        except ValueError as exc:
            click.echo(f"illegal move: {str(exc).splitlines()[0]}; try again")


def visit_share(res) -> str:
    """``"812/1000 visits, 81%"``: the chosen root action's visits among all root visits."""
    total = sum(s.visits for s in res.stats)
    mine = next((s.visits for s in res.stats if s.action == res.action), 0)
    return f"{mine}/{total} visits, {100 * mine / total:.0f}%" if total else "no visits"


def game_result(game: Game, state: Any, return0: float) -> str:
    """The result of a finished two-player game: ``"<winner> wins"`` or ``"draw"``, then the
    domain's score in parentheses where it has one.

    The winner is the player whose undiscounted return ``return0`` (player 0's; a
    :class:`~playout.mdp.Game` is zero-sum) is positive.  Names come from the
    game's ``player_name(player)`` if it has one (else ``player 0`` / ``player 1``),
    the score from its ``score_text(state)`` (e.g. Reversi's disc count).
    """
    name = getattr(game, "player_name", None) or (lambda p: f"player {p}")
    if return0 > 0:
        text = f"{name(0)} wins"
    elif return0 < 0:
        text = f"{name(1)} wins"
    else:
        text = "draw"
    score = getattr(game, "score_text", None)
    return f"{text} ({score(state)})" if score is not None else text
