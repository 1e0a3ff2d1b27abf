"""The domain registry: names, anchor settings, factories, render/action_name on each."""

from __future__ import annotations

import random

import pytest

from playout.domains import DOMAINS, DomainSpec, UnknownDomain, get_domain
from playout.mdp import MDP, Game

ANCHOR_SETTINGS = {
    "gridworld": (0.28, 0.95, 999, "generic"),
    "push_your_luck": (0.07, 0.99, 999, "generic"),
    "twenty48": (1.4, 0.9, 999, "generic"),
    "connect4": (1.4, 0.7, 800, "generic"),
    "reversi": (1.4, 0.9, 999, "stateful"),
}


def test_registry_names_and_settings():
    assert set(DOMAINS) == set(ANCHOR_SETTINGS)
    for name, (c, discount, depth, solver) in ANCHOR_SETTINGS.items():
        spec = get_domain(name)
        assert isinstance(spec, DomainSpec) and spec.name == name
        assert (spec.c, spec.discount, spec.depth, spec.solver) == (c, discount, depth, solver)
        assert spec.description


def test_unknown_domain_lists_names():
    with pytest.raises(UnknownDomain) as info:
        get_domain("go9")
    assert isinstance(info.value, KeyError)
    msg = str(info.value)
    assert "'go9'" in msg
    for name in ANCHOR_SETTINGS:
        assert name in msg


def test_spec_is_frozen():
    with pytest.raises(AttributeError):
        get_domain("connect4").c = 2.0  # type: ignore[misc]


@pytest.mark.parametrize("name", sorted(ANCHOR_SETTINGS))
def test_factories_give_fresh_playable_mdps(name):
    spec = get_domain(name)
    mdp = spec.factory()
    assert isinstance(mdp, MDP)
    assert mdp is not spec.factory()
    assert isinstance(mdp, Game) == (name in ("connect4", "reversi"))
    rng = random.Random(0)
    s = mdp.initial_state()
    text = mdp.render(s)
    assert isinstance(text, str) and len(text) >= 20
    for _ in range(10):
        if mdp.is_terminal(s):
            break
        acts = mdp.legal_actions(s)
        for a in acts:
            name_a = mdp.action_name(a)
            assert isinstance(name_a, str) and mdp.parse_action(name_a) == a
        a = rng.choice(acts)
        t = mdp.transition(s, a, rng)
        assert isinstance(mdp.checked_reward(s, a, t), float)
        s = t


def test_twenty48_factory_starts_from_the_demo_grid():
    from playout.domains.twenty48 import DEMO_GRID

    assert get_domain("twenty48").factory().initial_state() == DEMO_GRID
    assert get_domain("gridworld").factory().initial_state() == (2, 2)


def test_reference_modules_import_no_numba():
    """The reference modules stay pure Python: no numba and no ``*_nb`` imports."""
    import ast
    from pathlib import Path

    import playout.domains as pkg

    root = Path(pkg.__file__).parent
    for name in ["__init__", "gridworld", "push_your_luck", "twenty48", "connect4", "reversi"]:
        tree = ast.parse((root / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module or ""] + [a.name for a in node.names]
            else:
                continue
            for m in mods:
                assert "numba" not in m and not m.endswith("_nb"), (name, m)
