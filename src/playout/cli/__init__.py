"""The ``playout`` command line (click): this package holds the top-level group and the core's
commands.

* :mod:`playout.cli.core`: ``solve``, ``play``, ``trace`` (the MCTS library's commands);
* :mod:`playout.cli.bench`: ``bench`` (speed and quality against peers), with the paper's
  Table 2 benchmark in :mod:`playout.cli.bench_reversi`;
* ``go``/``gtp`` and ``bg`` stay beside their faces (:mod:`playout.go.cli`,
  :mod:`playout.backgammon.cli`), and ``arena``/``warm-up`` beside their code: each face
  stands apart and can be read, tested and removed with its own commands, while the command
  line sits above them all only through the name table :data:`COMMANDS` below (nothing here
  imports a face until its command runs; the face groups reuse :class:`LazyGroup`).

Sub-commands are imported only when used, so ``playout --help`` and ``playout solve`` start
without compiling the Go or backgammon kernels.
"""

from __future__ import annotations

import importlib

import click

#: command name -> "module:attribute" of a click command or group.
COMMANDS: dict[str, str] = {
    "solve": "playout.cli.core:solve",
    "play": "playout.cli.core:play",
    "bench": "playout.cli.bench:bench",
    "trace": "playout.cli.core:trace",
    "arena": "playout.arena:arena_command",
    "go": "playout.go.cli:go",
    "gtp": "playout.go.cli:gtp",
    "bg": "playout.backgammon.cli:bg",
    "warm-up": "playout.warmup:warm_up",
}


class LazyGroup(click.Group):
    """A click group whose sub-commands named in ``LAZY`` (name -> ``"module:attribute"``) are
    imported on first use, beside any defined in place; a part that fails to import becomes a
    command that says so in one line.  The ``go`` and ``bench`` groups subclass it."""

    LAZY: dict[str, str] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is not None or name not in self.LAZY:
            return cmd
        module, attr = self.LAZY[name].split(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:  # an optional part missing
            reason = f"command {name!r} is unavailable: {exc}"

            @click.command(name=name, help=f"(unavailable: {exc})")
            def unavailable() -> None:
                raise click.ClickException(reason)

            return unavailable


class _Main(LazyGroup):
    LAZY = COMMANDS


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="playout")
def main() -> None:
    """Monte Carlo search for MDPs and games (MCTS, Go, backgammon)."""
