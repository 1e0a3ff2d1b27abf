"""The search constants as options: ``Player(uct_c=, fpu=, prior_n=)`` and ``playout gtp
--uct-c / --fpu / --prior-n``.  The defaults are the module's constants (the same tree, visit
for visit); other values change the search the way the RAVE-UCT score says they should."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from playout.go.board import Board, gtp_to_point
from playout.go.cli import gtp
from playout.go.player import Player
from playout.go.search import FPU, PRIOR_N, UCT_C
from playout.go.tables import load_table

MOVES = ["E5", "C4", "G4", "D6"]


def _board() -> Board:
    b = Board(9, 7.0)
    for m in MOVES:
        b.play(gtp_to_point(m, 9))
    return b


def _root_visits(**kw) -> dict[int, float]:
    pl = Player(load_table("mc_montegnu_classic"), playouts=1500, seed=5, reuse=False, **kw)
    pl.genmove(_board())
    return {m: v for m, v, _, _ in pl.trees[0].children()}


def test_defaults_are_the_module_constants():
    pl = Player(load_table("mc_mogo_classic"), playouts=10)
    assert (pl.uct_c, pl.fpu, pl.prior_n) == (UCT_C, FPU, PRIOR_N) == (0.0, 1.1, 20.0)
    assert _root_visits() == _root_visits(uct_c=UCT_C, fpu=FPU, prior_n=PRIOR_N)


def test_more_exploration_spreads_the_visits():
    """With a large exploration constant the most visited root move gets a smaller share of
    the simulations than with none."""
    greedy = _root_visits(uct_c=0.0)
    wide = _root_visits(uct_c=2.0)
    assert sum(greedy.values()) == sum(wide.values())
    assert max(wide.values()) < 0.5 * max(greedy.values())


def test_prior_weight_changes_the_tree():
    assert _root_visits(prior_n=0.0) != _root_visits(prior_n=200.0)


@pytest.mark.parametrize("field", ["uct_c", "fpu", "prior_n"])
def test_bad_values_are_refused(field):
    with pytest.raises(ValueError, match=field):
        Player(load_table("mc_mogo_classic"), playouts=10, **{field: -1.0})
    with pytest.raises(ValueError, match=field):
        Player(load_table("mc_mogo_classic"), playouts=10, **{field: float("nan")})


def test_gtp_options_reach_the_player():
    r = CliRunner().invoke(gtp, ["--no-warm-up", "--playouts", "200", "--uct-c", "0",
                                  "--prior-n", "50", "--fpu", "1.0"], input="genmove b\nquit\n")
    assert r.exit_code == 0, r.output
    assert r.output.startswith("= ") and len(r.output.split("\n")[0]) >= 4
    r = CliRunner().invoke(gtp, ["--uct-c", "-1"], input="quit\n")
    assert r.exit_code == 2 and "--uct-c" in r.output


def test_gtp_defaults_are_the_module_constants():
    """playout.go.cli stays free of numba imports, so its option defaults are written out; they
    must stay the search's constants."""
    from playout.go.search import RAVE_K

    defaults = {p.name: p.default for p in gtp.params}
    assert (defaults["uct_c"], defaults["fpu"], defaults["prior_n"], defaults["rave_k"]) == (
        UCT_C, FPU, PRIOR_N, RAVE_K)
