"""The search's prior rates depend on pattern values relative to the table's range, so a
database with every value scaled gets the priors of the original (the edge heuristic for
ordinary moves included: the table's smallest positive value, 1 in GNU Go's files)."""

from __future__ import annotations

import math

import numpy as np

from playout.go.search import prior_rate
from playout.go.tables import T_VMAX, T_VMIN, Table, load_table


def _rates(T, values, lines, opening):
    vmin, vmax = int(T[T_VMIN]), int(T[T_VMAX])
    lvmin = math.log(vmin)
    return [prior_rate(v, vmin, lvmin, math.log(vmax) - lvmin, ln, opening)
            for v in values for ln in lines]


def test_builtins_keep_their_priors():
    """GNU Go's files have smallest value 1: the rule is the one used before the range was
    stored (0.4 + 0.4 log v / log vmax; 0.2 / 0.35 for value-1 moves on lines 1 / 2)."""
    for name, vmax in (("mc_mogo_classic", 10000), ("mc_montegnu_classic", 20000)):
        T = load_table(name).T
        assert (T[T_VMIN], T[T_VMAX]) == (1, vmax)
        for v in (1, 2, 50, vmax):
            assert prior_rate(v, 1, 0.0, math.log(vmax), 3, True) == 0.4 + 0.4 * math.log(v) / math.log(vmax)
        assert prior_rate(1, 1, 0.0, math.log(vmax), 0, False) == 0.2
        assert prior_rate(1, 1, 0.0, math.log(vmax), 1, True) == 0.35
        assert prior_rate(1, 1, 0.0, math.log(vmax), 1, False) == 0.4
    T = load_table("mc_uniform").T
    assert (T[T_VMIN], T[T_VMAX]) == (1, 1)
    assert prior_rate(1, 1, 0.0, 0.0, 4, True) == 0.5 and prior_rate(1, 1, 0.0, 0.0, 0, True) == 0.2


def test_scaled_database_gets_the_same_priors():
    base = load_table("mc_montegnu_classic")
    scaled = Table(base.geometry, base.values * 10, name="x10")
    assert scaled.T[T_VMIN] == 10 * base.T[T_VMIN] and scaled.T[T_VMAX] == 10 * base.T[T_VMAX]
    vals = [1, 3, 40, 700, 20000]
    a = _rates(base.T, vals, range(4), True)
    b = _rates(scaled.T, [10 * v for v in vals], range(4), True)
    assert np.allclose(a, b, rtol=0, atol=1e-12)
    assert min(b) == 0.2  # the edge penalty still applies to the scaled ordinary moves
