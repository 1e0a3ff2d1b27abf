"""playout.nowrap: the Go kernels compile without negative-index wraparound, nothing else does."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
from numba import njit

import playout.go  # noqa: F401  (installs playout.nowrap)
from playout import nowrap


def test_installed_for_this_numba():
    assert nowrap.installed()


@njit
def _last(a, i):
    return a[i]


def test_functions_outside_the_scopes_keep_python_indexing():
    a = np.arange(10, dtype=np.int64)
    assert _last(a, -1) == 9
    assert _last(a, -10) == 0


def _run_checked(code: str, tmp_path) -> subprocess.CompletedProcess:
    """Run ``code`` with numba's bounds checking on and an empty cache (fresh compilation)."""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=900)


def test_go_kernels_never_index_negatively(tmp_path):
    """With bounds checking a negative index raises instead of wrapping: a Go kernel given a
    negative point must raise (no wraparound there), while seeded playouts with each built-in
    database and a short search run clean (no kernel computes a negative index)."""
    r = _run_checked("""
        import numpy as np
        from numba import njit
        from playout.go.board import Board
        from playout.go.playout import PlayoutState
        from playout.go.rules import is_legal
        from playout.go.tables import load_table
        from playout.go.player import Player

        b = Board(9)
        try:
            is_legal(b.S, -5, 1)
        except IndexError:
            print("go kernel: no wraparound")

        @njit
        def last(a, i):
            return a[i]
        print("outside:", last(np.arange(4), -1))

        for name in ("uniform", "mogo_classic", "montegnu_classic"):
            for size in (9,):
                st = PlayoutState(Board(size), load_table(name))
                for seed in range(5):
                    st2 = PlayoutState(st.board, st.table)
                    st2.run(seed=seed)
        b = Board(9)
        b.play(b.pt(4, 4))
        info = Player(playouts=300, seed=1).genmove(b)
        print("move", info)
    """, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "go kernel: no wraparound" in r.stdout
    assert "outside: 3" in r.stdout
    assert "move" in r.stdout
