"""A separate prior table (``Player(prior_table=)``, ``playout gtp --prior-patterns``): the tree's
priors come from its values while the children stay the moves the playout table plays."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from playout.go.board import Board, gtp_to_point
from playout.go.player import Player
from playout.go.tree import Tree
from playout.go.playout import PlayoutState
from playout.go.search import AVISITS, AWINS, FIRST, MOVE, NCH, NO_PRIOR_RATE, PRIOR_N, _expand
from playout.go.patterns import builtin_path
from playout.go.tables import PRIOR_DATABASE_FILE, default_prior_table, load_table


def _board() -> Board:
    b = Board(9, 7.0)
    for mv in ("E5", "C3", "G4"):
        b.play(gtp_to_point(mv, 9))
    return b


def _root_rates(table, prior):
    """(moves, prior AMAF rates) of the root's children as :func:`_expand` makes them."""
    b = _board()
    st = PlayoutState(b, table)
    tree = Tree(4096)
    P = table.T if prior is None else prior.T
    assert _expand(tree.NI, tree.NF, tree.tm, 0, st.S, table.T, 4096, st.B, 0, PRIOR_N, P,
                   prior is not None)
    first, n = int(tree.NI[FIRST, 0]), int(tree.NI[NCH, 0])
    sl = slice(first, first + n)
    assert np.all(tree.NF[AVISITS, sl] == PRIOR_N)
    return tree.NI[MOVE, sl].copy(), tree.NF[AWINS, sl] / PRIOR_N


def test_the_playout_tables_values_as_a_prior_table_change_nothing():
    """The playout table's values read as a separate prior table (another object, the same
    file): the same priors, and the same search visit for visit as its own values."""
    table = load_table("mc_montegnu_classic")
    same_values = load_table(path=str(builtin_path("montegnu_classic")))
    assert same_values is not table
    m0, r0 = _root_rates(table, None)
    m1, r1 = _root_rates(table, same_values)
    assert np.array_equal(m0, m1) and np.array_equal(r0, r1)
    a = Player(table, playouts=1500, seed=3, prior_table=table).genmove(_board())
    c = Player(table, playouts=1500, seed=3, prior_table=same_values).genmove(_board())
    assert a.move == c.move and a.winrate == c.winrate
    assert a.top == c.top


def test_the_default_prior_table_is_the_tuned_database():
    """``prior_table=None``: mc_tuned_v1's values (issue 18's matches); its priors differ from
    montegnu's own on the same children."""
    table = load_table("mc_montegnu_classic")
    assert Player(table).prior_table is default_prior_table()
    assert Path(PRIOR_DATABASE_FILE).name == "mc_tuned_v1.db"
    m0, own = _root_rates(table, None)
    m1, tuned = _root_rates(table, default_prior_table())
    assert np.array_equal(m0, m1) and not np.allclose(own, tuned)
    assert Player(table, prior_table=table)._prior_args()[1] is False


def test_a_uniform_prior_table_flattens_the_priors():
    """mc_uniform gives every playable move one value (span 0: rate 0.5 except the edge
    heuristic's 0.2 / 0.35 for ordinary first- and second-line moves, and the pass's 0.1); the
    children stay montegnu's moves."""
    table = load_table("mc_montegnu_classic")
    m0, own = _root_rates(table, None)
    m1, flat = _root_rates(table, load_table("mc_uniform"))
    assert np.array_equal(m0, m1)
    assert 0.4 in set(np.round(own[:-1], 6)) and own[:-1].max() > 0.4  # value 1, and above
    assert set(np.round(flat[:-1], 6)) <= {0.5, 0.35, 0.2}
    assert np.sum(np.isclose(flat[:-1], 0.5)) > 20


def test_moves_the_prior_table_never_plays_get_the_low_rate(tmp_path):
    """A prior database that plays nothing but one shape: every other child gets NO_PRIOR_RATE."""
    table = load_table("mc_montegnu_classic")
    only = tmp_path / "mc_only.db"
    only.write_text("# one pattern\n\n...\n.*.\n...\n:100\n")
    m, r = _root_rates(table, load_table(path=str(only)))
    assert np.sum(np.isclose(r[:-1], NO_PRIOR_RATE)) > 0
    assert np.all(np.isclose(r[:-1], NO_PRIOR_RATE) | (r[:-1] > NO_PRIOR_RATE))


def test_gtp_prior_patterns_names_a_bad_database_in_one_line():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "playout.cli", "gtp", "--prior-patterns", "nosuch"],
                       input="quit\n", capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "no pattern file or built-in database named 'nosuch'" in r.stderr.strip().splitlines()[-1]


def test_gtp_prior_patterns_own_plays(tmp_path):
    """``--prior-patterns own`` (the engine before session 21) answers genmove."""
    import re
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "playout.cli", "gtp", "--prior-patterns", "own",
                        "--playouts", "200", "--no-warm-up"],
                       input="genmove b\nquit\n", capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert re.match(r"= ([A-HJ]\d|pass)\n", r.stdout), r.stdout


def test_a_compiled_database_file_is_cached_on_disk(tmp_path, monkeypatch):
    """The second load of a database file reads the cache entry instead of compiling (the
    compiler is broken here to prove it); changed bytes make a new entry."""
    from playout.go import pattern_compiler, tables

    monkeypatch.setenv("PLAYOUT_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "mc_small.db"
    src.write_text(Path(builtin_path("mogo_classic")).read_text())
    monkeypatch.setattr(tables, "_TABLES", {})
    first = load_table(path=str(src))
    entries = list((tmp_path / "cache" / "patterns").glob("*.npz"))
    assert len(entries) == 1

    def broken(_):
        raise AssertionError("compiled again")

    monkeypatch.setattr(pattern_compiler, "load_patterns", broken)
    monkeypatch.setattr(tables, "_TABLES", {})
    again = load_table(path=str(src))
    np.testing.assert_array_equal(again.T, first.T)
    src.write_text(src.read_text() + "\n")  # new bytes: a new entry, so the compiler runs
    monkeypatch.setattr(tables, "_TABLES", {})
    with pytest.raises(AssertionError, match="compiled again"):
        load_table(path=str(src))
