"""``python -m playout.cli``: the ``playout`` command."""

from playout.cli import main

main(prog_name="playout")
