"""The search constants as options: ``Player(uct_c=, fpu=, prior_n=)`` and ``playout gtp
--uct-c / --fpu / --prior-n``.  The defaults are the module's constants (the same tree, visit
for visit); other values change the search the way the RAVE-UCT score says they should."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from playout.go.board import Board, gtp_to_point
from playout.go.cli import gtp
from playout.go.player import Player
from playout.go.search import AMAF_WEIGHT, AVISITS, FIRST, FPU, NCH, PRIOR_N, UCT_C, amaf_update_weight
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
    assert (defaults["uct_c"], defaults["fpu"], defaults["prior_n"], defaults["rave_k"],
            defaults["amaf_weight"]) == (UCT_C, FPU, PRIOR_N, RAVE_K, AMAF_WEIGHT)


def test_amaf_update_weight_falls_linearly_from_two():
    """Fuego's weighted RAVE updates: 2 for the move right after the node, 2/span for the last
    one, mean 1 + 1/span over a simulation."""
    assert amaf_update_weight(0, 10.0) == 2.0
    assert amaf_update_weight(9, 10.0) == pytest.approx(0.2)
    assert amaf_update_weight(5, 10.0) == pytest.approx(1.0)
    assert sum(amaf_update_weight(k, 40.0) for k in range(40)) / 40 == pytest.approx(1 + 1 / 40)


def _root_amaf_mass(aw: int) -> list[float]:
    """AMAF visits of the root's children (no prior visits) after a 1,500-playout search."""
    pl = Player(load_table("mc_montegnu_classic"), playouts=1500, seed=5, reuse=False,
                prior_n=0.0, amaf_weight=aw)
    pl.genmove(_board())
    t = pl.trees[0]
    r = t.position(t.root)
    f, n = int(t.NI[FIRST, r]), int(t.NI[NCH, r])
    return [float(t.NF[AVISITS, ch]) for ch in range(f, f + n)]


def test_weighted_amaf_keeps_the_mass_and_weights_the_moves():
    """Unweighted, every AMAF visit counts 1 (whole numbers); weighted, the weights are
    fractions of mean about 1 over a simulation, but only a point's first play counts and first
    plays come early, where the weights are above 1: the mass grows, by less than half (1.23
    measured).  A weight that did not fall (all 2) would double it."""
    plain, weighted = _root_amaf_mass(0), _root_amaf_mass(1)
    assert all(a == int(a) for a in plain)
    assert any(abs(a - round(a)) > 1e-6 for a in weighted)
    assert 1.0 < sum(weighted) / sum(plain) < 1.5


def test_amaf_weight_is_checked():
    with pytest.raises(ValueError, match="amaf_weight"):
        Player(load_table("mc_mogo_classic"), playouts=10, amaf_weight=2)
    r = CliRunner().invoke(gtp, ["--amaf-weight", "2"], input="quit\n")
    assert r.exit_code == 2 and "--amaf-weight" in r.output


def _blind_spot():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "go_blind_spot.py"
    spec = importlib.util.spec_from_file_location("go_blind_spot", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("seed", [3, 4])
def test_exploration_finds_the_capture_the_greedy_search_can_miss(seed):
    """Game 13 of data/go/match-s1-adaptive after move 40 (benchmarks/go_blind_spot.py): GNU Go
    captured at D3 and won.  With a small exploration term the search plays the capture too
    (measured: 10,855 and 12,382 of 20,000 visits, win rate 0.79-0.80 for Black), where the
    default greedy search (uct_c 0) gives D3 no visit at all with these seeds."""
    mod = _blind_spot()
    mv, visits, rate, d3_visits, _ = mod.probe(20000, seed, uct_c=0.05)
    assert mv == "D3" and visits > 8000 and rate > 0.7
    assert mod.probe(20000, seed)[3] == 0


@pytest.mark.parametrize("seed", [3, 4])
def test_exploration_at_the_root_alone_finds_the_capture(seed):
    """The same position with the exploration term at the root only (``root_uct_c`` 0.05, the
    lines below greedy): D3 is chosen (measured: 13,837 and 9,702 of 20,000 visits, win rate
    0.85-0.86, above the 0.79-0.80 of exploring everywhere), and ``root_uct_c`` None is the
    default search exactly."""
    mod = _blind_spot()
    mv, visits, rate, _, _ = mod.probe(20000, seed, root_uct_c=0.05)
    assert mv == "D3" and visits > 8000 and rate > 0.8
    assert mod.probe(3000, seed, root_uct_c=None) == mod.probe(3000, seed)
    assert mod.probe(3000, seed, root_uct_c=0.0) == mod.probe(3000, seed)


def test_scoring_and_genmove_share_one_compiled_search(monkeypatch):
    """``Player.dead_stones`` passes every argument of the search as ``genmove`` does, with the
    same types, so numba compiles one specialisation, not two (a second one doubled the first
    genmove's compile time of a fresh install; an argument added to one call and not the other
    would do it again)."""
    import numba

    from playout.go import player as player_mod
    from playout.go.board import Board
    from playout.go.player import Player

    real = player_mod.search
    seen = []

    def spy(*args):
        seen.append(tuple(numba.typeof(a) for a in args))
        return real(*args)

    monkeypatch.setattr(player_mod, "search", spy)
    p = Player(playouts=64, seed=0, capacity=4096, root_uct_c=0.05)
    p.final_score(Board(5), playouts=8)
    p.genmove(Board(5))
    assert len(seen) >= 2 and len(set(seen)) == 1, set(seen)
