"""The compiled-domain protocol: a user's numba domain is searched like the built-ins.

tests/data/user_connect4.py is Connect 4 written against the protocol alone (a cell array,
not the built-in's bitboards) and tests/data/user_connect4_bits.py on Pons' two-bitboard
position (the README's example; the built-in keeps one board per player); with the same
rules, action order and seed the kernel must take the same decisions with the same visit
counts and means as on the built-in.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from playout.domains.connect4 import Connect4
from playout.mcts import compiled

DATA = Path(__file__).parent / "data"


def _user(name):
    """A user's domain module from tests/data, imported as a user would (on sys.path)."""
    if str(DATA) not in sys.path:
        sys.path.insert(0, str(DATA))
    return importlib.import_module(name)


U = _user("user_connect4")
BITS = _user("user_connect4_bits")


def _table(res):
    return [(s.action, s.visits, s.mean_reward, s.max_reward) for s in res.stats]


@pytest.mark.parametrize("moves", ["", "142474", "445566", "3344521", "44444435", "1234567123"])
@pytest.mark.parametrize("user", [U, BITS], ids=["cells", "bits"])
def test_user_connect4_gives_the_builtin_decisions_and_visits(moves, user):
    state = Connect4.from_moves(moves)
    assert U.to_array(state)[:42].tolist() == list(state.cells)
    for seed in (1, 7):
        ours = compiled.search("connect4", state, 1500, seed=seed)
        theirs = compiled.search(user.DOMAIN, user.to_array(state), 1500, seed=seed)
        assert theirs.action == ours.action
        assert _table(theirs) == _table(ours)


def test_user_domain_defaults_and_initial_state():
    res = compiled.search(U.DOMAIN, None, 600, seed=2)  # its initial_state, its c / discount / depth
    assert _table(res) == _table(compiled.search("connect4", None, 600, seed=2))
    assert sum(s.visits for s in res.stats) == 600


def test_legal_actions_and_kernel_are_per_domain():
    s = U.to_array(Connect4.from_moves("444444"))
    assert compiled.legal_actions(U.DOMAIN, s) == [0, 1, 2, 4, 5, 6]
    assert compiled.kernel_for(U.DOMAIN) is not compiled.kernel_for("connect4")
    # a copy with other settings shares the kernel (same primitives)
    assert compiled.kernel_for(replace(U.DOMAIN, c=0.5)) is compiled.kernel_for(U.DOMAIN)


@njit(cache=True)
def _step_two_args(s, a):
    return 0.0


def _plain_legal(s, out):
    return 0


@pytest.mark.parametrize("change,message", [
    ({"step": None}, "compiled domain 'user_connect4': field 'step' is missing (an @njit function "
                     "step(s, a, rng_state))"),
    ({"step": _step_two_args}, "field 'step' must take (s, a, rng_state); _step_two_args takes (s, a)"),
    ({"legal": _plain_legal}, "field 'legal' must be a numba @njit function, got function"),
    ({"n_actions": 0}, "field 'n_actions' must be an int >= 1, got 0"),
    ({"initial_state": 3}, "field 'initial_state' must be callable, got int"),
])
def test_broken_domain_is_one_line_naming_the_field(change, message):
    bad = replace(U.DOMAIN, **change)
    with pytest.raises(ValueError) as err:
        compiled.search(bad, None, 10)
    text = str(err.value)
    assert message in text and "\n" not in text


@njit(cache=True)
def _legal_float(s, out):
    out[0] = 0
    return 1.5


@njit(cache=True)
def _evaluate_text(s):
    return "draw"


def test_wrong_return_types_are_one_line_naming_the_field():
    bad = replace(U.DOMAIN, name="bad_legal", legal=_legal_float)
    with pytest.raises(ValueError) as err:
        compiled.search(bad, None, 10)
    assert str(err.value) == ("compiled domain 'bad_legal': field 'legal' returned 1.5; the protocol needs the "
                              "number of legal actions written to out (an int in 0..7)")
    # found when the kernel compiles: numba's typing error becomes one line naming the field
    bad = replace(U.DOMAIN, name="bad_evaluate", evaluate=_evaluate_text)
    with pytest.raises(ValueError) as err:
        compiled.search(bad, None, 10, depth=3)
    assert str(err.value) == ("compiled domain 'bad_evaluate': field 'evaluate' returns Literal[str](draw); "
                              "the protocol needs a number or bool")


def test_not_a_domain_and_unknown_name():
    with pytest.raises(ValueError, match="not a playout.mcts.CompiledDomain: dict"):
        compiled.search({"legal": None})
    with pytest.raises(ValueError, match="no compiled path for domain 'chess'; known: connect4, gridworld"):
        compiled.search("chess")


def test_kernel_module_imports_no_domain():
    code = ("import sys, playout.mcts.compiled, playout.mcts.compiled_domain; "
            "print([m for m in sys.modules if m.startswith('playout.domains')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _solve(*args, cwd=None):
    r = subprocess.run([sys.executable, "-m", "playout.cli", "solve", *args], capture_output=True, text=True,
                       cwd=cwd)
    return r


def test_cli_solves_a_user_compiled_domain_by_file_and_by_module():
    import inspect

    by_file = json.loads(_solve(str(DATA / "user_connect4.py") + ":DOMAIN", "-n", "800", "--seed", "4",
                                "--json").stdout)
    by_module = json.loads(_solve("user_connect4:DOMAIN", "-n", "800", "--seed", "4", "--json", cwd=DATA).stdout)
    st = by_file["settings"]
    assert (st["discount"], st["depth"]) == (0.7, 800)  # the domain's own defaults
    kw = {k: st[k] for k in ("c", "discount", "depth")}
    if "exploration" in st and "exploration" in inspect.signature(compiled.search).parameters:
        kw["exploration"] = st["exploration"]
    builtin = compiled.search("connect4", None, 800, seed=4, **kw)  # the built-in, same settings
    for got in (by_file, by_module):
        assert got["settings"] == st
        assert got["action"] == str(builtin.action + 1)  # the user's action_name: columns 1-7
        assert [(s["visits"], s["mean_reward"]) for s in got["stats"]] == \
               [(s.visits, s.mean_reward) for s in builtin.stats]


def test_cli_broken_compiled_domain_is_one_line(tmp_path):
    (tmp_path / "broken.py").write_text(
        "from playout.mcts import CompiledDomain\n"
        "from user_connect4 import legal, is_terminal, to_play, initial_state\n"
        "DOMAIN = CompiledDomain('broken', 7, legal=legal, step=None, is_terminal=is_terminal,\n"
        "                        to_play=to_play, initial_state=initial_state)\n")
    import os

    env = dict(os.environ, PYTHONPATH=str(DATA))
    r = subprocess.run([sys.executable, "-m", "playout.cli", "solve", "broken.py:DOMAIN"], capture_output=True,
                       text=True, cwd=tmp_path, env=env)
    assert r.returncode == 2
    assert "compiled domain 'broken': field 'step' is missing" in r.stderr
    assert "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "playout.cli", "play", str(DATA / "user_connect4.py") + ":DOMAIN"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "is a compiled domain; playout play needs a playout.mdp.MDP" in r.stderr


def test_state_must_be_one_dimensional():
    with pytest.raises(ValueError, match="1-D int64 array, got shape"):
        compiled.search(U.DOMAIN, np.zeros((2, 52), dtype=np.int64), 10)


def test_an_edited_domain_drops_the_caches_of_its_earlier_versions():
    kernel = compiled.kernel_for(U.DOMAIN)
    folder = Path(kernel._cache._cache_path)
    name = kernel.py_func.__name__  # _search_kernel_user_connect4_<16 hex digits of its sources>
    assert name.startswith("_search_kernel_user_connect4_") and len(name.rsplit("_", 1)[1]) == 16
    old = [folder / f"compiled._search_kernel_user_connect4_{'0' * 16}-93.py311.nbi",
           folder / f"compiled._search_kernel_user_connect4_{'0' * 16}-93.py311.1.nbc"]
    keep = [folder / f"compiled._search_kernel_user_connect4_bits_{'0' * 16}-93.py311.nbi",  # another domain
            folder / f"compiled.{name}-93.py311.nbi.keep"]
    try:
        for f in old + keep:
            f.write_bytes(b"")
        assert compiled._drop_superseded_caches(kernel) == 2
        assert not any(f.exists() for f in old) and all(f.exists() for f in keep)
    finally:
        for f in old + keep:
            f.unlink(missing_ok=True)


def test_builtins_found_by_entry_point_without_importing_the_domains_package():
    """The core finds the built-ins through the ``playout.compiled_domains`` entry points
    (pyproject.toml), as it would a user's installed package: no import of playout.domains."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from playout.mcts import compiled_domain as cd\n"
            "print(cd.registered())\n"
            "print('playout.domains' in sys.modules)\n"
            "d = cd.lookup('connect4')\n"
            "print(d.name, d.n_actions)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == str(["connect4", "gridworld", "push_your_luck", "reversi", "twenty48"])
    assert lines[1] == "False"
    assert lines[2] == "connect4 7"
